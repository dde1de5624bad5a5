import { join } from 'node:path';
import { fileOps, ioError, type FileOps } from '../repository/file-ops.js';
import { writeFileAtomic } from '../repository/atomic-write.js';
import { parseSyncBase, SYNC_BASE_FILE, SyncBase, type ParsedSyncBase } from './base.js';

/**
 * The sync base's file, `tmsync.base` at the repository root: read and written here, apart from the
 * model (`base.ts`), so that the plan, which compares against the base, loads no file I/O.
 */

/** Reads `tmsync.base` under `root`; a missing file is an empty base (`exists: false`). */
export async function readSyncBase(root: string, project: string, ops?: Partial<FileOps>): Promise<ParsedSyncBase & { exists: boolean; text?: string }> {
  const file = join(root, SYNC_BASE_FILE);
  let text: string;
  try {
    text = (await fileOps(ops).readFile(file)).toString('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { base: new SyncBase(project), notes: [], exists: false };
    throw ioError(err, 'read', SYNC_BASE_FILE);
  }
  return { ...parseSyncBase(text, SYNC_BASE_FILE, project, file), exists: true, text };
}

/**
 * Writes `tmsync.base` under `root` atomically (a whole new file or the old one, never half).
 * `previous`: the file's text as read (`readSyncBase`); when the new text is the same, nothing is
 * written (a pull that changed nothing leaves the file as it was). Returns whether it wrote.
 */
export async function writeSyncBase(root: string, base: SyncBase, ops?: Partial<FileOps>, previous?: string): Promise<boolean> {
  const text = base.serialize();
  if (previous !== undefined && text === previous) return false;
  await writeFileAtomic(join(root, SYNC_BASE_FILE), text, { root, ...(ops ? { ops } : {}) });
  return true;
}
