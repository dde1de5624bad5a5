import type { CreateCaseOp, CreateFolderOp, CreateStepGroupOp, Ref } from '../plan/operations.js';
import { findCreated, findFolder } from './finders.js';
import { isCreate, type CreateOp } from './operation-requests.js';
import type { RunState } from './run-state.js';

/**
 * Creates a stopped run left open (a `begin` without an answer) are answered before anything
 * starts, with one list read per folder for cases, one folder list and one step group list, in
 * parallel within the client's rate. A create stays open until a lookup positively answers found
 * or not found: one whose lookup fails is journalled as ambiguous again, and no create of its kind
 * is sent in this run (its lookup could otherwise take one of them, or they it). The same holds for
 * a create of this run that fails ambiguously after its own lookup failed.
 */
export async function settlePendingCreates(state: RunState): Promise<void> {
  const { plan, options, prefound } = state;
  const pendingOps = plan.operations.filter(
    (op): op is CreateOp => isCreate(op) && options.pendingCreates?.has(op.key) === true && !prefound.has(op.key),
  );
  if (pendingOps.length === 0) return;
  const n = pendingOps.length;
  options.onProgress?.({
    total: plan.operations.length,
    done: 0,
    failed: 0,
    inFlight: 0,
    phase: `checking ${n} create${n === 1 ? '' : 's'} a stopped run left open`,
  });
  const failedLookups = await lookUpPending(state, pendingOps);
  // one more try each, alone, before giving up on it
  await Promise.all([...failedLookups].map(([key, firstErr]) => retryLookup(state, state.ops.get(key) as CreateOp, firstErr)));
}

async function retryLookup(state: RunState, op: CreateOp, firstErr: unknown): Promise<void> {
  try {
    // a folder whose new parent is not known yet can only be at the top level
    const found =
      op.kind === 'create_folder' && op.parent !== null && 'op' in op.parent && !state.prefound.has(op.parent.op)
        ? await findFolder(state.resumeCtx(op.key), op.name, null)
        : await findCreated(op, state.resumeCtx(op.key), state.resolveNow);
    if (found) state.claim(op.key, found);
    else state.lookedUp.add(op.key);
  } catch (err) {
    state.unreconciled.set(op.key, err ?? firstErr);
    if (!state.blockedKinds.has(op.kind)) state.blockedKinds.set(op.kind, op.key);
  }
}

type WireItem = { id: string; [key: string]: unknown };
type Failed = Map<string, unknown>;

const isTop = (parent: unknown) => parent === '' || parent === null || parent === undefined;

/** Batch lookups of pending creates; returns the keys whose read failed, with the error. */
async function lookUpPending(state: RunState, pending: CreateOp[]): Promise<Failed> {
  const failed: Failed = new Map();
  const folders = pending.filter((op): op is CreateFolderOp => op.kind === 'create_folder');
  const groups = pending.filter((op): op is CreateStepGroupOp => op.kind === 'create_step_group');
  const cases = pending.filter((op): op is CreateCaseOp => op.kind === 'create_case');
  await Promise.all([lookUpFolders(state, folders, failed), lookUpStepGroups(state, groups, failed)]);
  await lookUpCases(state, cases, failed);
  return failed;
}

async function readAll(state: RunState, endpoint: 'listFolders' | 'listStepGroups' | 'listTestCases', query?: Record<string, string>): Promise<WireItem[]> {
  const items: WireItem[] = [];
  const pages = state.options.client.paginate(endpoint, { params: { project_id: state.projectId }, ...(query ? { query } : {}) });
  for await (const x of pages) items.push(x);
  return items;
}

/** Settles one pending create from a list already read. */
function settle(state: RunState, key: string, found: WireItem | undefined): void {
  if (found) state.claim(key, found);
  else state.lookedUp.add(key);
}

const parentOf = (state: RunState, ref: Ref): string | undefined => ('id' in ref ? ref.id : state.prefound.get(ref.op)?.id);

async function lookUpFolders(state: RunState, folders: CreateFolderOp[], failed: Failed): Promise<void> {
  if (folders.length === 0) return;
  let all: WireItem[];
  try {
    all = await readAll(state, 'listFolders');
  } catch (err) {
    for (const op of folders) failed.set(op.key, err);
    return;
  }
  // plan order: a parent is settled before its children
  for (const op of folders) {
    if (op.parent !== null && 'op' in op.parent && failed.has(op.parent.op)) {
      failed.set(op.key, failed.get(op.parent.op));
      continue;
    }
    const parentId = op.parent === null ? undefined : parentOf(state, op.parent);
    const known = state.resumeCtx(op.key).knownIds;
    const named = all.filter((f) => f.name === op.name && !known.has(f.id));
    const atParent = parentId !== undefined ? named.find((f) => f.parent_folder_id === parentId) : undefined;
    settle(state, op.key, atParent ?? named.find((f) => isTop(f.parent_folder_id)));
  }
}

async function lookUpStepGroups(state: RunState, groups: CreateStepGroupOp[], failed: Failed): Promise<void> {
  if (groups.length === 0) return;
  let all: WireItem[];
  try {
    all = await readAll(state, 'listStepGroups');
  } catch (err) {
    for (const op of groups) failed.set(op.key, err);
    return;
  }
  for (const op of groups) {
    const known = state.resumeCtx(op.key).knownIds;
    settle(state, op.key, all.find((g) => g.title === op.body.title && !known.has(g.id)));
  }
}

async function lookUpCases(state: RunState, cases: CreateCaseOp[], failed: Failed): Promise<void> {
  const byFolder = new Map<string, CreateCaseOp[]>();
  for (const op of cases) {
    const ref = op.body.folder;
    const folderId = parentOf(state, ref);
    if (folderId === undefined) {
      if ('op' in ref && failed.has(ref.op)) failed.set(op.key, failed.get(ref.op));
      // its folder is created by this run: nothing can be in it yet
      else state.lookedUp.add(op.key);
      continue;
    }
    byFolder.set(folderId, [...(byFolder.get(folderId) ?? []), op]);
  }
  await Promise.all(
    [...byFolder].map(async ([folderId, list]) => {
      let all: WireItem[];
      try {
        all = await readAll(state, 'listTestCases', { folder_id: folderId });
      } catch (err) {
        for (const op of list) failed.set(op.key, err);
        return;
      }
      for (const op of list) {
        const known = state.resumeCtx(op.key).knownIds;
        settle(state, op.key, all.find((c) => c.title === op.body.title && (c.folder_id === folderId || c.folder_id === undefined) && !known.has(c.id)));
      }
    }),
  );
}
