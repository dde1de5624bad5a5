import type { ListEndpointName } from '../api/endpoints.js';
import { TmsyncError } from '../errors.js';
import type { TmsClient } from '../remote/client.js';
import type { Backup } from './backup-format.js';

/**
 * Adoption: backup items that already exist in the target (a restore run from another directory
 * or CI runner, a killed run's creates without an answer, a target restored into before) are
 * mapped to the existing item by natural key instead of being created again:
 *
 * - folder: its path of names from the top;
 * - step group: title; test case: folder path + title; test plan: title;
 * - test run: title + its test plan's title.
 *
 * A key that more than one backup item or more than one target item shares cannot be paired
 * without guessing: such keys are refused before anything is written.
 */

/** The kinds of backup items; a journal key is `type:old id` (`case:7f3a…`). */
export type RestoreItemType = 'folder' | 'step_group' | 'case' | 'plan' | 'run';

/** One item of the target as adoption sees it. */
export interface TargetItem {
  id: string;
  /** the natural key, undefined when it cannot be computed (a case in an unknown folder) */
  key: string | undefined;
  /** what a person calls it, for messages */
  label: string;
  /** a top-level folder's name: where a folder created but not yet moved is found */
  topName?: string;
}

export type TargetItems = Record<RestoreItemType, TargetItem[]>;

export interface Adoption {
  type: RestoreItemType;
  /** the backup item's id */
  old: string;
  /** the target item's id */
  id: string;
  /** an item an earlier run from this directory began without an answer: its follow-ups still run */
  pending: boolean;
}

/** What adoption needs to know of the journal. */
export interface AdoptionJournal {
  idOf(type: RestoreItemType, old: string): string | undefined;
  isPending(type: RestoreItemType, old: string): boolean;
  /** target ids already mapped: never adopted a second time */
  claimed: { has(id: string): boolean };
  /** target ids an item begun without an answer cannot be (they existed before its create was sent) @default none */
  excluded?(type: RestoreItemType, old: string): readonly string[];
}

export const TYPE_WORDS: Record<RestoreItemType, string> = {
  folder: 'folder',
  step_group: 'step group',
  case: 'test case',
  plan: 'test plan',
  run: 'test run',
};

const isTop = (parent: unknown) => parent === '' || parent === null || parent === undefined;
const k = (...parts: (string | null)[]) => JSON.stringify(parts);

/** Folder paths (arrays of names) by id, from a list with parent links; undefined on a broken chain. */
function pathsOf(folders: readonly { id: string; name: string; parent: string | null }[]): (id: string) => string[] | undefined {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const memo = new Map<string, string[] | undefined>();
  const path = (id: string, depth = 0): string[] | undefined => {
    if (memo.has(id)) return memo.get(id);
    const f = byId.get(id);
    const p = !f || depth > 1000 ? undefined : f.parent === null ? [f.name] : (() => {
      const up = path(f.parent, depth + 1);
      return up ? [...up, f.name] : undefined;
    })();
    memo.set(id, p);
    return p;
  };
  return path;
}

const show = (path: string[] | undefined) => (path ? path.join('/') : '?');

/** Reads every folder, step group, case, plan and run of the target, keyed. */
export async function readTargetItems(client: TmsClient, projectId: string, signal?: AbortSignal): Promise<TargetItems> {
  const params = { project_id: projectId };
  const all = async <T>(name: ListEndpointName): Promise<T[]> => {
    const out: T[] = [];
    for await (const x of client.paginate(name, { params, signal })) out.push(x as T);
    return out;
  };
  const [folders, stepGroups, cases, plans, runs] = await Promise.all([
    all<WireItem>('listFolders'),
    all<WireItem>('listStepGroups'),
    all<WireItem>('listTestCases'),
    all<WireItem>('listTestPlans'),
    all<WireItem>('listTestRuns'),
  ]);
  return keyTargetItems({ folders, stepGroups, cases, plans, runs });
}

/** The fields of the service's list items that natural keys are made of. */
export interface WireItem {
  id: string;
  name?: string;
  title?: string;
  parent_folder_id?: string | null;
  folder_id?: string | null;
  test_plan_id?: string | null;
}

/** Keys the target's lists (pure). */
export function keyTargetItems(lists: { folders: WireItem[]; stepGroups: WireItem[]; cases: WireItem[]; plans: WireItem[]; runs: WireItem[] }): TargetItems {
  const { folders, stepGroups: groups, cases, plans, runs } = lists;
  const path = pathsOf(folders.map((f) => ({ id: f.id, name: f.name ?? '', parent: isTop(f.parent_folder_id) ? null : f.parent_folder_id })));
  const planTitle = new Map(plans.map((p) => [p.id, p.title ?? '']));
  return {
    folder: folders.map((f) => {
      const p = path(f.id);
      return { id: f.id, key: p && k(...p), label: show(p), ...(isTop(f.parent_folder_id) ? { topName: f.name ?? '' } : {}) };
    }),
    step_group: groups.map((g) => ({ id: g.id, key: k(g.title ?? ''), label: `"${g.title}"` })),
    case: cases.map((c) => {
      const p = c.folder_id ? path(c.folder_id) : [];
      return { id: c.id, key: p && k(k(...p), c.title ?? ''), label: `${show(p)} › "${c.title}"` };
    }),
    plan: plans.map((p) => ({ id: p.id, key: k(p.title ?? ''), label: `"${p.title}"` })),
    run: runs.map((r) => {
      const plan = r.test_plan_id ? (planTitle.get(r.test_plan_id) ?? null) : null;
      return { id: r.id, key: k(r.title ?? '', plan), label: `"${r.title}"${plan !== null ? ` (plan "${plan}")` : ''}` };
    }),
  };
}

