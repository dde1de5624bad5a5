import type { ActualState, DesiredState } from '../model.js';
import type { QueryOf } from '../api/endpoints.js';
import type { TmsClient } from '../remote/client.js';
import { normalizeTimestamp } from '../remote/to-actual.js';
import type { Operation, OperationKind } from '../plan/operations.js';
import { isCreate, type CreateOp, type RefResolver, type RequestDescriptor } from './operation-requests.js';

/**
 * The natural-key lookups (apply, migrate and restore share them) after a create whose outcome is
 * unknown (a timeout, a reset after sending, a 5xx; or a `begin` in the journal of a killed run). Finding the item means the create happened:
 * it is adopted instead of being created a second time.
 *
 * An item is only claimed when its id is not already known to this run (`knownIds`: every id the
 * plan refers to and every id created so far), so an existing item with the same name that belongs
 * to something else is never taken.
 */

/** What apply needs of the client (a structural subset of the remote client, easy to fake in tests). */
export type ApplyClient = Pick<TmsClient, 'call' | 'paginate'>;

export interface ReconcileContext {
  client: ApplyClient;
  projectId: string;
  /** ids that belong to other items: never claimed */
  knownIds: { has(id: string): boolean };
  /** stops the list reads @default none */
  signal?: AbortSignal;
  /**
   * Test plans and runs: only one created at or after this time (Unix seconds) is claimed. A
   * command that creates one item without reading the project first (`tmsync test-plan create`,
   * `results push --new-run`) knows no ids to exclude, so an older namesake is told apart by its
   * age. @default none
   */
  createdSince?: number;
}

type WireItem = { id: string; [key: string]: unknown };

/** One list of the project, read page by page. */
function list<N extends 'listFolders' | 'listStepGroups' | 'listTestCases' | 'listTestPlans' | 'listTestRuns'>(ctx: ReconcileContext, endpoint: N, query?: QueryOf<N>) {
  return ctx.client.paginate(endpoint, {
    params: { project_id: ctx.projectId },
    ...(query ? { query } : {}),
    ...(ctx.signal ? { signal: ctx.signal } : {}),
  });
}

/**
 * A folder by name at its parent or at the top level: a nested folder is created at the top level
 * and then moved, so a create whose move never happened leaves it there. At the parent first.
 */
export async function findFolder(ctx: ReconcileContext, name: string, parentId: string | null): Promise<WireItem | undefined> {
  let top: WireItem | undefined;
  for await (const f of list(ctx, 'listFolders')) {
    if (f.name !== name || ctx.knownIds.has(f.id)) continue;
    if (parentId !== null && f.parent_folder_id === parentId) return f;
    const isTop = f.parent_folder_id === '' || f.parent_folder_id === null || f.parent_folder_id === undefined;
    if (isTop) top ??= f as WireItem;
  }
  return top;
}

/** A case by exact title in a folder (`search` narrows the list; the title is compared here). */
async function findCase(ctx: ReconcileContext, title: string, folderId: string): Promise<WireItem | undefined> {
  for await (const c of list(ctx, 'listTestCases', { folder_id: folderId, search: title })) {
    if (c.title === title && (c.folder_id === folderId || c.folder_id === undefined) && !ctx.knownIds.has(c.id)) {
      return c;
    }
  }
  return undefined;
}

/** A step group by exact title. */
async function findStepGroup(ctx: ReconcileContext, title: string): Promise<WireItem | undefined> {
  for await (const g of list(ctx, 'listStepGroups')) {
    if (g.title === title && !ctx.knownIds.has(g.id)) return g;
  }
  return undefined;
}

/** Whether a test plan or run is recent enough to be the one a create made (see `createdSince`). */
function recent(ctx: ReconcileContext, item: { created_at?: unknown }): boolean {
  return ctx.createdSince === undefined || (typeof item.created_at === 'number' && normalizeTimestamp(item.created_at) >= ctx.createdSince);
}

/** A test plan by exact title (`title__CONTAINS` narrows the list). */
export async function findTestPlan(ctx: ReconcileContext, title: string): Promise<WireItem | undefined> {
  for await (const p of list(ctx, 'listTestPlans', { title__CONTAINS: title })) if (p.title === title && !ctx.knownIds.has(p.id) && recent(ctx, p)) return p;
  return undefined;
}

/** A test run by exact title (`search` narrows the list). */
export async function findTestRun(ctx: ReconcileContext, title: string): Promise<WireItem | undefined> {
  for await (const r of list(ctx, 'listTestRuns', { search: title })) if (r.title === title && !ctx.knownIds.has(r.id) && recent(ctx, r)) return r;
  return undefined;
}

type CreateKind = CreateOp['kind'];

/**
 * The create kinds' part of the operation table that needs the service: how to look up what a
 * create may have made, and where to read the human id its answer may lack (cases and step
 * groups are written back by human id).
 */
