import { lookupFieldWord } from '../fields.js';
import { LOOKUP_LISTS, type ActualState, type LookupEntry, type LookupKind, type RemoteLabel, type RemoteUser } from '../model.js';
import { didYouMean } from '../did-you-mean.js';

/**
 * Resolves the names a repository uses (lookup names and aliases, user emails, label names) to the
 * service's ids, and ids back to names for display. Everything is indexed once per plan.
 */

/** A failed resolution: the message lists the valid names so the fix is obvious. */
interface Unresolved {
  message: string;
  hint?: string;
}

export type Resolution = { ok: true; id: string } | { ok: false; error: Unresolved };

export type { LookupKind } from '../model.js';

class NameIndex {
  private readonly byKey = new Map<string, string>();
  private readonly names = new Map<string, string>();
  constructor(
    private readonly what: string,
    readonly valid: string[],
  ) {}
  /** Names are case-insensitive; ids are exact and win over names. */
  addName(name: string | undefined, id: string): void {
    if (name === undefined || name === '') return;
    const k = name.trim().toLowerCase();
    if (!this.byKey.has(`n:${k}`)) this.byKey.set(`n:${k}`, id);
  }
  addId(id: string, display: string): void {
    this.byKey.set(`i:${id}`, id);
    this.names.set(id, display);
  }
  private readonly memo = new Map<string, Resolution>();
  /** the same few names repeat across thousands of cases: resolve each once */
  resolve(value: string): Resolution {
    let r = this.memo.get(value);
    if (r === undefined) {
      r = this.resolveUncached(value);
      this.memo.set(value, r);
    }
    return r;
  }
  private resolveUncached(value: string): Resolution {
    const byId = this.byKey.get(`i:${value.trim()}`);
    if (byId !== undefined) return { ok: true, id: byId };
    const byName = this.byKey.get(`n:${value.trim().toLowerCase()}`);
    if (byName !== undefined) return { ok: true, id: byName };
    const guess = didYouMean(value, this.valid);
    const list = this.valid.length > 0 ? this.valid.join(', ') : '(none)';
    return {
      ok: false,
      error: {
        message: `unknown ${this.what} "${value}"; valid: ${list}`,
        hint: guess !== undefined ? `did you mean "${guess}"?` : undefined,
      },
    };
  }
  /** The display name of an id, or the id itself when the service did not list it. */
  show(id: string | undefined): string {
    if (id === undefined || id === '') return '';
    return this.names.get(id) ?? id;
  }
}

export interface Resolver {
  lookup(kind: LookupKind, value: string): Resolution;
  user(value: string): Resolution;
  label(value: string): Resolution;
  showLookup(kind: LookupKind, id: string | undefined): string;
  showUser(id: string | undefined): string;
  showLabels(ids: readonly string[] | undefined): string;
}

function lookupIndex(kind: LookupKind, entries: readonly LookupEntry[]): NameIndex {
  const index = new NameIndex(lookupFieldWord(kind), entries.map((e) => e.name));
  for (const e of entries) index.addId(e.id, e.name);
  for (const e of entries) index.addName(e.name, e.id);
  for (const e of entries) index.addName(e.alias, e.id);
  return index;
}

function userIndex(users: readonly RemoteUser[]): NameIndex {
  const index = new NameIndex('user', users.map((u) => u.email));
  for (const u of users) {
    index.addId(u.id, u.email);
    index.addName(u.email, u.id);
  }
  return index;
}

function labelIndex(labels: readonly RemoteLabel[]): NameIndex {
  const index = new NameIndex('label', labels.map((l) => l.name));
  for (const l of labels) {
    index.addId(l.id, l.name);
    index.addName(l.name, l.id);
  }
  return index;
}

export function buildResolver(actual: ActualState): Resolver {
  const lookups = Object.fromEntries(
    (Object.keys(LOOKUP_LISTS) as LookupKind[]).map((k) => [k, lookupIndex(k, actual.lookups[LOOKUP_LISTS[k]] ?? [])]),
  ) as Record<LookupKind, NameIndex>;
  const users = userIndex(actual.users);
  const labels = labelIndex(actual.labels);
  return {
    lookup: (kind, value) => lookups[kind].resolve(value),
    user: (value) => users.resolve(value),
    label: (value) => labels.resolve(value),
    showLookup: (kind, id) => lookups[kind].show(id),
    showUser: (id) => users.show(id),
    showLabels: (ids) => (ids === undefined ? '' : [...ids].map((id) => labels.show(id)).sort().join(', ')),
  };
}
