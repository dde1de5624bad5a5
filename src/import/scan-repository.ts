import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatFor, holds, isFolderFileName } from '../repository/format.js';
import type { ItemDocument } from '../repository/repository-format.js';
import { decodeTextOrThrow } from '../repository/text-file.js';

/**
 * What an import finds in the repository before it writes: every item file with its data (its
 * `source:` is how a re-import finds the file a case came from), every directory with the folder
 * name it stands for, and every file name, so new names never collide.
 */

export interface ScannedFile {
  /** relative to the repository root, `/`-separated */
  path: string;
  kind: 'case' | 'step_group';
  document: ItemDocument;
}

export interface ScannedRepository {
  /** `source:` → the file that holds it */
  bySource: Map<string, ScannedFile>;
  /** directory (relative, `/`-separated) → the names in it (files and directories) */
  names: Map<string, string[]>;
  /** directory → the folder name it stands for (`_folder.yaml` `name:`, else the directory name) */
  folderNames: Map<string, string>;
}

async function listDir(dir: string): Promise<{ name: string; isDir: boolean }[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).map((e) => ({ name: e.name, isDir: e.isDirectory() }));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function readDocument(root: string, path: string): Promise<ItemDocument | undefined> {
  const { text } = decodeTextOrThrow(await readFile(join(root, path)), path);
  return formatFor(path).readDocument(text);
}

async function scanDir(root: string, rel: string, kind: ScannedFile['kind'], out: ScannedRepository): Promise<void> {
  const entries = await listDir(join(root, rel));
  out.names.set(rel, entries.map((e) => e.name));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const path = `${rel}/${e.name}`;
    if (e.isDir) {
      if (kind === 'case') await scanDir(root, path, kind, out);
      continue;
    }
    if (kind === 'case' && isFolderFileName(e.name)) {
      const name = (await readDocument(root, path))?.name;
      if (typeof name === 'string') out.folderNames.set(rel, name);
      continue;
    }
    if (!holds(e.name, kind)) continue;
    const document = await readDocument(root, path);
    const source = document?.source;
    if (typeof source === 'string') out.bySource.set(source, { path, kind, document: document! });
  }
}

/** Scans the cases and step groups directories (relative to `root`). */
export async function scanRepository(root: string, casesDir: string, stepGroupsDir: string): Promise<ScannedRepository> {
  const out: ScannedRepository = { bySource: new Map(), names: new Map(), folderNames: new Map() };
  await scanDir(root, casesDir, 'case', out);
  await scanDir(root, stepGroupsDir, 'step_group', out);
  return out;
}
