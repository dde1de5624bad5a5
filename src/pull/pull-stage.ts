import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ActualState, RemoteCase } from '../model.js';
import { fileOps, type FileOps } from '../repository/file-ops.js';
import { caseDocument } from '../repository/documents.js';
import { defaultFormat } from '../repository/format.js';
import { decodeTextOrThrow } from '../repository/text-file.js';
import { createWriteSession, repositoryTempDir, stageTempFile, syncFileSystem, TEMP_DIR, writeStagedFile, type WriteSession } from '../repository/atomic-write.js';
import { remoteCaseFields, type FieldContext } from './case-fields.js';
import { buildRepositoryModel, caseFieldContext, caseWhere, type CaseMemo, type MemoCase, type ModelFolder } from './repository-model.js';
import type { LocalRepository } from './pull-types.js';
import { remoteCaseBaseFields } from './pull-merge.js';
import { HashedFields } from '../base/base.js';
import { slugify } from './naming.js';

/**
 * `pull`'s work done while the service is read, so that little is left after the last answer:
 * as soon as everything but the cases is read (folders, step groups with their steps, lookups)
 * and the repository's own files are known, each page of cases is laid out as it arrives: its
 * fields (`remoteCaseFields`), its file's content, and then either a temporary file holding that
 * content (a new file; flushed to the disk in chunks while the reads go on) or, for a case whose
 * file is already there, that file read and compared.
 *
 * Nothing here decides what pull writes: the file names depend on all of a folder's cases, so
 * they are given by the layout made once everything is read (`buildPullFiles`), exactly as
 * before. That layout takes what was computed here only where it is the same by construction
 * (`CaseMemo`: the same objects read, the same step group keys), a staged temporary file only
 * for a file of exactly its content, and an early comparison only for that very path and content.
 * Whatever fails or does not fit here is done again at the end, the way it always was; temporary
 * files not taken are removed (`discard`).
 */
export interface PullStage {
  /** give to `fetchState` as `onRead` */
  readonly onRead: { context(state: ActualState): void; cases(cases: readonly RemoteCase[]): void };
  /** what was computed, for `buildPullFiles` (`memo`) */
  readonly memo: CaseMemo | undefined;
  /** a staged temporary file holding exactly `content`, taken (at most once) */
  claim(content: string | Uint8Array): string | undefined;
  /** true when the file at `path` was read during the reads and held exactly `content` */
  unchanged(path: string, content: string): boolean;
  /** waits for the work under way (after the reads: nothing more arrives) */
  settle(): Promise<void>;
  /** removes the temporary files not taken; call once pull is done, whatever its outcome */
  discard(): Promise<void>;
  /**
   * The case's fields for the sync base, hashed as its page was laid out (the same object read, so
   * the same values); undefined for a case not laid out here.
   */
  hashed: (c: RemoteCase) => HashedFields | undefined;
  /** what the stage did, for tests and the bench */
  stats(): { laidOut: number; staged: number; compared: number };
  /** new files staged at the path they will most likely have, for whole new directories (`pull-tree.ts`) */
  readonly tree: StagedTree;
}

/**
 * New files staged in a private directory (`.tmsync/tmp/pull.PID.HEX.tmp/`) at the path, relative
 * to the root, that pull will most likely give them (the slug of the title: the name unless a
 * sibling takes it first), so that a directory the repository does not have yet can be moved into
 * place whole, with one rename (`pull-tree.ts`). The files are the stage's staged files all the
 * same: `claim` may take any of them, and `discard` removes what is left, the directory included.
 */
export interface StagedTree {
  /** the directory (made on the first call) */
  dir(): Promise<string>;
  /** the files staged at their path and not taken: path (relative to the root) → content */
  files(): ReadonlyMap<string, string>;
  /** the directories made under it, relative to the root */
  dirs(): ReadonlySet<string>;
  /** takes the file at `path` out of the stage: no longer given by `claim`, nor removed by `discard` */
  keep(path: string): void;
  /** removes the file at `path` (not where the layout puts that content) */
  drop(path: string): Promise<void>;
}

interface PullStageOptions {
  root: string;
  config: { casesDir: string; stepGroupsDir: string };
  /** the repository's own files, as `loadExistingRepository` reads them */
  existing: Promise<LocalRepository>;
  /** stage new files as temporary files (pull's batch write) @default true */
  stageNewFiles?: boolean;
  ops?: Partial<FileOps>;
  /** flush the staged files to the disk after this many @default 2000 */
  flushEvery?: number;
  /** @default `syncFileSystem` */
  syncFileSystem?: (dir: string) => Promise<boolean>;
}