interface BackupItem {
  old: string;
  key: string | undefined;
  label: string;
  /** a nested folder's own name: it may sit at the top level, created but not yet moved */
  name?: string;
}

function backupItems(backup: Backup): Record<RestoreItemType, BackupItem[]> {
  const path = pathsOf(backup.folders.map((f) => ({ id: f.id, name: f.name, parent: f.parent_id })));
  const planTitle = new Map(backup.test_plans.map((p) => [p.id, p.title]));
  return {
    folder: backup.folders.map((f) => {
      const p = path(f.id);
      return { old: f.id, key: p && k(...p), label: show(p), ...(f.parent_id !== null ? { name: f.name } : {}) };
    }),
    step_group: backup.step_groups.map((g) => ({ old: g.id, key: k(g.title), label: `"${g.title}"` })),
    case: backup.test_cases.map((c) => {
      const p = path(c.folder_id);
      return { old: c.id, key: p && k(k(...p), c.title), label: `${show(p)} › "${c.title}"` };
    }),
    plan: backup.test_plans.map((p) => ({ old: p.id, key: k(p.title), label: `"${p.title}"` })),
    run: backup.test_runs.map((r) => {
      const plan = r.test_plan_id ? (planTitle.get(r.test_plan_id) ?? null) : null;
      return { old: r.id, key: k(r.title, plan), label: `"${r.title}"${plan !== null ? ` (plan "${plan}")` : ''}` };
    }),
  };
}

export interface AdoptionPlan {
  adopt: Adoption[];
  /** one line per natural key that cannot be paired without guessing */
  conflicts: string[];
}

/**
 * Pairs backup items the journal has no id for with target items by natural key (pure).
 * Items an earlier run began without an answer are paired first (the target item may be the
 * one they created), then items the journal knows nothing about, from what is left.
 */
export function planAdoption(backup: Backup, target: TargetItems, journal: AdoptionJournal): AdoptionPlan {
  const adopt: Adoption[] = [];
  const conflicts: string[] = [];
  const items = backupItems(backup);
  for (const type of ['folder', 'step_group', 'case', 'plan', 'run'] as const) {
    const taken = new Set<string>();
    const free = target[type].filter((t) => !journal.claimed.has(t.id));
    const byKey = groupBy(free, (t) => t.key);
    const topByName = groupBy(
      free.filter((t) => t.topName !== undefined),
      (t) => t.topName,
    );
    const open = items[type].filter((b) => journal.idOf(type, b.old) === undefined);
    for (const pending of [true, false]) {
      const mine = open.filter((b) => journal.isPending(type, b.old) === pending);
      for (const [key, group] of groupBy(mine, (b) => b.key)) {
        const cands = new Map<string, TargetItem>();
        for (const t of byKey.get(key) ?? []) if (!taken.has(t.id)) cands.set(t.id, t);
        // a folder begun without an answer may still wait at the top level for its move
        for (const b of pending ? group : []) {
          const before = new Set(journal.excluded?.(type, b.old) ?? []);
          for (const t of b.name !== undefined ? (topByName.get(b.name) ?? []) : []) if (!taken.has(t.id) && !before.has(t.id)) cands.set(t.id, t);
        }
        if (cands.size === 0) continue;
        if (group.length === 1 && cands.size === 1) {
          const t = [...cands.values()][0];
          taken.add(t.id);
          adopt.push({ type, old: group[0].old, id: t.id, pending });
          continue;
        }
        conflicts.push(`${TYPE_WORDS[type]} ${group[0].label}: ${group.length} in the backup, ${cands.size} in the target`);
      }
    }
  }
  return { adopt, conflicts };
}

function groupBy<T>(xs: readonly T[], key: (x: T) => string | undefined): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const kx = key(x);
    if (kx === undefined) continue;
    m.set(kx, [...(m.get(kx) ?? []), x]);
  }
  return m;
}

/** The error for keys that cannot be paired; nothing has been written when it is thrown. */
export function ambiguousError(conflicts: readonly string[], project: string): TmsyncError {
  const shown = conflicts.slice(0, 20).map((c) => `  ${c}`);
  if (conflicts.length > 20) shown.push(`  … and ${conflicts.length - 20} more`);
  return new TmsyncError(
    'restore_ambiguous',
    `${project} already holds items the backup has, and ${conflicts.length} of their names are shared by several items, so they cannot be paired without guessing; nothing was written:\n${shown.join('\n')}`,
    {
      hint: 'rename the twins (in the target, or in the source and back up again) so each name is unique, or restore into an empty project',
      details: { conflicts },
    },
  );
}

/** How many items of each kind the target held before this run. */
export function heldCounts(target: TargetItems): Record<RestoreItemType, number> {
  return { folder: target.folder.length, step_group: target.step_group.length, case: target.case.length, plan: target.plan.length, run: target.run.length };
}
