import { rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileOps, ioError, type FileOps } from '../repository/file-ops.js';
import { resolveWriteTarget, TEMP_DIR, writeStagedFile, type WriteSession } from '../repository/atomic-write.js';
import { processGone } from '../repository/walk.js';
import { forEachLimit } from '../streams.js';
import type { StagedTree } from './pull-stage.js';

/**
 * New directories moved into place whole. A pull into an empty directory creates some 10,000
 * files in a few dozen directories none of which exists yet; renaming each file into place was
 * most of what pull did after the service's last answer. Instead, each directory the repository
 * does not have (its parent does) is built complete in the stage's private tree
 * (`.tmsync/tmp/pull.PID.HEX.tmp/`, at the same relative path: files staged there while the
 * service was read, at the path the layout gave them, are taken as they are; others are moved
 * or written there), flushed with everything else, then renamed into place with one rename.
 *
 * The guarantee is the batch write's: every file's data is on the disk before any rename makes it
 * visible (a crash leaves a directory absent or complete, with whole files); a failure before the
 * renames leaves none of the new files (the tree is removed with the stage); a failure during
 * them leaves whole directories (run again). Files in directories that exist already go through
 * `writeFilesAtomic` as before, with its checks; so does every file of a directory whose path
 * cannot be resolved inside the repository (it reports the problem as before).
 */

/** A new directory, built in the tree, to rename into place. */
interface NewDirectory {
  /** relative to the root */
  path: string;
  /** where it is built */
  from: string;
  /** its real path in the repository */
  to: string;
  /** the files in it (relative to the root), and the directories below it */
  files: string[];
  dirs: string[];
}

interface PlaceNewDirectoriesOptions {
  root: string;
  tree: StagedTree;
  /** a staged temporary file holding exactly `content` (the stage's `claim`) */
  claim(content: string): string | undefined;
  ops?: Partial<FileOps>;
  session?: WriteSession;
  /** @default 32 */
  parallel?: number;
}

const parentOf = (p: string) => {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
};

/**
 * Builds, in the staged tree, every directory of `files` that the repository does not have and
 * whose parent it has, with exactly the files of `files` below it. Returns those directories and
 * the files left for the batch write (in directories that exist, or at the root).
 */
export async function buildNewDirectories<F extends { path: string; content: string }>(
  files: readonly F[],
  options: PlaceNewDirectoriesOptions,
): Promise<{ dirs: NewDirectory[]; rest: F[] }> {
  const ops = fileOps(options.ops);
  const parallel = options.parallel ?? 32;
  const exists = new Map<string, Promise<boolean>>();
  const there = (rel: string) => {
    let p = exists.get(rel);
    if (!p) {
      p = ops.lstat(join(options.root, rel)).then(
        () => true,
        () => false,
      );
      exists.set(rel, p);
    }
    return p;
  };
  /** the topmost directory of `dir` (itself or above) that is missing, when its parent is there */
  const newTop = async (dir: string): Promise<string | undefined> => {
    const chain: string[] = [];
    for (let d = dir; d !== ''; d = parentOf(d)) chain.unshift(d);
    for (const d of chain) if (!(await there(d))) return d;
    return undefined;
  };
  const tops = new Map<string, F[]>();
  const rest: F[] = [];
  // once a directory (a few dozen), not once a file
  const dirsOf = [...new Set(files.map((f) => parentOf(f.path)))];
  const topOfDir = new Map(await Promise.all(dirsOf.map(async (d) => [d, await newTop(d)] as const)));
  for (const f of files) {
    const top = topOfDir.get(parentOf(f.path));
    if (top === undefined || top.startsWith('.')) {
      rest.push(f);
      continue;
    }
    const list = tops.get(top);
    if (list) list.push(f);
    else tops.set(top, [f]);
  }
  if (tops.size === 0) return { dirs: [], rest };

  // each directory's real path, checked to be inside the repository (else the batch write's errors)
  const targets = new Map<string, string>();
  for (const top of [...tops.keys()]) {
    const to = await resolveWriteTarget(join(options.root, top), options.root, ops, options.session).catch(() => undefined);
    if (to === undefined) {
      rest.push(...tops.get(top)!);
      tops.delete(top);
    } else targets.set(top, to);
  }
  if (tops.size === 0) return { dirs: [], rest };

  const base = await options.tree.dir();
  const staged = options.tree.files();
  const wanted = new Map<string, F>();
  for (const list of tops.values()) for (const f of list) wanted.set(f.path, f);
  const under = (path: string) => {
    for (let d = parentOf(path); d !== ''; d = parentOf(d)) if (tops.has(d)) return d;
    return undefined;
  };
  // files staged where they belong stay; any other staged file below a new directory goes
  const missing: F[] = [];
  for (const f of wanted.values()) {
    if (staged.get(f.path) === f.content) options.tree.keep(f.path);
    else missing.push(f);
  }
  for (const path of staged.keys()) {
    if (under(path) === undefined || (wanted.has(path) && staged.get(path) === wanted.get(path)!.content)) continue;
    await options.tree.drop(path).catch((err: unknown) => Promise.reject(ioError(err, 'write', path)));
  }
  // and so do directories nothing is placed in
  const needed = new Set<string>();
  for (const path of wanted.keys()) for (let d = parentOf(path); d !== '' && !needed.has(d); d = parentOf(d)) needed.add(d);
  const extra = [...options.tree.dirs()].filter((d) => under(`${d}/x`) !== undefined && !needed.has(d)).sort((a, b) => b.length - a.length);
  for (const d of extra) {
    await ops
      .readdir(join(base, d))
      .then((names) => (names.length === 0 ? rmdir(join(base, d)) : Promise.reject(new Error(`${d} is not empty`))))
      .catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(ioError(err, 'write', d))));
  }
  // the files not staged where they belong: a staged temporary file moved there, or written
  const made = new Map<string, Promise<unknown>>();
  const mkdir = (d: string) => {
    let p = made.get(d);
    if (!p) made.set(d, (p = ops.mkdir(join(base, d), { recursive: true })));
    return p;
  };
  await forEachLimit(missing, parallel, async (f) => {
    const abs = join(base, f.path);
    try {
      await mkdir(parentOf(f.path));
      const ready = options.claim(f.content);
      if (ready !== undefined) {
        await ops.rename(ready, abs).catch(async (err: unknown) => {
          await ops.unlink(ready).catch(() => undefined);
          throw err;
        });
        return;
      }
      await writeStagedFile(abs, f.content, options.ops);
    } catch (err) {
      throw ioError(err, 'write', f.path);
    }
  });
  const dirs: NewDirectory[] = [];
  for (const [top, list] of tops) {
    const below = [...needed].filter((d) => d === top || d.startsWith(`${top}/`));
    dirs.push({ path: top, from: join(base, top), to: targets.get(top)!, files: list.map((f) => f.path), dirs: below });
  }
  return { dirs, rest };
}

