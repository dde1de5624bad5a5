import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { conforms, folder, isError, refs, start, testCase, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
let ids: Awaited<ReturnType<typeof refs>>;
let cases: any[];
let runStatuses: Record<string, string>;
beforeAll(async () => {
  ({ emu, http } = await start());
  ids = await refs(http);
  const f = await folder(http, 'Run cases');
  const f2 = await folder(http, 'Elsewhere');
  cases = [
    await testCase(http, ids, f, { title: 'Login works' }),
    await testCase(http, ids, f, { title: 'Logout works' }),
    await testCase(http, ids, f2, { title: 'Search works' }),
  ];
  const s = await http.get('/test_runs/statuses');
  conforms('listRunStatuses', s.body);
  runStatuses = Object.fromEntries(s.body.data.statuses.map((x: any) => [x.name, x.id]));
});
afterAll(() => emu.close());

describe('test runs', () => {
  it('creates a STATIC run from case ids and human ids, and lists its cases as UNTESTED', async () => {
    const r = await http.post('/projects/DEMO/test_runs', {
      title: 'Static run',
      status: 'ACTIVE',
      selection_type: 'STATIC',
      static_selection_filters: [{ field: 'id', operator: 'IN', values: [cases[0].id, cases[1].human_id] }],
      label_names: ['nightly'],
      assignee_id: ids.owner_id,
    });
    expect(r.status).toBe(200);
    conforms('createTestRun', r.body);
    const run = r.body.data.test_run;
    expect(run).toMatchObject({ status: 'ACTIVE', selection_type: 'STATIC', test_cases_count: 2, labels: ['nightly'], assignee_id: ids.owner_id });
    expect(run.human_id).toMatch(/^DEMO-R-\d+$/);
    const l = await http.get(`/projects/DEMO/test_runs/${run.human_id}/test_cases`);
    conforms('listRunCases', l.body);
    expect(l.body).not.toHaveProperty('page_info');
    expect(l.body.data.test_cases).toEqual([
      expect.objectContaining({ id: cases[0].id, name: 'Login works', status: 'UNTESTED', assignee_id: ids.owner_id }),
      expect.objectContaining({ id: cases[1].id, name: 'Logout works', status: 'UNTESTED' }),
    ]);
  });

  it('creates a DYNAMIC run holding the cases matching its filters', async () => {
    const r = await http.post('/projects/DEMO/test_runs', {
      title: 'Dynamic run',
      selection_type: 'DYNAMIC',
      dynamic_selection_filters: [{ field: 'folder_id', operator: 'IN', values: [cases[2].folder_id] }],
    });
    expect(r.body.data.test_run).toMatchObject({ selection_type: 'DYNAMIC', test_cases_count: 1 });
    const bad = await http.post('/projects/DEMO/test_runs', { title: 'x', selection_type: 'DYNAMIC', dynamic_selection_filters: [{ field: 'colour', operator: 'IN', values: [] }] });
    isError(bad, 422);
    expect(bad.body.errors.details[0].field).toBe('dynamic_selection_filters.0.field');
  });

  it('refuses unknown case ids in a static selection with 422 naming the value', async () => {
    const r = await http.post('/projects/DEMO/test_runs', { title: 'x', static_selection_filters: [{ field: 'id', operator: 'IN', values: [cases[0].id, 'nope'] }] });
    isError(r, 422);
    expect(r.body.errors.details[0].field).toBe('static_selection_filters.0.values.1');
  });

  it('sets run-case statuses from a JSON body and from multipart with a data part', async () => {
    const run = (await http.post('/projects/DEMO/test_runs', { title: 'Results', static_selection_filters: [{ field: 'id', operator: 'IN', values: cases.map((c) => c.id) }] })).body.data.test_run;
    const j = await http.put(`/projects/DEMO/test_runs/${run.id}/test_cases`, {
      test_run_cases: [{ test_case_id: cases[0].id, test_run_status_id: runStatuses.Passed, user_id: ids.owner_id, description: 'ok' }],
    });
    expect(j.status).toBe(200);
    conforms('updateRunCases', j.body);
    expect(j.body.data.test_run_cases).toEqual([{ test_case_id: cases[0].id, test_run_status_id: runStatuses.Passed, user_id: ids.owner_id, updated_at: expect.any(Number) }]);
    const form = new FormData();
    form.append('data', JSON.stringify({ test_run_cases: [{ test_case_id: cases[1].human_id, test_run_status_id: runStatuses.Failed }] }));
    const m = await http.call('PUT', `/projects/DEMO/test_runs/${run.id}/test_cases`, undefined, { raw: form });
    expect(m.status, m.text).toBe(200);
    expect(m.body.data.test_run_cases[0]).toMatchObject({ test_case_id: cases[1].id, test_run_status_id: runStatuses.Failed });
    const l = await http.get(`/projects/DEMO/test_runs/${run.id}/test_cases`);
    expect(l.body.data.test_cases.map((c: any) => c.status)).toEqual(['PASSED', 'FAILED', 'UNTESTED']);
  });

  it('refuses statuses for cases outside the run, unknown statuses, and a multipart body without data', async () => {
    const run = (await http.post('/projects/DEMO/test_runs', { title: 'Small', static_selection_filters: [{ field: 'id', operator: 'IN', values: [cases[0].id] }] })).body.data.test_run;
    const r = await http.put(`/projects/DEMO/test_runs/${run.id}/test_cases`, {
      test_run_cases: [{ test_case_id: cases[2].id, test_run_status_id: 'nope' }],
    });
    isError(r, 422);
    expect(r.body.errors.details.map((d: any) => d.field)).toEqual(['test_run_cases.0.test_case_id', 'test_run_cases.0.test_run_status_id']);
    const form = new FormData();
    form.append('other', 'x');
    isError(await http.call('PUT', `/projects/DEMO/test_runs/${run.id}/test_cases`, undefined, { raw: form }), 422);
  });

  it('assigns a user to a run case', async () => {
    const run = (await http.post('/projects/DEMO/test_runs', { title: 'Assign', static_selection_filters: [{ field: 'id', operator: 'IN', values: [cases[0].id] }] })).body.data.test_run;
    const a = await http.put(`/projects/DEMO/test_runs/${run.id}/assign_user`, { user_id: ids.users[1].id, test_case_id: cases[0].id });
    expect(a.status).toBe(200);
    conforms('assignRunCaseUser', a.body);
    expect(a.body.data.test_run_case).toMatchObject({ test_case_id: cases[0].id, user_id: ids.users[1].id });
    const l = await http.get(`/projects/DEMO/test_runs/${run.id}/test_cases`);
    expect(l.body.data.test_cases[0].assignee_id).toBe(ids.users[1].id);
  });

  it('updates with a sparse body, closes with status CLOSED, refuses results on a closed run, and deletes with 204', async () => {
    const run = (await http.post('/projects/DEMO/test_runs', { title: 'Close me', static_selection_filters: [{ field: 'id', operator: 'IN', values: [cases[0].id] }] })).body.data.test_run;
    const u = await http.put(`/projects/DEMO/test_runs/${run.id}`, { description: 'desc' });
    conforms('updateTestRun', u.body);
    expect(u.body.data.test_run).toMatchObject({ title: 'Close me', description: 'desc', test_cases_count: 1 });
    const c = await http.put(`/projects/DEMO/test_runs/${run.id}`, { status: 'CLOSED' });
    expect(c.body.data.test_run.status).toBe('CLOSED');
    isError(await http.put(`/projects/DEMO/test_runs/${run.id}/test_cases`, { test_run_cases: [{ test_case_id: cases[0].id, test_run_status_id: runStatuses.Passed }] }), 409);
    const g = await http.get(`/projects/DEMO/test_runs/${run.human_id}`);
    conforms('getTestRun', g.body);
    expect((await http.del(`/projects/DEMO/test_runs/${run.id}`)).status).toBe(204);
    isError(await http.get(`/projects/DEMO/test_runs/${run.id}`), 404);
  });

  it('lists runs filtered by test_plan_id and search', async () => {
    const plan = (await http.post('/projects/DEMO/test_plans', { title: 'P' })).body.data.test_plan;
    const r = (await http.post('/projects/DEMO/test_runs', { title: 'Planned unique', test_plan_id: plan.human_id })).body.data.test_run;
    expect(r.test_plan_id).toBe(plan.id);
    const byPlan = await http.get(`/projects/DEMO/test_runs?test_plan_id=${plan.id}`);
    conforms('listTestRuns', byPlan.body);
    expect(byPlan.body.data.test_runs.map((x: any) => x.id)).toEqual([r.id]);
    const bySearch = await http.get('/projects/DEMO/test_runs?search=planned%20UNIQUE');
    expect(bySearch.body.data.test_runs.map((x: any) => x.id)).toEqual([r.id]);
  });

  it('imports a JUnit report into a run and reports the import status', async () => {
    const run = (await http.post('/projects/DEMO/test_runs', { title: 'JUnit', static_selection_filters: [{ field: 'id', operator: 'IN', values: [cases[0].id] }] })).body.data.test_run;
    const xml = `<?xml version="1.0"?><testsuites><testsuite name="s">
      <testcase name="${cases[0].human_id} login" classname="a"/>
      <testcase name="logout" classname="a"><properties><property name="test_case" value="${cases[1].human_id}"/></properties><failure message="x"/></testcase>
      <testcase name="nobody" classname="a"><skipped/></testcase></testsuite></testsuites>`;
    const form = new FormData();
    form.append('junit_xml', new Blob([xml], { type: 'application/xml' }), 'report.xml');
    const r = await http.call('POST', `/projects/DEMO/junit-import/test-run/${run.id}`, undefined, { raw: form });
    expect(r.status, r.text).toBe(200);
    conforms('importJunit', r.body);
    const s = await http.get(`/projects/DEMO/junit-imports/${r.body.data.import.id}/status`);
    conforms('getJunitImport', s.body);
    expect(s.body.data.import).toMatchObject({ status: 'completed', matched: 2, unmatched: ['nobody'] });
    const l = await http.get(`/projects/DEMO/test_runs/${run.id}/test_cases`);
    expect(l.body.data.test_cases.map((c: any) => [c.id, c.status])).toEqual([[cases[0].id, 'PASSED'], [cases[1].id, 'FAILED']]);
    const bad = new FormData();
    bad.append('junit_xml', new Blob(['<testsuite><oops'], { type: 'application/xml' }), 'bad.xml');
    const b = await http.call('POST', `/projects/DEMO/junit-import/test-run/${run.id}`, undefined, { raw: bad });
    const bs = await http.get(`/projects/DEMO/junit-imports/${b.body.data.import.id}/status`);
    expect(bs.body.data.import.status).toBe('failed');
  });
});
