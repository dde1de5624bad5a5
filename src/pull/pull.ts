import { isDeepStrictEqual } from 'node:util';
import { readdir, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TmsyncError, formatProblem, type Problem } from '../errors.js';
import type { ActualState } from '../model.js';
import { CONFIG_DEFAULTS, type TmsyncConfig } from '../repository/config.js';
import { loadRepository, type LoadRepositoryOptions } from '../repository/loader.js';
import { fileOps, ioError, type FileOps } from '../repository/file-ops.js';
import { decodeTextOrThrow } from '../repository/text-file.js';
import { createWriteSession, removeStrayTempFiles, repositoryTempDir, syncFileSystem, writeFileAtomic, writeFilesAtomic, type WriteSession } from '../repository/atomic-write.js';
import { setFileFields } from '../repository/edit-file.js';
import { formatFor, itemRef, splitItemRef } from '../repository/format.js';
import type { ReadOptions } from '../repository/case-file.js';
import { normalizeText } from '../base/normalize-text.js';
import { forEachLimit } from '../streams.js';
import { buildPullFiles, MANAGED_KEYS, type PullFile, type PulledConfig } from './pull-files.js';
import type { LocalRepository, PullMergeHooks, PullResult } from './pull-types.js';
import type { PullStage } from './pull-stage.js';
import type { KeepImplicit } from './pull-implicit.js';
import { buildNewDirectories, placeNewDirectories, removeStrayTrees } from './pull-tree.js';

export type { LocalRepository, PullResult } from './pull-types.js';

/**
 * `pull` on disk: reads what the repository already holds (so names stay stable and local files
 * are never overwritten), lays the service's state out with `buildPullFiles`, and writes it:
 * new files whole, existing files key by key in place (comments kept). Nothing is deleted; files
 * whose items are gone are returned for the caller to list.
 */

interface PullOptions {
  /** the repository root (where tmsync.yaml is or will be) */
  root: string;
  config: Pick<TmsyncConfig, 'casesDir' | 'stepGroupsDir' | 'gherkin'>;
  /** only this folder subtree (names from the top) */
  folder?: string[];
  /** write tmsync.yaml with these settings (only when the repository has none) */
  writeConfig?: PulledConfig;
  /** files written at once @default 32 */
  parallel?: number;
  /** file system calls (tests inject failures) */
  ops?: Partial<FileOps>;
  /**
   * How new files reach the disk: `batch` writes them all, flushes them together, then renames
   * them into place (`writeFilesAtomic`); `each` writes and fsyncs them one by one
   * (`writeFileAtomic`, the way before; kept to compare in the bench: the CLI's `TMSYNC_PULL_WRITE=each`).
   * @default 'batch'
   */
  writeMode?: 'batch' | 'each';
  /**
   * What the repository already holds, as `loadExistingRepository(root, config)` reads it, when
   * the caller started that read earlier (while the service is read, so the two overlap).
   * @default read here
   */
  existing?: Promise<LocalRepository>;
  /**
   * The merge with the sync base (`mergeWithBase` in pull-merge.ts): which of an existing file's
   * keys pull writes (the others keep the file's values), and which items stay where their file
   * is. @default none: every managed key is written, every item goes where the service has it
   */
  merge?: PullMergeHooks;
  /**
   * Whether a key an existing file does not hold stays out of it (`implicitKeys` in
   * pull-implicit.ts: its value is what the file implies, or did not change since the last sync).
   * @default none: every key whose value differs from the file's is written
   */
  keepImplicit?: KeepImplicit;
  /**
   * The work done while the service was read (`createPullStage`, given the same `existing`):
   * its layout of the cases, staged new files and early comparisons are taken where they fit.
   * The caller discards it once pull is done.
   */
  stage?: PullStage;
  /**
   * Flushes the file system holding a directory at once (`writeFilesAtomic`'s); false: each file
   * (and each new directory) is fsynced instead. @default `syncFileSystem`
   */
  syncFileSystem?: (dir: string) => Promise<boolean>;
}

/** Problems that do not stop a pull: the repository may simply not exist yet. */
const HARMLESS = new Set(['cases_dir_missing']);

