import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import type { LookupKind } from '../model.js';

export type SchemaKind = 'config' | 'test-case' | 'step-group' | 'folder';

const SCHEMA_FILES: Record<SchemaKind, string> = {
  config: 'config.schema.json',
  'test-case': 'test-case.schema.json',
  'step-group': 'step-group.schema.json',
  folder: 'folder.schema.json',
};

/**
 * Where a tests repository keeps tmsync's JSON Schemas, relative to its root (the directory of
 * tmsync.yaml). `init` and `pull` write them there and the `$schema` modelines point there, so
 * editors find them however tmsync is installed (globally, through npx, as a dev dependency, or
 * in a monorepo subfolder whose node_modules is elsewhere): a path into `node_modules/tmsync`
 * breaks in all but one of those layouts, and there is no website to point a URL at. Commit the
 * directory; `tmsync init` and `tmsync pull` write it and refresh it after an upgrade.
 */
export const SCHEMA_DIR = '.tmsync-schemas';

/**
 * The `yaml-language-server: $schema=…` modeline (without `#`) for a file of the repository:
 * a path relative to the file (that is how yaml-language-server resolves a relative modeline)
 * into `SCHEMA_DIR` at the repository root.
 *
 * @param fileFromRoot the file's path relative to the repository root (`cases/A/b.yaml`)
 */
export function schemaComment(kind: SchemaKind, fileFromRoot: string): string {
  const fromDir = posix.dirname(fileFromRoot.split(sep).join('/'));
  const target = `${SCHEMA_DIR}/${SCHEMA_FILES[kind]}`;
  const rel = posix.relative(fromDir === '.' ? '' : fromDir, target);
  return `yaml-language-server: $schema=${rel}`;
}


interface WriteSchemaFilesOptions {
  /**
   * The names of the service's lookup lists: the copies then offer them for completion (still
   * accepting any alias or id), in case files and in `defaults:` of tmsync.yaml
   */
  lookupNames?: Partial<Record<LookupKind, readonly string[]>>;
}

/**
 * Writes (or refreshes) the JSON Schemas of tmsync.yaml, cases, step groups and folders into
 * `<root>/SCHEMA_DIR`, copied from the installed package's `schemas/`. Returns the paths written,
 * relative to `root` and `/`-separated.
 */
export async function writeSchemaFiles(root: string, options: WriteSchemaFilesOptions = {}): Promise<string[]> {
  const source = new URL('../../schemas/', import.meta.url);
  await mkdir(join(root, SCHEMA_DIR), { recursive: true });
  const written: string[] = [];
  for (const [kind, name] of Object.entries(SCHEMA_FILES) as [SchemaKind, string][]) {
    const text = withLookupNames(kind, await readFile(new URL(name, source), 'utf8'), options.lookupNames);
    const dest = join(root, SCHEMA_DIR, name);
    const previous = await readFile(dest, 'utf8').catch(() => undefined);
    if (previous === text) continue;
    await writeFile(dest, text);
    written.push(`${SCHEMA_DIR}/${name}`);
  }
  return written;
}

type JsonSchemaNode = { properties?: Record<string, JsonSchemaNode> } & Record<string, unknown>;

/**
 * A schema file's text with the lookup keys offering the service's names: `anyOf` an `enum` of
 * them (what an editor completes) or any string (an alias or an id is still valid). Unchanged
 * without names, and for the kinds that name no lookup.
 */
export function withLookupNames(kind: SchemaKind, text: string, names: WriteSchemaFilesOptions['lookupNames']): string {
  if (!names || (kind !== 'test-case' && kind !== 'config')) return text;
  const schema = JSON.parse(text) as JsonSchemaNode;
  const props = kind === 'test-case' ? schema.properties : schema.properties?.defaults?.properties;
  if (!props) return text;
  for (const [key, list] of Object.entries(names) as [LookupKind, readonly string[] | undefined][]) {
    const prop = props[key];
    if (!prop || !list || list.length === 0) continue;
    props[key] = { ...prop, anyOf: [{ enum: [...new Set(list)] }, { type: 'string' }] };
  }
  return `${JSON.stringify(schema, null, 2)}\n`;
}
