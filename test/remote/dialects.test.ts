import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runAttachments } from '../../src/emulator/db/index.js';
import { ApiError } from '../../src/remote/api-error.js';
import { createClient, fetchState, type TmsClient } from '../../src/remote/index.js';
import type { ClientOptions } from '../../src/remote/client-options.js';
import { folder, projectId, refs, start, testCase, KEY, type Api } from '../emulator/helpers.js';

/** A run holding one new case, and the id of the Passed status. */
async function runWithCase(http: Api, title: string) {
  const r = await refs(http);
  const c = await testCase(http, r, await folder(http, `F ${title}`), { title, label_ids: [r.labels[0].id] });
  const run = (await http.post(`/projects/${await projectId(http)}/test_runs`, { title, static_selection_filters: [{ field: 'id', operator: 'IN', values: [c.id] }] })).body.data.test_run;
  const passed = ((await http.get('/test_runs/statuses')).body.data.statuses as { id: string; name: string }[]).find((s) => s.name === 'Passed')!;
  return { caseId: c.id as string, runId: run.id as string, passedId: passed.id, label: r.labels[0] };
}

describe('the client against the live dialect', () => {
  let emu: RunningEmulator;
  let http: Api;
  const clients: TmsClient[] = [];
  const client = (extra: Partial<ClientOptions> = {}) => {
    const c = createClient({ baseUrl: emu.baseUrl, apiKey: KEY, rateLimit: 1000, retryBaseMs: 1, ...extra });
    clients.push(c);
    return c;
  };

  // the live dialect takes only the project's id as :project_id
  let P: string;
  beforeAll(async () => {
    ({ emu, http } = await start({ dialect: 'live' }));
    P = await projectId(http);
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await emu.close();
  });

  it('sends run-case updates as JSON, switches to multipart when JSON is refused, and keeps multipart for the rest of its life', async () => {
    const { caseId, runId, passedId } = await runWithCase(http, 'Encoding auto');
    const c = client();
    const body = { test_run_cases: [{ test_case_id: caseId, test_run_status_id: passedId }] };
    const params = { project_id: P, test_run_id: runId };
    emu.clearRequestLog();
    const first = await c.call('updateRunCases', { params, body });
    expect(first.data.test_run_cases.map((x) => x.test_case_id)).toEqual([caseId]);
    await c.call('updateRunCases', { params, body });
    const puts = emu.requestLog().filter((e) => e.method === 'PUT').map((e) => e.status);
    // refused once (415), then multipart, and the second update goes multipart at once
    expect(puts).toEqual([415, 200, 200]);
  });

  it('fails a JSON-only update with a hint naming results.encoding and --multipart, quoting the x-request-id', async () => {
    const { caseId, runId, passedId } = await runWithCase(http, 'Encoding json');
    const c = client({ runCaseEncoding: 'json' });
    const err = await c
      .call('updateRunCases', { params: { project_id: P, test_run_id: runId }, body: { test_run_cases: [{ test_case_id: caseId, test_run_status_id: passedId }] } })
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect(e.status).toBe(415);
    expect(e.hint).toContain('results.encoding');
    expect(e.hint).toContain('--multipart');
    expect(e.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(e.message).toContain(`x-request-id ${e.requestId}`);
  });

  it('sends an update with files as multipart even when told JSON, and does not send a refused one again as if JSON had been refused', async () => {
    const { caseId, runId, passedId } = await runWithCase(http, 'Encoding files');
    const params = { project_id: P, test_run_id: runId };
    const rows = { test_run_cases: [{ test_case_id: caseId, test_run_status_id: passedId }] };
    const file = (part: string) => ({ part, fileName: 'shot.png', mediaType: 'image/png', read: () => Buffer.from('png') });
    emu.clearRequestLog();
    const sent = await client({ runCaseEncoding: 'json' }).call('updateRunCases', { params, body: { ...rows, files: [file('attachments_0_0')] } });
    expect(sent.data.test_run_cases.map((x) => x.test_case_id)).toEqual([caseId]);
    expect(runAttachments(emu.db, runId).get(caseId)?.map((a) => a.file_name)).toEqual(['shot.png']);
    // a part naming a row the update does not have: refused (400) once, not re-sent as multipart
    const err = await client()
      .call('updateRunCases', { params, body: { ...rows, files: [file('attachments_3_0')] } })
      .then(() => undefined, (e: unknown) => e);
    expect((err as ApiError).status).toBe(400);
    expect(emu.requestLog().filter((e) => e.method === 'PUT').map((e) => e.status)).toEqual([200, 400]);
  });

  it('reads labels reported as objects in the case list, with no request per case, and knows the service writes milliseconds', async () => {
    const { caseId, label } = await runWithCase(http, 'Labels as objects');
    const c = client({ pageSize: 2 });
    expect(c.timestampUnit()).toBeUndefined();
    emu.clearRequestLog();
    const state = await fetchState(c, 'DEMO');
    expect(state.labelsReadable).toBe(true);
    expect(state.cases.find((x) => x.id === caseId)!.labelIds).toEqual([label.id]);
    // no GET of a single case: the labels came with the list
    expect(emu.requestLog().filter((e) => /\/projects\/[^/]+\/test_cases\/[^/?]+$/.test(e.path.split('?')[0]))).toEqual([]);
    expect(c.timestampUnit()).toBe('milliseconds');
  });
});

describe('the client against the document dialect', () => {
  it('knows the service writes seconds once it has read a timestamp, and keeps JSON for run-case updates', async () => {
    const { emu, http } = await start();
    const c = createClient({ baseUrl: emu.baseUrl, apiKey: KEY, rateLimit: 1000 });
    try {
      const { caseId, runId, passedId } = await runWithCase(http, 'Document');
      await c.call('getProject', { params: { project_id: 'DEMO' } });
      expect(c.timestampUnit()).toBe('seconds');
      emu.clearRequestLog();
      await c.call('updateRunCases', { params: { project_id: 'DEMO', test_run_id: runId }, body: { test_run_cases: [{ test_case_id: caseId, test_run_status_id: passedId }] } });
      expect(emu.requestLog().filter((e) => e.method === 'PUT').map((e) => e.status)).toEqual([200]);
    } finally {
      await c.close();
      await emu.close();
    }
  });
});
