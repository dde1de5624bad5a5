import { CASE_FIELDS } from '../fields.js';
import { formatFor, splitItemRef } from '../repository/format.js';
import type { ReadOptions } from '../repository/case-file.js';
import type { RemoteCase } from '../model.js';
import { caseFieldValues, withHumanId, type FieldValues } from '../base/field-values.js';
import type { Prefer } from '../plan/operations.js';
import { HashedFields, hasField, type SyncBase, type BaseKind, type FieldStanding } from '../base/base.js';
import type { PullFile } from './pull-files.js';
import type { PullMergeHooks, PullResult } from './pull-types.js';

/**
 * `pull` with a sync base: a three-way merge, field by field, of the service's state into the files.
 * For an item the base knows, each field stands somewhere between the base, the file and the
 * service (`fieldStanding`, computed the way the plan computes it):
 * - changed only on the service: pull writes it into the file (that key only; comments, key order
 *   and layout stay as they are);
 * - changed only in the repository: left alone (the next `apply` sends it);
 * - changed on both sides to different values: a conflict, listed and left alone, unless `prefer`
 *   is `remote` (the service's value is written, and so settled). Under `prefer: local` it is left
 *   alone too, and pull does not count it against its exit code: the file wins for this run, and
 *   the next plan still lists the conflict, which `apply --prefer local` settles by sending the
 *   file's value (as `apply --prefer remote` leaves the service's value for pull to take);
 * - unchanged, or changed to the same value on both sides: the file is not touched.
 * An item without a base is pulled as before: every key written. The item's place (the folder a
 * case or folder sits in) is a field too: a place changed only in the repository keeps the file
 * where it is; a place changed on the service moves it, as pull always did.
 *
 * Pure apart from the base it builds: the CLI reads the base and writes the new one.
 */

/** How `--prefer` settles conflicts: the plan's own type. */
export type { Prefer };

/** How each field of one item stands; see {@link fieldStanding}. */
type ItemStandings = ReadonlyMap<string, FieldStanding>;

interface PullMergeInput {
  /** the sync base as read (`readSyncBase`) */
  base: SyncBase;
  /** settles conflicts one way for the run @default none: conflicts are left as they are */
  prefer?: Prefer;
  /**
   * How the fields of an item stand, for an item the base has an entry for and the repository a
   * file for (the plan's classification); undefined: compare two ways (as without a base).
   */
  standings(kind: BaseKind, id: string): ItemStandings | undefined;
  /**
   * The item's fields as the service holds them now, in the form the base hashes (the plan's
   * compare form), and its `updated_at`: what the new base records for the fields pull took.
   */
  remote(kind: BaseKind, id: string): { updatedAt: string | number | null | undefined; fields: Readonly<Record<string, unknown>> | HashedFields } | undefined;
  /** for messages: where the service has an item (its folder path), when its place is in conflict */
  remotePlace?(kind: 'folder' | 'case', id: string): string;
  /** how the repository's files are read (`gherkin:` of tmsync.yaml) */
  read?: ReadOptions;
}

/** The fields of a case the sync base records: its compare form, with its human id. */
export function remoteCaseBaseFields(c: RemoteCase): FieldValues {
  return withHumanId(caseFieldValues(c), c.humanId);
}

/** A field changed both in the file and on the service since the last sync. */
export interface PullConflict {
  kind: BaseKind;
  /** the service's id of the item */
  id: string;
  /** the file, relative to the root, as it is after the pull */
  file: string;
  /** the YAML key; `folder` for the folder a case or folder sits in */
  field: string;
  /** the file's value (as the YAML holds it; for `folder`, the directory) */
  local: unknown;
  /** the service's value (as pull would write it; for `folder`, the service's folder path) */
  remote: unknown;
  /** how the run treated it: `remote` wrote the service's value, `local` kept the file's; none: left as it is */
  settled?: Prefer;
}

