import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { conforms, folder, isError, refs, start, testCase, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
let clock = 1_800_000_000_000;
let cases: any[];
beforeAll(async () => {
  ({ emu, http } = await start({ now: () => clock, runDurationMs: 3000 }));
  const ids = await refs(http);
  const f = await folder(http, 'Exec');
  cases = [await testCase(http, ids, f, { title: 'Checkout' }), await testCase(http, ids, f, { title: 'Payment fails gracefully' })];
});
afterAll(() => emu.close());

const trigger = (executionId: string, extra: Record<string, unknown> = {}) =>
  http.post('/api/v1/execution_results', { executionId, environmentId: 7, buildNo: '1.2.3', ...extra }, { root: 'app' });
const status = (id: number) => http.get(`/api/v1/execution_results/${id}`, { root: 'app' });

describe('execution interface', () => {
  it('starts a plan, returns a numeric id, and moves from STATUS_CREATED through STATUS_IN_PROGRESS to STATUS_COMPLETED with SUCCESS', async () => {
    const plan = (await http.post('/projects/DEMO/test_plans', { title: 'Nightly' })).body.data.test_plan;
    const t = await trigger(plan.id);
    expect(t.status).toBe(200);
    conforms('triggerExecution', t.body);
    expect(typeof t.body.id).toBe('number');
    const s0 = await status(t.body.id);
    conforms('getExecution', s0.body);
    expect(s0.body).toMatchObject({ id: t.body.id, executionId: plan.id, status: 'STATUS_CREATED', buildNo: '1.2.3', environmentId: 7, totalCount: 2 });
    expect(s0.body).not.toHaveProperty('data');
    clock += 1500;
    expect((await status(t.body.id)).body.status).toBe('STATUS_IN_PROGRESS');
    clock += 1500;
    const done = (await status(t.body.id)).body;
    expect(done).toMatchObject({ status: 'STATUS_COMPLETED', result: 'SUCCESS', passedCount: 2, failedCount: 0, duration: 3000 });
    // the run it created holds the project's cases, now passed
    const runs = await http.get(`/projects/DEMO/test_plans/${plan.id}/test_runs`);
    expect(runs.body.data.test_runs).toHaveLength(1);
    const rc = await http.get(`/projects/DEMO/test_runs/${runs.body.data.test_runs[0].id}/test_cases`);
    expect(rc.body.data.test_cases.map((c: any) => c.status)).toEqual(['PASSED', 'PASSED']);
  });

  it('ends FAILURE for a plan whose title contains "fail", failing the cases whose title does, and serves the JUnit report', async () => {
    const plan = (await http.post('/projects/DEMO/test_plans', { title: 'Should FAIL' })).body.data.test_plan;
    const t = await trigger(plan.human_id);
    const early = await http.get(`/api/v1/reports/junit/${t.body.id}`, { root: 'app' });
    isError(early, 409);
    clock += 3000;
    const done = (await status(t.body.id)).body;
    expect(done).toMatchObject({ status: 'STATUS_COMPLETED', result: 'FAILURE', passedCount: 1, failedCount: 1 });
    const report = await http.get(`/api/v1/reports/junit/${t.body.id}`, { root: 'app', headers: { accept: 'application/xml' } });
    expect(report.status).toBe(200);
    expect(report.headers.get('content-type')).toMatch(/application\/xml/);
    expect(report.text).toContain(`<testcase name="${cases[1].human_id} Payment fails gracefully"`);
    expect(report.text.match(/<failure/g)).toHaveLength(1);
  });

  it('answers 422 naming executionId for an unknown plan and 404 for an unknown run', async () => {
    const r = await trigger('no-such-plan');
    isError(r, 422);
    expect(r.body.errors.details[0].field).toBe('executionId');
    isError(await status(999999), 404);
    isError(await http.get('/api/v1/execution_results/abc', { root: 'app' }), 404);
  });

  it('requires the API key on the execution interface', async () => {
    const r = await fetch(`${emu.appUrl}/api/v1/execution_results/1`);
    expect(r.status).toBe(401);
  });
});
