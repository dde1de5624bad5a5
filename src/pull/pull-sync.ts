import type { ActualState, DesiredState, RemoteCase } from '../model.js';
import type { ReadOptions } from '../repository/case-file.js';
import { buildPlan } from '../plan/build-plan.js';
import type { HashedFields, SyncBase, BaseKind, FieldStanding } from '../base/base.js';
import { folderFieldValues, HUMAN_ID_FIELD, humanIdHash, stepGroupFieldValues, withHumanId, type FieldValues } from '../base/field-values.js';
import { PullMerge, remoteCaseBaseFields, type Prefer, type PullConflict, type PullMergeSummary } from './pull-merge.js';
import type { PullResult } from './pull-types.js';

/**
 * pull and the sync base: the standings of each field come from the plan (built with the base, so
 * pull and plan classify alike), the values recorded from the service's state as read.
 */

export interface PreparedPullMerge {
  hooks: PullMerge;
  /** conflicts of items the service deleted while the repository changed them (files left) */
  deleted: PullConflict[];
}

/** A case's fields for the base in compare form (`remoteCaseBaseFields`), hashed ahead of time; undefined when not. */
export type HashedCaseFields = (c: RemoteCase) => HashedFields | undefined;

/**
 * The service's side of an item in compare form, and its `updated_at`, for the base. `hashed`: the
 * fields of the very case objects of `actual` hashed earlier (pull's stage, while the pages came).
 */
export function remoteItemValues(
  actual: ActualState,
  hashed?: HashedCaseFields,
): (kind: BaseKind, id: string) => { updatedAt: string | number | undefined; fields: FieldValues | HashedFields } | undefined {
  const cases = new Map(actual.cases.map((c) => [c.id, c]));
  const groups = new Map(actual.stepGroups.map((g) => [g.id, g]));
  const folders = new Map(actual.folders.map((f) => [f.id, f]));
  return (kind, id) => {
    if (kind === 'case') {
      const c = cases.get(id);
      return c && { updatedAt: c.updatedAt, fields: hashed?.(c) ?? remoteCaseBaseFields(c) };
    }
    if (kind === 'step_group') {
      const g = groups.get(id);
      return g && { updatedAt: g.updatedAt, fields: withHumanId(stepGroupFieldValues(g), g.humanId) };
    }
    const f = folders.get(id);
    return f && { updatedAt: undefined, fields: folderFieldValues(f) };
  };
}

/** The folder path of a folder (or of a case's folder) on the service, for messages. */
function remotePlaces(actual: ActualState): (kind: 'folder' | 'case', id: string) => string {
  const folders = new Map(actual.folders.map((f) => [f.id, f]));
  const cases = new Map(actual.cases.map((c) => [c.id, c]));
  const path = (id: string | null): string[] => {
    const names: string[] = [];
    for (let f = id === null ? undefined : folders.get(id); f; f = f.parentId === null ? undefined : folders.get(f.parentId)) names.unshift(f.name);
    return names;
  };
  return (kind, id) => {
    const folderId = kind === 'case' ? (cases.get(id)?.folderId ?? null) : (folders.get(id)?.parentId ?? null);
    return path(folderId).join('/') || '(the top level)';
  };
}

/**
 * The merge of a pull with a sync base: plans the repository against the service with the base
 * (problems of the plan do not stop a pull: an item the plan could not compare is pulled as
 * without a base) and turns each item's classification into what pull writes.
 */
export function preparePullMerge(input: { base: SyncBase; actual: ActualState; local: DesiredState | undefined; prefer?: Prefer; hashed?: HashedCaseFields; read?: ReadOptions }): PreparedPullMerge {
  const { base, actual, local } = input;
  let standings: ReadonlyMap<string, ReadonlyMap<string, FieldStanding>> = new Map();
  const deleted: PullConflict[] = [];
  if (local) {
    const built = buildPlan(local, actual, { base, ...(input.prefer ? { prefer: input.prefer } : {}) });
    standings = built.synced?.standings ?? standings;
    for (const c of built.plan.sync?.conflicts ?? []) {
      if (c.field !== 'deleted' || actualHas(actual, c.itemType, c.id)) continue;
      deleted.push({
        kind: c.itemType,
        id: c.id,
        file: c.file ?? c.path.join('/'),
        field: 'deleted',
        local: c.local,
        remote: c.remote,
        ...(input.prefer ? { settled: input.prefer } : {}),
      });
    }
  }
  const hooks = new PullMerge({
    base,
    ...(input.prefer ? { prefer: input.prefer } : {}),
    standings: (kind, id) => standings.get(`${kind} ${id}`),
    remote: remoteItemValues(actual, input.hashed),
    remotePlace: remotePlaces(actual),
    ...(input.read ? { read: input.read } : {}),
  });
  return { hooks, deleted };
}

function actualHas(actual: ActualState, kind: BaseKind, id: string): boolean {
  const list: { id: string }[] = kind === 'case' ? actual.cases : kind === 'step_group' ? actual.stepGroups : actual.folders;
  return list.some((x) => x.id === id);
}

/**
 * The base after a pull and what the merge did. Without a merge (no base yet), every item pulled
 * is recorded with the service's values, and the items that had a file count as without a base.
 * `whole`: the pull read the whole project (no `--folder`, no `scope`): an item the base holds that
 * the service no longer has and no file names (deleted on both sides) is forgotten.
 */
export function recordPull(
  base: SyncBase,
  actual: ActualState,
  result: Pick<PullResult, 'items' | 'created' | 'gone'>,
  merge: PreparedPullMerge | undefined,
  hashed?: HashedCaseFields,
  whole = false,
): { base: SyncBase; summary: PullMergeSummary } {
  const hooks =
    merge?.hooks ??
    new PullMerge({ base, standings: () => undefined, remote: remoteItemValues(actual, hashed) });
  const summary = hooks.summarize(result);
  // the files pull lists as gone (under --folder, those of its subtree)
  const gone = new Set(result.gone.map((g) => g.file));
  const deleted = (merge?.deleted ?? []).filter((d) => gone.has(d.file));
  summary.conflicts.push(...deleted);
  if (!hooks.prefer) summary.unsettled += deleted.length;
  const next = hooks.buildBase(result);
  if (whole) forgetGoneFromBothSides(next, actual, result.gone);
  return { base: next, summary };
}

/** Forgets the entries of items neither the service (read whole) nor a file (`gone`: files naming items the service lacks) holds. */
function forgetGoneFromBothSides(base: SyncBase, actual: ActualState, gone: PullResult['gone']): void {
  const named = new Set(gone.map((g) => `${g.itemType} ${g.id.trim()}`));
  const namedHumanIds = new Set(gone.map((g) => `${g.itemType} ${humanIdHash(g.id.trim())}`));
  for (const kind of ['folder', 'step_group', 'case'] as const) {
    const held = new Set((kind === 'case' ? actual.cases : kind === 'step_group' ? actual.stepGroups : actual.folders).map((x) => x.id));
    const forget: string[] = [];
    for (const e of base.entries(kind)) {
      if (held.has(e.id) || named.has(`${kind} ${e.id}`)) continue;
      const h = e.fields.get(HUMAN_ID_FIELD);
      if (h !== undefined && namedHumanIds.has(`${kind} ${h}`)) continue;
      forget.push(e.id);
    }
    for (const id of forget) base.forget(kind, id);
  }
}