export interface PullMergeSummary {
  conflicts: PullConflict[];
  /** conflicts the run did not settle (no `prefer`): pull exits 1 while there are any */
  unsettled: number;
  /** fields changed only in the repository, left for the next apply */
  keptLocal: number;
  /** items with a file and no base entry: pulled as before (every key written) */
  withoutBase: number;
  /**
   * files of items with a base entry that the plan could not compare (a problem in the file: an
   * unknown label, an id claimed twice): left as they are, their base entries kept
   */
  uncompared: string[];
}

/** The compare-form fields of each kind whose standing is the item's place rather than a key of its file. */
const PLACE_FIELDS: Record<BaseKind, ReadonlySet<string>> = {
  case: new Set(['folder', 'folderId', 'folder_id']),
  folder: new Set(['parent', 'parentId', 'parent_folder_id']),
  step_group: new Set(),
};

/** The YAML key a compare-form field is written under (`steps` for each step, `folder` for the place). */
export function yamlKeyOf(kind: BaseKind, field: string): string {
  if (PLACE_FIELDS[kind].has(field)) return 'folder';
  const head = field.split(/[.[]/)[0] ?? field;
  // a step group's `step.N`: an element of its `steps:` list
  if (kind === 'step_group' && head === 'step') return 'steps';
  if (kind === 'case') {
    const f = CASE_FIELDS.find((x) => x.key === head || x.model === head || x.remote === head || x.wire === head);
    if (f) return f.key;
  }
  return head;
}

/**
 * The standing of a YAML key from those of its fields: a conflict in any of them is the key's, then
 * `mixed` (one field changed only in the file, another only on the service: two steps of a step
 * group's list), a local change, a remote one.
 */
type KeyStanding = FieldStanding | 'mixed';
const RANK: Record<KeyStanding, number> = { unchanged: 0, same: 1, no_base: 2, remote: 3, local: 4, mixed: 5, conflict: 6 };

/** Items that stand alike share their standings (the plan's): their keys' standings are made once. */
const keyStandingsOf = new WeakMap<ItemStandings, Map<BaseKind, Map<string, KeyStanding>>>();

function keyStandings(kind: BaseKind, standings: ItemStandings): Map<string, KeyStanding> {
  let byKind = keyStandingsOf.get(standings);
  if (!byKind) keyStandingsOf.set(standings, (byKind = new Map<BaseKind, Map<string, KeyStanding>>()));
  let made = byKind.get(kind);
  if (!made) byKind.set(kind, (made = makeKeyStandings(kind, standings)));
  return made;
}

function makeKeyStandings(kind: BaseKind, standings: ItemStandings): Map<string, KeyStanding> {
  const byKey = new Map<string, KeyStanding>();
  for (const [field, s] of standings) {
    const key = yamlKeyOf(kind, field);
    const before = byKey.get(key);
    const next: KeyStanding = (before === 'local' && s === 'remote') || (before === 'remote' && s === 'local') ? 'mixed' : s;
    if (before === undefined || RANK[next] > RANK[before]) byKey.set(key, next);
  }
  return byKey;
}

/** `step.3` → 3: the index of a list element's field. */
const elementIndex = (field: string): number | undefined => {
  const m = /\.(\d+)$/.exec(field);
  return m ? Number(m[1]) : undefined;
};

/**
 * A list merged element by element (a step group's steps): the service's element where the service
 * alone changed it (none where it removed it), the file's everywhere else.
 */
export function mergeList(local: readonly unknown[], remote: readonly unknown[], remoteIndexes: ReadonlySet<number>): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < Math.max(local.length, remote.length); i++) {
    const v = remoteIndexes.has(i) ? remote[i] : local[i];
    if (v !== undefined && v !== null) out.push(v);
  }
  return out;
}

/**
 * The merge of one pull: the hooks `pullIntoRepository` asks (which keys of a file to write, which
 * items stay in place), then, from its result, the conflicts and the new base.
 */
export class PullMerge implements PullMergeHooks {
  private readonly conflictsFound: PullConflict[] = [];
  private readonly placeConflicts = new Map<string, { kind: 'folder' | 'case'; id: string }>();
  private readonly keys = new Map<string, Map<string, KeyStanding> | null>();
  private keptLocalFields = 0;

