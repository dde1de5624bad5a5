import { describe, expect, it } from 'vitest';
import { summarizeJournal, type JournalEntry } from '../../src/apply/journal.js';
import type { Backup } from '../../src/backup/backup-format.js';
import type { AdoptionPlan } from '../../src/backup/restore-adopt.js';
import type { RestoreMapping } from '../../src/backup/restore-mapping.js';
import { buildRestorePlan } from '../../src/backup/restore-plan.js';

const mapping: RestoreMapping = {
  lookup: (_kind, old) => `new-${old}`,
  runStatus: (id) => (id ? `new-${id}` : undefined),
  user: (old) => `new-${old}`,
  labels: (ids) => ids.map((i) => `new-${i}`),
  notes: [],
};

const testCase = (id: string, folder: string) => ({
  id,
  human_id: `P-${id}`,
  folder_id: folder,
  title: `Case ${id}`,
  description: '',
  preconditions: '',
  template_type: 'STEPS',
  steps: '',
  expected_results: '',
  type_id: 't',
  status_id: 's',
  priority_id: 'p',
  automation_type_id: 'a',
  owner_id: 'u',
  reviewer_id: '',
  individual_steps: [],
  created_at: 1,
  updated_at: 1,
});

function backup(): Backup {
  return {
    folders: [
      { id: 'top', name: 'Top', parent_id: null, order: 0 },
      { id: 'b', name: 'B', parent_id: 'top', order: 1 },
      { id: 'a', name: 'A', parent_id: 'top', order: 0 },
    ],
    step_groups: [],
    test_cases: [testCase('c1', 'a'), testCase('c2', 'b')],
    test_plans: [{ id: 'p', human_id: 'P-P-1', title: 'Release', description: '', status: 'COMPLETED', start_date: 1_700_000_000, end_date: null, created_at: 1, updated_at: 1 }],
    test_runs: [
      {
        id: 'r',
        human_id: 'P-R-1',
        title: 'Smoke',
        description: '',
        status: 'CLOSED',
        selection_type: 'STATIC',
        start_date: null,
        end_date: null,
        assignee_id: null,
        test_plan_id: 'p',
        label_names: [],
        environment_ids: [],
        created_at: 1,
        updated_at: 1,
        cases: [
          { case_id: 'c1', status: 'PASSED', status_id: 'passed', assignee_id: null },
          { case_id: 'c2', status: null, status_id: null, assignee_id: 'u' },
        ],
      },
    ],
  } as unknown as Backup;
}

const target = { id: 't', name: 'T', humanIdPrefix: 'T' };
const none: AdoptionPlan = { adopt: [], conflicts: [] };

function plan(options: { journal?: JournalEntry[]; adoption?: AdoptionPlan; existing?: string[] } = {}) {
  return buildRestorePlan(backup(), {
    mapping,
    target,
    journal: summarizeJournal([{ format_version: 1, type: 'header', project_id: 't', started_at: 'x' }, ...(options.journal ?? [])], 't'),
    adoption: options.adoption ?? none,
    existingIds: new Set(options.existing ?? []),
    timestampUnit: 'milliseconds',
    batchSize: 200,
  });
}

describe('buildRestorePlan', () => {
  it('creates sibling folders one after another, each after its parent, and every case after its folder', () => {
    const { plan: p } = plan();
    const deps = Object.fromEntries(p.operations.map((op) => [op.key, op.dependsOn]));
    expect(p.operations.slice(0, 3).map((op) => op.key)).toEqual(['folder:top', 'folder:a', 'folder:b']);
    expect(deps['folder:a']).toEqual(['folder:top']);
    expect(deps['folder:b']).toEqual(['folder:top', 'folder:a']);
    expect(deps['case:c2']).toEqual(['folder:b']);
  });

  it('refers to other backup items through the keys of their operations, for the engine to remap', () => {
    const { plan: p } = plan();
    const run = p.operations.find((op) => op.kind === 'create_test_run')!;
    expect(run).toMatchObject({
      cases: [{ op: 'case:c1' }, { op: 'case:c2' }],
      plan: { op: 'plan:p' },
      results: [
        { case: { op: 'case:c1' }, statusId: 'new-passed' },
        { case: { op: 'case:c2' }, userId: 'new-u' },
      ],
      close: true,
    });
    expect(run.dependsOn.sort()).toEqual(['case:c1', 'case:c2', 'plan:p']);
    // dates go in the service's unit
    expect(p.operations.find((op) => op.kind === 'create_test_plan')).toMatchObject({ startDate: 1_700_000_000_000, endDate: null });
  });

  it('completes a completed plan last, after every run', () => {
    const { plan: p } = plan();
    const last = p.operations.at(-1)!;
    expect(last).toMatchObject({ kind: 'complete_test_plan', key: 'complete_plan:p', plan: { op: 'plan:p' } });
    expect(last.dependsOn).toEqual(['plan:p', 'run:r']);
  });

  it('plans nothing for items an earlier run finished, counts them, and refers to them by the ids it recorded', () => {
    const r = plan({
      journal: [
        { type: 'done', key: 'folder:top', kind: 'create_folder', id: 'T-top' },
        { type: 'done', key: 'folder:a', kind: 'create_folder', id: 'T-a' },
        { type: 'done', key: 'case:c1', kind: 'create_case', id: 'T-c1' },
      ],
    });
    expect(r.plan.operations.map((op) => op.key)).not.toContain('case:c1');
    expect(r.finished).toEqual({ folders: 2, step_groups: 0, test_cases: 1, test_plans: 0, test_runs: 0 });
    expect(r.plan.operations.find((op) => op.key === 'folder:b')).toMatchObject({ parent: { id: 'T-top' }, dependsOn: [] });
    expect(r.plan.operations.find((op) => op.kind === 'create_test_run')).toMatchObject({ cases: [{ id: 'T-c1' }, { op: 'case:c2' }] });
  });

  it('adopts what the target holds as it is, and resumes a create an earlier run began or half finished', () => {
    const r = plan({
      journal: [{ type: 'created', key: 'folder:b', kind: 'create_folder', id: 'T-b' }],
      existing: ['T-b', 'T-top', 'T-run'],
      adoption: {
        adopt: [
          { type: 'folder', old: 'top', id: 'T-top', pending: false },
          { type: 'run', old: 'r', id: 'T-run', pending: true },
        ],
        conflicts: [],
      },
    });
    expect(r.plan.operations.find((op) => op.key === 'folder:top')).toMatchObject({ kind: 'adopt', itemType: 'folder', id: 'T-top' });
    expect(r.plan.operations.find((op) => op.key === 'run:r')?.kind).toBe('create_test_run');
    expect([...r.resumeIds]).toEqual([
      ['folder:b', { id: 'T-b' }],
      ['run:r', { id: 'T-run' }],
    ]);
    expect(r.adopted).toBe(2);
  });

  it('refuses a backup item that refers to an item the backup does not hold, before anything is written', () => {
    const b = backup();
    b.test_cases[0].folder_id = 'gone';
    expect(() =>
      buildRestorePlan(b, { mapping, target, journal: summarizeJournal([], 't'), adoption: none, existingIds: new Set(), timestampUnit: undefined, batchSize: 200 }),
    ).toThrow(/test case P-c1 refers to folder gone, which the backup does not hold/);
  });
});
