import type { Problem } from '../errors.js';
import { folderSchema } from './file-schemas.js';
import { locate, parseYamlFile, posOf, problemAt, type Position } from './yaml-source.js';
import { zodProblems } from './zod-problems.js';

/** The longest folder name the service holds. */
const MAX_FOLDER_NAME_LENGTH = 255;

/**
 * Why the service cannot hold this folder name, or undefined when it can. A directory whose
 * name is fine on disk but not for the service can be renamed with `_folder.yaml` `name:`,
 * which also allows names no file system accepts (a `/`).
 */
export function folderNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'a folder name must not be empty';
  if (name.length > MAX_FOLDER_NAME_LENGTH) return `a folder name must be at most ${MAX_FOLDER_NAME_LENGTH} characters (this one has ${name.length})`;
  // `/` is allowed: the service holds it, and `_folder.yaml` `name:` exists for names a directory
  // cannot have (a directory name never contains one). Only `pull --folder PATH` cannot address it.
  if (name !== name.trim()) return 'a folder name must not start or end with spaces';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'a folder name must not contain control characters';
  return undefined;
}

export interface ParsedFolderFile {
  id?: string;
  name?: string;
  order?: number;
  idPos?: Position;
  namePos?: Position;
}

/** `_folder.yaml` → its overrides, or problems. An empty file is allowed (no overrides). */
export function parseFolderFile(file: string, text: string): { parsed?: ParsedFolderFile; problems: Problem[] } {
  if (text.trim() === '' || /^(\s*#[^\n]*\n?)*\s*$/.test(text)) return { parsed: {}, problems: [] };
  const { parsed: p, problems } = parseYamlFile(file, text, '_folder.yaml');
  if (!p) return { problems };
  const result = folderSchema.safeParse(p.data);
  if (!result.success) return { problems: [...problems, ...zodProblems(p, result.error.issues, folderSchema, 'folder')] };
  const out: ParsedFolderFile = {};
  if (result.data.id !== undefined) {
    out.id = result.data.id;
    out.idPos = posOf(p, locate(p.root, ['id']).node);
  }
  if (result.data.name !== undefined) {
    out.name = result.data.name;
    out.namePos = posOf(p, locate(p.root, ['name']).node);
    const why = folderNameProblem(out.name);
    if (why) {
      problems.push(problemAt(p, out.namePos, 'invalid_folder_name', `${why}: \`${out.name.slice(0, 80)}\``));
      return { problems };
    }
  }
  if (result.data.order !== undefined) out.order = result.data.order;
  return { parsed: out, problems };
}
