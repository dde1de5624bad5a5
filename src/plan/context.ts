import type { Problem } from '../errors.js';
import type { ActualState, DesiredState } from '../model.js';
import type { SyncBase } from '../base/base.js';
import type { PlanWarning, Prefer } from './operations.js';
import type { RemoteIndex } from './remote-index.js';
import type { Resolver } from './resolve.js';
import type { SyncState } from './sync.js';

/** Decisions the diff cannot make on its own, injected by the caller (the CLI flags). */
export interface BuildPlanOptions {
  /** delete remote items in scope that the repository does not describe
   * @default false */
  prune?: boolean;
  /** with `prune`, accept deleting and recreating cases that look renamed
   * @default false */
  allowRecreate?: boolean;
  /**
   * the sync base (`tmsync.base`, docs/sync.md): fields are compared three ways; without it, two
   * ways (the repository wins), and the plan says nothing about sync
   * @default none
   */
  base?: SyncBase;
  /** settles conflicts with the base: `local` sends the repository's value, `remote` keeps the service's
   * @default none (a conflict is listed and the plan must not be applied) */
  prefer?: Prefer;
  /**
   * with a base: collect what an apply of the plan records in it (`BuildPlanResult.synced`); a plan
   * that is only shown leaves it out (it is large on a large repository) @default true
   */
  collectSynced?: boolean;
  /**
   * the step groups of `actual` may lack their steps (`--changed-since` reads only some): they are
   * compared two ways, not against the base @default false
   */
  partialStepGroups?: boolean;
}

/** What the builders share while one plan is computed. */
export interface PlanContext {
  desired: DesiredState;
  actual: ActualState;
  prune: boolean;
  allowRecreate: boolean;
  remote: RemoteIndex;
  resolver: Resolver;
  problems: Problem[];
  warnings: PlanWarning[];
  /** labels of `softLabels` cases that name none on the service: label → the cases (`file#at`) carrying it */
  keptLabels?: Map<string, Set<string>>;
  /** three-way sync, when a base was given */
  sync?: SyncState;
  /** see {@link BuildPlanOptions.partialStepGroups} */
  partialStepGroups?: boolean;
}

export function problem(
  ctx: PlanContext,
  code: string,
  file: string,
  line: number | undefined,
  message: string,
  hint?: string,
): void {
  ctx.problems.push({ file, line: line ?? 1, col: 1, code, message, ...(hint ? { hint } : {}), severity: 'error' });
}

/** The service has the item `id` names outside what was read (see `ActualState.elsewhere`): it was not deleted. */
export function foundElsewhere(ctx: PlanContext, id: string): boolean {
  const wanted = id.trim().toUpperCase();
  return ctx.actual.elsewhere?.some((e) => e.toUpperCase() === wanted) ?? false;
}

/** One `id:` written in a file, for {@link claimById}. */
interface IdClaim<T, R> {
  claimant: T;
  /** the id as written */
  id: string;
  /** the remote item it names, when the service has one */
  remote: R | undefined;
  /** the item for people: `test case "Login"` */
  label: string;
  /** how a double claim names the id: `test case`, `folder id` */
  noun: string;
  file: string;
  line?: number;
}

/**
 * The first identity rule, shared by folders, step groups and cases: an item with `id:` is that
 * remote item. An id the service lacks, or one another file claimed first, is a problem (and
 * undefined is returned); otherwise the claim is recorded and the remote item returned.
 */
export function claimById<T, R extends { id: string }>(
  ctx: PlanContext,
  claimedBy: Map<string, T>,
  fileOf: (claimant: T) => string,
  c: IdClaim<T, R>,
): R | undefined {
  if (!c.remote) {
    if (foundElsewhere(ctx, c.id)) {
      // the service has it, only not where the scope reads: never a hint to drop the id
      problem(
        ctx,
        'id_outside_scope',
        c.file,
        c.line,
        `${c.label} has id ${c.id}, which the service has outside the scope of tmsync.yaml`,
        'move the file to the folder the item is in on the service, or widen `scope` in tmsync.yaml',
      );
      return undefined;
    }
    problem(
      ctx,
      'unknown_id',
      c.file,
      c.line,
      `${c.label} has id ${c.id}, which the service does not have`,
      'remove the `id:` line to create it anew, or restore the item on the service',
    );
    return undefined;
  }
  const other = claimedBy.get(c.remote.id);
  if (other !== undefined) {
    problem(ctx, 'duplicate_claim', c.file, c.line, `${c.noun} ${c.id} is claimed by both ${fileOf(other)} and ${c.file}`, 'keep the id in one of them');
    return undefined;
  }
  claimedBy.set(c.remote.id, c.claimant);
  return c.remote;
}
