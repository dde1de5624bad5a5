import type { RemoteCase } from '../model.js';
import type { BaseKind } from '../base/base.js';
import { caseFieldValues, changedSinceBase, fieldLabel, folderFieldValues, stepGroupFieldValues, type FieldValues } from '../base/field-values.js';
import type { CasePlan } from './cases.js';
import { problem, type PlanContext } from './context.js';
import type { FolderPlan } from './folders.js';
import type { Operation, SyncItem, UnmanagedItem } from './operations.js';
import type { StepGroupPlan } from './step-groups.js';

interface DeletePlan {
  /** cases, then step groups, then folders bottom-up */
  ops: Operation[];
  unmanaged: UnmanagedItem[];
}

const caseLabel = (c: RemoteCase) => c.humanId || c.id;

/** What the parts of the delete plan share. */
interface DeleteState {
  ops: Operation[];
  unmanaged: UnmanagedItem[];
  /** the delete operation of each remote case deleted, by its id */
  deletedCaseKey: Map<string, string>;
  /** folders that keep an item --prune would delete but the service changed since the last sync */
  held: Set<string>;
}

/**
 * Remote items in scope that the repository does not describe: reported, and deleted with
 * `prune`. Step groups are project-wide and never deleted while a remaining case uses them.
 */
export function planDeletes(ctx: PlanContext, folders: FolderPlan, groups: StepGroupPlan, cases: CasePlan): DeletePlan {
  const state: DeleteState = { ops: [], unmanaged: [], deletedCaseKey: new Map(), held: new Set() };
  const deletedByFolder = planCaseDeletes(ctx, cases, state);
  if (ctx.prune && !ctx.allowRecreate) warnPossibleRenames(ctx, cases, deletedByFolder);
  planStepGroupDeletes(ctx, groups, cases, state);
  planFolderDeletes(ctx, folders, cases, state);
  return { ops: state.ops, unmanaged: state.unmanaged };
}

/** A folder and its ancestors are kept: an item inside is held. */
function hold(ctx: PlanContext, state: DeleteState, folderId: string | null): void {
  for (let id = folderId; id !== null && !state.held.has(id); id = ctx.remote.folder(id)?.parentId ?? null) state.held.add(id);
}

/** The cases in scope no file claims; the ones deleted, by folder id. */
function planCaseDeletes(ctx: PlanContext, cases: CasePlan, state: DeleteState): Map<string, RemoteCase[]> {
  const deletedByFolder = new Map<string, RemoteCase[]>();
  for (const c of ctx.remote.scopedCases) {
    if (cases.claimed.has(c.id)) continue;
    const path = ctx.remote.folderPath(c.folderId);
    const keep = ctx.prune && heldByService(ctx, 'case', c.id, caseFieldValues(c), { itemType: 'case', id: c.id, humanId: c.humanId, path, title: c.title });
    if (keep) hold(ctx, state, c.folderId);
    state.unmanaged.push({ itemType: 'case', id: c.id, humanId: c.humanId, path, title: c.title, pruned: ctx.prune && !keep });
    if (!ctx.prune || keep) continue;
    const key = `delete_case:${caseLabel(c)}`;
    if (ctx.sync?.collect) ctx.sync.forgets.push({ kind: 'case', id: c.id, op: key });
    state.deletedCaseKey.set(c.id, key);
    deletedByFolder.set(c.folderId, [...(deletedByFolder.get(c.folderId) ?? []), c]);
    state.ops.push({ kind: 'delete_case', key, dependsOn: [], id: c.id, humanId: c.humanId, title: c.title, path });
  }
  return deletedByFolder;
}

/** Deleting one case and creating another in the same folder looks like a rename that lost its id. */
function warnPossibleRenames(ctx: PlanContext, cases: CasePlan, deletedByFolder: ReadonlyMap<string, RemoteCase[]>): void {
  for (const m of cases.matches) {
    if (m.remote || !m.node?.remote) continue;
    const gone = deletedByFolder.get(m.node.remote.id);
    if (!gone) continue;
    const ids = gone.map(caseLabel);
    problem(
      ctx,
      'possible_rename',
      m.desired.file,
      m.desired.lines.title,
      `"${m.desired.title}" would be created while ${gone.map((c) => `${caseLabel(c)} "${c.title}"`).join(', ')} in the same folder would be deleted: this looks like a rename, and recreating loses the case's history`,
      `add \`id: ${ids.length === 1 ? ids[0] : '<HUMAN-ID>'}\` to the file to keep the case, or pass --allow-recreate`,
    );
  }
}

/**
 * The step groups no file describes and no case of the repository uses: which remaining cases
 * still use each (computed only when there is a candidate), and the operations that change a case
 * using it (its delete waits for them).
 */
function stepGroupUse(ctx: PlanContext, cases: CasePlan, state: DeleteState, candidates: ReadonlySet<string>) {
  const stillUsed = new Map<string, number>();
  const users = new Map<string, string[]>();
  if (candidates.size === 0 || !ctx.prune) return { stillUsed, users };
  const managedSteps = new Map(cases.matches.filter((m) => m.remote).map((m) => [m.remote!.id, m.stepGroupIds]));
  for (const c of ctx.actual.cases) {
    const remoteGroups = new Set<string>();
    for (const s of c.individualSteps) if (s.stepGroupId && candidates.has(s.stepGroupId)) remoteGroups.add(s.stepGroupId);
    const op = state.deletedCaseKey.get(c.id) ?? cases.opByRemoteId.get(c.id);
    if (op) for (const g of remoteGroups) users.set(g, [...(users.get(g) ?? []), op]);
    if (state.deletedCaseKey.has(c.id)) continue;
    const managed = managedSteps.get(c.id);
    const after = managed ? managed.filter((g) => candidates.has(g)) : remoteGroups;
    for (const g of new Set(after)) stillUsed.set(g, (stillUsed.get(g) ?? 0) + 1);
  }
  return { stillUsed, users };
}

