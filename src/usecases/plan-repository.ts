import { TmsyncError, type Problem } from '../errors.js';
import type { RemoteProject } from '../model.js';
import { buildPlan } from '../plan/build-plan.js';
import { planChanged } from '../plan/changed.js';
import type { Plan, Prefer } from '../plan/operations.js';
import type { PlanDisplay } from '../plan/display.js';
import { withChangedSinceNotes } from './changed-files.js';
import { readRepository } from './read-repository.js';
import type { RepositoryTarget, UseCaseContext } from './hooks.js';

export interface PlanRepositoryOptions {
  /** delete remote items in scope that the repository does not describe @default false */
  prune?: boolean;
  /** with prune, accept deleting and recreating cases that look renamed @default false */
  allowRecreate?: boolean;
  /** settle conflicts with the sync base (docs/sync.md) */
  prefer?: Prefer;
  /** plan only the files changed since this git ref (docs/plan.md, "A pull request's plan"); not with `prune` */
  changedSince?: string;
}

/** Why a plan could not be made, or the plan. */
export type PlanRepositoryResult =
  /** the repository's files have errors (warnings among them): nothing was planned */
  | { status: 'invalid_repository'; problems: Problem[] }
  /** the repository and the service disagree in ways the plan cannot settle (e.g. an `id:` the service does not have) */
  | { status: 'plan_problems'; problems: Problem[] }
  /** `warnings`: the files' warnings, already given to `onLoaded` */
  | { status: 'planned'; plan: Plan; display: PlanDisplay; project: RemoteProject; warnings: Problem[] };

/**
 * `tmsync plan` as a function: reads the repository and the service side by side (the read cache,
 * `changedSince`), then plans. Nothing is written but the read cache.
 */
export async function planRepository(target: RepositoryTarget, options: PlanRepositoryOptions = {}, ctx: UseCaseContext = {}): Promise<PlanRepositoryResult> {
  if (options.changedSince !== undefined && options.prune) {
    throw new TmsyncError('changed_since_prune', '--prune cannot be combined with --changed-since: a plan of the changed files does not read the items the repository no longer describes', {
      hint: 'plan deletions with a full `tmsync plan --prune` (without --changed-since)',
    });
  }
  const read = await readRepository(target, options.changedSince === undefined ? {} : { changedSince: options.changedSince }, ctx);
  if (read.status === 'invalid_repository') return read;
  const { loaded, actual, base, changed } = read;
  // what loading and reading left behind is collected before the plan is built, whatever the
  // heap's growth since the last collection: the plan's own work then starts from what is alive
  ctx.memory?.collect();
  const common = { allowRecreate: options.allowRecreate ?? false, base, collectSynced: false, ...(options.prefer ? { prefer: options.prefer } : {}) };
  const { plan, problems, display } = changed
    ? withChangedSinceNotes(planChanged(loaded.state, actual, changed.files, common), loaded.state, changed.files, changed.git, changed.ref)
    : buildPlan(loaded.state, actual, { ...common, prune: options.prune ?? false });
  if (problems.length > 0) return { status: 'plan_problems', problems };
  return { status: 'planned', plan, display, project: read.project, warnings: read.problems };
}
