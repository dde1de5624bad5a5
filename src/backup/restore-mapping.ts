import { TmsyncError } from '../errors.js';
import { LOOKUP_FIELDS, LOOKUP_LISTS_ALL, LOOKUP_WORDS, type CaseLookupList, type LookupList, type LookupWord } from '../fields.js';
import { LOOKUP_LISTS, type LookupEntry, type Lookups, type RemoteLabel, type RemoteUser } from '../model.js';
import type { Backup } from './backup-format.js';

/**
 * How the backup's lookups, users and labels meet the target's: by name (lookups also by alias),
 * by email, by label name, all case-insensitive. Everything the backup USES is checked before a
 * single item is created; what cannot be matched is listed in one error with the flag that fixes it.
 */

export interface RestoreTargetDirectory {
  lookups: Lookups;
  users: RemoteUser[];
  labels: RemoteLabel[];
}

export interface RestoreMappingOptions {
  /** backup email → target email (or id), from `--map-user old=new` */
  mapUsers?: Record<string, string>;
  /** target email or id standing in for every backup user without a match, from `--default-owner` */
  defaultOwner?: string;
  /** leave out labels the target lacks instead of refusing @default false */
  dropMissingLabels?: boolean;
}

/** A lookup list of the backup (its name on the wire): the case lookups' and the run statuses. */
export type LookupKindKey = LookupList;

export interface RestoreMapping {
  lookup(kind: LookupKindKey, oldId: string): string | undefined;
  /** a run status by the backup's status id, or by the status word of the run-case list (PASSED) */
  runStatus(statusId: string | null | undefined, word: string | null): string | undefined;
  user(oldId: string): string | undefined;
  /** label ids that exist in the target (missing ones dropped when allowed) */
  labels(oldIds: readonly string[]): string[];
  /** the `--default-owner` user's target id, if one was given */
  fallbackUser?: string;
  /** things replaced or dropped, for the report */
  notes: string[];
}

interface Unmatched {
  what: LookupWord | 'user' | 'label';
  name: string;
  usedBy: number;
}

/** Where each backup list's entries are in the target's {@link Lookups}. */
const TARGET_LIST: Record<LookupKindKey, keyof Lookups> = {
  ...(Object.fromEntries(LOOKUP_FIELDS.map((f) => [f.list, LOOKUP_LISTS[f.key]])) as Record<CaseLookupList, keyof Lookups>),
  run_statuses: 'runStatuses',
};

const norm = (s: string) => s.trim().toLowerCase();
/** `Passed` → `PASSED`, `In Progress` → `IN_PROGRESS`: the run-case list's status words. */
const statusWord = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, '');

function matchLookup(entry: { name: string; alias?: string }, target: readonly LookupEntry[]): LookupEntry | undefined {
  return (
    target.find((t) => norm(t.name) === norm(entry.name)) ??
    (entry.alias ? target.find((t) => t.alias !== undefined && norm(t.alias) === norm(entry.alias!)) : undefined) ??
    target.find((t) => t.alias !== undefined && norm(t.alias) === norm(entry.name))
  );
}

/** Records a name of the backup the target does not match, counting its uses. */
type Miss = (what: Unmatched['what'], name: string) => void;

export function buildRestoreMapping(backup: Backup, target: RestoreTargetDirectory, options: RestoreMappingOptions = {}): RestoreMapping {
  const unmatched = new Map<string, Unmatched>();
  const miss: Miss = (what, name) => {
    const key = `${what}\u0000${name}`;
    const u = unmatched.get(key) ?? { what, name, usedBy: 0 };
    u.usedBy += 1;
    unmatched.set(key, u);
  };
  const lookups = lookupMapping(backup, target, miss);
  const users = userMapping(backup, target, options, miss);
  const labels = labelMapping(backup, target, options, miss);

  if (unmatched.size > 0) throw unmatchedError([...unmatched.values()]);
  const notes: string[] = [];
  if (users.replaced.size > 0) notes.push(`users without a match replaced by ${options.defaultOwner}: ${[...users.replaced].sort().join(', ')}`);
  if (labels.dropped.size > 0) notes.push(`labels the target lacks, left out: ${[...labels.dropped].sort().join(', ')}`);

  return {
    lookup: (kind, oldId) => (oldId ? lookups.maps[kind].get(oldId) : undefined),
    runStatus: (statusId, word) => (hasStatus(statusId, word) ? lookups.runStatus(statusId, word) : undefined),
    user: (oldId) => (oldId ? users.resolve(oldId) : undefined),
    labels: (ids) => ids.map((id) => labels.map.get(id)).filter((x): x is string => x !== undefined),
    ...(users.fallback !== undefined ? { fallbackUser: users.fallback } : {}),
    notes,
  };
}

