import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Writable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { ioError, notRegularFileError } from '../repository/file-ops.js';
import type { BackupCounts, BackupSection } from './backup-format.js';
import type { BackupSource } from './backup-source.js';
import { readAhead, type ReadAhead } from '../streams.js';

/**
 * Writes a backup as a stream: the header, then each section's items as the source yields
 * them, then an `end` record with the counts. One item a line, so the file diffs and greps well
 * and a reader can tell where it was cut.
 */

interface WriteBackupOptions {
  /** called after every item written */
  onProgress?: (section: BackupSection, count: number) => void;
  signal?: AbortSignal;
  /** opens the file stream (tests inject a disk that fills up) @default node:fs createWriteStream */
  createWriteStream?: (path: string) => Writable;
  /**
   * Items of each later section read while an earlier one is written (the sections are
   * independent reads: their first requests go out at once instead of after the section before
   * ends). Small, so memory stays flat. @default 8
   */
  sectionReadAhead?: number;
}

async function put(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

export async function writeBackup(source: BackupSource, out: Writable, options: WriteBackupOptions = {}): Promise<BackupCounts> {
  // every section starts reading now, each a few items ahead of the writer, so the source's
  // requests overlap: a section's first page is there when its turn comes
  const limit = Math.max(1, options.sectionReadAhead ?? 8);
  const headerP = source.header();
  headerP.catch(() => undefined); // awaited first thing below; a failure elsewhere must not leave it unhandled
  const sections: [BackupSection, ReadAhead<unknown>][] = [
    ['folders', readAhead(() => source.folders(), limit)],
    ['step_groups', readAhead(() => source.stepGroups(), limit)],
    ['test_cases', readAhead(() => source.testCases(), limit)],
    ['test_plans', readAhead(() => source.testPlans(), limit)],
    ['test_runs', readAhead(() => source.testRuns(), limit)],
  ];
  try {
    const header = await headerP;
    let head = '{\n';
    for (const [key, value] of Object.entries(header)) head += `${JSON.stringify(key)}: ${JSON.stringify(value)},\n`;
    await put(out, head);
    const counts: BackupCounts = { folders: 0, step_groups: 0, test_cases: 0, test_plans: 0, test_runs: 0 };
    for (const [name, items] of sections) {
      await put(out, `${JSON.stringify(name)}: [`);
      let n = 0;
      for await (const item of items) {
        options.signal?.throwIfAborted();
        await put(out, `${n === 0 ? '\n' : ',\n'}${JSON.stringify(item)}`);
        n += 1;
        options.onProgress?.(name, n);
      }
      counts[name] = n;
      await put(out, n === 0 ? '],\n' : '\n],\n');
    }
    await put(out, `"end": ${JSON.stringify({ counts })}\n}\n`);
    return counts;
  } finally {
    // a failure stops the sections still reading ahead
    for (const [, items] of sections) items.stop();
  }
}

/**
 * The path a backup is renamed to: a symbolic link is followed (the link stays, its target gets
 * the backup), and anything there that is not a regular file is refused before anything is
 * read or written (the rename would replace `/dev/null`, a pipe or a directory).
 */
async function backupTarget(file: string): Promise<string> {
  let st;
  try {
    st = await stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return file;
    throw ioError(err, 'read', file);
  }
  if (!st.isFile()) {
    throw notRegularFileError(file, st, 'backup writes a regular file: give --out a new file name (or an existing backup to replace), and copy the file from there');
  }
  try {
    return await realpath(file);
  } catch (err) {
    throw ioError(err, 'read', file);
  }
}

/**
 * Writes a backup to `file` (gzip when it ends in `.gz`) through a temporary file renamed into
 * place at the end, so an interrupted backup never leaves a file that looks whole. A target that
 * exists and is not a regular file is refused first (`not_a_regular_file`).
 */
export async function writeBackupFile(source: BackupSource, given: string, options: WriteBackupOptions = {}): Promise<BackupCounts> {
  const file = await backupTarget(given);
  try {
    await mkdir(dirname(file), { recursive: true });
  } catch (err) {
    throw ioError(err, 'create the directory', dirname(file));
  }
  const tmp = `${file}.partial`;
  const fileStream = (options.createWriteStream ?? createWriteStream)(tmp);
  const gzip = /\.gz$/i.test(file) ? createGzip() : undefined;
  if (gzip) gzip.pipe(fileStream);
  const out: Writable = gzip ?? fileStream;
  const failed = new Promise<never>((_, reject) => {
    fileStream.once('error', reject);
    gzip?.once('error', reject);
  });
  failed.catch(() => undefined);
  try {
    const counts = await Promise.race([writeBackup(source, out, options), failed]);
    out.end();
    await Promise.race([once(fileStream, 'close'), failed]);
    await rename(tmp, file);
    return counts;
  } catch (err) {
    out.destroy();
    fileStream.destroy();
    await unlink(tmp).catch(() => undefined);
    // a full disk or a read-only file system is what it is, not a bug: say so, with the path
    throw ioError(err, 'write the backup', file);
  }
}
