import type { ImportedLookups } from './imported.js';

/**
 * The value map of an import: another tool's names for priorities, types, statuses, automation
 * types and users → the service's names (`import.values` of tmsync.yaml or `values` of
 * `--map FILE`). A value the map names with an empty target is unmapped on purpose: it is written
 * as it came and `validate` names it; a value of a field without any map is left out (the case
 * takes `defaults`) and proposed in the report.
 */

export type LookupKey = keyof ImportedLookups;

export const LOOKUP_KEYS: readonly LookupKey[] = ['priority', 'type', 'status', 'automation_type', 'owner', 'reviewer'];

/** field → source value → the service's name (null or '': not mapped yet) */
export type ValueMap = Partial<Record<LookupKey, Readonly<Record<string, string | null>>>>;

/**
 * The service's values per field, when a service was asked: every way to say one (a lookup's name
 * and alias, a user's e-mail and full name), folded ({@link foldValue}) → the name a case file
 * gives (the lookup's name, the user's e-mail).
 */
export type KnownValues = Partial<Record<LookupKey, ReadonlyMap<string, string>>>;

/** How values are compared: case and surrounding spaces aside. */
export const foldValue = (s: string): string => s.trim().toLowerCase();

export type MappedValue =
  | { kind: 'mapped'; value: string }
  /** the map names it without a target: written as it came, for validate to name */
  | { kind: 'unmapped'; value: string }
  /** no map for the field and no service name matches: left out */
  | { kind: 'unknown' };

const fold = foldValue;

function lookup(map: Readonly<Record<string, string | null>>, value: string): { found: boolean; target?: string } {
  if (Object.hasOwn(map, value)) return { found: true, ...(map[value] ? { target: map[value] } : {}) };
  const key = Object.keys(map).find((k) => fold(k) === fold(value));
  return key === undefined ? { found: false } : { found: true, ...(map[key] ? { target: map[key] } : {}) };
}

/** Maps one source value of `field`. */
export function mapValue(field: LookupKey, value: string, map: ValueMap, known: KnownValues = {}): MappedValue {
  const fieldMap = map[field];
  if (fieldMap) {
    const hit = lookup(fieldMap, value);
    if (hit.target !== undefined) return { kind: 'mapped', value: hit.target };
    if (hit.found) return { kind: 'unmapped', value };
  }
  const same = known[field]?.get(fold(value));
  if (same !== undefined) return { kind: 'mapped', value: same };
  return fieldMap ? { kind: 'unmapped', value } : { kind: 'unknown' };
}

/**
 * The map an import proposes: every value it saw, per field, with the service's name that matches
 * it (case and spacing aside) or null. Values the given map already maps keep their target.
 */
export function proposeValueMap(seen: ReadonlyMap<LookupKey, ReadonlySet<string>>, map: ValueMap, known: KnownValues = {}): ValueMap {
  const out: ValueMap = {};
  for (const field of LOOKUP_KEYS) {
    const values = [...(seen.get(field) ?? [])].sort((a, b) => a.localeCompare(b));
    if (values.length === 0) continue;
    const entries: Record<string, string | null> = {};
    for (const v of values) {
      const m = mapValue(field, v, map, known);
      entries[v] = m.kind === 'mapped' ? m.value : null;
    }
    out[field] = entries;
  }
  return out;
}