/** Cases laid out between two turns of the event loop: requests waiting on the rate gate go out between them. */
const CHUNK = 10;
/** …and at most this long (ms) */
const SLICE_MS = 4;
/** staged files written at once */
const WRITES = 8;

export function createPullStage(options: PullStageOptions): PullStage {
  const ops = fileOps(options.ops);
  const session = createWriteSession();
  const entries = new WeakMap<RemoteCase, MemoCase>();
  const hashes = new WeakMap<RemoteCase, HashedFields>();
  const compared = new Map<string, string>();
  const counts = { laidOut: 0, staged: 0, compared: 0 };
  const waiting: RemoteCase[] = [];
  let memo: CaseMemo | undefined;
  let layout: CaseLayout | undefined;
  let context: ActualState | undefined;
  let local: LocalRepository | undefined;
  let stopped = false;
  let discarded = false;
  let work: Promise<void> = Promise.resolve();
  const queue = writeQueue(WRITES);
  const files = stagedFiles();
  const tree = stagedTree(options, ops, session, files);
  const stager = newFileStager(options, ops, session, files, tree, () => discarded, () => (counts.staged += 1));

  const stop = () => {
    stopped = true;
    waiting.length = 0;
  };

  const start = () => {
    if (!context || !local || layout || stopped) return;
    try {
      layout = caseLayout(context, local, options.config);
    } catch {
      stop();
      return;
    }
    memo = { basis: context, includeIds: true, stepGroupKeys: layout.stepGroupKeys, get: (c) => entries.get(c) };
    schedule(waiting.splice(0));
  };

  const schedule = (cases: readonly RemoteCase[]) => {
    if (stopped || cases.length === 0) return;
    work = work.then(() => inSlices(cases, () => stopped, one)).catch(() => stop());
  };

  const one = (c: RemoteCase) => {
    // what the sync base records for it, hashed now rather than after the last page
    hashes.set(c, new HashedFields(remoteCaseBaseFields(c)));
    const laid = layOutCase(layout!, c);
    if (!laid) return;
    entries.set(c, laid.memo);
    counts.laidOut += 1;
    if (laid.existingFile !== undefined) {
      const file = laid.existingFile;
      queue.enqueue(async () => {
        if (!(await holdsExactly(ops, options.root, file, laid.content))) return;
        compared.set(file, laid.content);
        counts.compared += 1;
      });
    } else if (laid.newPath !== undefined && (options.stageNewFiles ?? true)) {
      const path = laid.newPath;
      queue.enqueue(() => stager.stage(laid.content, path));
    }
  };

  const existing = options.existing.then(
    (repo) => {
      local = repo;
      start();
    },
    () => stop(),
  );

  return {
    onRead: {
      context(state) {
        context = state;
        start();
      },
      cases(cases) {
        if (stopped) return;
        if (layout) schedule(cases);
        else waiting.push(...cases);
      },
    },
    get memo() {
      return memo;
    },
    claim(content) {
      const tmp = files.claim(content);
      if (tmp !== undefined) tree.taken(tmp);
      return tmp;
    },
    unchanged(path, content) {
      return compared.get(path) === content;
    },
    async settle() {
      // (a failure to read the repository is the caller's to report)
      await existing;
      // pages given while waiting are laid out too
      for (let last: Promise<void> | undefined; last !== work; ) await (last = work);
      await queue.idle();
      await stager.flushing();
    },
    async discard() {
      discarded = true;
      stop();
      await work;
      await queue.idle();
      await files.removeAll(ops);
      await tree.discard();
    },
    hashed: (c) => hashes.get(c),
    stats: () => ({ ...counts }),
    tree: tree.view,
  };
}

/** What the stage lays each case out with: the folders' directories, how fields are named, the files cases already have. */
interface CaseLayout {
  folders: Map<string, ModelFolder>;
  ctx: FieldContext;
  existingFile: Map<string, string>;
  stepGroupKeys: ReadonlyMap<string, string>;
}

function caseLayout(context: ActualState, local: LocalRepository, config: PullStageOptions['config']): CaseLayout {
  const model = buildRepositoryModel({ ...context, cases: [] }, { casesDir: config.casesDir, stepGroupsDir: config.stepGroupsDir, existing: local, includeIds: true });
  const existingFile = new Map<string, string>();
  for (const e of local.cases) {
    if (e.id === undefined) continue;
    existingFile.set(e.id.toLowerCase(), e.file);
    existingFile.set(e.id.toUpperCase(), e.file);
  }
  return { folders: new Map(model.folders.map((f) => [f.remote.id, f])), ctx: caseFieldContext(context, model.stepGroupKeys), existingFile, stepGroupKeys: model.stepGroupKeys };
}

