import type { Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { TmsyncError } from '../errors.js';

/**
 * The file system calls tmsync writes the repository (and backups) with. Production uses
 * node:fs; tests inject failures (ENOSPC, EROFS, EACCES at a chosen call) through a partial
 * replacement, as those conditions cannot be made for real without root-only mounts.
 */
export interface FileOps {
  open: typeof fsp.open;
  readFile: (path: string) => Promise<Buffer>;
  rename: typeof fsp.rename;
  unlink: typeof fsp.unlink;
  mkdir: typeof fsp.mkdir;
  stat: typeof fsp.stat;
  lstat: typeof fsp.lstat;
  realpath: (path: string) => Promise<string>;
  readdir: (path: string) => Promise<string[]>;
  chmod: typeof fsp.chmod;
  chown: typeof fsp.chown;
}

/**
 * `mkdir -p` that reports the real cause. Node's recursive mkdir, when the first directory it must
 * create cannot be made (a read-only file system: EROFS), looks at the path afterwards and reports
 * what it finds there: ENOENT, "no such file or directory", the very thing it was asked to create.
 * On ENOENT the first missing directory is made on its own, which fails with the real error (or
 * succeeds, when the cause has gone meanwhile, and the rest is made as asked).
 */
export async function makeDirectory(path: string, mkdir: typeof fsp.mkdir = fsp.mkdir, stat: typeof fsp.stat = fsp.stat): Promise<void> {
  try {
    await mkdir(path, { recursive: true });
    return;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    let missing = resolve(path);
    for (;;) {
      const up = dirname(missing);
      if (up === missing) throw err;
      const there = await stat(up).then(
        () => true,
        () => false,
      );
      if (there) break;
      missing = up;
    }
    await mkdir(missing);
  }
  await mkdir(path, { recursive: true });
}

const nodeFileOps: FileOps = {
  open: fsp.open,
  readFile: (path) => fsp.readFile(path),
  rename: fsp.rename,
  unlink: fsp.unlink,
  // recursive creations name the real cause of a failure (see `makeDirectory`)
  mkdir: (async (path: Parameters<typeof fsp.mkdir>[0], options?: Parameters<typeof fsp.mkdir>[1]) => {
    if (typeof options === 'object' && options?.recursive) {
      await makeDirectory(String(path));
      return undefined;
    }
    return fsp.mkdir(path, options);
  }) as typeof fsp.mkdir,
  stat: fsp.stat,
  lstat: fsp.lstat,
  realpath: (path) => fsp.realpath(path),
  readdir: (path) => fsp.readdir(path),
  chmod: fsp.chmod,
  chown: fsp.chown,
};

export const fileOps = (over?: Partial<FileOps>): FileOps => (over ? { ...nodeFileOps, ...over } : nodeFileOps);

export { ioError } from '../errors.js';

/** What a non-regular file system entry is, in words. */
function entryKind(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The refusal to replace `shown`, which exists and is not a regular file: an atomic write renames
 * a new file over the path, which would replace the device, pipe or directory itself (and write
 * nothing to the device).
 */
export function notRegularFileError(shown: string, st: Stats, hint: string): TmsyncError {
  return new TmsyncError('not_a_regular_file', `${shown} is ${entryKind(st)}, not a regular file; tmsync writes only regular files and does not replace it`, {
    hint,
    details: { file: shown, kind: entryKind(st).replace(/^an? /, '') },
  });
}
