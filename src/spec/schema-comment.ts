import { posix, sep } from 'node:path';

export type SchemaKind = 'config' | 'test-case' | 'step-group' | 'folder';

export const SCHEMA_FILES: Record<SchemaKind, string> = {
  config: 'config.schema.json',
  'test-case': 'test-case.schema.json',
  'step-group': 'step-group.schema.json',
  folder: 'folder.schema.json',
};

/**
 * The `yaml-language-server: $schema=…` modeline (without `#`) for a file of the repository.
 *
 * It points at `node_modules/tmsync/schemas/` through a path relative to the file (that is how
 * yaml-language-server resolves a relative modeline): teams install tmsync as a dev dependency
 * of the tests repository, and a local path keeps editors working offline and in step with the
 * installed version, where a URL would pin whatever version it names. Without a local install
 * the comment is harmless; editors just find no schema.
 *
 * @param fileFromRoot the file's path relative to the repository root (`cases/A/b.yaml`)
 */
export function schemaComment(kind: SchemaKind, fileFromRoot: string): string {
  const fromDir = posix.dirname(fileFromRoot.split(sep).join('/'));
  const target = `node_modules/tmsync/schemas/${SCHEMA_FILES[kind]}`;
  const rel = posix.relative(fromDir === '.' ? '' : fromDir, target);
  return `yaml-language-server: $schema=${rel}`;
}