async function listPaths(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (rel: string) => {
    const entries = await readdir(join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const p = `${rel}/${e.name}`;
      out.push(p);
      if (e.isDirectory()) await visit(p);
    }
  };
  await visit(dir);
  return out;
}

/**
 * What the repository already holds; refuses a repository with errors (a broken file may hide an id).
 * `options.state` keeps the whole repository as loaded (`state`), read with `config`'s scope and
 * defaults: pull's merge with the sync base plans with it. `workers` and `exactYaml`: how the files
 * are read (`LoadRepositoryOptions`).
 */
export async function loadExistingRepository(
  root: string,
  config: PullOptions['config'] & Partial<Pick<TmsyncConfig, 'scope' | 'defaults'>>,
  options: { state?: boolean } & Pick<LoadRepositoryOptions, 'workers' | 'exactYaml'> = {},
): Promise<LocalRepository> {
  const exists = await stat(join(root, config.casesDir)).then(
    () => true,
    () => false,
  );
  const groupsExist = await stat(join(root, config.stepGroupsDir)).then(
    () => true,
    () => false,
  );
  if (!exists && !groupsExist) return { cases: [], stepGroups: [], folders: [], paths: [], strays: [] };
  const full: TmsyncConfig = {
    ...CONFIG_DEFAULTS,
    casesDir: config.casesDir,
    stepGroupsDir: config.stepGroupsDir,
    defaults: options.state ? (config.defaults ?? {}) : {},
    ...(options.state && config.scope ? { scope: config.scope } : {}),
    ...(config.gherkin ? { gherkin: config.gherkin } : {}),
    profiles: {},
  };
  const { state, problems, strays } = await loadRepository(root, full, {
    ...(options.workers !== undefined ? { workers: options.workers } : {}),
    ...(options.exactYaml ? { exactYaml: true } : {}),
  });
  const errors = problems.filter((p: Problem) => p.severity !== 'warning' && !HARMLESS.has(p.code));
  if (errors.length > 0) {
    throw new TmsyncError(
      'repository_has_errors',
      `the repository has ${errors.length} problem${errors.length === 1 ? '' : 's'}; pull would not know which files hold which items: ${errors
        .slice(0, 5)
        .map((p) => formatProblem(p))
        .join('; ')}`,
      { hint: 'fix them first (`tmsync validate` lists them all), or pull into an empty directory with --dir', details: { problems: errors } },
    );
  }
  const dirOfFolder = new Map(state.folders.map((f) => [f.path.join('\u0000'), f.dir]));
  return {
    cases: state.cases.map((c) => ({ ...(c.id !== undefined ? { id: c.id } : {}), file: itemRef(c.file, c.at), title: c.title, ...(c.at !== undefined ? { folderDir: dirOfFolder.get(c.folderPath.join('\u0000')) } : {}) })),
    stepGroups: state.stepGroups.map((g) => ({ ...(g.id !== undefined ? { id: g.id } : {}), file: itemRef(g.file, g.at), title: g.title, ...(g.at !== undefined ? { key: g.key } : {}) })),
    folders: state.folders.map((f) => ({ ...(f.id !== undefined ? { id: f.id } : {}), dir: f.dir, ...(f.file ? { file: f.file } : {}), ...(f.inFile !== undefined ? { inFile: f.inFile } : {}) })),
    paths: [...(await listPaths(root, config.casesDir)), ...(await listPaths(root, config.stepGroupsDir))],
    strays,
    // pull keeps writing into such files: it says so, as validate does
    twins: problems.filter((p) => p.code === 'name_twins').map((p) => ({ code: 'name_twins', message: `${p.message} (${p.hint ?? 'rename one of them'})` })),
    ...(options.state ? { state } : {}),
  };
}

/** A file's value and pull's are equal as plan compares them: texts after `normalizeText` (a `|` block's final line break is no change). */
function sameValue(file: unknown, pulled: unknown): boolean {
  if (typeof file === 'string' && typeof pulled === 'string') return file === pulled || normalizeText(file) === normalizeText(pulled);
  return isDeepStrictEqual(file, pulled);
}

/**
 * The keys whose values differ from the file's (a key to remove counts when it is there); a key the
 * file does not hold and `implicit` keeps out is not one of them.
 */