  constructor(private readonly input: PullMergeInput) {}

  get prefer(): Prefer | undefined {
    return this.input.prefer;
  }

  /** An item the base knows whose file the plan could not compare. */
  private uncomparable(kind: BaseKind, id: string): boolean {
    return this.input.base.has(kind, id) && this.keysOf(kind, id) === undefined;
  }

  private keysOf(kind: BaseKind, id: string): Map<string, KeyStanding> | undefined {
    const k = `${kind} ${id}`;
    let v = this.keys.get(k);
    if (v === undefined) {
      const s = this.input.base.has(kind, id) ? this.input.standings(kind, id) : undefined;
      v = s ? keyStandings(kind, s) : null;
      this.keys.set(k, v);
    }
    return v ?? undefined;
  }

  /** Whether an item the service has in another folder than the repository stays where its file is. */
  readonly keepPlace = (kind: 'folder' | 'case', id: string): boolean => {
    if (this.uncomparable(kind, id)) return true;
    const s = this.keysOf(kind, id)?.get('folder');
    if (s === 'local') return true;
    if (s !== 'conflict') return false;
    this.placeConflicts.set(`${kind} ${id}`, { kind, id });
    return this.input.prefer !== 'remote';
  };

  /** The keys of an existing file pull writes: those the service alone changed, and conflicts under `prefer: remote`. */
  fields(f: Extract<PullFile, { action: 'update' }>, text: string): Record<string, unknown> {
    if (f.kind === 'config' || f.itemId === undefined) return f.fields;
    // a file the plan could not compare may hold changes of its own: nothing is written into it
    if (this.uncomparable(f.kind, f.itemId)) return {};
    const keys = this.keysOf(f.kind, f.itemId);
    if (!keys) return f.fields;
    let local: Record<string, unknown> | undefined;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(f.fields)) {
      const s = keys.get(key);
      // the id is pull's own; a key the base has no field for is written as without a base
      if (key === 'id' || s === undefined || s === 'no_base' || s === 'remote') {
        out[key] = value;
        continue;
      }
      if (s === 'local') {
        this.keptLocalFields++;
        continue;
      }
      if (s === 'mixed' && f.kind === 'step_group' && key === 'steps') {
        local ??= parsedMapping(f.path, text, this.input.read);
        const standings: ItemStandings = this.input.standings(f.kind, f.itemId) ?? new Map();
        const remoteIndexes = new Set([...standings].filter(([field, x]) => x === 'remote' && yamlKeyOf(f.kind as BaseKind, field) === key).map(([field]) => elementIndex(field) ?? -1));
        out[key] = mergeList(Array.isArray(local[key]) ? local[key] : [], Array.isArray(value) ? value : [], remoteIndexes);
        this.keptLocalFields += [...standings].filter(([field, x]) => x === 'local' && yamlKeyOf(f.kind as BaseKind, field) === key).length;
        continue;
      }
      if (s !== 'conflict' && s !== 'mixed') continue;
      local ??= parsedMapping(f.path, text, this.input.read);
      // a folder without `name:` is named by its directory
      const dir = f.path.slice(0, f.path.lastIndexOf('/'));
      const localValue = f.kind === 'folder' && key === 'name' && local[key] === undefined ? dir.slice(dir.lastIndexOf('/') + 1) : local[key];
      this.conflictsFound.push({
        kind: f.kind,
        id: f.itemId,
        file: f.path,
        field: key,
        local: localValue,
        remote: value,
        ...(this.input.prefer ? { settled: this.input.prefer } : {}),
      });
      if (this.input.prefer === 'remote') out[key] = value;
    }
    return out;
  }

  /** What the merge did, once the pull has run. */
  summarize(result: Pick<PullResult, 'items' | 'created'>): PullMergeSummary {
    const created = new Set(result.created);
    const conflicts = [...this.conflictsFound];
    // (most pulls have no place in conflict: no key made for each item then)
    for (const item of this.placeConflicts.size > 0 ? result.items : []) {
      if (item.kind === 'step_group') continue;
      const place = this.placeConflicts.get(`${item.kind} ${item.id}`);
      if (!place) continue;
      conflicts.push({
        kind: item.kind,
        id: item.id,
        file: item.path,
        field: 'folder',
        local: item.path.slice(0, item.path.lastIndexOf('/')),
        remote: this.input.remotePlace?.(item.kind, item.id) ?? '(another folder)',
        ...(this.input.prefer ? { settled: this.input.prefer } : {}),
      });
    }
    conflicts.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
    let withoutBase = 0;
    const uncompared: string[] = [];
    let keptLocal = this.keptLocalFields;
    for (const item of result.items) {
      if (created.has(item.path)) continue;
      if (!this.input.base.has(item.kind, item.id)) withoutBase++;
      else if (this.uncomparable(item.kind, item.id)) uncompared.push(item.path);
      else if (this.keysOf(item.kind, item.id)?.get('folder') === 'local') keptLocal++;
    }
    return { conflicts, unsettled: this.input.prefer ? 0 : conflicts.length, keptLocal, withoutBase, uncompared: uncompared.sort() };
  }

  /**
   * The base after the pull: every item pulled is recorded with the service's values, except the
   * fields whose file value was kept and still differs from what the base says the last sync
   * held (a change made only in the repository, or a conflict not settled by `--prefer remote`):
   * those keep their old hash, so the next plan still sees the repository's change (or the
   * conflict). Items not pulled (outside `--folder`, gone from the service) keep their entries.
   */
  buildBase(result: Pick<PullResult, 'items'>): SyncBase {
    const base = this.input.base;
    const next = base.copy();
    for (const item of result.items) {
      const remote = this.input.remote(item.kind, item.id);
      if (!remote) continue;
      // the service's side as the base already holds it: whatever the file kept, the entry stays
      // the same (a kept field's old hash is the service's), so it is not read or recorded again
      if (remote.fields instanceof HashedFields && base.holds(item.kind, item.id, remote.updatedAt, remote.fields)) continue;
      const old = base.get(item.kind, item.id);
      // a file left as it was keeps its entry as it was
      if (old && this.uncomparable(item.kind, item.id)) continue;
      const standings = old ? this.input.standings(item.kind, item.id) : undefined;
      const keep: string[] = [];
      for (const [name, s] of standings ?? []) if (s === 'local' || (s === 'conflict' && this.input.prefer !== 'remote')) keep.push(name);
      // a field the service did not report (labels it cannot read) keeps what the base knew
      for (const name of old?.fields.keys() ?? []) if (!hasField(remote.fields, name) && elementIndex(name) === undefined) keep.push(name);
      next.record(item.kind, item.id, remote.updatedAt, remote.fields, keep);
    }
    return next;
  }
}

/** The file's keys as its format reads them; none when it does not read. */
function parsedMapping(ref: string, text: string, read: ReadOptions | undefined): Record<string, unknown> {
  const { file, at } = splitItemRef(ref);
  return formatFor(file).readDocument(text, { file, ...(at !== undefined ? { at } : {}), ...(read ? { read } : {}) }) ?? {};
}

/** A value of a conflict on one line: texts quoted (line breaks as `\n`), long ones cut. */
function showConflictValue(value: unknown): string {
  if (value === undefined || value === null) return '(none)';
  const s = JSON.stringify(value) ?? String(value);
  return s.length > 160 ? `${s.slice(0, 157)}…` : s;
}

/** A conflict for people, on three lines: the file and field, the repository's value, the service's. */
export function describeConflict(c: PullConflict): string {
  // pull never deletes a file: under --prefer remote, following the service is the person's step
  const what =
    c.field !== 'deleted' ? c.field : c.settled === 'remote' ? 'deleted on one side, changed on the other (pull never deletes files: delete it to follow the service)' : 'deleted on one side, changed on the other';
  return [`  ${c.file}: ${what}`, `    repository: ${showConflictValue(c.local)}`, `    service:    ${showConflictValue(c.remote)}`].join('\n');
}
