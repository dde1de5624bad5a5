import type { ActualState, DesiredState } from '../model.js';
import type { CreateCaseOp, CreateFolderOp, CreateStepGroupOp } from '../plan/operations.js';
import type { TmsClient } from '../remote/client.js';
import type { RefResolver } from './requests.js';

/**
 * Natural-key lookups after a create whose outcome is unknown (a timeout, a reset after sending, a
 * 5xx; or a `begin` in the journal of a killed run). Finding the item means the create happened:
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
}

type WireItem = { id: string; [key: string]: unknown };

/**
 * A folder by name at the top level (where the service puts every new folder before it is moved).
 * The folder list is flat; a top-level folder's parent is `""` (document) or null (live).
 */
export async function findTopLevelFolder(ctx: ReconcileContext, name: string): Promise<WireItem | undefined> {
  for await (const f of ctx.client.paginate('listFolders', { params: { project_id: ctx.projectId } })) {
    const top = f.parent_folder_id === '' || f.parent_folder_id === null || f.parent_folder_id === undefined;
    if (top && f.name === name && !ctx.knownIds.has(f.id)) return f as WireItem;
  }
  return undefined;
}

/**
 * A folder by name at its parent or at the top level: a nested folder is created at the top level
 * and then moved, so a create whose move never happened leaves it there. At the parent first.
 */
export async function findFolder(ctx: ReconcileContext, name: string, parentId: string | null): Promise<WireItem | undefined> {
  let top: WireItem | undefined;
  for await (const f of ctx.client.paginate('listFolders', { params: { project_id: ctx.projectId } })) {
    if (f.name !== name || ctx.knownIds.has(f.id)) continue;
    if (parentId !== null && f.parent_folder_id === parentId) return f as WireItem;
    const isTop = f.parent_folder_id === '' || f.parent_folder_id === null || f.parent_folder_id === undefined;
    if (isTop) top ??= f as WireItem;
  }
  return top;
}

/** A case by exact title in a folder (`search` narrows the list; the title is compared here). */
export async function findCase(ctx: ReconcileContext, title: string, folderId: string): Promise<WireItem | undefined> {
  const pages = ctx.client.paginate('listTestCases', {
    params: { project_id: ctx.projectId },
    query: { folder_id: folderId, search: title },
  });
  for await (const c of pages) {
    if (c.title === title && (c.folder_id === folderId || c.folder_id === undefined) && !ctx.knownIds.has(c.id)) {
      return c as WireItem;
    }
  }
  return undefined;
}

/** A step group by exact title. */
export async function findStepGroup(ctx: ReconcileContext, title: string): Promise<WireItem | undefined> {
  for await (const g of ctx.client.paginate('listStepGroups', { params: { project_id: ctx.projectId } })) {
    if (g.title === title && !ctx.knownIds.has(g.id)) return g as WireItem;
  }
  return undefined;
}

/** Looks up the item a create operation would have made. */
export async function findCreated(
  op: CreateFolderOp | CreateCaseOp | CreateStepGroupOp,
  ctx: ReconcileContext,
  resolve: RefResolver,
): Promise<WireItem | undefined> {
  switch (op.kind) {
    case 'create_folder':
      return findFolder(ctx, op.name, op.parent === null ? null : resolve(op.parent));
    case 'create_case':
      return findCase(ctx, op.body.title, resolve(op.body.folder));
    case 'create_step_group':
      return findStepGroup(ctx, op.body.title);
  }
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
