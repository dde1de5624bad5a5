import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile as writeFileCallback, type Stats } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { TmsyncError } from '../errors.js';
import { fileOps, ioError, notRegularFileError, type FileOps } from './file-ops.js';
import { isInside, processGone } from './walk.js';

/**
 * Durable writing of repository files, whatever their format: one file (`writeFileAtomic`) or a
 * batch (`writeFilesAtomic`), each read old or new, never a part.
 */

export interface WriteFileOptions {
  /**
   * The repository root. When given, the write must end inside it (a path through a symbolic
   * link leading out is refused, `link_outside_repository`), and the temporary file goes to
   * `<root>/.tmsync/tmp/`, which a `.gitignore` there hides from `git add --all`.
   */
  root?: string;
  /** file system calls (tests inject failures) */
  ops?: Partial<FileOps>;
  /**
   * Shared by the writes of one batch (a pull's thousands of files): the repository root, its
   * real path, the temporary directory and each file's directory are made and resolved once
   * instead of once a file. Every file keeps its own checks (links, read-only, not a regular
   * file), its fsync and its rename. @default none (each write prepares everything itself)
   */
  session?: WriteSession;
}

/** What the writes of one batch prepare once; see {@link createWriteSession}. */
export interface WriteSession {
  readonly once: Map<string, Promise<unknown>>;
}

/** A {@link WriteSession} for a batch of writes under one root that nothing else moves meanwhile. */
export function createWriteSession(): WriteSession {
  return { once: new Map() };
}

/** `make()` once per key in the session, every time without one. */
function once<T>(session: WriteSession | undefined, key: string, make: () => Promise<T>): Promise<T> {
  if (!session) return make();
  let p = session.once.get(key) as Promise<T> | undefined;
  if (!p) {
    p = make();
    p.catch(() => undefined); // observed by every caller that awaits it
    session.once.set(key, p);
  }
  return p;
}

/** Where temporary files go, under the repository root; git-ignored by a `.gitignore` of its own. */
export const TEMP_DIR = '.tmsync/tmp';

export const shownPath = (file: string, root?: string) => (root ? relative(root, file).split(sep).join('/') || file : file);

/**
 * The path a write of `file` ends at: symbolic links resolved, so a link inside the repository
 * stays a link and its target is written. Refuses a path that leads outside `root`, and a link
 * whose target is missing.
 */
export async function resolveWriteTarget(file: string, root: string | undefined, ops: FileOps, session?: WriteSession): Promise<string> {
  return (await resolveTarget(file, root, ops, session)).target;
}

/** {@link resolveWriteTarget}, and whether the file is missing (so no one needs to stat it again). */
async function resolveTarget(file: string, root: string | undefined, ops: FileOps, session?: WriteSession): Promise<{ target: string; missing: boolean }> {
  const abs = resolve(file);
  // a path that leaves the repository by itself (`..`, an absolute path): no link is involved, so
  // the refusal says what the path is before any link is looked at
  if (root !== undefined && !isInside(resolve(root), abs)) {
    const shown = shownPath(abs, resolve(root));
    throw new TmsyncError('path_outside_repository', `${shown} is outside the repository (the path itself leads out of ${resolve(root)}); tmsync never writes outside it`, {
      hint: 'give a path inside the repository (a path read from the apply journal or a saved plan that leads out of it was edited there, or comes from another checkout)',
      details: { file: shown },
    });
  }
  let existing = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      await ops.lstat(existing);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(err, 'read', existing);
      const up = dirname(existing);
      if (up === existing) break;
      rest.unshift(basename(existing));
      existing = up;
    }
  }
  let real: string;
  try {
    // a directory's real path is resolved once a session (the files of a batch share a few)
    real = await (rest.length > 0 ? once(session, `realpath:${existing}`, () => ops.realpath(existing)) : ops.realpath(existing));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new TmsyncError('link_dangling', `${shownPath(existing, root)} is a symbolic link to a missing file; tmsync does not write through it`, {
        hint: 'remove the link or restore its target',
        details: { file: shownPath(existing, root) },
      });
    }
    throw ioError(err, 'read', existing);
  }
  const target = join(real, ...rest);
  if (root !== undefined) {
    const rootReal = await once(session, `realpath:${resolve(root)}`, () => ops.realpath(resolve(root)));
    if (!isInside(rootReal, target)) {
      throw new TmsyncError(
        'link_outside_repository',
        `${shownPath(abs, resolve(root))} leads outside the repository through a symbolic link (to ${target}); tmsync never writes through it`,
        { hint: 'replace the link by a copy of the file, or move its target into the repository', details: { file: shownPath(abs, resolve(root)), target } },
      );
    }
  }
  return { target, missing: rest.length > 0 };
}

