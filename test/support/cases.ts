import { stringify } from 'yaml';
import { CASE_FIELDS, type CaseField, type CaseFieldEntry } from '../../src/fields.js';

/**
 * Whole test cases for tests, built from the field table (src/fields.ts): every field a new case
 * needs gets a default here, so a new required field is added to the table and nowhere else (a
 * required field of a kind without a default fails every builder at once, naming it).
 */

/** The lookup lists a case field names an entry of. */
export type LookupList = NonNullable<CaseField['list']>;

/** The emulator's demo names (`serve --seed demo`) a required lookup field defaults to, per list. */
export const DEMO_LOOKUP_NAMES: Readonly<Record<LookupList, string>> = {
  types: 'Functional',
  statuses: 'Draft',
  priorities: 'Medium',
  automation_types: 'Not Automated',
};

/** The demo's user a required user field (the owner) defaults to. */
export const DEMO_OWNER = 'qa-lead@example.com';

/** The fields a new case needs (the table's `required` entries), in the file's order. */
export const REQUIRED_CASE_FIELDS: readonly CaseField[] = CASE_FIELDS.filter((f) => f.required);

/** The value of a required field, given the name (file) or id (wire) of each lookup list and of a user. */
function requiredValue(f: CaseField, lookups: Readonly<Record<LookupList, string>>, user: string): string {
  if (f.kind === 'lookup' && f.list) return lookups[f.list];
  if (f.kind === 'user') return user;
  throw new Error(`test/support/cases.ts has no default for the required ${f.kind} field ${f.key}`);
}

/** The required fields with their demo names, YAML key → value, in the file's order (the `defaults:` of tmsync.yaml). */
export function demoDefaults(): Record<string, string> {
  return Object.fromEntries(REQUIRED_CASE_FIELDS.map((f) => [f.key, requiredValue(f, DEMO_LOOKUP_NAMES, DEMO_OWNER)]));
}

/**
 * A case file's YAML: its title, every required field with the demo's names, then the fields given
 * (YAML keys; a value given replaces the default, `undefined` leaves the field out).
 */
export function caseYaml(fields: { title: string } & Record<string, unknown>): string {
  const { title, ...rest } = fields;
  const doc: Record<string, unknown> = { title, ...demoDefaults(), ...rest };
  for (const [k, v] of Object.entries(doc)) if (v === undefined) delete doc[k];
  return stringify(doc);
}

/** The ids a case body on the wire needs: one entry of each lookup list, and a user. */
export interface CaseRefs {
  lookups: Readonly<Record<LookupList, string>>;
  user: string;
}

/** The required fields under their wire keys (from the table's literal entries). */
export type RequiredWire = { [F in Extract<CaseFieldEntry, { required: true }> as F['wire']]: string };

/** The required fields on the wire (wire key → id), in the table's order. */
export function requiredWire(refs: CaseRefs): RequiredWire {
  return Object.fromEntries(REQUIRED_CASE_FIELDS.map((f) => [f.wire, requiredValue(f, refs.lookups, refs.user)])) as RequiredWire;
}

/**
 * A `createTestCase` body: its title and folder, every required field from `refs`, then the wire
 * fields given (they replace the defaults).
 */
export function caseBody<F extends { title: string; folder_id: string }>(refs: CaseRefs, fields: F): RequiredWire & F {
  const { title, ...rest } = fields;
  return { title, ...requiredWire(refs), ...rest } as RequiredWire & F;
}