function changedFields(
  kind: PullFile['kind'],
  ref: string,
  text: string,
  fields: Record<string, unknown>,
  read: ReadOptions,
  implicit?: (key: string) => boolean,
): Record<string, unknown> {
  const { file, at } = splitItemRef(ref);
  const format = formatFor(file);
  // the file as its format reads it; one that does not read gets every key (the edit then says why)
  const data = format.readDocument(text, { file, ...(at !== undefined ? { at } : {}), read });
  if (data === undefined) return fields;
  // keys the format cannot write stay as the file has them (the next plan sends the file's)
  const writes = kind === 'config' ? undefined : format.writes?.[kind];
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (writes && !writes.includes(k)) continue;
    if (v === undefined ? !(k in data) : sameValue(data[k], v)) continue;
    if (v !== undefined && !(k in data) && implicit?.(k)) continue;
    out[k] = v;
  }
  return out;
}

export async function pullIntoRepository(actual: ActualState, options: PullOptions): Promise<PullResult> {
  const { root } = options;
  const existing = await (options.existing ?? loadExistingRepository(root, options.config));
  await removeStrayTempFiles(root, existing.strays, options.ops);
  await removeStrayTrees(root);
  const stage = options.stage;
  await stage?.settle();
  // the root, its temporary directory and each directory are prepared once for all the files
  const write = { root, session: createWriteSession(), ...(options.ops ? { ops: options.ops } : {}) };
  const ops = fileOps(options.ops);
  const built = buildPullFiles(actual, {
    casesDir: options.config.casesDir,
    stepGroupsDir: options.config.stepGroupsDir,
    ...(options.folder ? { folder: options.folder } : {}),
    existing,
    ...(options.writeConfig ? { config: options.writeConfig } : {}),
    ...(options.merge?.keepPlace ? { keepPlace: options.merge.keepPlace } : {}),
    ...(options.config.gherkin?.newScenarios === 'feature' ? { newItemsInFiles: true } : {}),
    // each file is rendered as its turn to be written comes: rendering overlaps the writes before it
    lazyContent: true,
    ...(stage?.memo ? { memo: stage.memo } : {}),
  });
  const result: PullResult = {
    created: [],
    updated: [],
    unchanged: 0,
    moved: [],
    gone: built.gone,
    warnings: [...(existing.twins ?? []), ...built.warnings],
    counts: built.counts,
    items: built.files.flatMap((f) => (f.kind !== 'config' && f.itemId !== undefined ? [{ kind: f.kind, id: f.itemId, path: f.path }] : [])),
  };

  const vacated = await moveFiles(root, built.files, ops, result);

  const parallel = options.parallel ?? 32;
  const creates = built.files.filter((f) => f.action === 'create');
  const mode = options.writeMode ?? 'batch';
  // files read during the service's reads and found as they would be written: nothing to do
  const settled = (f: PullFile) => f.action === 'update' && !f.renameFrom && stage !== undefined && stage.unchanged(f.path, f.content);
  const rest: PullFile[] = [];
  for (const f of built.files) {
    if (mode !== 'each' && f.action === 'create') continue;
    if (settled(f)) result.unchanged += 1;
    else rest.push(f);
  }
  const read: ReadOptions = options.config.gherkin ? { gherkin: options.config.gherkin } : {};
  // the items of one file holding several are written one after the other
  const sameFile = new Map<string, Promise<void>>();
  await forEachLimit(rest, parallel, async (f: PullFile) => {
    const { file, at } = splitItemRef(f.path);
    if (at === undefined) return writeOne(f, file, undefined);
    const before = sameFile.get(file) ?? Promise.resolve();
    const mine = before.then(() => writeOne(f, file, at));
    sameFile.set(file, mine.catch(() => undefined));
    return mine;
  });
  async function writeOne(f: PullFile, file: string, at: string | undefined): Promise<void> {
    const abs = join(root, file);
    if (f.action === 'create') {
      await writeFileAtomic(abs, f.content, write);
      result.created.push(f.path);
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await ops.readFile(abs);
    } catch (err) {
      throw ioError(err, 'read', f.path);
    }
    // the loader refused files it cannot read exactly, so this decodes
    const { text } = decodeTextOrThrow(bytes, f.path);
    // a file as pull left it reads exactly as it would be written: no parse needed
    const keep = options.keepImplicit;
    const changed =
      text === f.content
        ? {}
        : changedFields(f.kind, f.path, text, options.merge ? options.merge.fields(f, text) : f.fields, read, keep && f.action === 'update' ? (key) => keep(f, key) : undefined);
    if (Object.keys(changed).length === 0) {
      result.unchanged += 1;
      return;
    }
    // new keys go where the renderer puts them, not on top
    await setFileFields(abs, changed, f.kind === 'config' ? write : { ...write, order: MANAGED_KEYS[f.kind], ...(at !== undefined ? { at } : {}), read });
    result.updated.push(f.path);
  }
  if (mode === 'batch') await writeNewFiles(creates, options, write, result);

  await removeVacated(root, vacated, options.config);
  result.created.sort();
  result.updated.sort();
  return result;
}