/** True when a run-case row carries a status that must be set. */
const hasStatus = (statusId: string | null | undefined, word: string | null) =>
  statusId ? true : statusId === null ? false : word !== null && statusWord(word) !== 'UNTESTED';

/** The backup's lookup ids (of every list) to the target's, by name or alias; the ids the cases and run rows use are checked. */
function lookupMapping(backup: Backup, target: RestoreTargetDirectory, miss: Miss) {
  const maps = {} as Record<LookupKindKey, Map<string, string | undefined>>;
  const names = {} as Record<LookupKindKey, Map<string, string>>;
  for (const kind of LOOKUP_LISTS_ALL) {
    const m = new Map<string, string | undefined>();
    const n = new Map<string, string>();
    for (const e of backup.lookups[kind]) {
      m.set(e.id, matchLookup(e, target.lookups[TARGET_LIST[kind]] ?? [])?.id);
      n.set(e.id, e.name);
    }
    maps[kind] = m;
    names[kind] = n;
  }
  const useLookup = (kind: LookupKindKey, id: string) => {
    if (!id) return;
    const hit = maps[kind].get(id);
    if (hit === undefined) {
      // an id the backup's list does not name: only the same id in the target can be it
      const same = (target.lookups[TARGET_LIST[kind]] ?? []).find((t) => t.id === id);
      if (same) maps[kind].set(id, same.id);
      else miss(LOOKUP_WORDS[kind], names[kind].get(id) ?? id);
    }
  };
  for (const c of backup.test_cases) {
    for (const f of LOOKUP_FIELDS) useLookup(f.list, c[f.wire]);
  }
  const targetRunStatuses = target.lookups.runStatuses ?? [];
  const runStatus = (statusId: string | null | undefined, word: string | null): string | undefined => {
    if (statusId) return maps.run_statuses.get(statusId);
    if (!word) return undefined;
    return targetRunStatuses.find((t) => statusWord(t.name) === statusWord(word) || (t.alias && statusWord(t.alias) === statusWord(word)))?.id;
  };
  for (const r of backup.test_runs) {
    for (const rc of r.cases) {
      if (!hasStatus(rc.status_id, rc.status)) continue;
      if (runStatus(rc.status_id, rc.status) === undefined) {
        miss('run status', (rc.status_id ? names.run_statuses.get(rc.status_id) : undefined) ?? rc.status ?? '?');
      }
    }
  }
  return { maps, runStatus };
}

