import { access, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parse } from 'yaml';
import { TmsyncError } from '../errors.js';
import type { FileOps } from '../repository/file-ops.js';
import { setYamlFields } from '../repository/index.js';
import { decodeText } from '../repository/text-file.js';
import type { JournalSummary } from './journal.js';

/**
 * Writing ids back into the repository: `id:` at the top of a case or step group file (comments
 * and formatting kept), or `_folder.yaml` for a folder (created when the folder has none).
 */

/** Writes `id` into the file (relative to the repository root). Rejects when it cannot. */
export type WriteBackFn = (file: string, id: string) => Promise<void>;

const FOLDER_FILE = '_folder.yaml';

/**
 * The default write-back: edits the YAML file in place, atomically (see `writeFileAtomic`: never
 * through a link leading outside the repository, never into a read-only file, mode and owner
 * kept, fsynced, the temporary file under `.tmsync/tmp/`).
 */
export function fileWriteBack(root: string, ops?: Partial<FileOps>): WriteBackFn {
  return async (file, id) => {
    const abs = join(root, file);
    if (basename(file) === FOLDER_FILE) {
      // the folder's directory must exist: a folder removed from the repository gets no new file
      await access(dirname(abs));
    } else {
      // never create a case or step group file that is not there any more
      await access(abs);
    }
    try {
      await setYamlFields(abs, { id }, { root, ...(ops ? { ops } : {}) });
    } catch (err) {
      if (err instanceof TmsyncError && ['file_read_only', 'not_a_regular_file', 'invalid_encoding', 'link_outside_repository'].includes(err.code)) {
        // the item exists on the service: say which id the file needs, so nothing is created twice
        throw new TmsyncError(err.code, `${err.message}; add \`id: ${id}\` to ${file} by hand`, {
          hint: err.hint ?? '',
          details: { ...err.details, file, id },
        });
      }
      throw err;
    }
  };
}

/** The `id:` currently written in a YAML file; undefined when the file or the key is missing. */
export async function readWrittenId(root: string, file: string): Promise<string | undefined> {
  let text: string;
  try {
    const decoded = decodeText(await readFile(join(root, file)));
    if (!('decoded' in decoded)) return undefined;
    text = decoded.decoded.text;
  } catch {
    return undefined;
  }
  try {
    const doc = parse(text) as unknown;
    if (doc && typeof doc === 'object' && 'id' in doc) {
      const id = (doc as { id: unknown }).id;
      return id === null || id === undefined ? undefined : String(id);
    }
  } catch {
    // a file that does not parse is reported by the loader, not here
  }
  return undefined;
}

export interface PendingWriteBack {
  key: string;
  file: string;
  id: string;
}

/**
 * Ids a killed or failed run recorded in the journal but may not have written to their files.
 * Only files that have no `id:` yet are returned: an id the user changed since is left alone.
 */
export async function pendingWriteBacks(summary: JournalSummary, root: string): Promise<PendingWriteBack[]> {
  const out: PendingWriteBack[] = [];
  for (const [key, rec] of summary.ids) {
    if (!rec.file || !rec.writeBack) continue;
    const current = await readWrittenId(root, rec.file);
    if (current === undefined) out.push({ key, file: rec.file, id: rec.writeBack });
  }
  return out;
}

/** Writes the pending ids; returns the ones that could not be written, with the reason. */
export async function applyPendingWriteBacks(
  pending: readonly PendingWriteBack[],
  writeBack: WriteBackFn,
): Promise<{ written: PendingWriteBack[]; failed: (PendingWriteBack & { message: string })[] }> {
  const written: PendingWriteBack[] = [];
  const failed: (PendingWriteBack & { message: string })[] = [];
  for (const p of pending) {
    try {
      await writeBack(p.file, p.id);
      written.push(p);
    } catch (err) {
      failed.push({ ...p, message: (err as Error).message });
    }
  }
  return { written, failed };
}
