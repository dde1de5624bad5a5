import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints, fillPath } from '../../src/api/endpoints.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { KEY, api, conforms, folder, isError, refs, start, testCase, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
beforeAll(async () => {
  ({ emu, http } = await start());
});
afterAll(() => emu.close());

const dummy = { project_id: 'DEMO', folder_id: 'x', test_case_id: 'x', step_group_id: 'x', test_plan_id: 'x', test_run_id: 'x', import_id: 'x', run_id: '1' };

describe('authentication', () => {
  it('answers 401 on every endpoint of both interfaces without a valid bearer key', async () => {
    const anonymous = api(emu, null);
    const wrong = api(emu, 'wrong-key');
    for (const e of endpoints) {
      const path = fillPath(e.path, dummy);
      const root = e.iface === 'execution' ? 'app' : undefined;
      for (const client of [anonymous, wrong]) {
        const r = await client.call(e.method, path, e.method === 'GET' || e.method === 'DELETE' ? undefined : {}, { root });
        expect(r.status, `${e.method} ${e.path}`).toBe(401);
        isError(r, 401);
      }
    }
    const basic = await http.call('GET', '/projects', undefined, { headers: { authorization: `Basic ${KEY}` } });
    expect(basic.status).toBe(401);
  });

  it('generates a key when none is given and accepts only that one', async () => {
    const e2 = await startEmulator({ memory: true });
    try {
      expect(e2.generatedKey).toMatch(/^tms_/);
      expect(e2.apiKeys).toEqual([e2.generatedKey]);
      expect((await api(e2, e2.generatedKey).get('/projects')).status).toBe(200);
      expect((await api(e2, KEY).get('/projects')).status).toBe(401);
    } finally {
      await e2.close();
    }
  });

  it('never writes the key into the request log or the log file', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'tmsync-emu-')), 'requests.jsonl');
    const logged = await start({ logFile });
    try {
      await logged.http.get(`/projects?api_key=${KEY}&page_size=5`);
      const entries = logged.emu.requestLog();
      expect(entries.length).toBeGreaterThan(0);
      expect(JSON.stringify(entries)).not.toContain(KEY);
      const last = entries[entries.length - 1];
      // api_key is no parameter of the list: refused (422) in the document dialect, and still not logged
      expect(last).toMatchObject({ method: 'GET', path: '/api/v1/projects?page_size=5', status: 422 });
      expect(typeof last.duration_ms).toBe('number');
    } finally {
      // closing ends the log file's stream: everything logged is in the file once it resolves
      await logged.emu.close();
    }
    const lines = readFileSync(logFile, 'utf8').trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(readFileSync(logFile, 'utf8')).not.toContain(KEY);
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ method: 'GET', status: expect.any(Number) });
  });
});

describe('errors', () => {
  it('answers 400 for malformed JSON', async () => {
    isError(await http.call('POST', '/projects', undefined, { raw: '{"name":', headers: { 'content-type': 'application/json' } }), 400);
  });
  it('answers 404 for an unknown route and for unknown ids', async () => {
    isError(await http.get('/nothing/here'), 404);
    isError(await http.get('/projects/DEMO/test_cases/DEMO-99999'), 404);
    isError(await http.get('/projects/00000000-0000-0000-0000-000000000000'), 404);
  });
  it('answers 422 with the field path for an invalid body and a missing body', async () => {
    const r = await http.post('/projects', { name: 42, human_id_prefix: 'OK' });
    isError(r, 422);
    expect(r.body.errors.details).toEqual([{ field: 'name', message: expect.any(String) }]);
    isError(await http.post('/projects'), 422);
  });
  it('answers 413 for a body over 1 MiB, as JSON and as a multipart part', async () => {
    isError(await http.post('/projects', { name: 'x'.repeat(1024 * 1024), human_id_prefix: 'BIG' }), 413);
    const run = (await http.post('/projects/DEMO/test_runs', { title: 'Big' })).body.data.test_run;
    const file = new FormData();
    file.append('junit_xml', new Blob(['<a>' + 'x'.repeat(1024 * 1024 + 10) + '</a>']), 'big.xml');
    isError(await http.call('POST', `/projects/DEMO/junit-import/test-run/${run.id}`, undefined, { raw: file }), 413);
    const field = new FormData();
    field.append('data', JSON.stringify({ test_run_cases: [{ test_case_id: 'x'.repeat(1024 * 1024 + 10), test_run_status_id: 'y' }] }));
    isError(await http.call('PUT', `/projects/DEMO/test_runs/${run.id}/test_cases`, undefined, { raw: field }), 413);
  });
});