/**
 * One case laid out: its fields and file content (rendered in the default format), and either its
 * file already in that folder (to compare) or the path a new file most likely gets (to stage).
 * Undefined for a case in no known folder.
 */
function layOutCase(l: CaseLayout, c: RemoteCase): { memo: MemoCase; content: string; existingFile?: string; newPath?: string } | undefined {
  const folder = l.folders.get(c.folderId);
  if (!folder) return undefined;
  const { fields, warnings } = remoteCaseFields(c, l.ctx, caseWhere(c));
  const format = defaultFormat();
  const ext = format.extensions[0];
  const content = format.render('case', caseDocument({ id: c.humanId || c.id, title: c.title, fields }), { path: `${folder.dir}/case${ext}` });
  const memo: MemoCase = { fields, warnings, rendered: { dir: folder.dir, content } };
  const file = l.existingFile.get(c.id.toLowerCase()) ?? (c.humanId ? l.existingFile.get(c.humanId.toUpperCase()) : undefined);
  if (file !== undefined) return file.slice(0, file.lastIndexOf('/')) === folder.dir ? { memo, content, existingFile: file } : { memo, content };
  return { memo, content, newPath: `${folder.dir}/${slugify(c.title, 'case')}${ext}` };
}

/** Whether the file (relative to `root`) reads exactly as `content`; false when it cannot be read. */
async function holdsExactly(ops: FileOps, root: string, file: string, content: string): Promise<boolean> {
  const bytes = await ops.readFile(join(root, file)).catch(() => undefined);
  if (!bytes) return false;
  try {
    return decodeTextOrThrow(bytes, file).text === content;
  } catch {
    return false;
  }
}

/**
 * `fn` over `cases`, at most CHUNK cases or SLICE_MS at a time between two turns of the event loop
 * (on a busy machine a few cases took long enough to delay the next page's request, and the pages
 * are a chain); stops once `stopped()`.
 */
async function inSlices(cases: readonly RemoteCase[], stopped: () => boolean, fn: (c: RemoteCase) => void): Promise<void> {
  for (let i = 0; i < cases.length && !stopped(); ) {
    const until = performance.now() + SLICE_MS;
    for (const end = Math.min(cases.length, i + CHUNK); i < end; ) {
      fn(cases[i++]);
      if (performance.now() >= until) break;
    }
    await new Promise<void>((done) => setImmediate(done));
  }
}

/**
 * Stages a new file's content: at its likely path in the staged tree, else as a loose temporary
 * file; flushed to the disk every `flushEvery` files while the reads go on.
 */
function newFileStager(
  options: PullStageOptions,
  ops: FileOps,
  session: WriteSession,
  files: StagedFiles,
  tree: ReturnType<typeof stagedTree>,
  discarded: () => boolean,
  counted: () => void,
): { stage(content: string, path?: string): Promise<void>; flushing(): Promise<unknown> } {
  let sinceFlush = 0;
  let flushing: Promise<unknown> = Promise.resolve();
  return {
    flushing: () => flushing,
    async stage(content, path) {
      if (discarded()) return;
      let tmp = path === undefined ? undefined : await tree.stageAt(path, content).catch(() => undefined);
      tmp ??= await stageTempFile(options.root, content, { ...(options.ops ? { ops: options.ops } : {}), session, name: 'case' }).catch(() => undefined);
      if (tmp === undefined) return;
      if (discarded()) {
        await ops.unlink(tmp).catch(() => undefined);
        return;
      }
      files.add(tmp, content);
      counted();
      if (++sinceFlush >= (options.flushEvery ?? 2000)) {
        sinceFlush = 0;
        // the data goes to the disk while the reads go on: the final flush has little left to do
        flushing = flushing.then(() => (options.syncFileSystem ?? syncFileSystem)(join(options.root, TEMP_DIR))).catch(() => undefined);
      }
    },
  };
}

/** Writes run `limit` at a time, in the order given; `idle` resolves once none is running or waiting. */
function writeQueue(limit: number): { enqueue(job: () => Promise<void>): void; idle(): Promise<void> } {
  let writing = 0;
  const waiting: (() => Promise<void>)[] = [];
  const done: (() => void)[] = [];
  const pump = () => {
    while (writing < limit && waiting.length > 0) {
      const job = waiting.shift()!;
      writing += 1;
      void job()
        .catch(() => undefined)
        .finally(() => {
          writing -= 1;
          pump();
          if (writing === 0 && waiting.length === 0) for (const resolve of done.splice(0)) resolve();
        });
    }
  };
  return {
    enqueue(job) {
      waiting.push(job);
      pump();
    },
    idle: () => (writing === 0 && waiting.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => done.push(resolve))),
  };
}

