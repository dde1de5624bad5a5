import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpoints, fillPath } from '../../src/api/endpoints.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { KEY, folder, refs, start, testCase, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
const real: Record<string, string[]> = {};
beforeAll(async () => {
  ({ emu, http } = await start());
  const ids = await refs(http);
  const f = await folder(http, 'Fuzz');
  const c = await testCase(http, ids, f);
  const sg = (await http.post('/projects/DEMO/step_groups', { title: 'g' })).body.data.step_group;
  const plan = (await http.post('/projects/DEMO/test_plans', { title: 'p' })).body.data.test_plan;
  const run = (await http.post('/projects/DEMO/test_runs', { title: 'r', static_selection_filters: [{ field: 'id', operator: 'IN', values: [c.id] }] })).body.data.test_run;
  const exec = (await http.post('/api/v1/execution_results', { executionId: plan.id }, { root: 'app' })).body;
  Object.assign(real, {
    project_id: ['DEMO'],
    folder_id: [f],
    test_case_id: [c.id, c.human_id],
    step_group_id: [sg.id],
    test_plan_id: [plan.id],
    test_run_id: [run.id],
    import_id: ['x'],
    run_id: [String(exec.id)],
  });
});
afterAll(() => emu.close());

/** Any JSON value, biased towards objects with the field names the service uses. */
const fieldNames = fc.constantFrom(
  'title', 'name', 'description', 'human_id_prefix', 'folder_id', 'type_id', 'status_id', 'priority_id', 'owner_id',
  'label_ids', 'individual_steps', 'steps', 'order', 'parent_folder_id', 'test_run_cases', 'test_case_id',
  'test_run_status_id', 'user_id', 'static_selection_filters', 'dynamic_selection_filters', 'selection_type',
  'executionId', 'start_date', 'end_date', 'step_group_id', 'expected_result', '__proto__', 'constructor',
);
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fieldNames, tie('value'), { maxKeys: 6 }),
    fc.dictionary(fc.string(), tie('value'), { maxKeys: 3 }),
  ),
})).value;

async function send(method: string, url: string, body: string | undefined, contentType: string): Promise<number> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}

describe('fuzz', () => {
  it('never answers 500 to random JSON bodies on every endpoint, with real and random path parameters', async () => {
    await fc.assert(
      fc.asyncProperty(
        // deleting the project would turn the rest of the run into 404s
        fc.constantFrom(...endpoints.filter((e) => e.name !== 'deleteProject')),
        jsonValue,
        fc.boolean(),
        fc.string(),
        async (e, body, realParams, junk) => {
          const params = Object.fromEntries(
            Object.keys(real).map((k) => [k, realParams ? real[k][0] : junk || 'x']),
          );
          const path = fillPath(e.path, params);
          const url = `${e.iface === 'execution' ? emu.appUrl : emu.baseUrl}${path}`;
          const status = await send(e.method, url, e.method === 'GET' ? undefined : JSON.stringify(body), 'application/json');
          expect(status, `${e.method} ${path} ${JSON.stringify(body).slice(0, 200)}`).not.toBe(500);
        },
      ),
      { numRuns: 600, seed: 20261123 },
    );
  });

  it('never answers 500 to random paths, methods, queries, content types and raw bodies', async () => {
    const segment = fc.oneof(fc.constantFrom('projects', 'DEMO', 'test_cases', 'folders', 'test_runs', 'test_plans', 'step_groups', 'move', 'complete', '..', '%', '%zz', ''), fc.string());
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'),
        fc.array(segment, { maxLength: 6 }),
        fc.dictionary(fc.constantFrom('page', 'page_size', 'search', 'folder_id', 'name__NEQ', 'x'), fc.string(), { maxKeys: 3 }),
        fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/xml', ''),
        fc.oneof(fc.string(), fc.constant('{'), fc.constant('--x\r\nContent-Disposition: form-data; name="data"\r\n\r\n{}\r\n--x--\r\n')),
        async (method, segs, query, contentType, raw) => {
          const qs = new URLSearchParams(query).toString();
          const path = `/api/v1/${segs.map((s) => (/^%|\.\./.test(s) ? s : encodeURIComponent(s))).join('/')}${qs ? `?${qs}` : ''}`;
          const body = method === 'GET' || method === 'OPTIONS' ? undefined : raw;
          const status = await send(method, `${emu.appUrl}${path}`, body, contentType || 'application/octet-stream');
          expect(status, `${method} ${path}`).not.toBe(500);
        },
      ),
      { numRuns: 600, seed: 7 },
    );
    // and it still answers afterwards, and no request of either property got a 500
    expect((await http.get('/projects')).status).toBe(200);
    expect(emu.requestLog().filter((e) => e.status >= 500)).toEqual([]);
  });
});