/** The backup's users to the target's, by email (`--map-user`, `--default-owner`); the users the cases and runs name are checked. */
function userMapping(backup: Backup, target: RestoreTargetDirectory, options: RestoreMappingOptions, miss: Miss) {
  const emailOf = new Map(backup.users.map((u) => [u.id, u.email]));
  const targetUser = (ref: string) =>
    target.users.find((u) => u.id === ref) ?? target.users.find((u) => norm(u.email) === norm(ref));
  const mapUsers = new Map(Object.entries(options.mapUsers ?? {}).map(([k, v]) => [norm(k), v]));
  for (const [from, to] of Object.entries(options.mapUsers ?? {})) {
    if (!targetUser(to)) {
      throw new TmsyncError('unknown_user', `--map-user ${from}=${to}: the target has no user "${to}"`, {
        hint: `users of the target: ${target.users.map((u) => u.email).slice(0, 20).join(', ') || '(none)'}`,
      });
    }
  }
  let fallback: string | undefined;
  if (options.defaultOwner !== undefined) {
    fallback = targetUser(options.defaultOwner)?.id;
    if (!fallback) {
      throw new TmsyncError('unknown_user', `--default-owner ${options.defaultOwner}: the target has no such user`, {
        hint: `users of the target: ${target.users.map((u) => u.email).slice(0, 20).join(', ') || '(none)'}`,
      });
    }
  }
  const userMap = new Map<string, string | undefined>();
  const replaced = new Set<string>();
  const resolve = (oldId: string): string | undefined => {
    if (userMap.has(oldId)) return userMap.get(oldId);
    const email = emailOf.get(oldId);
    const mapped = email !== undefined ? mapUsers.get(norm(email)) : mapUsers.get(norm(oldId));
    const hit = mapped !== undefined ? targetUser(mapped) : email !== undefined ? targetUser(email) : targetUser(oldId);
    let id = hit?.id;
    if (id === undefined && fallback !== undefined) {
      id = fallback;
      replaced.add(email ?? oldId);
    }
    userMap.set(oldId, id);
    return id;
  };
  const useUser = (id: string | null) => {
    if (id && resolve(id) === undefined) miss('user', emailOf.get(id) ?? id);
  };
  for (const c of backup.test_cases) {
    useUser(c.owner_id);
    useUser(c.reviewer_id);
  }
  for (const r of backup.test_runs) {
    useUser(r.assignee_id);
    for (const rc of r.cases) useUser(rc.assignee_id);
  }
  return { resolve, fallback, replaced };
}

/** The backup's labels to the target's, by name (the API cannot create them); `--drop-missing-labels` leaves the others out. */
function labelMapping(backup: Backup, target: RestoreTargetDirectory, options: RestoreMappingOptions, miss: Miss) {
  const labelName = new Map(backup.labels.map((l) => [l.id, l.name]));
  const map = new Map<string, string | undefined>();
  for (const l of backup.labels) map.set(l.id, target.labels.find((t) => norm(t.name) === norm(l.name))?.id);
  const dropped = new Set<string>();
  const useLabels = (ids: readonly string[] | undefined) => {
    for (const id of ids ?? []) {
      if (!map.has(id)) map.set(id, target.labels.find((t) => t.id === id)?.id);
      if (map.get(id) !== undefined) continue;
      if (options.dropMissingLabels) dropped.add(labelName.get(id) ?? id);
      else miss('label', labelName.get(id) ?? id);
    }
  };
  for (const c of backup.test_cases) useLabels(c.label_ids);
  for (const g of backup.step_groups) useLabels(g.label_ids);
  return { map, dropped };
}

function unmatchedError(list: Unmatched[]): TmsyncError {
  const order: Unmatched['what'][] = [...LOOKUP_LISTS_ALL.map((l) => LOOKUP_WORDS[l]), 'user', 'label'];
  list.sort((a, b) => order.indexOf(a.what) - order.indexOf(b.what) || (a.name < b.name ? -1 : 1));
  const lines = list.map((u) => `  ${u.what} "${u.name}" (used ${u.usedBy} time${u.usedBy === 1 ? '' : 's'})`);
  const hints: string[] = [];
  if (list.some((u) => u.what === 'user')) hints.push('map users with --map-user old@example.com=new@example.com, or pass --default-owner EMAIL for all of them');
  if (list.some((u) => u.what === 'label')) hints.push('create the labels in the target (the API cannot), or pass --drop-missing-labels');
  if (list.some((u) => !['user', 'label'].includes(u.what))) hints.push('lookup lists are global and read-only: add or rename the entries in the target service so the names match');
  return new TmsyncError('restore_unmatched', `${list.length} name${list.length === 1 ? '' : 's'} of the backup have no match in the target; nothing was written:\n${lines.join('\n')}`, {
    hint: hints.join('; '),
    details: { unmatched: list },
  });
}
