import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { conforms, isError, refs, start, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
let ids: Awaited<ReturnType<typeof refs>>;
beforeAll(async () => {
  ({ emu, http } = await start());
  ids = await refs(http);
});
afterAll(() => emu.close());

describe('step groups', () => {
  it('creates a group from expected_result (singular) and answers expected_results (plural) with step ids', async () => {
    const r = await http.post('/projects/DEMO/step_groups', {
      title: 'Log in as admin',
      description: 'seeded admin',
      label_ids: [ids.labels[0].id],
      steps: [
        { step_description: 'Open /login', expected_result: 'The form shows', order: 1 },
        { step_description: 'Sign in', expected_result: 'Dashboard', order: 2 },
      ],
    });
    expect(r.status).toBe(200);
    conforms('createStepGroup', r.body);
    const g = r.body.data.step_group;
    expect(g.human_id).toMatch(/^DEMO-SG-\d+$/);
    expect(g.steps).toHaveLength(2);
    expect(g.steps[0]).toMatchObject({ step_description: 'Open /login', expected_results: 'The form shows', order: 1, step_group_id: g.id });
    expect(g.steps[0]).not.toHaveProperty('expected_result');
    expect(typeof g.steps[0].created_at).toBe('number');
  });

  it('lists groups without steps and gets one with steps by id or human id', async () => {
    const c = (await http.post('/projects/DEMO/step_groups', { title: 'G', steps: [{ step_description: 'a', expected_result: 'b' }] })).body.data.step_group;
    const l = await http.get('/projects/DEMO/step_groups');
    conforms('listStepGroups', l.body);
    expect(l.body.data.step_groups.every((g: any) => !('steps' in g))).toBe(true);
    for (const key of [c.id, c.human_id]) {
      const g = await http.get(`/projects/DEMO/step_groups/${key}`);
      conforms('getStepGroup', g.body);
      expect(g.body.data.step_group.steps.map((s: any) => s.expected_results)).toEqual(['b']);
    }
  });

  it('replaces all steps on update and keeps them when steps are omitted', async () => {
    const c = (await http.post('/projects/DEMO/step_groups', { title: 'U', steps: [{ step_description: 'a', expected_result: 'b' }] })).body.data.step_group;
    const u = await http.put(`/projects/DEMO/step_groups/${c.id}`, { title: 'U2', steps: [{ step_description: 'x', expected_result: 'y' }, { step_description: 'z', expected_result: 'w' }] });
    conforms('updateStepGroup', u.body);
    expect(u.body.data.step_group.steps.map((s: any) => s.step_description)).toEqual(['x', 'z']);
    const u2 = await http.put(`/projects/DEMO/step_groups/${c.id}`, { description: 'd' });
    expect(u2.body.data.step_group).toMatchObject({ title: 'U2', description: 'd' });
    expect(u2.body.data.step_group.steps).toHaveLength(2);
  });

  it('deletes a group with 204 and then answers 404', async () => {
    const c = (await http.post('/projects/DEMO/step_groups', { title: 'D' })).body.data.step_group;
    const d = await http.del(`/projects/DEMO/step_groups/${c.id}`);
    expect(d.status).toBe(204);
    expect(d.text).toBe('');
    isError(await http.get(`/projects/DEMO/step_groups/${c.id}`), 404);
  });
});

describe('test plans', () => {
  it('creates an ACTIVE plan with label_ids; get and list omit label_ids', async () => {
    const r = await http.post('/projects/DEMO/test_plans', { title: 'Release 1', description: 'r1', start_date: 1700000000, end_date: 1700086400, label_ids: [ids.labels[1].id] });
    expect(r.status).toBe(200);
    conforms('createTestPlan', r.body);
    const p = r.body.data.test_plan;
    expect(p).toMatchObject({ status: 'ACTIVE', label_ids: [ids.labels[1].id], start_date: 1700000000 });
    expect(p.human_id).toMatch(/^DEMO-P-\d+$/);
    const g = await http.get(`/projects/DEMO/test_plans/${p.human_id}`);
    conforms('getTestPlan', g.body);
    expect(g.body.data.test_plan).not.toHaveProperty('label_ids');
    const l = await http.get('/projects/DEMO/test_plans?title__CONTAINS=release');
    conforms('listTestPlans', l.body);
    expect(l.body.data.test_plans.map((x: any) => x.id)).toEqual([p.id]);
  });

  it('updates a plan and completes it with top-level status success and completed_at', async () => {
    const p = (await http.post('/projects/DEMO/test_plans', { title: 'To complete' })).body.data.test_plan;
    const u = await http.put(`/projects/DEMO/test_plans/${p.id}`, { description: 'now' });
    conforms('updateTestPlan', u.body);
    expect(u.body.data.test_plan).toMatchObject({ title: 'To complete', description: 'now' });
    const c = await http.post(`/projects/DEMO/test_plans/${p.id}/complete`);
    expect(c.status).toBe(200);
    conforms('completeTestPlan', c.body);
    expect(c.body.status).toBe('success');
    expect(c.body.data.test_plan).toMatchObject({ id: p.id, status: 'COMPLETED', completed_at: expect.any(Number) });
    expect((await http.get(`/projects/DEMO/test_plans/${p.id}`)).body.data.test_plan.status).toBe('COMPLETED');
  });

  it('lists a plan\'s runs and deletes a plan', async () => {
    const p = (await http.post('/projects/DEMO/test_plans', { title: 'With runs' })).body.data.test_plan;
    await http.post('/projects/DEMO/test_runs', { title: 'R of plan', test_plan_id: p.id });
    const runs = await http.get(`/projects/DEMO/test_plans/${p.id}/test_runs`);
    conforms('listTestPlanRuns', runs.body);
    expect(runs.body.data.test_runs.map((r: any) => r.title)).toEqual(['R of plan']);
    expect((await http.del(`/projects/DEMO/test_plans/${p.id}`)).status).toBe(200);
    isError(await http.get(`/projects/DEMO/test_plans/${p.id}`), 404);
  });

  it('refuses unknown labels with 422', async () => {
    const r = await http.post('/projects/DEMO/test_plans', { title: 'x', label_ids: ['nope'] });
    isError(r, 422);
    expect(r.body.errors.details[0].field).toBe('label_ids.0');
  });
});
