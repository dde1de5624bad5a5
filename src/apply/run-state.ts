import type { Operation, Plan, Ref } from '../plan/operations.js';
import type { ApplyResult, ExecuteOptions } from './execute-types.js';
import type { ReconcileContext } from './finders.js';
import { isCreate, type RefResolver } from './operation-requests.js';
import { WriteGuard } from './write-guard.js';

/**
 * What one execution of a plan knows while it runs, shared by its parts (the pending-create
 * lookups, the scheduler, the operation runner): which ids belong to whom, what was found or
 * produced, and the result so far.
 */
export interface RunState {
  readonly plan: Plan;
  readonly options: ExecuteOptions;
  readonly projectId: string;
  readonly ops: ReadonlyMap<string, Operation>;
  readonly result: ApplyResult;
  /** ids that belong to other items: the plan's, the repository's claims and those created so far */
  readonly knownIds: Set<string>;
  /** ids the service held before the run */
  readonly existing: ReadonlySet<string>;
  /** top-level folders before the run, by name (a new folder lands there) */
  readonly topFolders: ReadonlyMap<string, string[]>;
  /** ids produced by operations of this run, by key */
  readonly produced: Map<string, string>;
  /** ids found or resumed for creates before they ran, by key */
  readonly prefound: Map<string, { id: string; humanId?: string }>;
  /** ids a resumed create claimed: a delete of one of them is not sent */
  readonly claimed: Set<string>;
  /** pending creates already looked up and not found */
  readonly lookedUp: Set<string>;
  /** pending creates whose lookup failed, with the error */
  readonly unreconciled: Map<string, unknown>;
  /** create kinds blocked by an unreconciled create, with its key */
  readonly blockedKinds: Map<string, string>;
  /** the first journal write failure: nothing new starts after it */
  journalError: Error | undefined;
  /** the context of lookups for creates of this run: never claims what existed before */
  readonly runCtx: ReconcileContext;
  /** the context of a lookup for a pending create of an earlier run */
  resumeCtx(key: string): ReconcileContext;
  /** an id or the id the referenced operation produced */
  readonly resolve: RefResolver;
  /** an id or the id a resumed create claimed (before anything ran) */
  readonly resolveNow: RefResolver;
  /** records a resumed or found item for a create */
  claim(key: string, found: { id: string; human_id?: unknown }): void;
  /** checks updates against the service just before they are sent (`ExecuteOptions.guard`) */
  readonly guard?: WriteGuard;
  /** awaits a journal write; a failure is kept and stops the run */
  noteJournal(write: Promise<void> | undefined): Promise<void>;
}

export function createRunState(plan: Plan, options: ExecuteOptions): RunState {
  const { client } = options;
  const projectId = plan.project.id;
  const result: ApplyResult = { created: 0, updated: 0, moved: 0, deleted: 0, adopted: 0, failed: [], skipped: [], interrupted: false, ids: {} };
  const ops = new Map<string, Operation>();
  for (const op of plan.operations) ops.set(op.key, op);
  const knownIds = new Set<string>();
  for (const op of plan.operations) if ('id' in op && typeof op.id === 'string') knownIds.add(op.id);
  for (const id of options.claimedIds ?? []) knownIds.add(id);
  const existing = new Set<string>(options.existingIds ?? []);
  const topFolders = new Map<string, string[]>();
  for (const f of options.existingTopFolders ?? []) {
    existing.add(f.id);
    topFolders.set(f.name, [...(topFolders.get(f.name) ?? []), f.id]);
  }
  const produced = new Map<string, string>();
  const prefound = new Map<string, { id: string; humanId?: string }>();
  const claimed = new Set<string>();
  const state: RunState = {
    plan,
    options,
    projectId,
    ops,
    result,
    knownIds,
    existing,
    topFolders,
    produced,
    prefound,
    claimed,
    ...(options.guard ? { guard: new WriteGuard(client, projectId, options.guard, options.signal, plan.operations) } : {}),
    lookedUp: new Set(),
    unreconciled: new Map(),
    blockedKinds: new Map(),
    journalError: undefined,
    runCtx: { client, projectId, knownIds: { has: (id) => knownIds.has(id) || existing.has(id) } },
    // a lookup for a create of an earlier run may find an item the service held before this run,
    // except what that run recorded as existing before its create was sent
    resumeCtx: (key) => {
      const exclude = new Set(options.pendingExclude?.get(key) ?? []);
      return { client, projectId, knownIds: { has: (id) => knownIds.has(id) || exclude.has(id) } };
    },
    resolve: (ref: Ref) => {
      if ('id' in ref) return ref.id;
      const id = produced.get(ref.op);
      if (id === undefined) throw new Error(`operation ${ref.op} has not produced an id`);
      return id;
    },
    resolveNow: (ref: Ref) => {
      if ('id' in ref) return ref.id;
      const id = prefound.get(ref.op)?.id;
      if (id === undefined) throw new Error(`operation ${ref.op} has not produced an id`);
      return id;
    },
    claim: (key, found) => {
      const rec = { id: found.id, ...(typeof found.human_id === 'string' ? { humanId: found.human_id } : {}) };
      prefound.set(key, rec);
      knownIds.add(found.id);
      claimed.add(found.id);
    },
    // a journal that cannot be written stops the run: what is not recorded cannot be resumed safely
    noteJournal: async (write) => {
      try {
        await write;
      } catch (err) {
        state.journalError ??= err as Error;
        result.journalError ??= (err as Error).message;
      }
    },
  };
  // a deleted item that a resumed create claims must not be deleted by the same run, so the
  // lookups that need no id from this run are done before anything starts
  for (const [key, rec] of options.resumeIds ?? []) {
    if (ops.has(key) && isCreate(ops.get(key)!)) state.claim(key, { id: rec.id, human_id: rec.humanId });
  }
  return state;
}