export const CREATE_KINDS: {
  readonly [K in CreateKind]: {
    find: (op: Extract<CreateOp, { kind: K }>, ctx: ReconcileContext, resolve: RefResolver) => Promise<WireItem | undefined>;
    /** reads the created item again for its human id (when the create's answer lacked it) */
    readHumanId?: (client: ApplyClient, projectId: string, id: string) => Promise<unknown>;
  };
} = {
  create_folder: { find: (op, ctx, resolve) => findFolder(ctx, op.name, op.parent === null ? null : resolve(op.parent)) },
  create_case: {
    find: (op, ctx, resolve) => findCase(ctx, op.body.title, resolve(op.body.folder)),
    readHumanId: async (client, projectId, id) =>
      (await client.call('getTestCase', { params: { project_id: projectId, test_case_id: id } })).data?.test_case?.human_id,
  },
  create_step_group: {
    find: (op, ctx) => findStepGroup(ctx, op.body.title),
    readHumanId: async (client, projectId, id) =>
      (await client.call('getStepGroup', { params: { project_id: projectId, step_group_id: id } })).data?.step_group?.human_id,
  },
  create_test_plan: { find: (op, ctx) => findTestPlan(ctx, op.title) },
  create_test_run: { find: (op, ctx) => findTestRun(ctx, op.title) },
};

/**
 * Operations whose request may have taken effect although it failed (its answer was lost, or an
 * earlier run did it without recording so): the item is read, and when it is as the operation
 * wants, the operation counts as done instead of failed.
 */
const CONFIRM_KINDS: {
  readonly [K in OperationKind]?: (op: Extract<Operation, { kind: K }>, client: ApplyClient, projectId: string, resolve: RefResolver) => Promise<boolean>;
} = {
  complete_test_plan: async (op, client, projectId, resolve) => {
    const plan = await client.call('getTestPlan', { params: { project_id: projectId, test_plan_id: resolve(op.plan) } }).catch(() => undefined);
    return plan?.data.test_plan.status === 'COMPLETED';
  },
};

/** Whether a failed operation did what it wants after all (see {@link CONFIRM_KINDS}); false when its kind cannot tell. */
export function confirmDone(op: Operation, client: ApplyClient, projectId: string, resolve: RefResolver): Promise<boolean> {
  const confirm = CONFIRM_KINDS[op.kind] as ((op: Operation, client: ApplyClient, projectId: string, resolve: RefResolver) => Promise<boolean>) | undefined;
  return confirm ? confirm(op, client, projectId, resolve) : Promise.resolve(false);
}

type AnyCreateEntry = (typeof CREATE_KINDS)[CreateKind] & { find: (op: CreateOp, ctx: ReconcileContext, resolve: RefResolver) => Promise<WireItem | undefined> };

/** Looks up the item a create operation would have made. */
export function findCreated(op: CreateOp, ctx: ReconcileContext, resolve: RefResolver): Promise<WireItem | undefined> {
  // each entry accepts its own kind, which `op.kind` picks
  return (CREATE_KINDS[op.kind] as AnyCreateEntry).find(op, ctx, resolve);
}

/**
 * The client's `reconcile` for one request of an operation: on the request that creates the item,
 * the natural-key lookup that settles an ambiguous failure (found: the item is the call's answer,
 * under the request's result key; not found: the create is sent again). Undefined for any other
 * request, which the client then never repeats blindly after an ambiguous failure.
 */
export function reconcilerFor(op: Operation, req: RequestDescriptor, ctx: ReconcileContext, resolve: RefResolver): (() => Promise<unknown>) | undefined {
  if (!req.produces || !isCreate(op)) return undefined;
  return async () => {
    const found = await findCreated(op, ctx, resolve);
    return found ? { message: '', data: { [req.resultKey ?? 'item']: found } } : undefined;
  };
}

/**
 * Remote ids that repository files claim with `id:` (human id or id). An unchanged item has no
 * operation in the plan, so without this a lookup for a twin (same title, same folder) created by a
 * killed run could adopt it.
 */
export function claimedRemoteIds(desired: DesiredState, actual: ActualState): string[] {
  const byRef = new Map<string, string>();
  const add = (id: string, humanId?: string) => {
    byRef.set(id.toLowerCase(), id);
    if (humanId) byRef.set(humanId.toLowerCase(), id);
  };
  for (const c of actual.cases) add(c.id, c.humanId);
  for (const g of actual.stepGroups) add(g.id, g.humanId);
  for (const f of actual.folders) add(f.id);
  const claimed: string[] = [];
  for (const item of [...desired.cases, ...desired.stepGroups, ...desired.folders]) {
    const id = item.id === undefined ? undefined : byRef.get(item.id.trim().toLowerCase());
    if (id !== undefined) claimed.push(id);
  }
  return claimed;
}
