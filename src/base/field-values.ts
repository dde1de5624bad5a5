import { canonicalJson } from '../canonical-json.js';
import { CASE_FIELDS_BY_KIND, fieldOf, STEP_GROUP_FIELDS, type CaseField } from '../fields.js';
import type { RemoteCase, RemoteFolder, RemoteStepGroup } from '../model.js';
import { normalizeText, normalizeTitle, sortedUnique } from './normalize-text.js';
import type { CaseBody, Ref, StepBody, StepGroupBody } from '../item-bodies.js';
import { fieldHash, fieldStanding, type BaseEntry, type FieldStanding } from './base.js';
import { assertNever } from '../assert-never.js';

/**
 * The compare form of every managed field, computed in ONE place for the sync base, the plan's
 * three-way compare and pull's merge: the same value on both sides gives the same form (and so the
 * same hash in `tmsync.base`).
 *
 * - cases: `title` (trimmed) and every field of the field table (`src/fields.ts`) under its model
 *   name (`description`, `type`, `labels`, `steps`, `stepsText`, …): texts after `normalizeText`,
 *   lookups and users as ids (`''` for none), labels as sorted unique ids, steps as
 *   `{ description, expected, stepGroup }` in order (`stepGroup`: the group's id, or null);
 * - step groups: `title`, `description`, `labels` (when known) and one field per step, `step.0`,
 *   `step.1`, … (`{ description, expected }`); a step one side lacks is `null`;
 * - folders: `name`, `parent` (the parent's id, null at the top) and `order`.
 *
 * Ids of items an apply has not created yet are written `op:<operation key>` (a value no base holds).
 */
export type FieldValues = Record<string, unknown>;

/** The name of a case field in `FieldValues` and the base: its model name (`stepsText` for TCD steps). */
function caseFieldName(f: CaseField): string {
  return f.model;
}

/** The field a case's values name (undefined for `title`). */
function caseFieldByName(name: string): CaseField | undefined {
  return CASE_FIELDS_BY_KIND.find((f) => f.model === name);
}

/** How a field is named to people (in plans): the YAML key (`steps` for both forms), `step 2` for a group's step. */
export function fieldLabel(name: string): string {
  const step = /^step\.(\d+)$/.exec(name);
  if (step) return `step ${Number(step[1]) + 1}`;
  return caseFieldByName(name)?.key ?? name;
}

/** A step of a case in compare form. */
interface StepValue {
  description: string;
  expected: string;
  stepGroup: string | null;
}

export function refValue(ref: Ref | null): string | null {
  if (ref === null) return null;
  return 'id' in ref ? ref.id : `op:${ref.op}`;
}

/** The compare form of a case as the service holds it. `labels` is left out when the service did not report them. */
export function caseFieldValues(remote: RemoteCase): FieldValues {
  const values: FieldValues = { title: normalizeTitle(remote.title) };
  for (const f of CASE_FIELDS_BY_KIND) {
    const have = fieldOf<unknown>(remote, f, 'remote');
    switch (f.kind) {
      case 'text':
        values[caseFieldName(f)] = normalizeText(have as string | undefined);
        break;
      case 'template':
        values[caseFieldName(f)] = (have) ?? '';
        break;
      case 'lookup':
      case 'user':
        values[caseFieldName(f)] = (have) ?? '';
        break;
      case 'labels':
        if (have !== undefined) values[caseFieldName(f)] = sortedUnique(have as string[]);
        break;
      case 'steps':
        values[caseFieldName(f)] = [...remote.individualSteps]
          .sort((a, b) => a.order - b.order)
          .map((s): StepValue => ({ description: normalizeText(s.description), expected: normalizeText(s.expected), stepGroup: s.stepGroupId || null }));
        break;
      default:
        assertNever(f.kind);
    }
  }
  return values;
}

/**
 * The compare form of a case body the plan built from a file (ids resolved): `title` and the fields
 * the file manages only (a field the file leaves out is not compared).
 */
