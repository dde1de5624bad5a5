import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TmsClient } from '../../src/remote/index.js';
import { restoreBackup } from '../../src/backup/restore.js';
import { requestsFor } from '../../src/apply/operation-requests.js';
import { summarizeJournal } from '../../src/apply/journal.js';
import type { Ref } from '../../src/plan/operations.js';
import { buildRestorePlan } from '../../src/backup/restore-plan.js';
import type { RestoreMapping } from '../../src/backup/restore-mapping.js';
import type { Backup } from '../../src/backup/backup-format.js';
import { buildRestoreMapping, type RestoreTargetDirectory } from '../../src/backup/restore-mapping.js';

const lookups = (prefix: string) => ({
  types: [{ id: `${prefix}t1`, name: 'Functional', alias: 'functional' }],
  statuses: [{ id: `${prefix}s1`, name: 'Draft' }],
  priorities: [{ id: `${prefix}p1`, name: 'Medium' }],
  automation_types: [{ id: `${prefix}a1`, name: 'Automated' }],
  run_statuses: [
    { id: `${prefix}r1`, name: 'Passed' },
    { id: `${prefix}r2`, name: 'In Progress' },
  ],
});

function backup(): Backup {
  const l = lookups('old-');
  return {
    format_version: 1,
    kind: 'tmsync-backup',
    created_at: 'x',
    tool: { name: 'tmsync', version: 't' },
    source: { base_url: 'u', project: { id: 'p', name: 'P', human_id_prefix: 'P', description: '' } },
    lookups: l,
    users: [
      { id: 'old-ana', email: 'Ana@Example.com' },
      { id: 'old-gone', email: 'gone@example.com' },
    ],
    labels: [
      { id: 'old-smoke', name: 'smoke' },
      { id: 'old-rare', name: 'rare' },
    ],
    folders: [],
    step_groups: [],
    test_cases: [
      {
        id: 'c',
        human_id: 'P-1',
        folder_id: 'f',
        title: 'T',
        description: '',
        preconditions: '',
        template_type: 'STEPS',
        steps: '',
        expected_results: '',
        type_id: 'old-t1',
        status_id: 'old-s1',
        priority_id: 'old-p1',
        automation_type_id: 'old-a1',
        owner_id: 'old-ana',
        reviewer_id: 'old-gone',
        label_ids: ['old-smoke', 'old-rare'],
        individual_steps: [],
        created_at: 1,
        updated_at: 1,
      },
    ],
    test_plans: [],
    test_runs: [
      {
        id: 'r',
        human_id: 'P-R-1',
        title: 'R',
        description: '',
        status: 'ACTIVE',
        selection_type: 'STATIC',
        start_date: null,
        end_date: null,
        assignee_id: null,
        test_plan_id: null,
        label_names: [],
        environment_ids: [],
        created_at: 1,
        updated_at: 1,
        cases: [
          { case_id: 'c', status: 'IN_PROGRESS', assignee_id: 'old-ana' },
          { case_id: 'c', status: 'UNTESTED', status_id: null, assignee_id: null },
        ],
      },
    ],
    end: { counts: { folders: 0, step_groups: 0, test_cases: 1, test_plans: 0, test_runs: 1 } },
  };
}

const target = (): RestoreTargetDirectory => {
  const l = lookups('new-');
  return {
    lookups: { types: l.types, statuses: l.statuses, priorities: l.priorities, automationTypes: l.automation_types, runStatuses: l.run_statuses },
    users: [
      { id: 'new-ana', email: 'ana@example.com' },
      { id: 'new-lead', email: 'lead@example.com' },
    ],
    labels: [{ id: 'new-smoke', name: 'Smoke' }],
  };
};

