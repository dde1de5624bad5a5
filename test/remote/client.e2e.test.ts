import { afterEach, describe, expect, it } from 'vitest';
import type { LookupListName } from '../../src/api/index.js';
import type { startEmulator } from '../../src/emulator/index.js';
import { type RunningEmulator } from '../../src/emulator/index.js';
import { createClient, fetchState, isAmbiguous, type ClientOptions, type RequestEvent, type TmsClient } from '../../src/remote/index.js';
import { seededEmulator } from '../support/emulator.js';

/** The client against the real emulator on port 0: faults from its flags, checks from its request log. */

const KEY = 'e2e-key-0123456789';
/**
 * Document-only on purpose (vitest.config.ts leaves this file out of the live project): it asserts
 * the document dialect's wire itself (page sizes and page URLs, 429 with Retry-After, the exact
 * request count of a full read), which the live dialect does differently (capped pages read by
 * cursor, 500 "rate limit exceeded"); the client against the live wire is test/remote/dialects.test.ts,
 * the `rateLimitStyle: 'live'` test here and the live project's run of every other e2e file.
 */
const DIALECT = 'document';
let emu: RunningEmulator | undefined;
let client: TmsClient | undefined;
afterEach(async () => {
  await client?.close();
  await emu?.close();
  client = emu = undefined;
});

async function setup(faults: Parameters<typeof startEmulator>[0] = {}, options: Partial<ClientOptions> = {}) {
  emu = await seededEmulator(KEY, {}, DIALECT);
  const events: RequestEvent[] = [];
  client = createClient({ baseUrl: emu.baseUrl, appUrl: emu.appUrl, apiKey: KEY, retryBaseMs: 20, onEvent: (e) => events.push(e), ...options });
  const project = (await client.paginate('listProjects').next()).value as { id: string };
  // faults start once the project is known
  const { memory: _m, apiKeys: _k, seed: _s, ...rest } = faults;
  emu.setFaults(rest);
  emu.clearRequestLog();
  events.length = 0;
  return { emu, client, events, params: { project_id: project.id } };
}

const time = (iso: string) => Date.parse(iso);

