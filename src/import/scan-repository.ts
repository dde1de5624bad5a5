import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatFor, holds, isFolderFileName } from '../repository/format.js';
import type { ItemDocument } from '../repository/repository-format.js';
import { decodeTextOrThrow } from '../repository/text-file.js';
import { fastParseYaml } from '../repository/fast-yaml.js';

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
  const format = formatFor(path);
  // the loader's fast read where the file is plain (a re-import reads every file it wrote before)
  return (format.name === 'yaml' ? fastParseYaml(text)?.data : undefined) ?? format.readDocument(text);
}

/** Files read at once while scanning. */
const PARALLEL = 16;

async function scanDir(root: string, rel: string, kind: ScannedFile['kind'], out: ScannedRepository): Promise<void> {
  const entries = (await listDir(join(root, rel))).filter((e) => !e.name.startsWith('.'));
  out.names.set(rel, entries.map((e) => e.name));
  const files = entries.filter((e) => !e.isDir && (kind === 'case' && isFolderFileName(e.name) ? true : holds(e.name, kind)));
  for (let i = 0; i < files.length; i += PARALLEL) {
    const batch = files.slice(i, i + PARALLEL);
    const documents = await Promise.all(batch.map((e) => readDocument(root, `${rel}/${e.name}`)));
    for (const [j, e] of batch.entries()) {
      const document = documents[j];
      if (kind === 'case' && isFolderFileName(e.name)) {
        if (typeof document?.name === 'string') out.folderNames.set(rel, document.name);
      } else if (typeof document?.source === 'string') {
        out.bySource.set(document.source, { path: `${rel}/${e.name}`, kind, document });
      }
    }
  }
  if (kind === 'case') for (const e of entries) if (e.isDir) await scanDir(root, `${rel}/${e.name}`, kind, out);
}

/** Scans the cases and step groups directories (relative to `root`). */
export async function scanRepository(root: string, casesDir: string, stepGroupsDir: string): Promise<ScannedRepository> {
  const out: ScannedRepository = { bySource: new Map(), names: new Map(), folderNames: new Map() };
  await scanDir(root, casesDir, 'case', out);
  await scanDir(root, stepGroupsDir, 'step_group', out);
  return out;
}
