import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { conforms, folder, isError, refs, start, testCase, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
let ids: Awaited<ReturnType<typeof refs>>;
let folderId: string;
beforeAll(async () => {
  ({ emu, http } = await start());
  ids = await refs(http);
  folderId = await folder(http, 'Cases');
});
afterAll(() => emu.close());

describe('test cases', () => {
  it('creates a case with 201, a sequential human id and its steps', async () => {
    const a = await testCase(http, ids, folderId, {
      title: 'Pay with a saved card',
      individual_steps: [
        { step_description: 'Open checkout', expected_results: 'Card preselected', order: 1 },
        { step_description: 'Press Pay', expected_results: 'Confirmation', order: 2 },
      ],
      label_ids: [ids.labels[0].id],
    });
    const b = await testCase(http, ids, folderId, { title: 'Second' });
    expect(a.human_id).toMatch(/^DEMO-\d+$/);
    expect(Number(b.human_id.split('-')[1])).toBe(Number(a.human_id.split('-')[1]) + 1);
    expect(a.individual_steps.map((s: any) => [s.step_description, s.order, s.step_type, s.step_group_id])).toEqual([
      ['Open checkout', 1, 'DEFAULT', null],
      ['Press Pay', 2, 'DEFAULT', null],
    ]);
    expect(a.template_type).toBe('STEPS');
  });

  it('gets a case by id and by human id, with human_id and without individual_steps or label_ids', async () => {
    const c = await testCase(http, ids, folderId, { title: 'Get me', individual_steps: [{ step_description: 's', expected_results: 'e' }] });
    for (const key of [c.id, c.human_id]) {
      const g = await http.get(`/projects/DEMO/test_cases/${key}`);
      expect(g.status).toBe(200);
      conforms('getTestCase', g.body);
      const tc = g.body.data.test_case;
      expect(tc.id).toBe(c.id);
      expect(tc.human_id).toBe(c.human_id);
      expect(tc).not.toHaveProperty('individual_steps');
      expect(tc).not.toHaveProperty('label_ids');
    }
  });

  it('updates a case: omitted fields keep their values, given steps replace the list with new ids, no human_id or label_ids in the answer', async () => {
    const c = await testCase(http, ids, folderId, {
      title: 'Before',
      description: 'keep me',
      individual_steps: [{ step_description: 'old', expected_results: 'old' }],
    });
    const u = await http.put(`/projects/DEMO/test_cases/${c.human_id}`, {
      title: 'After',
      individual_steps: [
        { step_description: 'new 1', expected_results: 'r1', order: 1, step_type: 'DEFAULT', step_group_id: null },
        { step_description: 'new 2', expected_results: 'r2', order: 2 },
      ],
    });
    expect(u.status).toBe(200);
    conforms('updateTestCase', u.body);
    const tc = u.body.data.test_case;
    expect(tc).toMatchObject({ title: 'After', description: 'keep me', folder_id: folderId });
    expect(tc).not.toHaveProperty('human_id');
    expect(tc).not.toHaveProperty('label_ids');
    expect(tc.individual_steps.map((s: any) => s.step_description)).toEqual(['new 1', 'new 2']);
    expect(tc.individual_steps[0].id).not.toBe(c.individual_steps[0].id);
    expect(tc.updated_at).toBeGreaterThanOrEqual(c.updated_at);
    // without individual_steps the steps stay as they are
    const u2 = await http.put(`/projects/DEMO/test_cases/${c.id}`, { description: 'changed' });
    expect(u2.body.data.test_case.individual_steps.map((s: any) => s.id)).toEqual(tc.individual_steps.map((s: any) => s.id));
  });

  it('refuses unknown references with 422 naming each field', async () => {
    const r = await http.post('/projects/DEMO/test_cases', {
      title: 'Bad refs',
      folder_id: 'no-folder',
      type_id: 'no-type',
      status_id: ids.status_id,
      priority_id: ids.priority_id,
      automation_type_id: 'no-auto',
      owner_id: 'no-user',
      reviewer_id: 'no-user',
      label_ids: ['no-label'],
      individual_steps: [{ step_description: 'x', expected_results: 'y', step_group_id: 'no-group' }],
    });
    isError(r, 422);
    expect(r.body.errors.details.map((d: any) => d.field).sort()).toEqual(
      ['automation_type_id', 'folder_id', 'individual_steps.0.step_group_id', 'label_ids.0', 'owner_id', 'reviewer_id', 'type_id'].sort(),
    );
    const c = await testCase(http, ids, folderId);
    const u = await http.put(`/projects/DEMO/test_cases/${c.id}`, { priority_id: 'nope' });
    isError(u, 422);
    expect(u.body.errors.details[0].field).toBe('priority_id');
  });

  it('requires the fields the live service requires on create, naming each missing one', async () => {
    const r = await http.post('/projects/DEMO/test_cases', { title: 'Only a title' });
    isError(r, 422);
    const fields = r.body.errors.details.map((d: any) => d.field);
    for (const f of ['folder_id', 'type_id', 'status_id', 'priority_id', 'automation_type_id', 'owner_id']) expect(fields).toContain(f);
  });

  it('lists cases with human_id, label_ids and individual_steps, filtered by folder_id, search and title__CONTAINS', async () => {
    const other = await folder(http, 'Other');
    const x = await testCase(http, ids, other, { title: 'Refund a payment', individual_steps: [{ step_description: 'a', expected_results: 'b' }] });
    await testCase(http, ids, other, { title: 'Unrelated' });
    const byFolder = await http.get(`/projects/DEMO/test_cases?folder_id=${other}`);
    conforms('listTestCases', byFolder.body);
    expect(byFolder.body.data.test_cases.map((c: any) => c.title)).toEqual(['Refund a payment', 'Unrelated']);
    const item = byFolder.body.data.test_cases[0];
    expect(item).toMatchObject({ human_id: x.human_id, label_ids: [] });
    expect(item.individual_steps).toHaveLength(1);
    const search = await http.get(`/projects/DEMO/test_cases?search=${x.human_id}`);
    expect(search.body.data.test_cases.map((c: any) => c.id)).toEqual([x.id]);
    const byTitle = await http.get('/projects/DEMO/test_cases?title__CONTAINS=REFUND');
    expect(byTitle.body.data.test_cases.map((c: any) => c.id)).toEqual([x.id]);
    const searchTitle = await http.get('/projects/DEMO/test_cases?search=refund');
    expect(searchTitle.body.data.test_cases.map((c: any) => c.id)).toEqual([x.id]);
  });

  it('deletes a case by human id and never reuses its number', async () => {
    const c = await testCase(http, ids, folderId, { title: 'Doomed' });
    expect((await http.del(`/projects/DEMO/test_cases/${c.human_id}`)).status).toBe(200);
    isError(await http.get(`/projects/DEMO/test_cases/${c.id}`), 404);
    const next = await testCase(http, ids, folderId, { title: 'After doomed' });
    expect(Number(next.human_id.split('-')[1])).toBe(Number(c.human_id.split('-')[1]) + 1);
  });

  it('keeps a case\'s step group reference and clears it when the group is deleted', async () => {
    const g = await http.post('/projects/DEMO/step_groups', { title: 'Login', steps: [{ step_description: 'open', expected_result: 'form' }] });
    const sg = g.body.data.step_group;
    const c = await testCase(http, ids, folderId, {
      individual_steps: [{ step_description: 'open', expected_results: 'form', step_group_id: sg.human_id }],
    });
    expect(c.individual_steps[0].step_group_id).toBe(sg.id);
    const before = await http.get(`/projects/DEMO/test_cases?search=${c.human_id}`);
    expect(before.body.data.test_cases[0].individual_steps[0].step_group_id).toBe(sg.id);
    expect((await http.del(`/projects/DEMO/step_groups/${sg.id}`)).status).toBe(204);
    const l = await http.get(`/projects/DEMO/test_cases?search=${c.human_id}`);
    expect(l.body.data.test_cases[0].individual_steps[0].step_group_id).toBeNull();
  });

  it('moves a case to another folder through update, and refuses deleting the folder it is in', async () => {
    const f2 = await folder(http, 'Target');
    const c = await testCase(http, ids, folderId);
    const u = await http.put(`/projects/DEMO/test_cases/${c.id}`, { folder_id: f2 });
    expect(u.body.data.test_case.folder_id).toBe(f2);
    isError(await http.del(`/projects/DEMO/folders/${f2}`), 409);
  });

  it('shows every write in the next list page (the serialized page cache never serves stale data)', async () => {
    const f = await folder(http, 'Cache');
    const c = await testCase(http, ids, f, { title: 'Cached v1' });
    const list = () => http.get(`/projects/DEMO/test_cases?folder_id=${f}`);
    expect((await list()).body.data.test_cases.map((x: any) => x.title)).toEqual(['Cached v1']);
    await http.put(`/projects/DEMO/test_cases/${c.id}`, { title: 'Cached v2' });
    expect((await list()).body.data.test_cases.map((x: any) => x.title)).toEqual(['Cached v2']);
    await http.del(`/projects/DEMO/test_cases/${c.id}`);
    const after = await list();
    expect(after.body.data.test_cases).toEqual([]);
    expect(after.body.page_info.total_count).toBe(0);
  });
});