/** Moves first, one at a time (two files may trade places between directories); returns the directories they left. */
async function moveFiles(root: string, files: readonly PullFile[], ops: FileOps, result: PullResult): Promise<Set<string>> {
  const vacated = new Set<string>();
  for (const f of files) {
    if (f.action !== 'update' || !f.renameFrom) continue;
    try {
      await ops.mkdir(dirname(join(root, f.path)), { recursive: true });
      await ops.rename(join(root, f.renameFrom), join(root, f.path));
    } catch (err) {
      throw ioError(err, `move ${f.renameFrom} to`, f.path);
    }
    result.moved.push({ from: f.renameFrom, to: f.path });
    vacated.add(dirname(f.renameFrom));
  }
  return vacated;
}

/** Directories left empty by moves would read as new folders: removed (never anything else). */
async function removeVacated(root: string, vacated: ReadonlySet<string>, config: PullOptions['config']): Promise<void> {
  const stop = new Set([config.casesDir, config.stepGroupsDir, '.', '']);
  for (const dir of [...vacated].sort((a, b) => b.length - a.length)) {
    for (let d = dir; !stop.has(d); d = dirname(d)) {
      const entries = await readdir(join(root, d)).catch(() => undefined);
      if (!entries || entries.length > 0) break;
      await rmdir(join(root, d)).catch(() => undefined);
    }
  }
}

type WriteContext = { root: string; session: WriteSession; ops?: Partial<FileOps> };

/**
 * New files: all written, flushed to the disk together, then renamed into place (a failure before
 * the renames leaves none of them); each is rendered as its turn comes. With the stage, a
 * directory the repository does not have yet is built whole in the stage's tree and renamed into
 * place once (pull-tree.ts); the other files one by one.
 */
async function writeNewFiles(creates: readonly PullFile[], options: PullOptions, write: WriteContext, result: PullResult): Promise<void> {
  const { root } = options;
  const stage = options.stage;
  const parallel = options.parallel ?? 32;
  const sync = options.syncFileSystem ?? syncFileSystem;
  let flushed: boolean | undefined;
  const batch = { ...write, parallel, syncFileSystem: async (dir: string) => (flushed = await sync(dir)) };
  const tree = stage
    ? await buildNewDirectories(creates, { root, tree: stage.tree, claim: (content) => stage.claim(content), ...(options.ops ? { ops: options.ops } : {}), session: write.session, parallel })
    : { dirs: [], rest: creates };
  await writeFilesAtomic(
    tree.rest.map((f) => ({ file: join(root, f.path), content: () => f.content })),
    { ...batch, ...(stage ? { staged: (content: string | Uint8Array) => stage.claim(content) } : {}) },
  );
  if (tree.dirs.length > 0) {
    flushed ??= await sync(await repositoryTempDir(root, { ...(options.ops ? { ops: options.ops } : {}), session: write.session }));
    const byPath = new Map(creates.map((f) => [f.path, f]));
    await placeNewDirectories(tree.dirs, {
      flushed,
      ...(options.ops ? { ops: options.ops } : {}),
      parallel,
      // the tree is on another file system than the directory: its files one by one, as the batch write does
      otherFileSystem: (d) => writeFilesAtomic(d.files.map((p) => ({ file: join(root, p), content: byPath.get(p)!.content })), { ...write, parallel, syncFileSystem: sync }),
    });
  }
  for (const f of creates) result.created.push(f.path);
}
