import type { BaseEntry, BaseKind, FieldStanding, SyncBase } from '../base/base.js';
import { baseHashOf, classifyItem, compareFieldNames, fieldLabel, HUMAN_ID_FIELD, humanIdHash, type FieldClass, type FieldValues } from '../base/field-values.js';
import type { FieldChange, PlanSync, Prefer, Ref, SyncConflict, SyncItem, SyncRemoteChange } from './operations.js';

/**
 * The plan's side of three-way sync (docs/sync.md): each item the plan compares is classified field
 * by field against the sync base (`classifyItem`); fields changed only on the service are kept (the
 * update sends the service's value, the plan lists them), conflicts are listed (and settled when
 * `prefer` says so), and what the apply will have synced is collected for the base.
 */

/** What an apply records in the base for one item once its operations succeeded. Not saved with the plan. */
export interface SyncRecord {
  kind: BaseKind;
  /** the item's id, or the create operation that makes it */
  ref: Ref;
  humanId?: string;
  /** operations that must all succeed for the record to be written (none: the item was only compared) */
  ops: string[];
  /** the service's `updated_at` as read (an update's answer gives the new one) */
  updatedAt?: string | number;
  /**
   * The values as on the service once the operations ran, in compare form. Ids of items the same
   * apply creates are `op:<key>` in `steps[].stepGroup` (cases) and `parent` (folders).
   */
  values: FieldValues;
  /** fields whose base hash stays as it was (a service-only change kept, a conflict settled for the service) */
  keep: string[];
}

/** An item the apply deletes: forgotten by the base once the delete succeeded (no `op`: gone from both sides already, forgotten by any apply). */
export interface SyncForget {
  kind: BaseKind;
  id: string;
  op?: string;
}

/** What an apply of the plan records in (and removes from) the base. */
export interface SyncRecords {
  records: SyncRecord[];
  forgets: SyncForget[];
  /**
   * how each field of each item with a base stands, by `<kind> <id>` (pull merges with it); the
   * standings alone, not the values compared, and items that stand alike share one map
   */
  standings: Map<string, ReadonlyMap<string, FieldStanding>>;
}

/** The three-way state of one plan while it is built. */
export interface SyncState {
  base: SyncBase;
  prefer?: Prefer;
  /** records, forgets and standings are collected (see `BuildPlanOptions.collectSynced`) */
  collect: boolean;
  remoteChanges: SyncRemoteChange[];
  conflicts: SyncConflict[];
  withoutBase: number;
  records: SyncRecord[];
  forgets: SyncForget[];
  /** how each field of each item with a base stands, by `<kind> <id>` */
  standings: Map<string, ReadonlyMap<string, FieldStanding>>;
  /** one map of each set of standings (see `standings`), by its fields and standings */
  alike: Map<string, ReadonlyMap<string, FieldStanding>>;
  /** ids of base entries by the hash of their human id, built when first needed */
  byHumanId?: Map<string, string>;
}

export function newSyncState(base: SyncBase, prefer: Prefer | undefined, collect = true): SyncState {
  return { base, ...(prefer ? { prefer } : {}), collect, remoteChanges: [], conflicts: [], withoutBase: 0, records: [], forgets: [], standings: new Map(), alike: new Map() };
}

/** The plan's sync section: absent when there is nothing to say (no base given, or all in step). */
export function planSync(sync: SyncState | undefined): PlanSync | undefined {
  if (!sync) return undefined;
  if (sync.remoteChanges.length === 0 && sync.conflicts.length === 0 && sync.withoutBase === 0) return undefined;
  return {
    remoteChanges: sync.remoteChanges,
    conflicts: sync.conflicts,
    withoutBase: sync.withoutBase,
    ...(sync.prefer && sync.conflicts.length > 0 ? { prefer: sync.prefer } : {}),
  };
}