/**
 * Makes the directories built by {@link buildNewDirectories} durable and visible: when the file
 * system was not flushed as a whole (`flushed` false), each file and directory in them is fsynced;
 * then each is renamed into place (once a directory: its files with it).
 */
export async function placeNewDirectories(
  dirs: readonly NewDirectory[],
  options: {
    flushed: boolean;
    /** writes a directory's files one by one instead, when the tree is on another file system than it (EXDEV) */
    otherFileSystem(d: NewDirectory): Promise<void>;
    ops?: Partial<FileOps>;
    parallel?: number;
  },
): Promise<void> {
  const ops = fileOps(options.ops);
  const parallel = options.parallel ?? 32;
  if (!options.flushed) {
    const rootOf = new Map<string, NewDirectory>();
    for (const d of dirs) for (const f of d.files) rootOf.set(f, d);
    const sync = async (abs: string, shown: string) => {
      try {
        const fh = await ops.open(abs, 'r');
        try {
          await fh.sync();
        } finally {
          await fh.close();
        }
      } catch (err) {
        throw ioError(err, 'write', shown);
      }
    };
    const fromOf = (d: NewDirectory, rel: string) => join(d.from, rel.slice(d.path.length));
    await forEachLimit(
      dirs.flatMap((d) => d.files.map((f) => [d, f] as const)),
      parallel,
      ([d, f]) => sync(fromOf(d, f), f),
    );
    // the directories' entries, deepest first
    await forEachLimit(
      dirs.flatMap((d) => d.dirs.map((x) => [d, x] as const)).sort((a, b) => b[1].length - a[1].length),
      parallel,
      ([d, x]) => sync(fromOf(d, x), x),
    );
  }
  for (const d of dirs) {
    try {
      await ops.rename(d.from, d.to);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw ioError(err, 'write', d.path);
      await options.otherFileSystem(d);
    }
  }
}

/** The staged trees (`pull.PID.HEX.tmp/` under `.tmsync/tmp/`) of runs that were killed: removed. Never throws. */
export async function removeStrayTrees(root: string): Promise<string[]> {
  const dir = join(root, TEMP_DIR);
  const removed: string[] = [];
  const names = await fileOps().readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const m = /^pull\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    if (!m || !processGone(Number(m[1]))) continue;
    if (await rm(join(dir, name), { recursive: true, force: true }).then(() => true, () => false)) removed.push(`${TEMP_DIR}/${name}`);
  }
  return removed;
}