describe('buildRestoreMapping', () => {
  it('lists every name the target lacks in one error, with the flags that fix each kind', () => {
    expect(() => buildRestoreMapping(backup(), target())).toThrow(
      /2 names of the backup have no match[\s\S]*user "gone@example.com" \(used 1 time\)[\s\S]*label "rare"/,
    );
    try {
      buildRestoreMapping(backup(), target());
    } catch (err) {
      expect((err as { hint: string }).hint).toContain('--map-user');
      expect((err as { hint: string }).hint).toContain('--drop-missing-labels');
    }
  });

  it('maps lookups by name, users by email case-insensitively, and run statuses from the run-case words', () => {
    const m = buildRestoreMapping(backup(), target(), { mapUsers: { 'gone@example.com': 'lead@example.com' }, dropMissingLabels: true });
    expect(m.lookup('types', 'old-t1')).toBe('new-t1');
    expect(m.user('old-ana')).toBe('new-ana');
    expect(m.user('old-gone')).toBe('new-lead');
    expect(m.labels(['old-smoke', 'old-rare'])).toEqual(['new-smoke']);
    expect(m.runStatus(undefined, 'IN_PROGRESS')).toBe('new-r2');
    expect(m.runStatus(null, 'UNTESTED')).toBeUndefined();
    expect(m.notes).toEqual(['labels the target lacks, left out: rare']);
  });

  it('lets --default-owner stand in for every user without a match, and refuses one the target does not have', () => {
    const m = buildRestoreMapping(backup(), target(), { defaultOwner: 'lead@example.com', dropMissingLabels: true });
    expect(m.user('old-gone')).toBe('new-lead');
    expect(m.notes[0]).toContain('gone@example.com');
    expect(() => buildRestoreMapping(backup(), target(), { defaultOwner: 'nobody@example.com' })).toThrow(/--default-owner nobody@example.com/);
  });

  it('refuses a backup whose lookup names the target lacks, naming the entry', () => {
    const t = target();
    t.lookups.statuses = [{ id: 'new-s9', name: 'Approved' }];
    expect(() => buildRestoreMapping(backup(), t, { defaultOwner: 'lead@example.com', dropMissingLabels: true })).toThrow(/status "Draft"/);
  });

  it('refuses a case the service would refuse (no owner) before calling the service or writing a journal', async () => {
    const b = backup();
    b.test_cases[0].owner_id = '';
    const root = mkdtempSync(join(tmpdir(), 'tmsync-restore-check-'));
    const client = new Proxy({}, { get: () => () => { throw new Error('no request expected'); } }) as unknown as TmsClient;
    await expect(
      restoreBackup(b, { client, target: { id: 't', name: 'T', humanIdPrefix: 'T' }, directory: target(), root, mapUsers: { 'gone@example.com': 'lead@example.com' }, dropMissingLabels: true }),
    ).rejects.toThrow(/P-1 "T" \(no owner\)/);
    expect(existsSync(join(root, '.tmsync'))).toBe(false);
  });

  it('builds bodies with every id remapped: folder, lookups, users, labels, step groups, cases and plan', () => {
    const b = backup();
    b.test_cases[0].individual_steps = [
      { description: 'b', expected: '', order: 2, step_group_id: 'old-g' },
      { description: 'a', expected: 'x', order: 1, step_group_id: null },
    ];
    // the items the case and the run refer to (their own bodies are not under test here)
    b.folders = [{ id: 'f', name: 'F', parent_id: null, order: 0 }];
    b.step_groups = [{ id: 'old-g', human_id: 'P-G-1', title: 'G', description: '', steps: [] }] as unknown as Backup['step_groups'];
    b.test_plans = [{ id: 'old-plan', human_id: 'P-P-1', title: 'Plan', description: '', status: 'ACTIVE', start_date: null, end_date: null, created_at: 1, updated_at: 1 }];
    const m = buildRestoreMapping(b, target(), { defaultOwner: 'lead@example.com', dropMissingLabels: true });
    // every reference to another backup item is an operation's key (`type:old id`), resolved by the engine
    const resolve = (ref: Ref) => ('id' in ref ? ref.id : `new:${ref.op}`);
    const requests = (backup: Backup, mapping: RestoreMapping, kind: string, keepEnvironments: boolean, batchSize: number) => {
      const { plan } = buildRestorePlan(backup, {
        mapping,
        target: { id: 't', name: 'T', humanIdPrefix: 'T' },
        journal: summarizeJournal([], 't'),
        adoption: { adopt: [], conflicts: [] },
        existingIds: new Set(),
        timestampUnit: undefined,
        keepEnvironments,
        batchSize,
      });
      return plan.operations.filter((op) => op.kind === kind).flatMap((op) => requestsFor(op, resolve, 't'));
    };
    expect(requests(b, m, 'create_case', false, 200)[0].body).toMatchObject({
      folder_id: 'new:folder:f',
      type_id: 'new-t1',
      owner_id: 'new-ana',
      reviewer_id: 'new-lead',
      label_ids: ['new-smoke'],
      individual_steps: [
        { step_description: 'a', expected_results: 'x', order: 1, step_type: 'DEFAULT', step_group_id: null },
        { step_description: 'b', expected_results: '', order: 2, step_type: 'DEFAULT', step_group_id: 'new:step_group:old-g' },
      ],
    });
    b.test_runs[0] = { ...b.test_runs[0], test_plan_id: 'old-plan', environment_ids: [3] };
    const run = requests(b, m, 'create_test_run', false, 1);
    expect(run[0].body).toMatchObject({
      selection_type: 'STATIC',
      static_selection_filters: [{ field: 'id', operator: 'IN', values: ['new:case:c', 'new:case:c'] }],
      test_plan_id: 'new:plan:old-plan',
    });
    expect(run[0].body).not.toHaveProperty('environment_ids');
    // the results: one batch (of 1 row) per status, no assignee-only rows
    expect(run.slice(1).map((r) => [r.endpoint, r.body])).toEqual([
      ['updateRunCases', { test_run_cases: [{ test_case_id: 'new:case:c', test_run_status_id: 'new-r2', user_id: 'new-ana' }] }],
    ]);
  });
});
