import { describe, expect, it } from 'vitest';
import type { Backup } from '../../src/backup/backup-format.js';
import { keyTargetItems, planAdoption, type AdoptionJournal, type RestoreItemType, type WireItem } from '../../src/backup/restore-adopt.js';

/** Only the fields natural keys are made of. */
const backup = {
  folders: [
    { id: 'bf-auth', name: 'Authentication', parent_id: null, order: 0 },
    { id: 'bf-deep', name: 'Deep', parent_id: 'bf-auth', order: 0 },
  ],
  step_groups: [{ id: 'bg-1', title: 'Log in' }],
  test_cases: [
    { id: 'bc-1', folder_id: 'bf-auth', title: 'Valid login' },
    { id: 'bc-twin1', folder_id: 'bf-auth', title: 'Twin' },
    { id: 'bc-twin2', folder_id: 'bf-auth', title: 'Twin' },
    { id: 'bc-deep', folder_id: 'bf-deep', title: 'Valid login' },
  ],
  test_plans: [{ id: 'bp-1', title: 'Release 1.0' }],
  test_runs: [
    { id: 'br-1', title: 'Smoke', test_plan_id: 'bp-1' },
    { id: 'br-2', title: 'Smoke', test_plan_id: null },
  ],
} as unknown as Backup;

function journal(ids: Record<string, string> = {}, pending: string[] = []): AdoptionJournal {
  return {
    idOf: (type: RestoreItemType, old: string) => ids[`${type}:${old}`],
    isPending: (type: RestoreItemType, old: string) => pending.includes(`${type}:${old}`),
    claimed: new Set(Object.values(ids)),
  };
}

const lists = (over: Partial<Record<'folders' | 'stepGroups' | 'cases' | 'plans' | 'runs', WireItem[]>> = {}) =>
  keyTargetItems({ folders: [], stepGroups: [], cases: [], plans: [], runs: [], ...over });

describe('planAdoption', () => {
  it('pairs each backup item with the one target item of its natural key: folder path, case folder path and title, run title and plan', () => {
    const target = lists({
      folders: [
        { id: 'tf-auth', name: 'Authentication', parent_folder_id: null },
        { id: 'tf-deep', name: 'Deep', parent_folder_id: 'tf-auth' },
        { id: 'tf-other', name: 'Deep', parent_folder_id: null },
      ],
      stepGroups: [{ id: 'tg-1', title: 'Log in' }],
      cases: [
        { id: 'tc-deep', folder_id: 'tf-deep', title: 'Valid login' },
        { id: 'tc-top', folder_id: 'tf-other', title: 'Valid login' },
      ],
      plans: [{ id: 'tp-1', title: 'Release 1.0' }],
      runs: [
        { id: 'tr-planned', title: 'Smoke', test_plan_id: 'tp-1' },
        { id: 'tr-other', title: 'Smoke', test_plan_id: null },
      ],
    });
    const plan = planAdoption(backup, target, journal());
    expect(plan.conflicts).toEqual([]);
    expect(plan.adopt.map((a) => `${a.old}=${a.id}${a.pending ? ' (pending)' : ''}`).sort()).toEqual([
      'bc-deep=tc-deep',
      'bf-auth=tf-auth',
      'bf-deep=tf-deep',
      'bg-1=tg-1',
      'bp-1=tp-1',
      'br-1=tr-planned',
      'br-2=tr-other',
    ]);
  });

  it('refuses to guess when twins share a key the target holds, naming the key and both counts', () => {
    const target = lists({
      folders: [{ id: 'tf-auth', name: 'Authentication', parent_folder_id: null }],
      cases: [{ id: 'tc-t', folder_id: 'tf-auth', title: 'Twin' }],
    });
    expect(planAdoption(backup, target, journal()).conflicts).toEqual(['test case Authentication › "Twin": 2 in the backup, 1 in the target']);
  });

  it('gives a target item to the twin an earlier run began without an answer, and lets the never-begun twin be created', () => {
    const target = lists({
      folders: [{ id: 'tf-auth', name: 'Authentication', parent_folder_id: null }],
      cases: [
        { id: 'tc-1', folder_id: 'tf-auth', title: 'Valid login' },
        { id: 'tc-t', folder_id: 'tf-auth', title: 'Twin' },
      ],
    });
    const plan = planAdoption(backup, target, journal({ 'folder:bf-auth': 'tf-auth', 'case:bc-1': 'tc-1' }, ['case:bc-twin1']));
    expect(plan.conflicts).toEqual([]);
    expect(plan.adopt).toEqual([{ type: 'case', old: 'bc-twin1', id: 'tc-t', pending: true }]);
  });

  it('finds a nested folder an earlier run created but did not move yet at the top level, only when it was begun', () => {
    const target = lists({
      folders: [
        { id: 'tf-auth', name: 'Authentication', parent_folder_id: null },
        { id: 'tf-deep', name: 'Deep', parent_folder_id: null },
      ],
    });
    const known = { 'folder:bf-auth': 'tf-auth' };
    expect(planAdoption(backup, target, journal(known, ['folder:bf-deep'])).adopt).toEqual([{ type: 'folder', old: 'bf-deep', id: 'tf-deep', pending: true }]);
    expect(planAdoption(backup, target, journal(known)).adopt).toEqual([]);
  });
});
