import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { ActualState } from '../../src/model.js';
import { confirmMissing, fetchState, resolveProject, type TmsClient } from '../../src/remote/index.js';
import { client as makeClient, emptyProject, emulator } from '../support/transfer-helpers.js';

/** Ids a file names that the lists did not hold: read by id before anything calls them deleted. */
describe('confirmMissing', () => {
  let emu: RunningEmulator;
  let client: TmsClient;
  let projectId: string;
  const ids: Record<string, { id: string; humanId: string }> = {};
  /** runs before the emulator serves each request: an edit made on the service at a chosen moment */
  let hook: ((request: { method: string; path: string }) => Promise<void>) | undefined;

  beforeAll(async () => {
    emu = await emulator({ onRequest: (request) => hook?.(request) });
    emptyProject(emu, 'CONF');
    client = makeClient(emu.baseUrl);
    projectId = (await resolveProject(client, 'CONF')).id;
    const params = { project_id: projectId };
    const users = (await client.call('listUsers')).data;
    const first = async (name: 'listCaseTypes' | 'listCaseStatuses' | 'listPriorities' | 'listAutomationTypes') => {
      for await (const e of client.paginate(name)) return e.id;
      throw new Error(`no ${name}`);
    };
    const lookups = {
      type_id: await first('listCaseTypes'),
      status_id: await first('listCaseStatuses'),
      priority_id: await first('listPriorities'),
      automation_type_id: await first('listAutomationTypes'),
      owner_id: users[0].id,
    };
    for (const name of ['Inside', 'Outside']) {
      const folder = (await client.call('createFolder', { params, body: { name } })).data.folder;
      const c = (await client.call('createTestCase', { params, body: { ...lookups, title: `In ${name}`, folder_id: folder.id, individual_steps: [{ step_description: 'Open', expected_result: 'Shown' }] } as never })).data.test_case;
      ids[name] = { id: c.id, humanId: c.human_id ?? '' };
    }
  });
  afterAll(async () => {
    await client?.close();
    await emu?.close();
  });

  const without = (state: ActualState, id: string): ActualState => ({ ...state, cases: state.cases.filter((c) => c.id !== id) });

  it('adds a case the list passed over, as the list gives it (steps, human id), with one GET and one filtered list', async () => {
    const full = await fetchState(client, projectId);
    const listed = full.cases.find((c) => c.id === ids.Inside.id)!;
    const before = emu.requestLog().length;
    const got = await confirmMissing(client, without(full, listed.id), { cases: [{ id: ids.Inside.humanId.toLowerCase() }], stepGroups: [], folders: [] });
    expect(got.cases.find((c) => c.id === listed.id)).toEqual(listed);
    expect(got.elsewhere).toBeUndefined();
    expect(emu.requestLog().slice(before).map((e) => `${e.method} ${e.path.split('?')[0].replace(projectId, 'P')}`)).toEqual([
      `GET /api/v1/projects/P/test_cases/${ids.Inside.humanId}`,
      'GET /api/v1/projects/P/test_cases',
    ]);
  });

  it('reads nothing when every id is listed, and leaves an id the service does not have missing', async () => {
    const full = await fetchState(client, projectId);
    let before = emu.requestLog().length;
    expect(await confirmMissing(client, full, { cases: [{ id: ids.Inside.id }, {}], stepGroups: [], folders: [] })).toBe(full);
    expect(emu.requestLog().length).toBe(before);
    before = emu.requestLog().length;
    const gone = await confirmMissing(client, full, { cases: [{ id: 'CONF-999' }], stepGroups: [{ id: '00000000-0000-4000-8000-000000000000' }], folders: [] });
    expect(gone).toBe(full);
    expect(emu.requestLog().length - before).toBe(2);
    // a human id in another letter case is read as the service spells it, then as written
    before = emu.requestLog().length;
    expect(await confirmMissing(client, full, { cases: [{ id: 'conf-999' }], stepGroups: [], folders: [] })).toBe(full);
    expect(emu.requestLog().slice(before).map((e) => e.path.split('/').pop())).toEqual(['CONF-999', 'conf-999']);
    // an id the service cannot parse names nothing either: the plan says so, the read does not fail
    expect(await confirmMissing(client, full, { cases: [{ id: '12345678-xxxx' }], stepGroups: [], folders: [] })).toBe(full);
  });

  /** The case `Inside` edited on the service the moment the first case list is asked for (after its GET: the title-filtered list of its folder). */
  const onFilteredList = (edit: Record<string, unknown>) => {
    hook = async (request) => {
      if (request.method !== 'GET' || !request.path.endsWith('/test_cases')) return;
      hook = undefined;
      await client.call('updateTestCase', { params: { project_id: projectId, test_case_id: ids.Inside.id }, body: edit });
    };
  };

  it('reads the whole folder when the case was renamed between its GET and the filtered list: the case keeps its steps', async () => {
    const full = await fetchState(client, projectId);
    onFilteredList({ title: 'Renamed on the service' });
    try {
      const got = await confirmMissing(client, without(full, ids.Inside.id), { cases: [{ id: ids.Inside.id }], stepGroups: [], folders: [] });
      const c = got.cases.find((x) => x.id === ids.Inside.id)!;
      expect(c.title).toBe('Renamed on the service');
      expect(c.individualSteps.map((s) => s.description)).toEqual(['Open']);
    } finally {
      hook = undefined;
      await client.call('updateTestCase', { params: { project_id: projectId, test_case_id: ids.Inside.id }, body: { title: 'In Inside' } });
    }
  });

  it('fails, and never hands on a case without its steps, when the case cannot be found in its folder after the GET', async () => {
    const full = await fetchState(client, projectId);
    const outside = full.cases.find((x) => x.id === ids.Outside.id)!;
    onFilteredList({ folder_id: outside.folderId });
    try {
      await expect(confirmMissing(client, without(full, ids.Inside.id), { cases: [{ id: ids.Inside.id }], stepGroups: [], folders: [] })).rejects.toMatchObject({
        code: 'list_changed',
        hint: 'run the command again',
      });
    } finally {
      hook = undefined;
      await client.call('updateTestCase', { params: { project_id: projectId, test_case_id: ids.Inside.id }, body: { folder_id: full.cases.find((x) => x.id === ids.Inside.id)!.folderId } });
    }
  });

  it('names a case found outside the scope in `elsewhere` and does not add it', async () => {
    const scoped = await fetchState(client, projectId, { scope: ['Inside'] });
    expect(scoped.cases.map((c) => c.id)).toEqual([ids.Inside.id]);
    const got = await confirmMissing(client, scoped, { cases: [{ id: ids.Outside.humanId }], stepGroups: [], folders: [] }, { scope: ['Inside'] });
    expect(got.cases.map((c) => c.id)).toEqual([ids.Inside.id]);
    expect(got.elsewhere).toEqual([ids.Outside.humanId]);
    // one inside the scope that the list passed over is added as without a scope
    const passed = await confirmMissing(client, without(scoped, ids.Inside.id), { cases: [{ id: ids.Inside.id }], stepGroups: [], folders: [] }, { scope: ['Inside'] });
    expect(passed.cases.map((c) => c.id)).toEqual([ids.Inside.id]);
    expect(passed.elsewhere).toBeUndefined();
  });
});
