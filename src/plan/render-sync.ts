import { headingText, unmanagedHeading } from './describe.js';
import type { Plan, SyncItem } from './operations.js';

/**
 * The words of the plan's sync sections (docs/sync.md), shared by the text and markdown renderings.
 */

export const REMOTE_CHANGES_HEADING = 'Changed on the service since the last sync';
export const REMOTE_CHANGES_NOTE = 'kept: apply does not overwrite them; `tmsync pull` takes them into the files';
export const CONFLICTS_HEADING = 'Conflicts: changed in the repository and on the service since the last sync';

/** The ways out of a conflict, in one line. */
export function conflictWaysOut(): string {
  return 'settle them with `--prefer local` (the repository\'s values are sent), `--prefer remote` (the service\'s values are kept), or edit the files';
}

export function conflictSettled(prefer: 'local' | 'remote'): string {
  return prefer === 'local' ? 'settled by --prefer local: the repository\'s values are sent' : 'settled by --prefer remote: the service\'s values are kept';
}

/** The one line about items compared without a base, or undefined when every item has one. */
export function withoutBaseLine(plan: Pick<Plan, 'sync'>): string | undefined {
  const n = plan.sync?.withoutBase ?? 0;
  if (n === 0) return undefined;
  return `${n} item${n === 1 ? ' has' : 's have'} no sync base yet (tmsync.base): compared two ways, the repository wins; the next apply records ${n === 1 ? 'it' : 'them'}.`;
}

export function itemText(item: SyncItem): string {
  return headingText(unmanagedHeading({ ...item, pruned: false }));
}

/** Items in order of first appearance, each with its entries. */
export function byItem<T extends SyncItem>(entries: readonly T[]): { item: T; entries: T[] }[] {
  const out = new Map<string, { item: T; entries: T[] }>();
  for (const e of entries) {
    const k = `${e.itemType} ${e.id}`;
    const g = out.get(k);
    if (g) g.entries.push(e);
    else out.set(k, { item: e, entries: [e] });
  }
  return [...out.values()];
}
