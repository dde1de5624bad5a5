import { TmsyncError, type Problem } from '../errors.js';
import type { ActualState, RemoteProject } from '../model.js';
import { buildPlan, type BuildPlanResult } from '../plan/build-plan.js';
import { hasChanges, openConflicts, type Plan, type Prefer } from '../plan/operations.js';
import type { PlanDisplay } from '../plan/display.js';
import type { SyncBase } from '../base/base.js';
import { openApplySession, writeSynced, type ApplyPlanResult, type ApplySession } from '../apply/engine.js';
import type { ApplyProgress } from '../apply/executor.js';
import { claimedRemoteIds } from '../apply/finders.js';
import { staleItems, staleMessage } from '../apply/stale.js';
import { fileWriteBack } from '../apply/write-back.js';
import { resolveProject } from '../remote/resolve-project.js';
import { readRepository } from './read-repository.js';
import type { RepositoryTarget, UseCaseContext } from './hooks.js';

export interface ApplyRepositoryOptions {
  /** a plan saved by `tmsync plan --out` (parsed with `parsePlanFile`): checked not stale, then applied as it is @default a fresh plan */
  saved?: Plan;
  /** delete remote items in scope that the repository does not describe (a saved plan keeps its own) @default false */
  prune?: boolean;
  /** with prune, accept deleting and recreating cases that look renamed @default false */
  allowRecreate?: boolean;
  /** settle conflicts with the sync base, also those the write guard finds while the run goes (docs/sync.md) */
  prefer?: Prefer;
  /** the lock and journal, when the caller holds them @default opened here (lock not waited for) and closed at the end */
  session?: ApplySession;
  /** the plan made, before anything is sent (the CLI shows it) */
  onPlan?: (plan: Plan, display: PlanDisplay) => void | Promise<void>;
  /** asked before a plan with changes and no open conflicts is run; false: nothing is applied @default approved */
  approve?: (plan: Plan) => Promise<boolean>;
  /** the operations start; what it returns is called once they ended (the CLI's progress bar and Ctrl-C note) */
  onRun?: () => () => void;
  onProgress?: (progress: ApplyProgress) => void;
}

/** What an apply did, or why it did nothing. */
export type ApplyRepositoryResult =
  | { status: 'invalid_repository'; problems: Problem[] }
  | { status: 'plan_problems'; problems: Problem[] }
  /** the signal was aborted before anything was sent */
  | { status: 'interrupted' }
  /** conflicts with the sync base are left open (`prefer` settles them): nothing was sent */
  | { status: 'conflicts'; plan: Plan; display: PlanDisplay; project: RemoteProject; conflicts: number }
  /** nothing to send; `baseError`: the sync base could not record that every item is in step */
  | { status: 'in_step'; plan: Plan; display: PlanDisplay; project: RemoteProject; baseError?: string }
  /** `approve` said no */
  | { status: 'declined'; plan: Plan; display: PlanDisplay; project: RemoteProject }
  /** the operations ran: `result` says which succeeded, failed, were skipped (and why) or were left by an interrupt */
  | { status: 'applied'; plan: Plan; display: PlanDisplay; project: RemoteProject; result: ApplyPlanResult };

type Planned = { plan: Plan; built: BuildPlanResult; actual: ActualState; base: SyncBase; claimedIds: string[] };

/**
 * `tmsync apply` as a function: plans the repository through the read pipeline of `planRepository`
 * (or checks a saved plan is not stale), then runs the plan through the engine, writes ids back
 * into the files and records the sync base. Ids an interrupted apply left in the journal are
 * written first. With an aborted `signal`, the operations in flight finish and no new one starts.
 */
export async function applyRepository(target: RepositoryTarget, options: ApplyRepositoryOptions = {}, ctx: UseCaseContext = {}): Promise<ApplyRepositoryResult> {
  const session = options.session ?? (await openApplySession({ root: target.root }));
  try {
    if (!options.session) for (const message of session.notes) ctx.onNote?.({ kind: 'session', message });
    return await applyWith(target, session, options, ctx);
  } finally {
    if (!options.session) await session.close();
  }
}

