import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoint, endpoints, fillPath } from '../../src/api/endpoints.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { refs, start, type Answer, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
let clock = 1_800_000_000_000;
beforeAll(async () => ({ emu, http } = await start({ now: () => clock, runDurationMs: 1000 })));
afterAll(() => emu.close());

const seen = new Map<string, number>();

/** Calls an endpoint by its table name, checks the success status and the response schema. */
async function call(name: string, params: Record<string, string | number> = {}, body?: unknown, raw?: FormData): Promise<Answer> {
  const e = endpoint(name);
  const path = fillPath(e.path, { project_id: 'DEMO', ...params });
  const r = await http.call(e.method, path, body, { raw, root: e.iface === 'execution' ? 'app' : undefined });
  expect(r.status, `${name}: ${r.text.slice(0, 300)}`).toBe(e.status);
  if (e.response) {
    const parsed = e.response.safeParse(r.body);
    expect(parsed.success, `${name}: ${parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 2))}`).toBe(true);
  }
  seen.set(name, r.status);
  return r;
}

describe('every endpoint', () => {
  it('answers its success status with a body matching its schema, in one walk through the whole interface', async () => {
    const ids = await refs(http);
    const { users: _u, labels, ...caseIds } = ids;
    await call('listProjects');
    const project = (await call('createProject', {}, { name: 'Walk', human_id_prefix: 'WALK' })).body.data.project;
    await call('getProject', { project_id: project.id });
    await call('updateProject', { project_id: project.id }, { description: 'walked' });

    const f1 = (await call('createFolder', {}, { name: 'W1' })).body.data.folder;
    const f2 = (await call('createFolder', {}, { name: 'W2' })).body.data.folder;
    await call('updateFolder', { folder_id: f2.id }, { name: 'W2b' });
    await call('moveFolder', { folder_id: f2.id }, { parent_folder_id: f1.id });
    await call('getFolder', { folder_id: f1.id });
    await call('listFolders');

    for (const n of ['listCaseTypes', 'listCaseStatuses', 'listPriorities', 'listAutomationTypes', 'listRunStatuses', 'listUsers', 'listLabels']) await call(n);
    const sg = (await call('createStepGroup', {}, { title: 'SG', label_ids: [labels[0].id], steps: [{ step_description: 'a', expected_result: 'b', order: 1 }] })).body.data.step_group;
    await call('updateStepGroup', { step_group_id: sg.id }, { title: 'SG2' });
    await call('getStepGroup', { step_group_id: sg.human_id });
    await call('listStepGroups');

    const tc = (await call('createTestCase', {}, { title: 'Walk case', folder_id: f2.id, ...caseIds, individual_steps: [{ step_description: 'a', expected_results: 'b', step_group_id: sg.id }] })).body.data.test_case;
    await call('updateTestCase', { test_case_id: tc.human_id }, { label_ids: [labels[1].id] });
    await call('getTestCase', { test_case_id: tc.human_id });
    await call('listTestCases', {}, undefined);

    const plan = (await call('createTestPlan', {}, { title: 'Walk plan' })).body.data.test_plan;
    await call('updateTestPlan', { test_plan_id: plan.id }, { description: 'd' });
    await call('getTestPlan', { test_plan_id: plan.human_id });
    await call('listTestPlans');
    const run = (await call('createTestRun', {}, { title: 'Walk run', test_plan_id: plan.id, static_selection_filters: [{ field: 'id', operator: 'IN', values: [tc.id] }] })).body.data.test_run;
    await call('listTestPlanRuns', { test_plan_id: plan.id });
    await call('listTestRuns');
    await call('getTestRun', { test_run_id: run.human_id });
    await call('updateTestRun', { test_run_id: run.id }, { description: 'x' });
    const statuses = (await http.get('/test_runs/statuses')).body.data.statuses;
    await call('updateRunCases', { test_run_id: run.id }, { test_run_cases: [{ test_case_id: tc.id, test_run_status_id: statuses[0].id }] });
    await call('assignRunCaseUser', { test_run_id: run.id }, { user_id: ids.owner_id, test_case_id: tc.id });
    await call('listRunCases', { test_run_id: run.id });
    const form = new FormData();
    form.append('junit_xml', new Blob([`<testsuite><testcase name="${tc.human_id}"/></testsuite>`]), 'r.xml');
    const imp = (await call('importJunit', { test_run_id: run.id }, undefined, form)).body.data.import;
    await call('getJunitImport', { import_id: imp.id });

    const exec = (await call('triggerExecution', {}, { executionId: plan.id, environmentId: 1, buildNo: 'b1' })).body;
    clock += 1000;
    await call('getExecution', { run_id: exec.id });
    await call('getExecutionJunit', { run_id: exec.id });
    await call('completeTestPlan', { test_plan_id: plan.id });

    await call('deleteTestRun', { test_run_id: run.id });
    await call('deleteTestPlan', { test_plan_id: plan.id });
    await call('deleteTestCase', { test_case_id: tc.id });
    await call('deleteStepGroup', { step_group_id: sg.id });
    await call('deleteFolder', { folder_id: f2.id });
    await call('deleteProject', { project_id: project.id });

    expect([...seen.keys()].sort()).toEqual(endpoints.map((e) => e.name).sort());
  });
});
