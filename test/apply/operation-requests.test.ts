import { describe, expect, it } from 'vitest';
import { SELF, fillSelf, requestsFor } from '../../src/apply/operation-requests.js';
import type { Operation, Ref } from '../../src/plan/operations.js';

const resolve = (ref: Ref) => ('id' in ref ? ref.id : `id-of(${ref.op})`);
const P = 'proj-1';

describe('requestsFor', () => {
  it('creates a top-level folder with one POST that produces its id', () => {
    const op: Operation = { kind: 'create_folder', key: 'folder:A', dependsOn: [], path: ['A'], name: 'A', parent: null, order: 2, writeBack: { file: 'cases/A/_folder.yaml' } };
    expect(requestsFor(op, resolve, P)).toEqual([
      { endpoint: 'createFolder', params: { project_id: P }, body: { name: 'A', order: 2 }, produces: 'id', resultKey: 'folder' },
    ]);
  });

  it('creates a nested folder at the top level, then moves it under its parent and sets its order again', () => {
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: ['folder:A'], path: ['A', 'B'], name: 'B', parent: { op: 'folder:A' }, order: 1, writeBack: { file: 'cases/A/B/_folder.yaml' } };
    const reqs = requestsFor(op, resolve, P);
    expect(reqs.map((r) => r.endpoint)).toEqual(['createFolder', 'moveFolder', 'updateFolder']);
    expect(reqs[1]).toMatchObject({ params: { project_id: P, folder_id: SELF }, body: { parent_folder_id: 'id-of(folder:A)' } });
    expect(reqs[2].body).toEqual({ order: 1 });
    expect(fillSelf(reqs[1], 'new-id').params.folder_id).toBe('new-id');
  });

  it('creates a nested folder without an order with exactly a create and a move', () => {
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: [], path: ['A', 'B'], name: 'B', parent: { id: 'pa' }, writeBack: { file: 'x' } };
    const reqs = requestsFor(op, resolve, P);
    expect(reqs.map((r) => r.endpoint)).toEqual(['createFolder', 'moveFolder']);
    expect(reqs[0].body).toEqual({ name: 'B' });
  });

  it('refuses to fill the placeholder when no id was produced', () => {
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: [], path: ['A', 'B'], name: 'B', parent: { id: 'pa' }, writeBack: { file: 'x' } };
    expect(() => fillSelf(requestsFor(op, resolve, P)[1], undefined)).toThrow(/not created yet/);
  });

  it('renames and reorders a folder with one PUT carrying only what changes', () => {
    const op: Operation = { kind: 'update_folder', key: 'folder:A', dependsOn: [], id: 'f1', path: ['A'], name: 'A2', changes: [] };
    expect(requestsFor(op, resolve, P)).toEqual([{ endpoint: 'updateFolder', params: { project_id: P, folder_id: 'f1' }, body: { name: 'A2' }, resultKey: 'folder' }]);
  });

  it('moves a folder to the top level with an empty parent id', () => {
    const op: Operation = { kind: 'move_folder', key: 'folder:B', dependsOn: [], id: 'f2', fromPath: ['A', 'B'], path: ['B'], parent: null };
    expect(requestsFor(op, resolve, P)[0]).toMatchObject({ endpoint: 'moveFolder', body: { parent_folder_id: '' } });
  });

  it('creates a step group with singular expected_result and 1-based order', () => {
    const op: Operation = {
      kind: 'create_step_group', key: 'step_group:login', dependsOn: [], localKey: 'login',
      body: { title: 'Log in', labelIds: ['l1'], steps: [{ description: 'Open', expected: 'Form' }, { description: 'Sign in', expected: 'Home' }] },
      writeBack: { file: 'step_groups/login.yaml' },
    };
    const [req] = requestsFor(op, resolve, P);
    expect(req).toMatchObject({ endpoint: 'createStepGroup', produces: 'id', resultKey: 'step_group' });
    expect(req.body).toEqual({
      title: 'Log in', description: '', label_ids: ['l1'],
      steps: [
        { step_description: 'Open', expected_result: 'Form', order: 1 },
        { step_description: 'Sign in', expected_result: 'Home', order: 2 },
      ],
    });
  });

  it('updates a step group by resending all its steps', () => {
    const op: Operation = { kind: 'update_step_group', key: 'step_group:login', dependsOn: [], id: 'sg1', humanId: 'DEMO-SG-1', localKey: 'login', body: { title: 'T', steps: [{ description: 'a', expected: 'b' }] }, changes: [] };
    const [req] = requestsFor(op, resolve, P);
    expect(req).toMatchObject({ endpoint: 'updateStepGroup', params: { project_id: P, step_group_id: 'sg1' } });
    expect((req.body as { steps: unknown[] }).steps).toHaveLength(1);
  });

  it('creates a case with ids, folder and individual steps that carry their step group', () => {
    const op: Operation = {
      kind: 'create_case', key: 'case:cases/A/x.yaml', dependsOn: ['folder:A', 'step_group:login'], path: ['A'],
      body: {
        title: 'X', folder: { op: 'folder:A' }, templateType: 'STEPS', typeId: 't', statusId: 's', priorityId: 'p', automationTypeId: 'a', ownerId: 'u',
        individualSteps: [
          { description: 'Open', expected: 'Form', stepGroup: { op: 'step_group:login' } },
          { description: 'Pay', expected: 'Paid', stepGroup: null },
        ],
      },
      writeBack: { file: 'cases/A/x.yaml' },
    };
    const [req] = requestsFor(op, resolve, P);
    expect(req).toMatchObject({ endpoint: 'createTestCase', produces: 'id', resultKey: 'test_case' });
    expect(req.body).toEqual({
      title: 'X', folder_id: 'id-of(folder:A)', template_type: 'STEPS', type_id: 't', status_id: 's', priority_id: 'p', automation_type_id: 'a', owner_id: 'u',
      individual_steps: [
        { step_description: 'Open', expected_results: 'Form', order: 1, step_type: 'DEFAULT', step_group_id: 'id-of(step_group:login)' },
        { step_description: 'Pay', expected_results: 'Paid', order: 2, step_type: 'DEFAULT', step_group_id: null },
      ],
    });
  });

  it('moves a case with a PUT of its folder only', () => {
    const op: Operation = { kind: 'move_case', key: 'case:cases/B/x.yaml', dependsOn: [], id: 'c1', humanId: 'DEMO-1', title: 'X', fromPath: ['A'], path: ['B'], folder: { id: 'fb' } };
    expect(requestsFor(op, resolve, P)).toEqual([{ endpoint: 'updateTestCase', params: { project_id: P, test_case_id: 'c1' }, body: { folder_id: 'fb' }, resultKey: 'test_case' }]);
  });

  it('deletes each kind of item with its DELETE endpoint', () => {
    const ops: Operation[] = [
      { kind: 'delete_case', key: 'd1', dependsOn: [], id: 'c1', humanId: 'DEMO-1', title: 'X', path: [] },
      { kind: 'delete_folder', key: 'd2', dependsOn: [], id: 'f1', path: ['A'] },
      { kind: 'delete_step_group', key: 'd3', dependsOn: [], id: 'g1', humanId: 'DEMO-SG-1', title: 'G' },
    ];
    expect(ops.map((o) => requestsFor(o, resolve, P)[0].endpoint)).toEqual(['deleteTestCase', 'deleteFolder', 'deleteStepGroup']);
  });

  it('sends no request for an adopted item', () => {
    const op: Operation = { kind: 'adopt', key: 'case:x', dependsOn: [], itemType: 'case', id: 'c1', humanId: 'DEMO-1', path: ['A'], title: 'X', writeBack: { file: 'cases/A/x.yaml', id: 'DEMO-1' } };
    expect(requestsFor(op, resolve, P)).toEqual([]);
  });
  it('creates a test plan with its dates and completes one by its id', () => {
    const create: Operation = { kind: 'create_test_plan', key: 'plan:p', dependsOn: [], title: 'Release', description: 'd', startDate: 5, endDate: null };
    expect(requestsFor(create, resolve, P)).toEqual([
      { endpoint: 'createTestPlan', params: { project_id: P }, body: { title: 'Release', description: 'd', start_date: 5, end_date: null }, produces: 'id', resultKey: 'test_plan' },
    ]);
    const complete: Operation = { kind: 'complete_test_plan', key: 'complete_plan:p', dependsOn: ['plan:p'], plan: { op: 'plan:p' }, title: 'Release' };
    expect(requestsFor(complete, resolve, P)).toEqual([{ endpoint: 'completeTestPlan', params: { project_id: P, test_plan_id: 'id-of(plan:p)' } }]);
  });

  it('creates a test run STATIC with its cases, sends its results in batches and untested assignees, and closes it last; reopens it only when resumed', () => {
    const op: Operation = {
      kind: 'create_test_run',
      key: 'run:r',
      dependsOn: [],
      title: 'Smoke',
      description: '',
      cases: [{ op: 'case:a' }, { id: 'b' }, { id: 'c' }],
      plan: { op: 'plan:p' },
      startDate: null,
      endDate: null,
      assigneeId: null,
      labelNames: ['nightly'],
      results: [
        { case: { op: 'case:a' }, statusId: 'passed', userId: 'u1' },
        { case: { id: 'b' }, statusId: 'failed' },
        { case: { id: 'c' }, userId: 'u2' },
      ],
      batchSize: 1,
      close: true,
    };
    const reqs = requestsFor(op, resolve, P);
    expect(reqs.map((r) => [r.endpoint, r.resumeOnly ?? false])).toEqual([
      ['createTestRun', false],
      ['updateTestRun', true],
      ['updateRunCases', false],
      ['updateRunCases', false],
      ['assignRunCaseUser', false],
      ['updateTestRun', false],
    ]);
    expect(reqs[0].body).toMatchObject({
      selection_type: 'STATIC',
      static_selection_filters: [{ field: 'id', operator: 'IN', values: ['id-of(case:a)', 'b', 'c'] }],
      test_plan_id: 'id-of(plan:p)',
      label_names: ['nightly'],
    });
    expect(reqs[0]).not.toHaveProperty('body.environment_ids');
    expect(reqs.slice(1).map((r) => r.body)).toEqual([
      { status: 'ACTIVE' },
      { test_run_cases: [{ test_case_id: 'id-of(case:a)', test_run_status_id: 'passed', user_id: 'u1' }] },
      { test_run_cases: [{ test_case_id: 'b', test_run_status_id: 'failed' }] },
      { test_case_id: 'c', user_id: 'u2' },
      { status: 'CLOSED' },
    ]);
    expect(reqs.slice(1).every((r) => r.params.test_run_id === SELF)).toBe(true);
  });
});