/** The staged temporary files not taken yet, by content (a file is taken at most once). */
interface StagedFiles {
  add(tmp: string, content: string): void;
  /** takes a staged file holding exactly `content` */
  claim(content: string | Uint8Array): string | undefined;
  /** forgets a staged file (taken elsewhere, or removed) */
  forget(tmp: string, content: string): void;
  removeAll(ops: FileOps): Promise<void>;
}

function stagedFiles(): StagedFiles {
  const staged = new Set<string>();
  const byContent = new Map<string, string[]>();
  return {
    add(tmp, content) {
      staged.add(tmp);
      const list = byContent.get(content);
      if (list) list.push(tmp);
      else byContent.set(content, [tmp]);
    },
    claim(content) {
      if (typeof content !== 'string') return undefined;
      const list = byContent.get(content);
      const tmp = list?.pop();
      if (tmp === undefined) return undefined;
      if (list!.length === 0) byContent.delete(content);
      staged.delete(tmp);
      return tmp;
    },
    forget(tmp, content) {
      staged.delete(tmp);
      const list = byContent.get(content);
      const at = list?.indexOf(tmp) ?? -1;
      if (at >= 0) list!.splice(at, 1);
      if (list && list.length === 0) byContent.delete(content);
    },
    async removeAll(ops) {
      await Promise.all([...staged].map((tmp) => ops.unlink(tmp).catch(() => undefined)));
      staged.clear();
      byContent.clear();
    },
  };
}

/**
 * The staged tree (`StagedTree`): its directory, the files at their path (relative path → content
 * and absolute path), the directories made.
 */
function stagedTree(options: PullStageOptions, ops: FileOps, session: WriteSession, files: StagedFiles) {
  let treeDir: Promise<string> | undefined;
  const treeName = `pull.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const treeFiles = new Map<string, { content: string; abs: string }>();
  const treeOf = new Map<string, string>();
  const treeDirs = new Map<string, Promise<unknown>>();
  const treeRoot = () =>
    (treeDir ??= (async () => {
      const dir = join(await repositoryTempDir(options.root, { ...(options.ops ? { ops: options.ops } : {}), session }), treeName);
      await ops.mkdir(dir, { recursive: true });
      return dir;
    })());
  const treeMkdir = async (rel: string) => {
    const base = await treeRoot();
    let made = treeDirs.get(rel);
    if (!made) {
      made = ops.mkdir(join(base, rel), { recursive: true });
      treeDirs.set(rel, made);
      // its parents too (to remove the ones nothing is placed in)
      for (let d = dirname(rel); d !== '.' && d !== '' && !treeDirs.has(d); d = dirname(d)) treeDirs.set(d, made);
    }
    await made;
    return base;
  };
  const untrack = (path: string) => {
    const f = treeFiles.get(path);
    if (!f) return undefined;
    files.forget(f.abs, f.content);
    treeFiles.delete(path);
    treeOf.delete(f.abs);
    return f;
  };
  const view: StagedTree = {
    dir: treeRoot,
    files: () => new Map([...treeFiles].map(([path, f]) => [path, f.content])),
    dirs: () => new Set(treeDirs.keys()),
    keep(path) {
      untrack(path);
    },
    async drop(path) {
      const f = untrack(path);
      if (f) await ops.unlink(f.abs);
    },
  };
  return {
    view,
    /** At `path` in the staged tree; undefined when that path is taken (twins) or the write fails. */
    async stageAt(path: string, content: string): Promise<string | undefined> {
      if (treeFiles.has(path)) return undefined;
      const abs = join(await treeMkdir(dirname(path)), path);
      await writeStagedFile(abs, content, options.ops);
      treeFiles.set(path, { content, abs });
      treeOf.set(abs, path);
      return abs;
    },
    /** a staged file claimed: no longer part of the tree */
    taken(tmp: string) {
      const path = treeOf.get(tmp);
      if (path !== undefined) {
        treeOf.delete(tmp);
        treeFiles.delete(path);
      }
    },
    /** what is left of the staged tree (the directories whose files were placed or removed) */
    async discard() {
      treeFiles.clear();
      treeOf.clear();
      if (treeDir) await rm(await treeDir.catch(() => join(options.root, TEMP_DIR, treeName)), { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
