import { CASE_FIELDS, fieldOf } from '../fields.js';
import type { ActualState, CaseDefaults, LookupKind } from '../model.js';
import { buildResolver } from '../plan/resolve.js';
import { fieldHash, HashedFields, type BaseEntry, type BaseKind, type SyncBase } from '../base/base.js';
import { yamlKeyOf } from './pull-merge.js';
import { remoteItemValues, type HashedCaseFields } from './pull-sync.js';
import type { PullFile } from './pull-files.js';

/**
 * Which keys an existing file leaves out stay out of it after a pull (docs/transfer.md, "A pull
 * writes only what changed"). A key the file does not hold means "as the service has it": the plan neither
 * compares nor sends it. Pull writes one only when the service's value is a change:
 * - it differs from what the sync base recorded for it at the last sync, or, where the base
 *   recorded nothing for it (no base, or a sync that did not record that field),
 * - from what the file implies: `defaults:` of tmsync.yaml for type, status, priority,
 *   automation type and owner (what the file's create was given), nothing for the others; a folder's `order` is implied by
 *   its place among its siblings, so it is written only when the base saw it change.
 * Keys the file holds are merged as before (`PullMerge`); new files are written whole.
 */
export type KeepImplicit = (f: Extract<PullFile, { action: 'update' }>, key: string) => boolean;

export function implicitKeys(input: { actual: ActualState; defaults: CaseDefaults; base?: SyncBase; hashed?: HashedCaseFields }): KeepImplicit {
  const remote = remoteItemValues(input.actual, input.hashed);
  // the defaults in compare form (ids), by field name; a default the service cannot resolve implies nothing
  const resolver = buildResolver(input.actual);
  const implied = new Map<string, string>();
  for (const f of CASE_FIELDS) {
    const value = fieldOf<string>(input.defaults, f, 'model');
    if (!f.required || value === undefined) continue;
    const r = f.kind === 'lookup' ? resolver.lookup(f.key as LookupKind, value) : f.kind === 'user' ? resolver.user(value) : undefined;
    if (r?.ok) implied.set(f.model, fieldHash(r.id));
  }
  let last: { kind: BaseKind; id: string; entry: BaseEntry | undefined } | undefined;
  return (f, key) => {
    if (f.kind === 'config' || f.itemId === undefined || key === 'id' || key === 'title') return false;
    // a folder's name is its directory's unless `name:` says otherwise: pull writes it when needed
    if (f.kind === 'folder' && key !== 'order') return false;
    const kind: BaseKind = f.kind;
    const values = remote(kind, f.itemId);
    if (!values) return false;
    // (an entry read from the file is unpacked when asked for: once a file, not once a key)
    if (last?.kind !== kind || last.id !== f.itemId) last = { kind, id: f.itemId, entry: input.base?.get(kind, f.itemId) };
    const entry = last.entry;
    const hashes = values.fields instanceof HashedFields ? values.fields.hashes : undefined;
    const names = hashes ? [...hashes.keys()] : Object.keys(values.fields);
    for (const name of names) {
      if (yamlKeyOf(kind, name) !== key) continue;
      const now = hashes ? hashes.get(name)! : fieldHash((values.fields as Record<string, unknown>)[name]);
      const recorded = entry?.fields.get(name);
      if (recorded !== undefined) {
        if (recorded !== now) return false;
        continue;
      }
      if (kind === 'folder') continue;
      const expected = implied.get(name);
      if (kind !== 'case' || expected === undefined || expected !== now) return false;
    }
    return true;
  };
}
