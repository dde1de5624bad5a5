import { expect } from 'vitest';
import { endpoint } from '../../src/api/endpoints.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { seededEmulator } from '../support/emulator.js';
import { api, KEY, type Answer, type Api } from '../support/api.js';
import { requiredWire, type LookupList } from '../support/cases.js';

export { api, KEY, type Answer, type Api } from '../support/api.js';

export async function start(options: EmulatorOptions = {}): Promise<{ emu: RunningEmulator; http: Api }> {
  // the emulator's own tests run in the document dialect unless they name another
  const emu = await seededEmulator(KEY, options, 'document');
  return { emu, http: api(emu) };
}

/**
 * The ids a test case body needs, read through the API (as a client would): the first entry of each
 * lookup list and the first user under each required field's wire key (from the field table), with
 * the users and labels.
 */
export async function refs(http: Api) {
  const first = async (list: LookupList) => (await http.get(`/test_cases/${list}`)).body.data[list][0].id as string;
  const users = (await http.get('/users')).body.data as { id: string; email: string }[];
  const labels = (await http.get('/labels')).body.data.labels as { id: string; name: string }[];
  const lookups = { types: await first('types'), statuses: await first('statuses'), priorities: await first('priorities'), automation_types: await first('automation_types') };
  return { ...requiredWire({ lookups, user: users[0].id }), users, labels };
}

const projectIds = new WeakMap<Api, Map<string, string>>();

/**
 * A project's id from its prefix, read through the API: the live dialect takes only ids as
 * `:project_id` (the prefix is a convenience of the document dialect).
 */
export async function projectId(http: Api, prefix = 'DEMO'): Promise<string> {
  let known = projectIds.get(http);
  if (!known) projectIds.set(http, (known = new Map()));
  const hit = known.get(prefix);
  if (hit) return hit;
  const all = (await http.get('/projects?page_size=100')).body.data.projects as { id: string; human_id_prefix: string }[];
  const p = all.find((x) => x.human_id_prefix === prefix || x.id === prefix);
  if (!p) throw new Error(`no project ${prefix}`);
  known.set(prefix, p.id);
  return p.id;
}

/** Creates a folder and returns its id. */
export async function folder(http: Api, name: string, project = 'DEMO'): Promise<string> {
  const r = await http.post(`/projects/${await projectId(http, project)}/folders`, { name });
  if (r.status !== 201) throw new Error(`folder create failed: ${r.text}`);
  return r.body.data.folder.id;
}

/** Creates a case with every required field and returns the response body's test_case. */
export async function testCase(http: Api, r: Awaited<ReturnType<typeof refs>>, folderId: string, extra: Record<string, unknown> = {}) {
  const { users: _u, labels: _l, ...ids } = r;
  const res = await http.post(`/projects/${await projectId(http)}/test_cases`, { title: 'A case', folder_id: folderId, ...ids, ...extra });
  if (res.status !== 201) throw new Error(`case create failed: ${res.text}`);
  return res.body.data.test_case;
}

/** Asserts a response body parses with the endpoint's zod response schema. */
export function conforms(name: string, body: unknown): void {
  const schema = endpoint(name).response;
  if (!schema) throw new Error(`${name} has no response schema`);
  const r = schema.safeParse(body);
  expect(r.success, r.success ? '' : `${name}: ${JSON.stringify(r.error.issues.slice(0, 3))}`).toBe(true);
}

/** Asserts the live error body shape with the given status. */
export function isError(a: Answer, status: number): void {
  expect(a.status, a.text).toBe(status);
  expect(a.body).toMatchObject({ message: expect.any(String), errors: { code: status, message: expect.any(String) } });
}