async function applyWith(target: RepositoryTarget, session: ApplySession, options: ApplyRepositoryOptions, ctx: UseCaseContext): Promise<ApplyRepositoryResult> {
  const { root, client, config } = target;
  const { saved } = options;
  const signal = ctx.signal ?? new AbortController().signal;
  const project = await resolveProject(client, target.projectRef);
  if (saved && saved.project.id !== project.id) {
    throw new TmsyncError(
      'stale_plan',
      `the saved plan is for project ${saved.project.name} (${saved.project.humanIdPrefix}), not ${project.name} (${project.humanIdPrefix})`,
      { hint: 'apply it with the configuration it was made with, or run `tmsync plan --out FILE` for this project', details: { changed: [{ key: 'project', message: 'another project' }] } },
    );
  }
  // how `.feature` files hold ids (the id tag's prefix) is tmsync.yaml's
  const read = config.gherkin ? { gherkin: config.gherkin } : undefined;
  const writeBack = fileWriteBack(root, undefined, read);
  // ids an interrupted apply recorded but did not write: written first, so the plan sees them
  // (with a saved plan, only after the staleness check, which compares the files as planned)
  const finishWriteBacks = async () => {
    const { written, failed } = await session.finishWriteBacks(project.id, root, writeBack, read);
    if (written.length || failed.length) ctx.onNote?.({ kind: 'write_backs_finished', written: written.map((w) => w.file), failed });
  };
  if (!saved) await finishWriteBacks();
  const planned = await planForApply(target, project, options, { ...ctx, signal }, finishWriteBacks);
  if ('status' in planned) return planned;
  const { plan, built, actual, base, claimedIds } = planned;
  // the renderers' view of the plan (names of lookups, step group labels): the fresh plan's
  const display = built.display;
  // the repository's state is garbage now: collected before the plan's text piles on it
  ctx.memory?.collect();
  await options.onPlan?.(plan, display);
  ctx.memory?.collect();
  const conflicts = openConflicts(plan);
  if (conflicts > 0) return { status: 'conflicts', plan, display, project, conflicts };
  const syncBase = built.synced ? { root, base, records: built.synced } : undefined;
  if (!hasChanges(plan)) {
    // nothing to send: every item compared is in step, and is recorded as synced
    const baseError = syncBase ? await writeSynced(syncBase).then(() => undefined, (err: unknown) => (err as Error).message) : undefined;
    // the service matches the repository: nothing an earlier run left is still to do
    await session.settled(project.id);
    return { status: 'in_step', plan, display, project, ...(baseError !== undefined ? { baseError } : {}) };
  }
  if (!saved && options.approve && !(await options.approve(plan))) return { status: 'declined', plan, display, project };
  if (signal.aborted) return { status: 'interrupted' };
  const existingIds = [...actual.folders.map((f) => f.id), ...actual.cases.map((c) => c.id), ...actual.stepGroups.map((g) => g.id)];
  // every top-level folder, in scope or not: fetchState only reads the folders in scope
  const topFolders = config.scope !== undefined ? 'read' : actual.folders.filter((f) => f.parentId === null).map((f) => ({ id: f.id, name: f.name }));
  // the conflicts the write guard finds while the run goes are settled as the plan's were
  const prefer = options.prefer ?? plan.sync?.prefer;
  const ended = options.onRun?.();
  try {
    const result = await session.apply(plan, {
      client,
      signal,
      writeBack,
      existingIds,
      claimedIds,
      existingTopFolders: topFolders,
      ...(syncBase ? { syncBase } : {}),
      // every update is checked against the service just before it is sent (docs/sync.md)
      guard: { before: actual, ...(prefer ? { prefer } : {}) },
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
    return { status: 'applied', plan, display, project, result };
  } finally {
    ended?.();
  }
}

/**
 * Reads the repository and the service and plans (a saved plan: checks it is not stale). Its own
 * function so that the repository's state, which the plan no longer needs once built, is not held
 * while the plan runs (tens of megabytes on a large repository).
 */
async function planForApply(
  target: RepositoryTarget,
  project: RemoteProject,
  options: ApplyRepositoryOptions,
  ctx: UseCaseContext & { signal: AbortSignal },
  finishWriteBacks: () => Promise<void>,
): Promise<Planned | Extract<ApplyRepositoryResult, { status: 'invalid_repository' | 'plan_problems' | 'interrupted' }>> {
  const { saved } = options;
  const read = await readRepository(target, { project, removeStrays: true }, ctx);
  if (read.status === 'invalid_repository') return read;
  if (ctx.signal.aborted) return { status: 'interrupted' };
  const { loaded, actual, base } = read;
  const planWith = (prefer: Prefer | undefined) =>
    buildPlan(loaded.state, actual, { prune: saved?.prune ?? options.prune, allowRecreate: options.allowRecreate, base, ...(prefer ? { prefer } : {}) });
  // a saved plan is checked as it was made (its own --prefer); a --prefer given now settles its conflicts
  let built = planWith(saved ? saved.sync?.prefer : options.prefer);
  ctx.memory?.check();
  let plan: Plan;
  if (saved) {
    const stale = staleItems(saved, { contentHash: loaded.state.contentHash, actual, fresh: built.plan });
    if (stale.length) {
      throw new TmsyncError('stale_plan', staleMessage(stale), {
        hint: 'run `tmsync plan --out FILE` again and apply the new plan',
        details: { changed: stale },
      });
    }
    plan = saved;
    if (options.prefer && (saved.sync?.conflicts.length ?? 0) > 0 && options.prefer !== saved.sync?.prefer) {
      // the same inputs as the saved plan (checked above), its conflicts settled as --prefer says
      built = planWith(options.prefer);
      plan = built.plan;
    }
    await finishWriteBacks();
  } else {
    if (built.problems.length) return { status: 'plan_problems', problems: built.problems };
    plan = built.plan;
  }
  return { plan, built, actual, base, claimedIds: claimedRemoteIds(loaded.state, actual) };
}
