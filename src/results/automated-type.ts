/**
 * The automation type that says "automated", found among the service's automation types (lookup
 * lists are renameable, never hard-coded: real-service-notes.md): the entry named or aliased
 * `Automated` (case, spaces and punctuation aside), else the one whose name says automated and not
 * "not"/"non" (`Automated (CI)`). `tmsync import junit` writes it into new cases and
 * `results push --mark-automated` proposes it. Undefined when the list has none.
 */

const fold = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');

export const DEFAULT_AUTOMATED_TYPE = 'Automated';

export function automatedTypeName(entries: readonly { name: string; alias?: string | null }[]): string | undefined {
  const exact = entries.find((e) => fold(e.name) === 'automated' || (e.alias && fold(e.alias) === 'automated'));
  if (exact) return exact.name;
  return entries.find((e) => /\bautomated\b/i.test(e.name) && !/\b(?:not|non|no|un)[\s-]*automated\b/i.test(e.name))?.name;
}

/** Whether a case file's `automation_type` already is the automated type (as written: name or alias, case aside). */
export function isAutomatedType(value: string | undefined, automated: string, entries: readonly { name: string; alias?: string | null }[] = []): boolean {
  if (value === undefined) return false;
  const v = fold(value);
  if (v === fold(automated)) return true;
  const entry = entries.find((e) => fold(e.name) === fold(automated));
  return entry?.alias !== undefined && entry.alias !== null && fold(entry.alias) === v;
}