function planStepGroupDeletes(ctx: PlanContext, groups: StepGroupPlan, cases: CasePlan, state: DeleteState): void {
  const byRepository = new Set<string>();
  for (const m of cases.matches) for (const id of m.stepGroupIds ?? []) byRepository.add(id);
  // Step groups are project-wide, not inside any folder: with a `scope`, the ones the repository
  // does not describe are outside it (neither unmanaged nor pruned). The cases read under a scope
  // are only the scoped ones, so "no case uses it" could not be told anyway.
  const scoped = ctx.desired.scope !== undefined;
  const candidates = new Set(
    scoped ? [] : ctx.actual.stepGroups.filter((g) => !groups.claimed.has(g.id) && !byRepository.has(g.id)).map((g) => g.id),
  );
  const { stillUsed, users } = stepGroupUse(ctx, cases, state, candidates);
  for (const g of ctx.actual.stepGroups) {
    if (!candidates.has(g.id)) continue;
    const inUse = stillUsed.get(g.id) ?? 0;
    const keep = ctx.prune && inUse === 0 && heldByService(ctx, 'step_group', g.id, stepGroupFieldValues(g), { itemType: 'step_group', id: g.id, humanId: g.humanId, path: [], title: g.title });
    const pruned = ctx.prune && inUse === 0 && !keep;
    state.unmanaged.push({ itemType: 'step_group', id: g.id, humanId: g.humanId, path: [], title: g.title, pruned });
    if (ctx.prune && inUse > 0) {
      ctx.warnings.push({
        code: 'step_group_in_use',
        message: `step group ${g.humanId || g.id} "${g.title}" is not in the repository but ${inUse} remaining case${inUse === 1 ? ' uses' : 's use'} it, so --prune keeps it`,
      });
    }
    if (!pruned) continue;
    if (ctx.sync?.collect) ctx.sync.forgets.push({ kind: 'step_group', id: g.id, op: `delete_step_group:${g.humanId || g.id}` });
    state.ops.push({
      kind: 'delete_step_group',
      key: `delete_step_group:${g.humanId || g.id}`,
      dependsOn: [...new Set(users.get(g.id) ?? [])],
      id: g.id,
      humanId: g.humanId,
      title: g.title,
    });
  }
}

/** Folders, children first; whatever the repository keeps inside moves out before. */
function planFolderDeletes(ctx: PlanContext, folders: FolderPlan, cases: CasePlan, state: DeleteState): void {
  const { held, unmanaged } = state;
  const placeByRemote = new Map<string, string>();
  for (const n of folders.nodes) if (n.remote && n.placeKey) placeByRemote.set(n.remote.id, n.placeKey);
  let doomed = ctx.remote.scopedFolders.filter((f) => !folders.claimed.has(f.id));
  if (ctx.prune && ctx.sync) {
    for (const f of doomed) {
      if (heldByService(ctx, 'folder', f.id, folderFieldValues(f), { itemType: 'folder', id: f.id, path: ctx.remote.folderPath(f.id), title: f.name })) hold(ctx, state, f.id);
    }
    doomed = doomed.filter((f) => !held.has(f.id));
    for (const id of held) {
      const f = ctx.remote.folder(id);
      if (f && !folders.claimed.has(id) && ctx.remote.inScope(id)) unmanaged.push({ itemType: 'folder', id, path: ctx.remote.folderPath(id), title: f.name, pruned: false });
    }
  }
  const folderDeleteKey = new Map(doomed.map((f) => [f.id, `delete_folder:${f.id}`]));
  const folderOps: { depth: number; op: Operation }[] = [];
  for (const f of doomed) {
    const path = ctx.remote.folderPath(f.id);
    unmanaged.push({ itemType: 'folder', id: f.id, path, title: f.name, pruned: ctx.prune });
    if (!ctx.prune) continue;
    if (ctx.sync?.collect) ctx.sync.forgets.push({ kind: 'folder', id: f.id, op: folderDeleteKey.get(f.id)! });
    const deps: string[] = [];
    for (const child of ctx.remote.children(f.id)) {
      const k = folderDeleteKey.get(child.id) ?? placeByRemote.get(child.id);
      if (k) deps.push(k);
    }
    for (const c of ctx.remote.casesIn(f.id)) {
      const k = state.deletedCaseKey.get(c.id) ?? cases.opByRemoteId.get(c.id);
      if (k) deps.push(k);
    }
    folderOps.push({ depth: path.length, op: { kind: 'delete_folder', key: folderDeleteKey.get(f.id)!, dependsOn: deps, id: f.id, path } });
  }
  folderOps.sort((a, b) => b.depth - a.depth);
  state.ops.push(...folderOps.map((x) => x.op));
}

/**
 * An item --prune would delete (the repository no longer describes it) that the service changed
 * since the last sync: a conflict. Kept unless `--prefer local`; true when it is kept.
 */
function heldByService(ctx: PlanContext, kind: BaseKind, id: string, remote: FieldValues, item: SyncItem): boolean {
  const entry = ctx.sync?.base.get(kind, id);
  if (!ctx.sync || !entry) return false;
  const changed = changedSinceBase(entry, remote);
  if (changed.length === 0) return false;
  ctx.sync.conflicts.push({ ...item, field: 'deleted', local: 'deleted from the repository', remote: `changed on the service: ${changed.map(fieldLabel).join(', ')}` });
  return ctx.sync.prefer !== 'local';
}
