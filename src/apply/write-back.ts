import { access, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { TmsyncError } from '../errors.js';
import type { FileOps } from '../repository/file-ops.js';
import { setFileFields } from '../repository/edit-file.js';
import { formatOf, itemRef, splitItemRef } from '../repository/format.js';
import type { ReadOptions } from '../repository/case-file.js';
import { decodeText } from '../repository/text-file.js';
import type { JournalSummary } from './journal.js';

/**
 * Writing ids back into the repository: `id` into a case or step group file (through the file's
 * format, `format.ts`: in YAML `id:` at the top, comments and formatting kept), or into
 * `_folder.yaml` for a folder (created when the folder has none).
 */

/** Writes `id` into the file (relative to the repository root), or into the item `file#at` of a file holding several. Rejects when it cannot. */
export type WriteBackFn = (file: string, id: string) => Promise<void>;

/** The settings file the plan names for a folder that has none (`plan/folders.ts`): created here. */
const NEW_FOLDER_FILE = '_folder.yaml';

/**
 * The default write-back: edits the file in place through its format, atomically (see `writeFileAtomic`: never
 * through a link leading outside the repository, never into a read-only file, mode and owner
 * kept, fsynced, the temporary file under `.tmsync/tmp/`).
 */
export function fileWriteBack(root: string, ops?: Partial<FileOps>, read?: ReadOptions): WriteBackFn {
  // the items of one file holding several get their ids one after the other (each edit reads the file the one before wrote)
  const sameFile = new Map<string, Promise<void>>();
  const write = writeOne(root, ops, read);
  return async (ref, id) => {
    const { file, at } = splitItemRef(ref);
    if (at === undefined) return write(file, undefined, id);
    const mine = (sameFile.get(file) ?? Promise.resolve()).then(() => write(file, at, id));
    const settled = mine.catch(() => undefined);
    sameFile.set(file, settled);
    void settled.then(() => {
      if (sameFile.get(file) === settled) sameFile.delete(file);
    });
    return mine;
  };
}

function writeOne(root: string, ops: Partial<FileOps> | undefined, read: ReadOptions | undefined): (file: string, at: string | undefined, id: string) => Promise<void> {
  return async (file, at, id) => {
    const abs = join(root, file);
    if (basename(file) === NEW_FOLDER_FILE) {
      // the folder's directory must exist: a folder removed from the repository gets no new file
      await access(dirname(abs));
    } else {
      // never create a case or step group file that is not there any more
      await access(abs);
    }
    try {
      await setFileFields(abs, { id }, { root, ...(ops ? { ops } : {}), ...(at !== undefined ? { at } : {}), ...(read ? { read } : {}) });
    } catch (err) {
      if (err instanceof TmsyncError && ['file_read_only', 'not_a_regular_file', 'invalid_encoding', 'link_outside_repository'].includes(err.code)) {
        // the item exists on the service: say which id the file needs, so nothing is created twice
        const how = at === undefined ? `add \`id: ${id}\` to ${file}` : `give the item ${itemRef(file, at)} the id ${id} (in a .feature file, a tag @${id} with gherkin.id_tag_prefix before it)`;
        throw new TmsyncError(err.code, `${err.message}; ${how} by hand`, {
          hint: err.hint ?? '',
          details: { ...err.details, file, id },
        });
      }
      throw err;
    }
  };
}

/** The `id` currently written in a file (read by its format); undefined when the file or the key is missing. */
export async function readWrittenId(root: string, ref: string, read?: ReadOptions): Promise<string | undefined> {
  const { file, at } = splitItemRef(ref);
  const format = formatOf(file);
  if (!format) return undefined;
  let text: string;
  try {
    const decoded = decodeText(await readFile(join(root, file)));
    if (!('decoded' in decoded)) return undefined;
    text = decoded.decoded.text;
  } catch {
    return undefined;
  }
  // a file that does not parse is reported by the loader, not here
  const id = format.readDocument(text, { file, ...(at !== undefined ? { at } : {}), ...(read ? { read } : {}) })?.id;
  return id === null || id === undefined ? undefined : String(id);
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
export async function pendingWriteBacks(summary: JournalSummary, root: string, read?: ReadOptions): Promise<PendingWriteBack[]> {
  const out: PendingWriteBack[] = [];
  for (const [key, rec] of summary.ids) {
    if (!rec.file || !rec.writeBack) continue;
    const current = await readWrittenId(root, rec.file, read);
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