/** The base entry of an item a file names by `id:` (its id, or its human id), also when the service no longer has it. */
export function baseEntryFor(sync: SyncState, kind: BaseKind, ref: string): BaseEntry | undefined {
  const direct = sync.base.get(kind, ref.trim());
  if (direct) return direct;
  if (!sync.byHumanId) {
    // ids only: the entries of a large base are read one at a time, not held (see `SyncBase`)
    sync.byHumanId = new Map();
    for (const k of ['case', 'step_group'] as const) {
      for (const e of sync.base.entries(k)) {
        const h = e.fields.get(HUMAN_ID_FIELD);
        if (h) sync.byHumanId.set(`${k} ${h}`, e.id);
      }
    }
  }
  const id = sync.byHumanId.get(`${kind} ${humanIdHash(ref)}`);
  return id === undefined ? undefined : sync.base.get(kind, id);
}

/** The outcome of comparing one item three ways. */
interface ItemMerge {
  /** every managed field, classified */
  classes: FieldClass[];
  /** fields whose service value the update keeps (sends back, or leaves out) */
  keepRemote: Set<string>;
  /** fields whose base hash stays when the item is recorded */
  keepBase: string[];
}

/**
 * Classifies one item and notes what the plan must say about it. `shown` gives the display values
 * (`from`: the service's, `to`: the repository's) of a field, as the two-way diff shows them.
 * Without a base for the item, nothing is kept: compared two ways, as without a sync base.
 */
export function mergeItem(
  sync: SyncState,
  item: SyncItem,
  kind: BaseKind,
  local: FieldValues,
  remote: FieldValues,
  shown: (field: string) => FieldChange | undefined,
): ItemMerge {
  const entry = sync.base.get(kind, item.id);
  const keepRemote = new Set<string>();
  const keepBase: string[] = [];
  if (!entry) {
    sync.withoutBase++;
    return { classes: [], keepRemote, keepBase };
  }
  const classes = classifyItem(entry, local, remote);
  if (sync.collect) sync.standings.set(`${kind} ${item.id}`, sharedStandings(sync, classes));
  for (const c of classes) {
    if (c.standing !== 'remote' && c.standing !== 'conflict') continue;
    const s = shown(c.field) ?? { field: fieldLabel(c.field), from: display(c.remote), to: display(c.local) };
    if (c.standing === 'remote') {
      sync.remoteChanges.push({ ...item, field: s.field, from: s.to, to: s.from });
      keepRemote.add(c.field);
      keepBase.push(c.field);
      continue;
    }
    sync.conflicts.push({ ...item, field: s.field, local: s.to, remote: s.from });
    if (sync.prefer !== 'local') {
      keepRemote.add(c.field);
      keepBase.push(c.field);
    }
  }
  return { classes, keepRemote, keepBase };
}

/**
 * `mergeItem` for an item whose every managed field is equal on both sides (the two-way compare
 * found no change): each stands `unchanged`, or `no_base` where the base or the service lacks it,
 * as `classifyItem` would say, without the compare forms and their hashes (most items of a large
 * plan; `fields`: the names of the fields the repository manages, `remoteHas`: whether the service
 * reports one).
 */
export function mergeEqual(sync: SyncState, kind: BaseKind, id: string, fields: readonly string[], remoteHas: (field: string) => boolean): void {
  if (!sync.base.has(kind, id)) {
    sync.withoutBase++;
    return;
  }
  // nothing else to note: the standings are all this says
  if (!sync.collect) return;
  const entry = sync.base.get(kind, id)!;
  const classes = fields.map((field): Pick<FieldClass, 'field' | 'standing'> => ({
    field,
    standing: remoteHas(field) && baseHashOf(entry, field) !== undefined ? 'unchanged' : 'no_base',
  }));
  sync.standings.set(`${kind} ${id}`, sharedStandings(sync, classes.sort((a, b) => compareFieldNames(a.field, b.field))));
}

/** The standings of an item's fields, one map for all items that stand alike (most of a large project: all unchanged). */
function sharedStandings(sync: SyncState, classes: readonly Pick<FieldClass, 'field' | 'standing'>[]): ReadonlyMap<string, FieldStanding> {
  const key = classes.map((c) => `${c.field}=${c.standing}`).join(' ');
  let map = sync.alike.get(key);
  if (!map) {
    map = new Map(classes.map((c) => [c.field, c.standing]));
    sync.alike.set(key, map);
  }
  return map;
}

/** A value shown when the two-way diff has no display value for it. */
export function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
