import { access, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
// the modules themselves, not the barrels: what pull needs before its first request (`loadPullModules`)
import { acquireRepositoryLock } from '../apply/lock.js';
import { confirmMissing } from '../remote/confirm-missing.js';
import { fetchState } from '../remote/fetch-state.js';
import { resolveProject } from '../remote/resolve-project.js';
import { lookupNames, type ActualState, type RemoteCase, type RemoteProject } from '../model.js';
import type { LocalRepository, PullResult } from '../pull/pull.js';
import type { PullStage } from '../pull/pull-stage.js';
import type { Prefer, PullMergeSummary } from '../pull/pull-merge.js';
import { inFlight } from './in-flight.js';
import type { RepositoryTarget, UseCaseContext } from './hooks.js';

/**
 * What pull needs once its first request is under way (rendering, writing, the sync base, the
 * merge's plan): loaded while that request and the reads after it wait on the service and the
 * rate limit, not before them (docs/architecture.md, "Start-up").
 */
async function loadPullModules() {
  const [pull, stage, merge, sync, base, baseFile, schemas, implicit] = await Promise.all([
    import('../pull/pull.js'),
    import('../pull/pull-stage.js'),
    import('../pull/pull-merge.js'),
    import('../pull/pull-sync.js'),
    import('../base/base.js'),
    import('../base/base-file.js'),
    import('../repository/schema-comment.js'),
    import('../pull/pull-implicit.js'),
  ]);
  return { ...pull, ...stage, ...merge, ...sync, ...base, ...baseFile, ...schemas, ...implicit };
}
type PullModules = Awaited<ReturnType<typeof loadPullModules>>;

export interface PullRepositoryOptions {
  /** only this folder subtree (its names, top down) @default the whole project (or the configuration's scope) */
  folder?: string[];
  /** settle conflicts with the sync base one way (docs/sync.md) @default none: listed and left */
  prefer?: Prefer;
  /** the repository has no tmsync.yaml yet: pull writes one naming the project, the service and the folders @default false */
  writeConfig?: boolean;
  /** new files are written once every page is read, not each as it comes @default true */
  stageNewFiles?: boolean;
  /** `each`: new files are written and flushed one by one instead of in one batch @default 'batch' */
  writeMode?: 'batch' | 'each';
  /** the caller holds the repository lock (`.tmsync/lock`) @default false: taken here, not waited for */
  lockHeld?: boolean;
}

/** What a pull wrote and what its merge with the sync base did. */
export interface PullRepositoryResult {
  project: RemoteProject;
  root: string;
  /** the files as pull wrote them (moves, items gone from the service, warnings, counts) */
  pull: PullResult;
  /** every file created, the sync base and the editors' JSON Schemas among them */
  created: string[];
  /** every file updated, likewise */
  updated: string[];
  /** what the three-way merge did: conflicts (settled or not, each typed), changes kept, items without a base */
  merge: PullMergeSummary;
  /** there was a sync base before this pull */
  hadBase: boolean;
  /** the JSON Schemas written into `SCHEMA_DIR` */
  schemas: string[];
}

/**
 * `tmsync pull` as a function: reads the service into the tests repository, merging field by field
 * with what the repository changed since the last sync (the sync base, docs/sync.md), and records
 * the base for what it synced. Existing files are updated in place; files of items the service no
 * longer has are listed, never deleted.
 */
export async function pullRepository(target: RepositoryTarget, options: PullRepositoryOptions = {}, ctx: UseCaseContext = {}): Promise<PullRepositoryResult> {
  const lock = options.lockHeld ? undefined : await acquireRepositoryLock(target.root, { command: 'pull', timeoutMs: 0 });
  for (const message of lock?.notes ?? []) ctx.onNote?.({ kind: 'session', message });
  try {
    return await pullWith(target, options, ctx);
  } finally {
    await lock?.release();
  }
}

async function pullWith(target: RepositoryTarget, options: PullRepositoryOptions, ctx: UseCaseContext): Promise<PullRepositoryResult> {
  const { client, root, config } = target;
  const { folder } = options;
  // the first failure (a repository that cannot be read, a request refused) stops the other reads
  const stop = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
  const tasks = inFlight(stop);
  // the first request goes out before anything it does not need is loaded
  const projectP = tasks.track(resolveProject(client, target.projectRef));
  // the rest is loaded while it is under way; then the repository's own files are read while the
  // service is (its reads wait on the rate limit); a problem there is reported after the
  // service's reads
  const preparedP = tasks.track(
    (async () => {
      const m = await loadPullModules();
      // with a sync base, the repository is kept as loaded: the merge plans with it
      const hasBase = await access(join(root, m.SYNC_BASE_FILE)).then(
        () => true,
        () => false,
      );
      // awaited by pullIntoRepository, which reports its failure; here only as `local`
      const existing = tasks.track(m.loadExistingRepository(root, config, { state: hasBase, ...target.read }));
      // cases are laid out, rendered and staged as their pages arrive (a whole pull; a subtree's
      // step group names depend on the cases it holds)
      const stage = folder ? undefined : m.createPullStage({ root, config, existing, stageNewFiles: options.stageNewFiles ?? true });
      return { m, hasBase, existing, stage };
    })(),
  );
  // pages read before the stage is made wait for it, in the order they came (a preparation that
  // failed is tracked above and thrown by this function: its pages then have nowhere to go)
  const onRead = folder
    ? undefined
    : {
        context: (state: ActualState) => void preparedP.then((p) => p.stage?.onRead.context(state), () => undefined),
        cases: (cases: readonly RemoteCase[]) => void preparedP.then((p) => p.stage?.onRead.cases(cases), () => undefined),
      };
  const actualP = tasks.track(projectP.then((p) => fetchState(client, p.id, { scope: config.scope, signal, ...(onRead ? { onRead } : {}) })));
  let stage: PullStage | undefined;
  try {
    const prepared = await preparedP;
    stage = prepared.stage;
    const { m, hasBase, existing } = prepared;
    return await pullMerge(target, options, { ...ctx, signal }, m, { projectP, actualP, existing, hasBase, ...(stage ? { stage } : {}) });
  } catch (err) {
    throw await tasks.failed(err);
  } finally {
    await stage?.discard();
  }
}

/** The service's state, merged with the repository's through the base, written; the base recorded. */
async function pullMerge(
  target: RepositoryTarget,
  options: PullRepositoryOptions,
  ctx: UseCaseContext,
  m: PullModules,
  read: { projectP: Promise<RemoteProject>; actualP: Promise<ActualState>; existing: Promise<LocalRepository>; hasBase: boolean; stage?: PullStage },
): Promise<PullRepositoryResult> {
  const { folder } = options;
  const { projectP, actualP, existing, hasBase, stage } = read;
  const { root, config } = target;
  const project = await projectP;
  const { base, notes, text: baseText } = await m.readSyncBase(root, project.id);
  for (const message of notes) ctx.onNote?.({ kind: 'sync_base', message });
  // a repository that cannot be read is reported by pullIntoRepository, which awaits it again
  const local = await existing.then(
    (l) => l,
    () => undefined,
  );
  // an `id:` the lists did not hold is read by id before pull may list its file as gone
  const listed = await actualP;
  const actual = local ? await confirmMissing(target.client, listed, local, { ...(ctx.signal ? { signal: ctx.signal } : {}), ...(config.scope ? { scope: config.scope } : {}) }) : listed;
  const merge = base.size > 0 && local ? m.preparePullMerge({ base, actual, local: local.state, ...(options.prefer ? { prefer: options.prefer } : {}), ...(stage ? { hashed: stage.hashed } : {}), ...(config.gherkin ? { read: { gherkin: config.gherkin } } : {}) }) : undefined;
  // the merge keeps each field's standing only: the repository as loaded is not needed any more
  if (local) delete local.state;
  const result = await m.pullIntoRepository(actual, {
    root,
    config,
    existing,
    ...(merge ? { merge: merge.hooks } : {}),
    // a key a file leaves out stays out unless the service changed it (docs/transfer.md)
    keepImplicit: m.implicitKeys({ actual, defaults: config.defaults, base, ...(stage ? { hashed: stage.hashed } : {}) }),
    ...(stage ? { stage } : {}),
    ...(folder ? { folder } : {}),
    ...(options.writeMode ? { writeMode: options.writeMode } : {}),
    ...(options.writeConfig
      ? {
          writeConfig: {
            project: project.humanIdPrefix,
            baseUrl: target.baseUrl,
            // the pulled subtree exactly: a top-level scope would let --prune delete its siblings
            ...(folder ? { scope: [folder.join('/')] } : config.scope ? { scope: config.scope } : {}),
            ...(config.casesDir !== 'cases' ? { casesDir: config.casesDir } : {}),
            ...(config.stepGroupsDir !== 'step_groups' ? { stepGroupsDir: config.stepGroupsDir } : {}),
          },
        }
      : {}),
  });
  // the files are written: what is left (the base, the messages) is short, and a full collection
  // there would only delay the end
  ctx.memory?.finish();
  // the base records what this pull synced (written atomically, after every file; not at all when
  // its text is the one read); only a pull of the whole project can tell an item deleted on both
  // sides from one it did not read
  const synced = m.recordPull(base, actual, result, merge, stage?.hashed, !folder && config.scope === undefined);
  const baseWritten = await m.writeSyncBase(root, synced.base, undefined, baseText);
  // the modelines of the files just written point at these
  const schemasBefore = new Set(await readdir(join(root, m.SCHEMA_DIR)).catch(() => [] as string[]));
  const schemas = await m.writeSchemaFiles(root, { lookupNames: lookupNames(actual.lookups) });
  // every file this pull wrote is counted, the base and the schemas too
  const extra = [...(baseWritten ? [m.SYNC_BASE_FILE] : []), ...schemas];
  const isNew = (f: string) => (f === m.SYNC_BASE_FILE ? baseText === undefined : !schemasBefore.has(basename(f)));
  return {
    project,
    root,
    pull: result,
    created: [...result.created, ...extra.filter(isNew)],
    updated: [...result.updated, ...extra.filter((f) => !isNew(f))],
    merge: synced.summary,
    hadBase: hasBase,
    schemas,
  };
}
