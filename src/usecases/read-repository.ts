import { basename } from 'node:path';
import type { Problem } from '../errors.js';
import type { ActualState, RemoteCase, RemoteProject } from '../model.js';
import { repositoryTexts } from '../text-sharer.js';
import { changedCaseQueries, stepGroupsToRead, type ChangedFiles } from '../plan/changed.js';
import type { SyncBase } from '../base/base.js';
import { readSyncBase } from '../base/base-file.js';
import { confirmMissing } from '../remote/confirm-missing.js';
import { fetchState } from '../remote/fetch-state.js';
import { resolveProject } from '../remote/resolve-project.js';
import { ReadCache } from '../remote/read-cache.js';
import { loadRepository, type LoadRepositoryResult } from '../repository/loader.js';
import { removeStrayTempFiles } from '../repository/atomic-write.js';
import { gitChangedFiles, type GitChanges } from './git-changes.js';
import { isCaseFile, toChangedFiles } from './changed-files.js';
import { inFlight } from './in-flight.js';
import type { RepositoryTarget, UseCaseContext } from './hooks.js';

export interface ReadRepositoryOptions {
  /** read only the files changed since this git ref, and the service's items they name */
  changedSince?: string;
  /** the project, resolved already (apply resolves it first, to finish an interrupted run's write-backs) */
  project?: RemoteProject;
  /** remove the temporary files a stopped run left (commands that write the repository) @default false */
  removeStrays?: boolean;
}

/** The files and the service, read side by side: what a plan is built from. */
export type RepositoryRead =
  /** the repository has errors (`problems` holds them, warnings too): the service's reads were stopped */
  | { status: 'invalid_repository'; problems: Problem[] }
  | {
      status: 'read';
      /** warnings of the files */
      problems: Problem[];
      loaded: LoadRepositoryResult;
      actual: ActualState;
      base: SyncBase;
      project: RemoteProject;
      /** a --changed-since read: what git said, in the plan's terms */
      changed?: { ref: string; git: GitChanges; files: ChangedFiles };
    };

/**
 * The read pipeline of plan and apply: the repository's files are loaded while the service is read
 * (both take seconds on a large repository, and the reads are paced by the rate limit anyway), the
 * sync base once the files are loaded, answers kept in the read cache. The first failure of any of
 * these stops the others, and is the one thrown once they have all settled.
 */
export async function readRepository(target: RepositoryTarget, options: ReadRepositoryOptions = {}, ctx: UseCaseContext = {}): Promise<RepositoryRead> {
  const { root, config, client } = target;
  const changes = options.changedSince === undefined ? undefined : await gitChanges(target, options.changedSince, ctx);
  const stop = new AbortController();
  const signal = ctx.signal ? AbortSignal.any([ctx.signal, stop.signal]) : stop.signal;
  const tasks = inFlight(stop);
  const loading = tasks.track(loadRepository(root, config, target.read ?? {}));
  // once the files are loaded, cases read keep the repository's strings for equal texts (see `repositoryTexts`)
  let reuse: ((c: RemoteCase) => void) | undefined;
  const changedP = tasks.track(
    loading.then((l) => {
      // what the load left behind is collected before the sync base is read on it: the load ends
      // in a synchronous step, where no timer of the governor fires
      ctx.memory?.check();
      reuse = repositoryTexts(l.state);
      return changes ? toChangedFiles(l.state, changes) : undefined;
    }),
  );
  const projectP = tasks.track(options.project ? Promise.resolve(options.project) : resolveProject(client, target.projectRef));
  // the cache keys on the service and project: one repository may plan against several
  let cache: ReadCache | undefined;
  const remote = tasks.track(
    projectP.then(async (project) => {
      cache = await ReadCache.load(root, `${target.baseUrl}|${project.id}`);
      const changed = async () => (await changedP)!;
      return fetchState(client, project, {
        scope: config.scope,
        signal,
        cache,
        reuseTexts: (c) => reuse?.(c),
        ...(changes
          ? {
              changed: {
                caseQueries: async (folders) => changedCaseQueries((await loading).state, folders, await changed()),
                readStepGroup: async (g) => stepGroupsToRead((await loading).state, await changed())(g),
              },
            }
          : {}),
      });
    }),
  );
  // the sync base is read while the service is, once the files are loaded: not after the last
  // answer, where its lines would add to the wait
  const baseP = tasks.track(
    Promise.all([projectP, loading]).then(async ([project]) => {
      const read = await readSyncBase(root, project.id);
      ctx.memory?.check();
      return read;
    }),
  );
  try {
    const loaded = await loading;
    if (options.removeStrays) {
      const files = await removeStrayTempFiles(root, loaded.strays);
      if (files.length) ctx.onNote?.({ kind: 'strays_removed', files });
    }
    ctx.onLoaded?.(loaded.problems);
    if (loaded.problems.some((p) => p.severity !== 'warning')) {
      await tasks.stop();
      return { status: 'invalid_repository', problems: loaded.problems };
    }
    // an `id:` the lists did not hold is read by id before the plan may call it deleted (a
    // --changed-since read holds only some cases: its reads of the named ones are by id already)
    const read = await remote;
    const actual = changes ? read : await confirmMissing(client, read, loaded.state, { signal, ...(config.scope ? { scope: config.scope } : {}) });
    reuse = undefined;
    const { base, notes } = await baseP;
    for (const message of notes) ctx.onNote?.({ kind: 'sync_base', message });
    await saveCache(cache, root);
    const files = await changedP;
    const project = await projectP;
    return {
      status: 'read',
      problems: loaded.problems,
      loaded,
      actual,
      base,
      project,
      ...(changes && files ? { changed: { ref: options.changedSince!, git: changes, files } } : {}),
    };
  } catch (err) {
    throw await tasks.failed(err);
  }
}

/** git's changes since REF, or undefined when tmsync.yaml is among them (then everything is planned). */
async function gitChanges(target: RepositoryTarget, ref: string, ctx: UseCaseContext): Promise<GitChanges | undefined> {
  const changes = await gitChangedFiles(target.root, ref, (file) => isCaseFile(target.config, file));
  const configName = target.configFile ? basename(target.configFile) : 'tmsync.yaml';
  if (changes.present.includes(configName) || changes.removed.some((r) => r.file === configName)) {
    ctx.onNote?.({ kind: 'changed_since_config', file: configName, ref });
    return undefined;
  }
  return changes;
}

/** An optimisation only: a cache that cannot be written costs the next run its reads, nothing else. */
async function saveCache(cache: ReadCache | undefined, root: string): Promise<void> {
  try {
    await cache?.save(root);
  } catch {
    // deliberately not an error (see above)
  }
}
