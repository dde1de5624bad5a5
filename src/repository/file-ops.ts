import type { Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
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

export const nodeFileOps: FileOps = {
  open: fsp.open,
  readFile: (path) => fsp.readFile(path),
  rename: fsp.rename,
  unlink: fsp.unlink,
  mkdir: fsp.mkdir,
  stat: fsp.stat,
  lstat: fsp.lstat,
  realpath: (path) => fsp.realpath(path),
  readdir: (path) => fsp.readdir(path),
  chmod: fsp.chmod,
  chown: fsp.chown,
};

export const fileOps = (over?: Partial<FileOps>): FileOps => (over ? { ...nodeFileOps, ...over } : nodeFileOps);

export { ioError, isSystemError } from '../errors.js';

/** What a non-regular file system entry is, in words. */
export function entryKind(st: Stats): string {
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