export function desiredCaseFieldValues(body: CaseBody): FieldValues {
  const values: FieldValues = { title: body.title };
  for (const f of CASE_FIELDS_BY_KIND) {
    const want = fieldOf<unknown>(body, f, 'remote');
    if (want === undefined) continue;
    values[caseFieldName(f)] =
      f.kind === 'steps' ? (want as StepBody[]).map((s): StepValue => ({ description: s.description, expected: s.expected, stepGroup: refValue(s.stepGroup) })) : want;
  }
  return values;
}

/** The names of the fields `desiredCaseFieldValues` gives for a body (without computing the values). */
export function desiredCaseFieldNames(body: CaseBody): string[] {
  return ['title', ...CASE_FIELDS_BY_KIND.filter((f) => fieldOf<unknown>(body, f, 'remote') !== undefined).map(caseFieldName)];
}

/** Whether `caseFieldValues` gives a field of this case (labels the service did not report it does not). */
export function remoteCaseHas(remote: RemoteCase, name: string): boolean {
  const f = caseFieldByName(name);
  return f?.kind !== 'labels' || fieldOf<unknown>(remote, f, 'remote') !== undefined;
}

/** The name of a step group's step in `FieldValues` and the base: `step.0`, `step.1`, … */
export function groupStepName(index: number): string {
  return `step.${index}`;
}

/**
 * The compare form of a step group as the service holds it: `title`, then the step group table's
 * fields (`src/fields.ts`) under their model names, the steps one field each (`step.N`).
 */
export function stepGroupFieldValues(remote: RemoteStepGroup): FieldValues {
  const values: FieldValues = { title: normalizeTitle(remote.title) };
  for (const f of STEP_GROUP_FIELDS) {
    const have = fieldOf<unknown>(remote, f, 'remote');
    switch (f.kind) {
      case 'text':
        values[f.model] = normalizeText(have as string | undefined);
        break;
      case 'labels':
        if (have !== undefined) values[f.model] = sortedUnique(have as string[]);
        break;
      case 'steps':
        [...((have as { description: string; expected: string; order: number }[] | undefined) ?? [])]
          .sort((a, b) => a.order - b.order)
          .forEach((s, i) => (values[groupStepName(i)] = { description: normalizeText(s.description), expected: normalizeText(s.expected) }));
        break;
      default:
        assertNever(f.kind);
    }
  }
  return values;
}

/** The compare form of a step group body built from a file: the fields it manages. */
export function desiredStepGroupFieldValues(body: StepGroupBody): FieldValues {
  const values: FieldValues = { title: body.title };
  for (const f of STEP_GROUP_FIELDS) {
    const want = fieldOf<unknown>(body, f, 'remote');
    if (want === undefined) continue;
    if (f.kind === 'steps') (want as { description: string; expected: string }[]).forEach((s, i) => (values[groupStepName(i)] = { description: s.description, expected: s.expected }));
    else values[f.model] = want;
  }
  return values;
}

/** The compare form of a folder as the service holds it. */
export function folderFieldValues(remote: RemoteFolder): FieldValues {
  return { name: normalizeTitle(remote.name), parent: remote.parentId, order: remote.order };
}

/** The compare form of a folder of the repository: the fields it manages only (`order` when `_folder.yaml` gives one). */
export function desiredFolderFieldValues(folder: { name?: string; parent?: Ref | null; order?: number }): FieldValues {
  const values: FieldValues = {};
  if (folder.name !== undefined) values.name = folder.name;
  if (folder.parent !== undefined) values.parent = refValue(folder.parent);
  if (folder.order !== undefined) values.order = folder.order;
  return values;
}

/** A field of a list (a step group's `step.N`): a side or a base without it holds `null` there. */
export function isListField(name: string): boolean {
  return /^[a-z_]+\.\d+$/.test(name);
}

/** The base's hash of a field of an item: undefined when the item or the field has no base. */
export function baseHashOf(entry: BaseEntry | undefined, name: string): string | undefined {
  if (!entry) return undefined;
  return entry.fields.get(name) ?? (isListField(name) ? fieldHash(null) : undefined);
}

