import { parse } from 'yaml';
import { parseCaseFile, parseStepGroupFile } from './case-file.js';
import { defined } from './documents.js';
import type { ItemFileKind, RepositoryFormat } from './repository-format.js';
import { parseFolderFile } from './folder-file.js';
import { schemaComment, type SchemaKind } from './schema-comment.js';
import { editYamlText } from './yaml-edit.js';
import { renderYaml } from './yaml-render.js';

/** The schema each kind of file names in its `yaml-language-server` modeline. */
const SCHEMA_KIND: Record<ItemFileKind, SchemaKind> = { case: 'test-case', step_group: 'step-group', folder: 'folder' };
/** Keys written as a flow list (`labels: [a, b]`) when short. */
const FLOW_KEYS: Record<ItemFileKind, string[]> = { case: ['labels'], step_group: ['labels'], folder: [] };

/** The memo of {@link schemaCommentOf}: the modeline depends on the directory only. */
const comments = new Map<string, string>();
const MAX_COMMENTS = 10_000;

function schemaCommentOf(kind: ItemFileKind, path: string): string {
  const key = `${kind}\u0000${path.slice(0, path.lastIndexOf('/') + 1)}`;
  let comment = comments.get(key);
  if (comment === undefined) {
    if (comments.size >= MAX_COMMENTS) comments.clear();
    comments.set(key, (comment = schemaComment(SCHEMA_KIND[kind], path)));
  }
  return comment;
}

/**
 * YAML (`.yaml`, `.yml`): the first format of a tests repository. Cases, step groups and
 * `_folder.yaml` files; parsed with positions (`case-file.ts`, `folder-file.ts`), rendered with
 * the schema modeline (`yaml-render.ts`), edited key by key with comments kept (`yaml-edit.ts`).
 */
export const yamlFormat: RepositoryFormat = {
  name: 'yaml',
  extensions: ['.yaml', '.yml'],
  builtIn: true,
  parseCase: parseCaseFile,
  parseStepGroup: parseStepGroupFile,
  parseFolder: parseFolderFile,
  render: (kind, document, options) => renderYaml(defined(document), { schemaComment: schemaCommentOf(kind, options.path) }, FLOW_KEYS[kind]),
  readDocument(text) {
    try {
      const data = parse(text) as unknown;
      return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
    } catch {
      return undefined;
    }
  },
  editDocument: (text, fields, options) => editYamlText(text, fields, options),
};
