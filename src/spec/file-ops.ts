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

/** What an operating-system error code means, for people. */
const MEANING: Record<string, { what: string; hint: string }> = {
  ENOSPC: { what: 'no space left on the device', hint: 'free some disk space and run the command again' },
  EDQUOT: { what: 'the disk quota is exceeded', hint: 'free some space within your quota and run the command again' },
  EACCES: { what: 'permission denied', hint: 'check the permissions of the file and its directory' },
  EPERM: { what: 'operation not permitted', hint: 'check the permissions and attributes of the file and its directory' },
  EROFS: { what: 'the file system is read-only', hint: 'write to a writable location, or remount the file system read-write' },
  EIO: { what: 'an input/output error of the device', hint: 'check the disk or the network file system' },
  EISDIR: { what: 'it is a directory', hint: 'give the path of a file' },
  ENOTDIR: { what: 'a part of the path is not a directory', hint: 'check the path' },
  ENOENT: { what: 'no such file or directory', hint: 'check the path' },
  EMFILE: { what: 'too many open files', hint: 'raise the open-file limit (ulimit -n) and run the command again' },
  EBUSY: { what: 'the file is busy', hint: 'close the programs using it and run the command again' },
  EXDEV: { what: 'it is on another file system', hint: 'keep the files on one file system' },
};

/** True for an operating-system error (`code` like `ENOSPC`). */
export function isSystemError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' && /^E[A-Z0-9]+$/.test((err as NodeJS.ErrnoException).code!);
}

/**
 * Turns an operating-system error into an `io_error` that says what happened and to which path
 * (`doing`: "write", "read", "create the directory", …). Anything else comes back unchanged.
 */
export function ioError(err: unknown, doing: string, path?: string): unknown {
  if (err instanceof TmsyncError || !isSystemError(err)) return err;
  const code = err.code!;
  const where = path ?? err.path ?? '';
  const meaning = MEANING[code] ?? { what: err.message, hint: 'check the file system and run the command again' };
  return new TmsyncError('io_error', `cannot ${doing} ${where}: ${meaning.what} (${code})`, {
    hint: meaning.hint,
    details: { errno: code, path: where, ...(err.syscall ? { syscall: err.syscall } : {}) },
    cause: err,
  });
}