/** How one managed field of an item stands, with both sides' values in compare form. */
export interface FieldClass {
  field: string;
  standing: FieldStanding;
  /** the repository's value (`null` for a list element it lacks) */
  local: unknown;
  /** the service's value (`null` for a list element it lacks) */
  remote: unknown;
}

/**
 * Classifies each managed field of one item three ways: base ↔ repository, base ↔ service. The
 * managed fields are those `local` holds, plus list elements (`step.N`) either side holds. A field
 * the service does not report (labels it cannot read) is `no_base`: compared two ways. A field equal
 * on both sides is `unchanged` (never `same`: there is nothing to do either way).
 */
export function classifyItem(entry: BaseEntry | undefined, local: FieldValues, remote: FieldValues): FieldClass[] {
  const names = new Set(Object.keys(local));
  for (const n of Object.keys(remote)) if (isListField(n)) names.add(n);
  const out: FieldClass[] = [];
  for (const field of names) {
    const l = field in local ? local[field] : null;
    const r = field in remote ? remote[field] : isListField(field) ? null : undefined;
    // equal on both sides: nothing to do, whatever the base holds (no hashing: most fields of most items)
    const standing: FieldStanding =
      r === undefined ? 'no_base' : !entry ? 'no_base' : sameValue(l, r) ? (baseHashOf(entry, field) === undefined ? 'no_base' : 'unchanged') : fieldStanding(baseHashOf(entry, field), l, r);
    out.push({ field, standing, local: l, remote: r });
  }
  return out.sort((a, b) => compareFieldNames(a.field, b.field));
}

/** Whether two values in compare form are equal (lists and objects by their canonical JSON). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return canonicalJson(a) === canonicalJson(b);
}

/** Whether an item changed on the service since the base (any field of the base differs). */
export function changedSinceBase(entry: BaseEntry, remote: FieldValues): string[] {
  const names = new Set([...entry.fields.keys()].filter((n) => n !== HUMAN_ID_FIELD));
  for (const n of Object.keys(remote)) if (isListField(n)) names.add(n);
  const changed: string[] = [];
  for (const n of names) {
    const value = n in remote ? remote[n] : isListField(n) ? null : undefined;
    if (value === undefined) continue;
    if (fieldHash(value) !== baseHashOf(entry, n)) changed.push(n);
  }
  return changed.sort(compareFieldNames);
}

/** Whether the repository's values differ from the base in any field the base holds. */
export function changedFromBase(entry: BaseEntry, local: FieldValues): string[] {
  const names = new Set(Object.keys(local));
  for (const n of entry.fields.keys()) if (isListField(n)) names.add(n);
  const changed: string[] = [];
  for (const n of names) {
    const hash = baseHashOf(entry, n);
    if (hash !== undefined && fieldHash(n in local ? local[n] : null) !== hash) changed.push(n);
  }
  return changed.sort(compareFieldNames);
}

/** `step.2` after `step.10`? No: list elements by index, after the other fields. */
export function compareFieldNames(a: string, b: string): number {
  const la = /^(.*)\.(\d+)$/.exec(a);
  const lb = /^(.*)\.(\d+)$/.exec(b);
  if (la && lb && la[1] === lb[1]) return Number(la[2]) - Number(lb[2]);
  if (la && !lb) return 1;
  if (!la && lb) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A field of the base that is not compared: a hash of the item's human id (cases, step groups), so
 * that a file whose `id:` names an item deleted on the service finds its base.
 */
export const HUMAN_ID_FIELD = 'human_id';

export function humanIdHash(humanId: string): string {
  return fieldHash(humanId.trim().toUpperCase());
}

/** What an item's values are recorded as: its fields plus the human id's hash (see {@link HUMAN_ID_FIELD}). */
export function withHumanId(values: FieldValues, humanId: string | undefined): FieldValues {
  return humanId ? { ...values, [HUMAN_ID_FIELD]: humanId.trim().toUpperCase() } : values;
}

