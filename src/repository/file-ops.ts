import * as fsp from 'node:fs/promises';

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