/** `<root>/.tmsync/tmp/`, created with a `.gitignore` of `*` (so git never sees a temporary file). */
async function tempDir(root: string, ops: FileOps): Promise<string> {
  const dir = join(root, TEMP_DIR);
  await ops.mkdir(dir, { recursive: true });
  const ignore = join(dir, '.gitignore');
  try {
    const fh = await ops.open(ignore, 'wx');
    try {
      await fh.writeFile('# temporary files of tmsync: never committed\n*\n');
    } finally {
      await fh.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return dir;
}

/** Writes and fsyncs a new file (exclusive create); the caller removes it when anything fails. */
async function writeNewFile(ops: FileOps, path: string, content: string | Uint8Array, sync = true): Promise<void> {
  const fh = await ops.open(path, 'wx');
  try {
    await fh.writeFile(content);
    // the data is on the disk before the rename makes it the file: a crash leaves old or new
    if (sync) await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Gives the new file the mode, owner and group of the one it replaces (owner: only where allowed). */
async function keepModeAndOwner(ops: FileOps, tmp: string, before: Stats | undefined): Promise<void> {
  if (!before) return;
  await ops.chmod(tmp, before.mode & 0o7777);
  const now = await ops.stat(tmp);
  if (now.uid !== before.uid || now.gid !== before.gid) {
    // only root may give a file away; another user keeps what they can (the mode)
    await ops.chown(tmp, before.uid, before.gid).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPERM') throw err;
    });
  }
}

/**
 * Writes a file so readers see the old or the new content, never a part:
 * - the path is resolved first: a link inside the repository is kept and its target written, a
 *   path leading outside `options.root` is refused;
 * - a read-only file is refused (`file_read_only`), as its owner asked it not to change, and so
 *   is a path that is not a regular file (`not_a_regular_file`: a directory, a pipe, a device),
 *   which the rename would replace;
 * - the content goes to a temporary file (under `<root>/.tmsync/tmp/`, or hidden next to the
 *   file without a root or on another file system), is fsynced, given the mode and owner of the
 *   file it replaces, and renamed over it.
 * Operating-system failures come back as `io_error` naming the path.
 */
export async function writeFileAtomic(file: string, content: string | Uint8Array, options: WriteFileOptions = {}): Promise<void> {
  const ops = fileOps(options.ops);
  const root = options.root === undefined ? undefined : resolve(options.root);
  const { shown, target, before } = await prepareWrite(file, root, ops, options.session);
  const session = options.session;
  const dir = dirname(target);
  const unique = `${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  let tmp: string | undefined;
  try {
    await once(session, `mkdir:${dir}`, () => ops.mkdir(dir, { recursive: true }));
    tmp = root !== undefined ? join(await sessionTempDir(root, ops, session), `${basename(target)}.${unique}`) : join(dir, `.${basename(target)}.${unique}`);
    await writeNewFile(ops, tmp, content);
    await keepModeAndOwner(ops, tmp, before);
    try {
      await ops.rename(tmp, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // the temporary directory is on another file system than the file: write next to it
      await ops.unlink(tmp).catch(() => undefined);
      tmp = join(dir, `.${basename(target)}.${unique}`);
      await writeNewFile(ops, tmp, content);
      await keepModeAndOwner(ops, tmp, before);
      await ops.rename(tmp, target);
    }
    // no fsync of the directory: it costs more than the file's own on ext4 (docs/performance.md,
    // "Writing"), and a crash right after the rename leaves the old content intact, for the next run
    tmp = undefined;
  } catch (err) {
    if (tmp !== undefined) await ops.unlink(tmp).catch(() => undefined);
    throw ioError(err, 'write', shown);
  }
}

/** The checks every write makes before it writes anything (see {@link writeFileAtomic}). */
async function prepareWrite(
  file: string,
  root: string | undefined,
  ops: FileOps,
  session: WriteSession | undefined,
): Promise<{ shown: string; target: string; before: Stats | undefined }> {
  const shown = shownPath(resolve(file), root);
  if (root !== undefined) {
    await once(session, `mkdir:${root}`, () => ops.mkdir(root, { recursive: true })).catch((err: unknown) => Promise.reject(ioError(err, 'create the directory', root)));
  }
  const { target, missing } = await resolveTarget(file, root, ops, session);
  let before: Stats | undefined;
  try {
    // a path found missing is missing through its real directory too
    if (!missing) before = await ops.stat(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw ioError(err, 'read', shown);
  }
  if (before && !before.isFile()) {
    throw notRegularFileError(shown, before, 'move it away, or point the command at another path');
  }
  if (before && (before.mode & 0o222) === 0) {
    throw new TmsyncError('file_read_only', `${shown} is read-only; tmsync does not change it`, {
      hint: 'make it writable (chmod u+w) and run the command again, or make the change by hand',
      details: { file: shown },
    });
  }
  return { shown, target, before };
}

function sessionTempDir(root: string, ops: FileOps, session: WriteSession | undefined): Promise<string> {
  return once(session, `temp:${root}`, async () => tempDir(await ops.realpath(root), ops));
}

/**
 * `<root>/.tmsync/tmp/` through the root's real path, made (with its `.gitignore`) once a session:
 * where a batch's temporary files and directories go.
 */
export function repositoryTempDir(root: string, options: { ops?: Partial<FileOps>; session?: WriteSession } = {}): Promise<string> {
  return sessionTempDir(resolve(root), fileOps(options.ops), options.session);
}

interface WriteFilesOptions extends WriteFileOptions {
  /** files in flight at once @default 32 */
  parallel?: number;
  /**
   * Flushes every file of the file system holding `dir` to the disk at once; answers false when it
   * cannot (each file is then fsynced on its own). @default `sync -f DIR` (syncfs(2)) on Linux
   */
  syncFileSystem?: (dir: string) => Promise<boolean>;
  /**
   * A temporary file already holding exactly `content` (written earlier by {@link stageTempFile}
   * with this root), taken instead of writing the content again; undefined: none.
   */
  staged?: (content: string | Uint8Array) => string | undefined;
}

/**
 * Writes `content` to a new temporary file under `<root>/.tmsync/tmp/`, not flushed, and returns
 * its path: a file of a later {@link writeFilesAtomic} (its `staged`), written ahead of it, while
 * the content is still being gathered. The caller removes the file when it is not used.
 */
export async function stageTempFile(root: string, content: string | Uint8Array, options: { ops?: Partial<FileOps>; session?: WriteSession; name?: string } = {}): Promise<string> {
  const ops = fileOps(options.ops);
  const tmp = join(await sessionTempDir(resolve(root), ops, options.session), `${options.name ?? 'staged'}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  await writeStagedFile(tmp, content, options.ops);
  return tmp;
}

/**
 * Writes a new file (`wx`: never over one that exists), not flushed: a staged file, flushed later
 * with the others. A failed write removes what it made (not a file that was there before: EEXIST).
 */
export async function writeStagedFile(path: string, content: string | Uint8Array, custom?: Partial<FileOps>): Promise<void> {
  const ops = fileOps(custom);
  try {
    if (custom?.open) await writeNewFile(ops, path, content, false);
    // without a file handle object: for thousands of small files, the handles' own cost is the larger part
    else await new Promise<void>((done, fail) => writeFileCallback(path, content, { flag: 'wx' }, (err) => (err ? fail(err) : done())));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await ops.unlink(path).catch(() => undefined);
    throw err;
  }
}

/** `sync -f DIR`: one syncfs(2) for the whole file system; false where it is missing or fails. */
export function syncFileSystem(dir: string): Promise<boolean> {
  if (process.platform !== 'linux') return Promise.resolve(false);
  return new Promise((done) => {
    execFile('sync', ['-f', dir], { timeout: 120_000 }, (err) => done(err === null));
  });
}

/**
 * Writes many files with the guarantees of {@link writeFileAtomic} (each reads old or new, never a
 * part; the same checks and errors), with the cost of durability paid once instead of once a file:
 * every content goes to its temporary file first, all of them are flushed to the disk together
 * (one syncfs, or else one fsync each), and only then renamed into place. A failure before the
 * renames leaves no file written and no temporary file; a failure during them leaves whole files
 * (run again). `content` may be a function: each file is rendered as its turn comes. Without a
 * root each file is written by {@link writeFileAtomic}.
 */
export async function writeFilesAtomic(
  files: readonly BatchFile[],
  options: WriteFilesOptions = {},
): Promise<void> {
  const parallel = options.parallel ?? 32;
  const session = options.session ?? createWriteSession();
  const single: WriteFileOptions = { ...(options.root !== undefined ? { root: options.root } : {}), ...(options.ops ? { ops: options.ops } : {}), session };
  if (options.root === undefined) {
    await limit(files, parallel, (f) => writeFileAtomic(f.file, contentOf(f.content), single));
    return;
  }
  const root = resolve(options.root);
  const batch: Batch = { root, ops: fileOps(options.ops), session, parallel, options, single, staged: [], listed: new Map(), asked: new Set() };
  try {
    // files whose content found no staged temporary file already
    const rest = options.staged ? await takeStaged(batch, files, options.staged) : files;
    await limit(rest, parallel, (f) => writeTemp(batch, f));
    await flushAndRename(batch);
  } catch (err) {
    await Promise.all(batch.staged.map((e) => (e.tmp === undefined ? undefined : batch.ops.unlink(e.tmp).catch(() => undefined))));
    throw err;
  }
}

/** One file of {@link writeFilesAtomic}: its content, or what renders it when its turn comes. */
type BatchFile = { file: string; content: string | Uint8Array | (() => string | Uint8Array) };
const contentOf = (c: BatchFile['content']) => (typeof c === 'function' ? c() : c);

/**
 * A directory of the batch resolved once (its real path, inside the root) with what it already
 * holds, named as macOS and Windows compare names: a file whose name is not there is known to be
 * new without a look of its own; any other file, and every file of a directory that cannot be
 * listed so, gets the checks of a single write (and their errors).
 */
type Listing = { real: string; names: Set<string> } | undefined;

/** A file of the batch on its way: its temporary file until it is renamed into place. */
interface StagedEntry {
  file: string;
  shown: string | undefined;
  target: string;
  content: string | Uint8Array;
  tmp: string | undefined;
}

/** What the steps of one {@link writeFilesAtomic} share. */
interface Batch {
  root: string;
  ops: FileOps;
  session: WriteSession;
  parallel: number;
  options: WriteFilesOptions;
  single: WriteFileOptions;
  staged: StagedEntry[];
  listed: Map<string, Listing>;
  /** files whose content found no staged temporary file already */
  asked: Set<object>;
}

/** How errors name a file (worked out only for one). */
const shownOf = (batch: Batch, e: { file: string; shown: string | undefined }) => e.shown ?? shownPath(resolve(e.file), batch.root);

async function listing(batch: Batch, dir: string): Promise<Listing> {
  if (batch.listed.has(dir)) return batch.listed.get(dir);
  const { root, ops, session } = batch;
  const got = await once(session, `list:${dir}`, async () => {
    await once(session, `mkdir:${root}`, () => ops.mkdir(root, { recursive: true }));
    const { target, missing } = await resolveTarget(dir, root, ops, session);
    if (missing) return { real: target, names: new Set<string>() };
    if (!(await ops.stat(target)).isDirectory()) return undefined;
    return { real: target, names: new Set((await ops.readdir(target)).map(foldName)) };
  }).catch(() => undefined);
  batch.listed.set(dir, got);
  return got;
}

/**
 * The directories first (a few), then every new file with a staged temporary file in one pass,
 * without a turn of its own; returns the others, for {@link writeTemp}.
 */
async function takeStaged(batch: Batch, files: readonly BatchFile[], stagedFor: NonNullable<WriteFilesOptions['staged']>): Promise<BatchFile[]> {
  const { ops, session, parallel } = batch;
  const dirOf = files.map((f) => dirname(resolve(f.file)));
  await limit([...new Set(dirOf)], parallel, async (d) => void (await listing(batch, d)));
  const later: BatchFile[] = [];
  const made = new Map<string, StagedEntry>();
  for (const [i, f] of files.entries()) {
    const known = batch.listed.get(dirOf[i]);
    const base = basename(f.file);
    if (!known || known.names.has(foldName(base))) {
      later.push(f);
      continue;
    }
    const content = contentOf(f.content);
    const ready = stagedFor(content);
    if (ready === undefined) {
      const again = { file: f.file, content };
      batch.asked.add(again);
      later.push(again);
      continue;
    }
    const entry: StagedEntry = { file: f.file, shown: undefined, target: join(known.real, base), content, tmp: ready };
    batch.staged.push(entry);
    if (!made.has(known.real)) made.set(known.real, entry);
  }
  await limit([...made], parallel, async ([dir, first]) => {
    await once(session, `mkdir:${dir}`, () => ops.mkdir(dir, { recursive: true })).catch((err: unknown) => Promise.reject(ioError(err, 'write', shownOf(batch, first))));
  });
  return later;
}

/** A file's content to its temporary file (or a staged one taken), with the checks of a single write where it may exist. */
async function writeTemp(batch: Batch, f: BatchFile): Promise<void> {
  const { root, ops, session } = batch;
  const abs = resolve(f.file);
  const known = await listing(batch, dirname(abs));
  const { shown, target, before } =
    known && !known.names.has(foldName(basename(abs)))
      ? { shown: undefined, target: join(known.real, basename(abs)), before: undefined }
      : await prepareWrite(f.file, root, ops, session);
  const content = contentOf(f.content);
  const dir = dirname(target);
  const entry: StagedEntry = { file: f.file, shown, target, content, tmp: undefined };
  batch.staged.push(entry);
  try {
    await once(session, `mkdir:${dir}`, () => ops.mkdir(dir, { recursive: true }));
    const ready = batch.asked.has(f) ? undefined : batch.options.staged?.(content);
    if (ready !== undefined) entry.tmp = ready;
    else {
      entry.tmp = join(await sessionTempDir(root, ops, session), `${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
      await writeNewFile(ops, entry.tmp, content, false);
    }
    if (before) await keepModeAndOwner(ops, entry.tmp, before);
  } catch (err) {
    throw ioError(err, 'write', shownOf(batch, entry));
  }
}

/** Every temporary file flushed to the disk, then each renamed into place. */
async function flushAndRename(batch: Batch): Promise<void> {
  const { root, ops, session, parallel, staged } = batch;
  // the data of every file is on the disk before any rename makes it a file: a crash leaves old or new
  const flushed = staged.length > 0 && (await (batch.options.syncFileSystem ?? syncFileSystem)(await sessionTempDir(root, ops, session)));
  if (!flushed) {
    await limit(staged, parallel, async (e) => {
      try {
        const fh = await ops.open(e.tmp!, 'r+');
        try {
          await fh.sync();
        } finally {
          await fh.close();
        }
      } catch (err) {
        throw ioError(err, 'write', shownOf(batch, e));
      }
    });
  }
  await limit(staged, parallel, async (e) => {
    const tmp = e.tmp!;
    try {
      await ops.rename(tmp, e.target);
      e.tmp = undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw ioError(err, 'write', shownOf(batch, e));
      // the temporary directory is on another file system than the file: the single write handles it
      await ops.unlink(tmp).catch(() => undefined);
      e.tmp = undefined;
      await writeFileAtomic(e.file, e.content, batch.single);
    }
  });
}

/** A name as file systems that ignore letter case and Unicode normalisation compare it. */
const foldName = (name: string) => name.normalize('NFC').toUpperCase().toLowerCase();

/** Runs `fn` over `items`, `n` at a time; the first failure is thrown once the running calls settle. */
async function limit<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(n, items.length)) }, async () => {
      while (next < items.length && !failure) {
        const item = items[next++];
        try {
          await fn(item);
        } catch (err) {
          failure ??= { err };
        }
      }
    }),
  );
  if (failure) throw failure.err;
}

/**
 * Removes temporary files a killed run left: those under `<root>/.tmsync/tmp/` whose process is
 * gone, and `strays` (relative paths of `.NAME.yaml.PID.tmp` files older versions left next to
 * files, as the loader lists them). Returns the relative paths removed. Never throws.
 */
export async function removeStrayTempFiles(root: string, strays: readonly string[] = [], ops: Partial<FileOps> = {}): Promise<string[]> {
  const o = fileOps(ops);
  const removed: string[] = [];
  const names = await o.readdir(join(root, TEMP_DIR)).catch(() => [] as string[]);
  for (const name of names) {
    const m = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    if (!m || !processGone(Number(m[1]))) continue;
    if (await o.unlink(join(root, TEMP_DIR, name)).then(() => true, () => false)) removed.push(`${TEMP_DIR}/${name}`);
  }
  for (const rel of strays) {
    if (await o.unlink(join(root, rel)).then(() => true, () => false)) removed.push(rel);
  }
  return removed;
}
