import type { RemoteCase } from '../model.js';
import type { BaseKind } from '../base/base.js';
import { caseFieldValues, changedSinceBase, fieldLabel, folderFieldValues, stepGroupFieldValues, type FieldValues } from '../base/field-values.js';
import type { CasePlan } from './cases.js';
import { problem, type PlanContext } from './context.js';
import type { FolderPlan } from './folders.js';
import type { Operation, SyncItem, UnmanagedItem } from './operations.js';
import type { StepGroupPlan } from './step-groups.js';

export interface DeletePlan {
  /** cases, then step groups, then folders bottom-up */
  ops: Operation[];
  unmanaged: UnmanagedItem[];
}

const caseLabel = (c: RemoteCase) => c.humanId || c.id;

/**
 * Remote items in scope that the repository does not describe: reported, and deleted with
 * `prune`. Step groups are project-wide and never deleted while a remaining case uses them.
 */
export function planDeletes(ctx: PlanContext, folders: FolderPlan, groups: StepGroupPlan, cases: CasePlan): DeletePlan {
  const ops: Operation[] = [];
  const unmanaged: UnmanagedItem[] = [];
  const deletedCaseKey = new Map<string, string>();
  const deletedByFolder = new Map<string, RemoteCase[]>();

  // folders that keep an item --prune would delete but the service changed since the last sync
  const held = new Set<string>();
  const hold = (folderId: string | null) => {
    for (let id = folderId; id !== null && !held.has(id); id = ctx.remote.folder(id)?.parentId ?? null) held.add(id);
  };
  for (const c of ctx.remote.scopedCases) {
    if (cases.claimed.has(c.id)) continue;
    const path = ctx.remote.folderPath(c.folderId);
    const keep = ctx.prune && heldByService(ctx, 'case', c.id, caseFieldValues(c), { itemType: 'case', id: c.id, humanId: c.humanId, path, title: c.title });
    if (keep) hold(c.folderId);
    unmanaged.push({ itemType: 'case', id: c.id, humanId: c.humanId, path, title: c.title, pruned: ctx.prune && !keep });
    if (!ctx.prune || keep) continue;
    const key = `delete_case:${caseLabel(c)}`;
    if (ctx.sync?.collect) ctx.sync.forgets.push({ kind: 'case', id: c.id, op: key });
    deletedCaseKey.set(c.id, key);
    deletedByFolder.set(c.folderId, [...(deletedByFolder.get(c.folderId) ?? []), c]);
    ops.push({ kind: 'delete_case', key, dependsOn: [], id: c.id, humanId: c.humanId, title: c.title, path });
  }

  // deleting one case and creating another in the same folder looks like a rename that lost its id
  if (ctx.prune && !ctx.allowRecreate) {
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

  // step groups: which cases use each candidate, computed only when there is a candidate
  const byRepository = new Set<string>();
  for (const m of cases.matches) for (const id of m.stepGroupIds ?? []) byRepository.add(id);
  // Step groups are project-wide, not inside any folder: with a `scope`, the ones the repository
  // does not describe are outside it (neither unmanaged nor pruned). The cases read under a scope
  // are only the scoped ones, so "no case uses it" could not be told anyway.
  const scoped = ctx.desired.scope !== undefined;
  const candidates = new Set(
    scoped ? [] : ctx.actual.stepGroups.filter((g) => !groups.claimed.has(g.id) && !byRepository.has(g.id)).map((g) => g.id),
  );
  const stillUsed = new Map<string, number>();
  const users = new Map<string, string[]>();
  if (candidates.size > 0 && ctx.prune) {
    const managedSteps = new Map(cases.matches.filter((m) => m.remote).map((m) => [m.remote!.id, m.stepGroupIds]));
    for (const c of ctx.actual.cases) {
      const remoteGroups = new Set<string>();
      for (const s of c.individualSteps) if (s.stepGroupId && candidates.has(s.stepGroupId)) remoteGroups.add(s.stepGroupId);
      const op = deletedCaseKey.get(c.id) ?? cases.opByRemoteId.get(c.id);
      if (op) for (const g of remoteGroups) users.set(g, [...(users.get(g) ?? []), op]);
      if (deletedCaseKey.has(c.id)) continue;
      const managed = managedSteps.get(c.id);
      const after = managed ? managed.filter((g) => candidates.has(g)) : remoteGroups;
      for (const g of new Set(after)) stillUsed.set(g, (stillUsed.get(g) ?? 0) + 1);
    }
  }
  for (const g of ctx.actual.stepGroups) {
    if (!candidates.has(g.id)) continue;
    const inUse = stillUsed.get(g.id) ?? 0;
    const keep = ctx.prune && inUse === 0 && heldByService(ctx, 'step_group', g.id, stepGroupFieldValues(g), { itemType: 'step_group', id: g.id, humanId: g.humanId, path: [], title: g.title });
    const pruned = ctx.prune && inUse === 0 && !keep;
    unmanaged.push({ itemType: 'step_group', id: g.id, humanId: g.humanId, path: [], title: g.title, pruned });
    if (ctx.prune && inUse > 0) {
      ctx.warnings.push({
        code: 'step_group_in_use',
        message: `step group ${g.humanId || g.id} "${g.title}" is not in the repository but ${inUse} remaining case${inUse === 1 ? ' uses' : 's use'} it, so --prune keeps it`,
      });
    }
    if (!pruned) continue;
    if (ctx.sync?.collect) ctx.sync.forgets.push({ kind: 'step_group', id: g.id, op: `delete_step_group:${g.humanId || g.id}` });
    ops.push({
      kind: 'delete_step_group',
      key: `delete_step_group:${g.humanId || g.id}`,
      dependsOn: [...new Set(users.get(g.id) ?? [])],
      id: g.id,
      humanId: g.humanId,
      title: g.title,
    });
  }

  // folders, children first; whatever the repository keeps inside moves out before
  const placeByRemote = new Map<string, string>();
  for (const n of folders.nodes) if (n.remote && n.placeKey) placeByRemote.set(n.remote.id, n.placeKey);
  let doomed = ctx.remote.scopedFolders.filter((f) => !folders.claimed.has(f.id));
  if (ctx.prune && ctx.sync) {
    for (const f of doomed) {
      if (heldByService(ctx, 'folder', f.id, folderFieldValues(f), { itemType: 'folder', id: f.id, path: ctx.remote.folderPath(f.id), title: f.name })) hold(f.id);
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
      const k = deletedCaseKey.get(c.id) ?? cases.opByRemoteId.get(c.id);
      if (k) deps.push(k);
    }
    folderOps.push({ depth: path.length, op: { kind: 'delete_folder', key: folderDeleteKey.get(f.id)!, dependsOn: deps, id: f.id, path } });
  }
  folderOps.sort((a, b) => b.depth - a.depth);
  ops.push(...folderOps.map((x) => x.op));
  return { ops, unmanaged };
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
