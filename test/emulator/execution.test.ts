import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { findPlanAnywhere } from '../../src/emulator/db/index.js';
import { conforms, folder, isError, projectId, refs, start, testCase, type Api } from './helpers.js';

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

describe('the execution interface passes through every state and gives every result, in both dialects', () => {
  for (const dialect of ['document', 'live'] as const) {
    describe(`${dialect} dialect`, () => {
      let e: RunningEmulator;
      let h: Api;
      let now = 1_800_000_000_000;
      let D: string;
      beforeAll(async () => {
        ({ emu: e, http: h } = await start({ dialect, now: () => now, runDurationMs: 6000, runQueueMs: 3000, runOutcome: 'stopped' }));
        D = `/projects/${await projectId(h)}`;
        const ids = await refs(h);
        const f = await folder(h, 'Course');
        for (const title of ['One', 'Two', 'Three', 'Four']) await testCase(h, ids, f, { title });
      });
      afterAll(() => e.close());

      /** Starts a plan the way live clients do: by its execution id, a bare number (the live dialect shows it on no answer). */
      async function run(title: string, description = ''): Promise<number> {
        const plan = (await h.post(`${D}/test_plans`, { title, description })).body.data.test_plan;
        const executionId = findPlanAnywhere(e.db, plan.id)!.execution_id;
        const t = await h.post('/api/v1/execution_results', { executionId, buildNo: 9 }, { root: 'app' });
        expect(t.status, t.text).toBe(200);
        return t.body.id;
      }
      const read = async (id: number) => (await h.get(`/api/v1/execution_results/${id}`, { root: 'app' })).body;

      it('moves through STATUS_CREATED, STATUS_QUEUED, STATUS_PRE_FLIGHT (a third of --run-queue each) and STATUS_IN_PROGRESS to STATUS_COMPLETED', async () => {
        const id = await run('Course');
        const seen: string[] = [];
        for (const step of [0, 1000, 1000, 1000, 3000]) {
          now += step;
          const s = await read(id);
          seen.push(`${s.status}/${s.result}`);
        }
        expect(seen).toEqual([
          'STATUS_CREATED/QUEUED',
          'STATUS_QUEUED/QUEUED',
          'STATUS_PRE_FLIGHT/QUEUED',
          'STATUS_IN_PROGRESS/QUEUED',
          'STATUS_COMPLETED/STOPPED',
        ]);
      });

      it('ends with the result --run-outcome chooses (STOPPED: half passed, the rest stopped), unless the plan names its own', async () => {
        const stopped = await run('Chosen by the option');
        const aborted = await run('Nightly', 'outcome:aborted');
        const notRun = await run('Weekly [outcome: not-executed]');
        const passed = await run('Known to fail, but outcome=success');
        now += 6000;
        expect(await read(stopped)).toMatchObject({ result: 'STOPPED', totalCount: 4, passedCount: 2, failedCount: 0, stoppedCount: 2, abortedCount: 0 });
        expect(await read(aborted)).toMatchObject({ result: 'ABORTED', passedCount: 2, abortedCount: 2, stoppedCount: 0 });
        expect(await read(notRun)).toMatchObject({ result: 'NOT_EXECUTED', passedCount: 0, notExecutedCount: 4 });
        expect(await read(passed)).toMatchObject({ result: 'SUCCESS', passedCount: 4 });
      });

      it(dialect === 'live' ? 'hides test_run_id and refuses a plan named by its uuid or human id' : 'names the test run it wrote into and takes a uuid or human id', async () => {
        const plan = (await h.post(`${D}/test_plans`, { title: 'Named' })).body.data.test_plan;
        const s = await read(await run('Echo'));
        expect(typeof s.executionId).toBe('number');
        for (const ref of [plan.id, plan.human_id]) {
          const t = await h.post('/api/v1/execution_results', { executionId: ref }, { root: 'app' });
          if (dialect === 'live') {
            expect(t.status).toBe(400);
            expect(t.body.errors.details).toContain('executionId');
          } else {
            expect(t.status).toBe(200);
            expect((await read(t.body.id)).executionId).toBe(ref);
          }
        }
        if (dialect === 'live') expect(s).not.toHaveProperty('test_run_id');
        else expect(s.test_run_id).toMatch(/^[0-9a-f-]{36}$/);
      });
    });
  }
});