describe('multipart bodies', () => {
  it('answers 400, never 500, to multipart/form-data without a boundary or with a malformed part, on the JUnit import and the run-case update', async () => {
    const run = (await http.post('/projects/DEMO/test_runs', { title: 'Multipart' })).body.data.test_run;
    const routes = [
      ['POST', `/projects/DEMO/junit-import/test-run/${run.id}`],
      ['PUT', `/projects/DEMO/test_runs/${run.id}/test_cases`],
    ] as const;
    const part = '--abc\r\nContent-Disposition: form-data; name="data"\r\n\r\n{}\r\n--abc--\r\n';
    for (const [method, path] of routes) {
      for (const type of ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; charset=utf-8']) {
        const r = await http.call(method, path, undefined, { headers: { 'content-type': type }, raw: part });
        expect(r.status, `${method} ${type}`).toBe(400);
        isError(r, 400);
        expect(r.body.message).toContain('boundary');
      }
      const garbled = await http.call(method, path, undefined, {
        headers: { 'content-type': 'multipart/form-data; boundary=abc' },
        raw: '--abc\r\nContent-Disposition: form-data; name="data"\r\n' + 'x'.repeat(100_000),
      });
      expect(garbled.status, `${method} garbled`).toBeGreaterThanOrEqual(400);
      expect(garbled.status, `${method} garbled`).toBeLessThan(500);
    }
  });
});

describe('lookups, users and labels', () => {
  it('serves every lookup list with id, name, order, alias and an icon_url under the assets url that answers an image', async () => {
    const lists: [string, string, string][] = [
      ['listCaseTypes', '/test_cases/types', 'types'],
      ['listCaseStatuses', '/test_cases/statuses', 'statuses'],
      ['listPriorities', '/test_cases/priorities', 'priorities'],
      ['listAutomationTypes', '/test_cases/automation_types', 'automation_types'],
      ['listRunStatuses', '/test_runs/statuses', 'statuses'],
    ];
    for (const [name, path, key] of lists) {
      const r = await http.get(path);
      conforms(name, r.body);
      for (const x of r.body.data[key]) {
        expect(x).toEqual({ id: expect.any(String), name: expect.any(String), order: expect.any(Number), alias: expect.any(String), icon_url: expect.stringMatching(new RegExp(`^${emu.assetsUrl}/`)) });
      }
    }
    const types = (await http.get('/test_cases/types')).body.data.types.map((t: any) => t.name);
    expect(types).toEqual(['Functional', 'Regression', 'Smoke']);
    const icon = await fetch((await http.get('/test_cases/types')).body.data.types[0].icon_url);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/svg/);
  });
  it('answers users as a bare array and labels with camelCase timestamps', async () => {
    const u = await http.get('/users');
    conforms('listUsers', u.body);
    expect(u.body.data.map((x: any) => x.email)).toEqual(['qa-lead@example.com', 'ana@example.com', 'ben@example.com']);
    const l = await http.get('/labels');
    conforms('listLabels', l.body);
    expect(l.body.data.labels[0]).toEqual({ id: expect.any(String), name: 'smoke', createdAt: expect.any(Number), updatedAt: expect.any(Number) });
  });
});

describe('pagination', () => {
  it('walks every page through next URLs that keep page_size and filters, with stable order and prev links', async () => {
    const ids = await refs(http);
    const f = await folder(http, 'Paged');
    const created: string[] = [];
    for (let i = 0; i < 45; i++) created.push((await testCase(http, ids, f, { title: `Paged ${i}` })).id);
    let url = `/projects/DEMO/test_cases?folder_id=${f}&page_size=20`;
    const seen: string[] = [];
    const pages: any[] = [];
    for (let guard = 0; url && guard < 10; guard++) {
      const r = await http.get(url);
      expect(r.status).toBe(200);
      pages.push(r.body.page_info);
      seen.push(...r.body.data.test_cases.map((c: any) => c.id));
      url = r.body.page_info.next;
      if (url) {
        const u = new URL(url);
        expect(u.searchParams.get('page_size')).toBe('20');
        expect(u.searchParams.get('folder_id')).toBe(f);
        expect(u.origin).toBe(emu.appUrl);
      }
    }
    expect(seen).toEqual(created);
    expect(pages.map((p) => p.total_count)).toEqual([45, 45, 45]);
    expect(pages[0].prev).toBe('');
    expect(new URL(pages[2].prev).searchParams.get('page')).toBe('2');
    expect(pages[2].next).toBe('');
  });

  it('uses 20 as the default page size, allows 100 and refuses 0, 101 and non-numbers with 422', async () => {
    expect((await http.get('/projects/DEMO/test_cases')).body.page_info.page_size).toBe(20);
    expect((await http.get('/projects/DEMO/test_cases?page_size=100')).body.page_info.page_size).toBe(100);
    for (const bad of ['0', '101', 'abc', '2.5']) {
      const r = await http.get(`/projects/DEMO/test_cases?page_size=${bad}`);
      isError(r, 422);
      expect(r.body.errors.details[0].field).toBe('page_size');
    }
  });
});