describe('client against the emulator', () => {
  it('reads a list over many pages of an odd size, each page once, page_size on every request', async () => {
    const { emu, client, params } = await setup({}, { pageSize: 7, rateLimit: 1000 });
    for (let i = 0; i < 45; i++) await client.call('createFolder', { params, body: { name: `F${i}` } });
    emu.clearRequestLog();
    const names = [];
    for await (const f of client.paginate('listFolders', { params })) names.push(f.name);
    expect(names).toHaveLength(45);
    expect(new Set(names).size).toBe(45);
    const log = emu.requestLog();
    expect(log).toHaveLength(7);
    expect(log.every((e) => /[?&]page_size=7(&|$)/.test(e.path))).toBe(true);
    expect(new Set(log.map((e) => e.path)).size).toBe(7);
  });

  it('obeys Retry-After: after every 429 the log shows no request inside the window', async () => {
    // the first burst outruns the service's limit (the client learns it from the headers after that)
    const { emu, client, params } = await setup({ rateLimit: 2 }, { rateLimit: 50, concurrency: 4 });
    await Promise.all(Array.from({ length: 12 }, () => client.call('getProject', { params })));
    const log = emu.requestLog();
    const refusals = log.filter((e) => e.status === 429);
    expect(refusals.length).toBeGreaterThan(0);
    for (const r of refusals) {
      // Retry-After is at least 1 s; requests sent before the refusal arrived may still land
      const soonAfter = log.filter((e) => time(e.time) > time(r.time) + 50 && time(e.time) < time(r.time) + 1000);
      expect(soonAfter).toEqual([]);
    }
    expect(log.filter((e) => e.status === 200)).toHaveLength(12);
    expect(client.stats().rateLimited).toBe(refusals.length);
  });

  it("retries the live service's 500 rate limit exceeded until every read succeeds", async () => {
    const { emu, client, params } = await setup({ rateLimit: 3, rateLimitStyle: 'live' }, { rateLimit: 30 });
    const got = await Promise.all(Array.from({ length: 8 }, () => client.call('getProject', { params })));
    expect(got.every((r) => r.data.project.id === params.project_id)).toBe(true);
    const log = emu.requestLog();
    expect(log.some((e) => e.status === 500 && e.fault === 'rate_limit')).toBe(true);
    expect(client.stats().rateLimited).toBeGreaterThan(0);
  });

  it('survives dropped connections and injected 5xx on reads', async () => {
    const { emu, client, params } = await setup({ resetRate: 0.3, failRate: 0.2, faultSeed: 11 }, { maxRetries: 10 });
    const got = await Promise.all(Array.from({ length: 20 }, () => client.call('getProject', { params })));
    expect(got).toHaveLength(20);
    const log = emu.requestLog();
    expect(log.some((e) => e.fault === 'reset')).toBe(true);
    expect(log.some((e) => e.fault === 'fail')).toBe(true);
  });

  it('with --fail-after-commit a create whose answer is lost is reconciled: one item, not two', async () => {
    const { emu, client, params } = await setup({ failRate: 0.5, faultSeed: 3, failAfterCommit: true }, { maxRetries: 10 });
    const titles = Array.from({ length: 12 }, (_, i) => `Plan ${i}`);
    const reconcileFor = (title: string) => async () => {
      for await (const p of client.paginate('listTestPlans', { params, query: { title__CONTAINS: title } })) {
        if (p.title === title) return { message: '', data: { test_plan: p } };
      }
      return undefined;
    };
    for (const title of titles) {
      await client.call('createTestPlan', { params, body: { title }, reconcile: reconcileFor(title) });
    }
    const log = emu.requestLog();
    expect(log.some((e) => e.fault === 'reset_after_commit' && e.method === 'POST')).toBe(true);
    emu.setFaults({ failRate: 0 });
    const all = [];
    for await (const p of client.paginate('listTestPlans', { params })) all.push(p.title);
    expect(all.sort()).toEqual([...titles].sort());
  });

  it('without reconcile, a create whose answer is lost fails as ambiguous and is not repeated', async () => {
    const { emu, client, params } = await setup({ failRate: 1, faultSeed: 1, failAfterCommit: true });
    const err = await client.call('createTestPlan', { params, body: { title: 'Once' } }).catch((e) => e);
    expect(isAmbiguous(err)).toBe(true);
    expect(emu.requestLog().filter((e) => e.method === 'POST')).toHaveLength(1);
  });

  it('times out a slow answer and reports timeout after its retries', async () => {
    const { client, params, events } = await setup({ latencyMs: 300 }, { timeoutMs: 60, maxRetries: 1 });
    const err = await client.call('getProject', { params }).catch((e) => e);
    expect(err.code).toBe('timeout');
    expect(events.slice(-2).map((e) => e.error)).toEqual(['timeout', 'timeout']);
  });

  it('answers 401 for a wrong key with the hint, once, and never shows the key', async () => {
    emu = await seededEmulator(KEY, {}, DIALECT);
    const events: RequestEvent[] = [];
    const wrong = 'wrong-key-abcdefghijkl';
    client = createClient({ baseUrl: emu.baseUrl, apiKey: wrong, onEvent: (e) => events.push(e) });
    const err = await client.call('listProjects').catch((e) => e);
    expect(err.code).toBe('unauthorized');
    expect(err.status).toBe(401);
    expect(err.hint).toContain('TMSYNC_API_KEY');
    expect(emu.requestLog()).toHaveLength(1);
    const printed = [err.message, err.hint, JSON.stringify(err.toJSON()), JSON.stringify(events)].join('\n');
    expect(printed).not.toContain(wrong);
  });
});

describe('fetchState against the emulator', () => {
  it('reads a seeded project completely with the expected number of requests', async () => {
    const { emu, client, params } = await setup({}, { pageSize: 100, rateLimit: 5000, concurrency: 8 });
    const types = (await client.call('listCaseTypes', { query: { page_size: 100 } })).data.types;
    const statuses = (await client.call('listCaseStatuses', { query: { page_size: 100 } })).data.statuses;
    const prios = (await client.call('listPriorities', { query: { page_size: 100 } })).data.priorities;
    const autos = (await client.call('listAutomationTypes', { query: { page_size: 100 } })).data.automation_types;
    const users = (await client.call('listUsers')).data;
    const top = (await client.call('createFolder', { params, body: { name: 'Checkout' } })).data.folder;
    const sub = (await client.call('createFolder', { params, body: { name: 'Payments' } })).data.folder;
    await client.call('moveFolder', { params: { ...params, folder_id: sub.id }, body: { parent_folder_id: top.id } });
    const other = (await client.call('createFolder', { params, body: { name: 'Auth' } })).data.folder;
    const group = (await client.call('createStepGroup', {
      params,
      body: { title: 'Login', steps: [{ step_description: 'sign in', expected_result: 'signed in', order: 1 }] },
    })).data.step_group;
    for (let i = 0; i < 130; i++) {
      await client.call('createTestCase', {
        params,
        body: {
          title: `Case ${i}`,
          type_id: types[0].id,
          status_id: statuses[0].id,
          priority_id: prios[0].id,
          automation_type_id: autos[0].id,
          owner_id: users[0].id,
          folder_id: [top.id, sub.id, other.id][i % 3],
          individual_steps: [
            { step_description: '', expected_results: '', order: 1, step_group_id: group.id },
            { step_description: `do ${i}`, expected_results: 'done', order: 2 },
          ],
        },
      });
    }
    await client.call('createTestPlan', { params, body: { title: 'Release' } });
    emu.clearRequestLog();

    const fresh = createClient({ baseUrl: emu.baseUrl, apiKey: KEY });
    const state = await fetchState(fresh, params.project_id);
    const made = fresh.stats().requests;
    await fresh.close();
    expect(state.cases).toHaveLength(130);
    expect(state.cases.every((c) => /^DEMO-\d+$/.test(c.humanId))).toBe(true);
    expect(state.cases[0].individualSteps.map((s) => s.stepGroupId)).toEqual([group.id, null]);
    expect(state.folders.find((f) => f.id === sub.id)?.parentId).toBe(top.id);
    expect(state.folders.find((f) => f.id === top.id)?.parentId).toBeNull();
    expect(state.stepGroups[0].steps).toEqual([expect.objectContaining({ description: 'sign in', expected: 'signed in', order: 1 })]);
    expect(state.testPlans.map((p) => p.title)).toEqual(['Release']);
    expect(state.lookups.types.map((t) => t.name)).toContain('Functional');
    expect(state.users.length).toBeGreaterThan(0);
    expect(state.labels.map((l) => l.name)).toContain('smoke');
    expect(state.labelsReadable).toBe(true);
    // GET project 1, folders 1, cases 2, step groups 1 + 1 GET, plans 1, 5 lookups, users, labels
    expect(made).toBe(14);
    expect(emu.requestLog()).toHaveLength(14);

    const scoped = await fetchState(client, 'DEMO', { scope: ['Checkout'] });
    expect(new Set(scoped.cases.map((c) => c.folderId))).toEqual(new Set([top.id, sub.id]));
  });

  it('with a path scope, returns that subtree and the folders above it, without the sibling subtrees or any case outside the subtree', async () => {
    const { client, params } = await setup({}, { rateLimit: 5000, concurrency: 8 });
    const list = async (name: LookupListName, key: string) => (await client.call(name, { query: { page_size: 100 } })).data[key] as { id: string }[];
    const [types, statuses, prios, autos] = await Promise.all([
      list('listCaseTypes', 'types'),
      list('listCaseStatuses', 'statuses'),
      list('listPriorities', 'priorities'),
      list('listAutomationTypes', 'automation_types'),
    ]);
    const owner = (await client.call('listUsers')).data[0].id;
    const folder = async (name: string, parent?: string) => {
      const f = (await client.call('createFolder', { params, body: { name } })).data.folder;
      if (parent) await client.call('moveFolder', { params: { ...params, folder_id: f.id }, body: { parent_folder_id: parent } });
      return f.id;
    };
    const kase = async (title: string, folderId: string) =>
      (
        await client.call('createTestCase', {
          params,
          body: { title, type_id: types[0].id, status_id: statuses[0].id, priority_id: prios[0].id, automation_type_id: autos[0].id, owner_id: owner, folder_id: folderId },
        })
      ).data.test_case.id;
    const checkout = await folder('Checkout');
    const payments = await folder('Payments', checkout);
    const cards = await folder('Cards', payments);
    const other = await folder('Other', checkout);
    const otherDeep = await folder('Deep', other);
    const auth = await folder('Auth');
    const inside = [await kase('Pay', payments), await kase('Card', cards)];
    for (const [t, f] of [['Cart', checkout], ['Other', other], ['Deeper', otherDeep], ['Login', auth]] as const) await kase(t, f);

    const state = await fetchState(client, params.project_id, { scope: ['Checkout/Payments'] });
    expect(state.folders.map((f) => f.id).sort()).toEqual([checkout, payments, cards].sort());
    expect(state.cases.map((c) => c.id).sort()).toEqual([...inside].sort());

    // a path and a top-level name together
    const both = await fetchState(client, params.project_id, { scope: ['Checkout/Payments', 'Auth'] });
    expect(both.folders.map((f) => f.id).sort()).toEqual([checkout, payments, cards, auth].sort());
    expect(both.cases.map((c) => c.title).sort()).toEqual(['Card', 'Login', 'Pay']);
  });
});
