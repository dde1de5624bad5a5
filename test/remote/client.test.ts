import { afterEach, describe, expect, it } from 'vitest';
import { createClient, ApiError, isAmbiguous, scaledClock, type ClientOptions, type RequestEvent, type TmsClient } from '../../src/remote/index.js';
import { pageOf, startScripted, type LoggedRequest, type Reply, type ScriptedServer } from './scripted-server.js';

const KEY = 'sk-live-0123456789abcdef';
const lookup = (i: number) => ({ id: `id-${i}`, name: `Name ${i}`, order: i, alias: `n${i}` });

let server: ScriptedServer | undefined;
let client: TmsClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: (r: LoggedRequest) => Reply | Promise<Reply>, options: Partial<ClientOptions> = {}) {
  const clock = options.clock ?? scaledClock(100);
  server = await startScripted(handler, clock);
  const events: RequestEvent[] = [];
  client = createClient({
    baseUrl: `${server.url}/api/v1`,
    apiKey: KEY,
    clock,
    random: () => 0.5,
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { server, client, events, clock };
}

const planJson = (id: string, title = 'P') => ({
  message: '',
  data: { test_plan: { id, title, status: 'ACTIVE', created_at: 1, updated_at: 1 } },
});

describe('pagination', () => {
  it('follows next URLs over many pages of an odd size, sends page_size every time and reads each page once', async () => {
    const items = Array.from({ length: 52 }, (_, i) => lookup(i));
    const { server, client } = await setup((r) => ({ json: pageOf('types', items, r, '') }), { pageSize: 7 });
    const got = [];
    for await (const x of client.paginate('listCaseTypes')) got.push(x.id);
    expect(got).toEqual(items.map((x) => x.id));
    expect(server.log).toHaveLength(8);
    expect(server.log.every((r) => r.query.get('page_size') === '7')).toBe(true);
    const pages = server.log.map((r) => r.query.get('page') ?? '1');
    expect(new Set(pages).size).toBe(pages.length);
  });

  it('reads the known remaining pages ahead, a few at a time, and hands the items out in order', async () => {
    const items = Array.from({ length: 100 }, (_, i) => lookup(i));
    let inFlight = 0;
    let most = 0;
    const { server, client } = await setup(
      async (r) => {
        inFlight++;
        most = Math.max(most, inFlight);
        // later pages answer faster: order must come from the client, not the arrival
        await new Promise((res) => setTimeout(res, 30 - Number(r.query.get('page') ?? 1)));
        inFlight--;
        return { json: pageOf('types', items, r, '') };
      },
      { pageSize: 10, prefetchPages: 3, rateLimit: 1000 },
    );
    const got = [];
    for await (const x of client.paginate('listCaseTypes')) got.push(x.id);
    expect(got).toEqual(items.map((x) => x.id));
    expect(server.log).toHaveLength(10);
    expect(most).toBe(3);
    expect(new Set(server.log.map((r) => r.query.get('page') ?? '1')).size).toBe(10);
  });

  it('follows next past the planned pages when items were added meanwhile', async () => {
    const items = Array.from({ length: 20 }, (_, i) => lookup(i));
    const { server, client } = await setup(
      (r) => {
        // page 2 was planned as the last; by the time it is read, five more items exist
        if (r.query.get('page') === '2') items.push(...Array.from({ length: 5 }, (_, i) => lookup(100 + i)));
        return { json: pageOf('types', items, r, '') };
      },
      { pageSize: 10, rateLimit: 1000 },
    );
    const got = [];
    for await (const x of client.paginate('listCaseTypes')) got.push(x.id);
    expect(got).toHaveLength(25);
    expect(server.log.map((r) => r.query.get('page') ?? '1')).toEqual(['1', '2', '3']);
  });

  it('follows next strictly one page at a time with prefetchPages 0', async () => {
    const items = Array.from({ length: 40 }, (_, i) => lookup(i));
    let inFlight = 0;
    let most = 0;
    const { client } = await setup(
      async (r) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((res) => setTimeout(res, 5));
        inFlight--;
        return { json: pageOf('types', items, r, '') };
      },
      { pageSize: 10, prefetchPages: 0, rateLimit: 1000 },
    );
    const got = [];
    for await (const x of client.paginate('listCaseTypes')) got.push(x);
    expect(got).toHaveLength(40);
    expect(most).toBe(1);
  });

  it('treats a next value that is not a URL as an opaque cursor and sends it back with the page size', async () => {
    const { server, client } = await setup((r) => {
      const cursor = r.query.get('cursor');
      if (!cursor) return { json: { data: { types: [lookup(1)] }, page_info: { page_size: 100, total_count: 3, next: 'opaque-A' } } };
      if (cursor === 'opaque-A') return { json: { data: { types: [lookup(2)] }, page_info: { page_size: 100, total_count: 3, next: 'opaque-B' } } };
      return { json: { data: { types: [lookup(3)] }, page_info: { page_size: 100, total_count: 3, next: null } } };
    });
    const got = [];
    for await (const x of client.paginate('listCaseTypes')) got.push(x.id);
    expect(got).toEqual(['id-1', 'id-2', 'id-3']);
    expect(server.log.map((r) => r.query.get('cursor'))).toEqual([null, 'opaque-A', 'opaque-B']);
    expect(server.log.every((r) => r.query.get('page_size') === '100')).toBe(true);
  });

  it('falls back to the service default page size when the service refuses the requested size', async () => {
    const items = Array.from({ length: 30 }, (_, i) => lookup(i));
    const { server, client } = await setup((r) =>
      r.query.get('page_size') === '100'
        ? { status: 400, json: { message: 'page_size too large' } }
        : { json: pageOf('types', items, r, '') },
    );
    const got = [];
    for await (const x of client.paginate('listCaseTypes')) got.push(x);
    expect(got).toHaveLength(30);
    expect(server.log.map((r) => r.query.get('page_size'))).toEqual(['100', null, '20']);
  });

  it('stops with pagination_loop when the service sends the same next page twice', async () => {
    // a new item on every page: an item that came twice would stop the walk first
    let n = 0;
    const { client } = await setup(() => ({ json: { data: { types: [lookup(++n)] }, page_info: { page_size: 1, total_count: 9, next: 'same' } } }));
    const read = async () => {
      for await (const _ of client.paginate('listCaseTypes')) void _;
    };
    await expect(read()).rejects.toMatchObject({ code: 'pagination_loop' });
  });
});

describe('retries', () => {
  it('obeys Retry-After in seconds: no request reaches the service inside the window', async () => {
    let refused = false;
    const { server, client } = await setup(() => {
      if (!refused) {
        refused = true;
        return { status: 429, json: { message: 'Too many requests' }, headers: { 'retry-after': '3' } };
      }
      return { json: planJson('p1') };
    });
    const calls = Array.from({ length: 4 }, (_, i) => client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: `p${i}` } }));
    await Promise.all(calls);
    const refusedAt = server.log.find((r) => r.n === 1)!.at;
    // requests already in flight when the 429 came may land; none may start after it inside the window
    const afterRefusal = server.log.filter((r) => r.n > 4);
    expect(afterRefusal.length).toBeGreaterThan(0);
    for (const r of afterRefusal) expect(r.at - refusedAt).toBeGreaterThanOrEqual(3000);
    expect(client.stats().rateLimited).toBe(1);
  });

  it('obeys Retry-After given as an HTTP date', async () => {
    let n = 0;
    const { server, client, clock } = await setup(() => {
      n++;
      if (n === 1) return { status: 429, json: { message: 'slow down' }, headers: { 'retry-after': new Date(clock.now() + 5000).toUTCString() } };
      return { json: planJson('p1') };
    });
    await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p1' } });
    expect(server.log).toHaveLength(2);
    // the date has whole-second precision: the wait is at least 4 s of the 5 asked
    expect(server.log[1].at - server.log[0].at).toBeGreaterThanOrEqual(4000);
  });

  it('cuts a Retry-After longer than the cap to the cap', async () => {
    let n = 0;
    const { server, client } = await setup(
      () => (++n === 1 ? { status: 429, json: { message: 'x' }, headers: { 'retry-after': '3600' } } : { json: planJson('p1') }),
      { retryAfterCapMs: 2000 },
    );
    await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p1' } });
    const gap = server.log[1].at - server.log[0].at;
    expect(gap).toBeGreaterThanOrEqual(2000);
    expect(gap).toBeLessThan(3_600_000);
  });

  it("retries the live service's 500 rate limit exceeded after at least one rate window, and counts it", async () => {
    let n = 0;
    const { server, client } = await setup(() => (++n <= 2 ? { status: 500, json: { message: 'rate limit exceeded' } } : { json: planJson('p1') }));
    const res = await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p1' } });
    expect(res.data.test_plan.id).toBe('p1');
    expect(server.log).toHaveLength(3);
    expect(server.log[1].at - server.log[0].at).toBeGreaterThanOrEqual(1000);
    expect(client.stats()).toMatchObject({ requests: 3, retries: 2, rateLimited: 2 });
  });

  it('retries a GET after the connection is reset and after 502, 503 and 504 answers', async () => {
    let n = 0;
    const { server, client, events } = await setup(() => {
      n++;
      if (n === 1) return { reset: true };
      if (n === 2) return { status: 502, text: 'bad gateway' };
      if (n === 3) return { status: 503, json: { message: 'unavailable' } };
      if (n === 4) return { status: 504, text: '' };
      return { json: planJson('p1') };
    });
    const res = await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p1' } });
    expect(res.data.test_plan.id).toBe('p1');
    expect(server.log).toHaveLength(5);
    expect(events.map((e) => e.status ?? e.error)).toEqual(['network', 502, 503, 504, 200]);
    expect(events.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5]);
  });

  it('times out a slow answer and retries the GET', async () => {
    let n = 0;
    const { server, client, events } = await setup(() => (++n === 1 ? { json: planJson('slow'), delayMs: 400 } : { json: planJson('fast') }), {
      timeoutMs: 5000, // 50 ms of real time at 100x
    });
    const res = await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p1' } });
    expect(res.data.test_plan.id).toBe('fast');
    expect(server.log).toHaveLength(2);
    expect(events[0].error).toBe('timeout');
  });

  it('gives up after maxRetries and throws the last error with its code', async () => {
    const { server, client } = await setup(() => ({ status: 503, json: { message: 'down' } }), { maxRetries: 2 });
    const err = await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p1' } }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).toBe('server_error');
    expect(err.status).toBe(503);
    expect(err.serviceMessage).toBe('down');
    expect(server.log).toHaveLength(3);
  });

  it.each([400, 401, 403, 404, 413, 422])('never retries a %i answer', async (status) => {
    const { server, client } = await setup(() => ({ status, json: { message: 'no', errors: { code: status, message: 'refused', details: 'field x' } } }));
    const err = await client.call('updateTestPlan', { params: { project_id: 'x', test_plan_id: 'p1' }, body: { title: 't' } }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(status);
    expect(server.log).toHaveLength(1);
  });

  it('maps statuses to stable codes', async () => {
    const statuses = [401, 404, 422, 429, 500];
    let i = 0;
    const { client } = await setup(() => ({ status: statuses[i++], json: { message: 'm' } }), { maxRetries: 0 });
    const codes = [];
    for (let k = 0; k < statuses.length; k++) {
      const e = await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p' } }).catch((x) => x);
      codes.push(e.code);
    }
    expect(codes).toEqual(['unauthorized', 'not_found', 'invalid_request', 'rate_limited', 'server_error']);
  });
});

describe('per-call overrides', () => {
  it('a per-call retries override changes the retries of that call only', async () => {
    const retries: { endpoint: string; attempts: number }[] = [];
    const { server, client } = await setup(() => ({ status: 503, json: { message: 'down' } }), {
      maxRetries: 3,
      onRetry: (e) => retries.push({ endpoint: e.endpoint, attempts: e.attempts }),
    });
    const params = { project_id: 'x', test_plan_id: 'p1' };
    const once = await client.call('getTestPlan', { params }, { retries: 1 }).catch((e) => e);
    expect(once.code).toBe('server_error');
    expect(server.log).toHaveLength(2);
    expect(retries).toEqual([{ endpoint: 'getTestPlan', attempts: 2 }]);
    // the next call without an override has the client's retries again
    await client.call('getTestPlan', { params }).catch((e) => e);
    expect(server.log).toHaveLength(2 + 4);
    expect(retries.slice(1).every((r) => r.attempts === 4)).toBe(true);
  });

  it('a per-call retries override of 0 sends the call once', async () => {
    const { server, client } = await setup(() => ({ status: 503, json: { message: 'down' } }), { maxRetries: 3 });
    const err = await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p1' } }, { retries: 0 }).catch((e) => e);
    expect(err.code).toBe('server_error');
    expect(server.log).toHaveLength(1);
  });

  it('a per-call timeout override changes the timeout of that call only', async () => {
    // 300 ms of real time is 30 s on the 100x clock: past the client's 5 s, within the call's 60 s
    const { server, client } = await setup(() => ({ json: planJson('slow'), delayMs: 300 }), { timeoutMs: 5000, maxRetries: 0 });
    const params = { project_id: 'x', test_plan_id: 'p1' };
    const res = await client.call('getTestPlan', { params }, { timeoutMs: 60_000 });
    expect(res.data.test_plan.id).toBe('slow');
    const err = await client.call('getTestPlan', { params }).catch((e) => e);
    expect(err.code).toBe('timeout');
    expect(server.log).toHaveLength(2);
  });

  it('a shorter per-call timeout times out a call the client would wait for', async () => {
    const { client } = await setup(() => ({ json: planJson('slow'), delayMs: 100 }), { timeoutMs: 60_000, maxRetries: 0 });
    const params = { project_id: 'x', test_plan_id: 'p1' };
    const err = await client.call('getTestPlan', { params }, { timeoutMs: 2000 }).catch((e) => e);
    expect(err.code).toBe('timeout');
    expect((await client.call('getTestPlan', { params })).data.test_plan.id).toBe('slow');
  });

  it('applies a per-call override to every page of a list', async () => {
    let n = 0;
    const items = Array.from({ length: 4 }, (_, i) => lookup(i));
    const { server, client } = await setup((r) => (++n === 2 ? { status: 503, json: { message: 'down' } } : { json: pageOf('types', items, r, '') }), {
      pageSize: 2,
      maxRetries: 3,
      prefetchPages: 0,
    });
    const read = async () => {
      const got = [];
      for await (const x of client.paginate('listCaseTypes', {}, { retries: 0 })) got.push(x.id);
      return got;
    };
    const err = await read().catch((e) => e);
    expect(err.code).toBe('server_error');
    expect(server.log).toHaveLength(2);
  });
});

describe('creates', () => {
  const create = (client: TmsClient, reconcile?: () => Promise<unknown>) =>
    client.call('createTestPlan', { params: { project_id: 'x' }, body: { title: 'Release 1' }, reconcile });

  it('after a reset that follows the commit, asks reconcile and returns what it found: one item, not two', async () => {
    const made: string[] = [];
    const { server, client } = await setup((r) => {
      if (r.method === 'POST') {
        made.push(JSON.parse(r.body).title);
        return made.length === 1 ? { reset: true } : { json: planJson(`p${made.length}`) };
      }
      return { json: pageOf('test_plans', made.map((t, i) => ({ id: `p${i + 1}`, title: t, status: 'ACTIVE', created_at: 1, updated_at: 1 })), r, '') };
    });
    const reconcile = async () => {
      for await (const p of client.paginate('listTestPlans', { params: { project_id: 'x' } })) {
        if (p.title === 'Release 1') return { message: '', data: { test_plan: p } };
      }
      return undefined;
    };
    const res = (await create(client, reconcile)) as { data: { test_plan: { id: string } } };
    expect(res.data.test_plan.id).toBe('p1');
    expect(made).toEqual(['Release 1']);
    expect(server.log.map((r) => r.method)).toEqual(['POST', 'GET']);
  });

  it('sends the create again when reconcile finds nothing', async () => {
    let posts = 0;
    const { server, client } = await setup((r) => (r.method === 'POST' && ++posts === 1 ? { reset: true } : { json: planJson('p1') }));
    let asked = 0;
    const res = await create(client, async () => {
      asked++;
      return undefined;
    });
    expect(res.data.test_plan.id).toBe('p1');
    expect(asked).toBe(1);
    expect(server.log.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it('throws the ambiguous error without reconcile, having sent the create once', async () => {
    const { server, client } = await setup(() => ({ status: 500, json: { message: 'internal error' } }));
    const err = await create(client).catch((e) => e);
    expect(isAmbiguous(err)).toBe(true);
    expect(err.code).toBe('server_error');
    expect(server.log).toHaveLength(1);
  });

  it('treats a create that timed out as ambiguous', async () => {
    const { server, client } = await setup(() => ({ json: planJson('p1'), delayMs: 300 }), { timeoutMs: 5000 });
    const err = await create(client).catch((e) => e);
    expect(err.code).toBe('timeout');
    expect(isAmbiguous(err)).toBe(true);
    expect(server.log).toHaveLength(1);
  });

  it('repeats a create refused with 429 or the live rate limit without asking reconcile (nothing was made)', async () => {
    let n = 0;
    const { server, client } = await setup(() => {
      n++;
      if (n === 1) return { status: 429, json: { message: 'slow' }, headers: { 'retry-after': '1' } };
      if (n === 2) return { status: 500, json: { message: 'rate limit exceeded' } };
      return { json: planJson('p1') };
    });
    let asked = 0;
    await create(client, async () => void asked++);
    expect(asked).toBe(0);
    expect(server.log).toHaveLength(3);
  });

  it.each([
    ['a gateway\'s HTML 502 that mentions the rate limit', { status: 502, text: '<html><body>upstream rate limit reached</body></html>' }],
    ['a 503 whose JSON says rate limit in other words', { status: 503, json: { message: 'Rate limit exceeded, try later' } }],
    ['a 500 whose JSON message only contains the phrase', { status: 500, json: { message: 'rate limit exceeded by upstream' } }],
  ])('treats %s after a create as ambiguous: it asks reconcile instead of re-sending the create', async (_what, reply) => {
    let posts = 0;
    const { server, client } = await setup((r) => (r.method === 'POST' && ++posts === 1 ? reply : { json: planJson('p1') }));
    let asked = 0;
    const res = await create(client, async () => {
      asked++;
      return { message: '', data: { test_plan: { id: 'found', title: 'Release 1', status: 'ACTIVE', created_at: 1, updated_at: 1 } } };
    });
    expect(res.data.test_plan.id).toBe('found');
    expect(asked).toBe(1);
    expect(server.log.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(client.stats().rateLimited).toBe(0);
  });

  it('keeps a create ambiguous when the lookup after its ambiguous failure fails too, and never re-sends it', async () => {
    const { server, client } = await setup((r) => (r.method === 'POST' ? { status: 502, text: '<html>bad gateway</html>' } : { json: planJson('p1') }));
    const err = await create(client, async () => {
      throw new ApiError({ code: 'rate_limited', status: 429, method: 'GET', path: '/projects/x/test_plans' });
    }).catch((e) => e);
    expect(isAmbiguous(err)).toBe(true);
    expect(err.message).toMatch(/may have been created, and looking it up failed: GET \/projects\/x\/test_plans failed \(rate_limited 429\)/);
    expect(server.log.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('repeats a create when the connection was refused before sending', async () => {
    const dead = await startScripted(() => ({ json: {} }));
    const deadUrl = dead.url;
    await dead.close();
    const c = createClient({ baseUrl: `${deadUrl}/api/v1`, apiKey: KEY, clock: scaledClock(1000), maxRetries: 2, random: () => 0.5 });
    const err = await c.call('createTestPlan', { params: { project_id: 'x' }, body: { title: 't' } }).catch((e) => e);
    await c.close();
    expect(err.code).toBe('network');
    expect(isAmbiguous(err)).toBe(false);
  });

  it('retries an idempotent POST (move a folder) after a reset', async () => {
    let n = 0;
    const folder = { id: 'f1', name: 'A', project_id: 'x', children: [], parent_folder_id: 'f0', order: 0 };
    const { server, client } = await setup(() => (++n === 1 ? { reset: true } : { json: { message: '', data: { folder } } }));
    const res = await client.call('moveFolder', { params: { project_id: 'x', folder_id: 'f1' }, body: { parent_folder_id: 'f0' } });
    expect(res.data.folder.parent_folder_id).toBe('f0');
    expect(server.log).toHaveLength(2);
  });
});

describe('rate and lanes', () => {
  it('starts no more than rateLimit requests in any sliding second', async () => {
    const { server, client, events } = await setup(() => ({ json: planJson('p') }), { rateLimit: 5, concurrency: 4 });
    await Promise.all(Array.from({ length: 16 }, (_, i) => client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: `p${i}` } })));
    expect(server.log).toHaveLength(16);
    const at = events.map((e) => e.startedAt).sort((a, b) => a - b);
    for (let i = 5; i < at.length; i++) expect(at[i] - at[i - 5]).toBeGreaterThanOrEqual(1000);
  });

  it('is never refused by a strict sliding window that takes each request in late (its queue, its busy thread)', async () => {
    const clock = scaledClock(20);
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const window: number[] = [];
    let refused = 0;
    const { server, client } = await setup(
      async () => {
        // the service takes the request in up to 600 ms after it arrived, then counts it
        await clock.sleep(random() * 600);
        const now = clock.now();
        while (window.length && window[0] <= now - 1000) window.shift();
        if (window.length >= 10) {
          refused++;
          return { status: 429, json: { message: 'Too many requests' }, headers: { 'retry-after': '1' } };
        }
        window.push(now);
        return { json: planJson('p'), delayMs: Math.floor(random() * 3) };
      },
      { clock, rateLimit: 10, concurrency: 4 },
    );
    await Promise.all(Array.from({ length: 60 }, (_, i) => client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: `p${i}` } })));
    expect(server.log).toHaveLength(60);
    expect(refused).toBe(0);
    expect(client.stats().rateLimited).toBe(0);
  });

  it('keeps reads moving during a long burst of writes: lanes take turns', async () => {
    const { server, client } = await setup(() => ({ json: planJson('p') }), { rateLimit: 4, concurrency: 1 });
    const writes = Array.from({ length: 12 }, (_, i) =>
      client.call('updateTestPlan', { params: { project_id: 'x', test_plan_id: `w${i}` }, body: { title: 't' } }),
    );
    const read = client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'r' } });
    await Promise.all([...writes, read]);
    const readPos = server.log.findIndex((r) => r.method === 'GET');
    expect(readPos).toBeLessThanOrEqual(2);
  });

  it('slows down when x-tms-api-remaining runs out, waiting for the reset instead of being refused', async () => {
    let n = 0;
    const spent: Record<string, string> = { 'x-tms-api-remaining': '0', 'x-tms-api-reset': '2' };
    const { server, client } = await setup(
      () => ({ json: planJson('p'), headers: ++n === 1 ? spent : {} }),
      { rateLimit: 100, concurrency: 1 },
    );
    for (let i = 0; i < 3; i++) await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: `p${i}` } });
    expect(server.log[1].at - server.log[0].at).toBeGreaterThanOrEqual(2000);
  });

  it('cancels queued requests when the signal is aborted', async () => {
    const ac = new AbortController();
    // aborted as the first request arrives, while the other four wait in the queue
    const { server, client } = await setup(
      () => {
        ac.abort();
        return { json: planJson('p'), delayMs: 20 };
      },
      { rateLimit: 1, concurrency: 1, signal: ac.signal },
    );
    const calls = Array.from({ length: 5 }, (_, i) =>
      client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: `p${i}` } }).catch((e) => e),
    );
    const results = await Promise.all(calls);
    const aborted = results.filter((r) => r instanceof ApiError && r.code === 'aborted');
    expect(aborted.length).toBeGreaterThanOrEqual(4);
    expect(server.log.length).toBeLessThanOrEqual(1);
  });
});

describe('wire variants and bodies', () => {
  it('reads the live run-cases shape (data.test_run_cases) as the document shape', async () => {
    const { client } = await setup(() => ({
      json: { data: { test_run_cases: [{ status_id: 's1', status: 'PASSED', assignee_id: null, test_case: { id: 'c1', title: 'Login' }, extra: 1 }] } },
    }));
    const res = await client.call('listRunCases', { params: { project_id: 'x', test_run_id: 'r1' } });
    expect(res.data.test_cases[0]).toMatchObject({ id: 'c1', name: 'Login', status: 'PASSED', extra: 1 });
  });

  it('reads users as a bare array and keeps unknown fields', async () => {
    const { client } = await setup(() => ({ json: { data: [{ id: 'u1', email: 'a@b.c', first_name: null, last_name: 'L', nickname: 'al' }] } }));
    const res = await client.call('listUsers');
    expect(res.data[0]).toMatchObject({ id: 'u1', nickname: 'al' });
  });

  it('sends run-case updates as multipart with a data part when asked to', async () => {
    const { server, client } = await setup(
      () => ({ json: { data: { test_run_cases: [{ test_case_id: 'c1', test_run_status_id: 's', user_id: 'u', updated_at: 1 }] } } }),
      { multipartRunCases: true },
    );
    const body = { test_run_cases: [{ test_case_id: 'c1', test_run_status_id: 's' }] };
    await client.call('updateRunCases', { params: { project_id: 'x', test_run_id: 'r' }, body });
    expect(server.log[0].headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(server.log[0].body).toContain('name="data"');
    expect(server.log[0].body).toContain(JSON.stringify(body));
  });

  it('sends JSON bodies with the bearer key and content type', async () => {
    const { server, client } = await setup(() => ({ json: planJson('p') }));
    await client.call('updateTestPlan', { params: { project_id: 'x', test_plan_id: 'p' }, body: { title: 'T' } });
    expect(server.log[0].headers.authorization).toBe(`Bearer ${KEY}`);
    expect(server.log[0].headers['content-type']).toBe('application/json');
    expect(server.log[0].path).toBe('/api/v1/projects/x/test_plans/p');
    expect(JSON.parse(server.log[0].body)).toEqual({ title: 'T' });
  });

  it('sends execution-interface calls to appUrl with the execution key', async () => {
    const { server, client } = await setup(() => ({ json: { id: 42 } }), { appApiKey: 'app-key-9876' });
    const res = await client.call('triggerExecution', { body: { executionId: 'p1' } });
    expect(res.id).toBe(42);
    expect(server.log[0].path).toBe('/api/v1/execution_results');
    expect(server.log[0].headers.authorization).toBe('Bearer app-key-9876');
  });

  it('reads the JUnit report as text with Accept: application/xml', async () => {
    const { server, client } = await setup(() => ({ text: '<testsuites/>', headers: { 'content-type': 'application/xml' } }));
    const xml = await client.getText('getExecutionJunit', { params: { run_id: 7 } });
    expect(xml).toBe('<testsuites/>');
    expect(server.log[0].headers.accept).toBe('application/xml');
  });

  it('reports an answer in an unknown shape as invalid_response', async () => {
    const { client } = await setup(() => ({ json: { data: { nothing: true } } }));
    const err = await client.call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p' } }).catch((e) => e);
    expect(err.code).toBe('invalid_response');
  });
});

describe('secrets', () => {
  it('401 names the key variable in the hint and no output carries the key, even when the service echoes it', async () => {
    const { client, events } = await setup(() => ({
      status: 401,
      json: { message: `invalid key Bearer ${KEY}`, errors: { code: 401, message: 'bad', details: { header: `Bearer ${KEY}` } } },
    }));
    const err = await client.call('getProject', { params: { project_id: 'p' } }).catch((e) => e);
    expect(err.code).toBe('unauthorized');
    expect(err.hint).toContain('TMSYNC_API_KEY');
    const printed = [err.message, err.hint, JSON.stringify(err), JSON.stringify(err.toJSON()), String(err.stack), JSON.stringify(events)].join('\n');
    expect(printed).not.toContain(KEY);
    expect(printed).toContain('***');
  });

  it('scrubs the key from a non-JSON error body before cutting it to 300 characters, so no key prefix is left at the cut', async () => {
    // the key starts 10 characters before the cut: cutting first would leave "sk-live-01" at the end
    const body = `${'x'.repeat(290)}${KEY} trailing gateway text`;
    const { client, events } = await setup(() => ({ status: 400, text: body, headers: { 'content-type': 'text/html' } }));
    const err = await client.call('getProject', { params: { project_id: 'p' } }).catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    const printed = [err.message, JSON.stringify(err.toJSON()), String(err.stack), JSON.stringify(events)].join('\n');
    expect(printed).not.toContain(KEY.slice(0, 6));
    expect(err.serviceMessage).toBe(`${'x'.repeat(290)}*** trailing gateway text`.slice(0, 300));
  });

  it('redacts secret-looking query parameters in events and errors', async () => {
    const { client, events } = await setup(() => ({ status: 404, json: { message: 'nope' } }));
    const err = await client
      // @ts-expect-error getTestPlan takes no query: a parameter no endpoint declares, as a mistaken caller might send
      .call('getTestPlan', { params: { project_id: 'x', test_plan_id: 'p' }, query: { api_key: 'hunter2-secret' } })
      .catch((e) => e);
    expect(JSON.stringify(events) + err.message).not.toContain('hunter2-secret');
  });
});

describe('startSignal (Ctrl-C during apply)', () => {
  it('lets the request already sent finish, and never sends the queued ones', async () => {
    let arrived!: () => void;
    const firstArrived = new Promise<void>((r) => (arrived = r));
    const { server, client } = await setup(
      (r) => {
        if (r.n === 1) arrived();
        return { json: planJson(`p${r.n}`), delayMs: 150 };
      },
      { concurrency: 1, rateLimit: 1000 },
    );
    const stop = new AbortController();
    const calls = [1, 2, 3].map((i) =>
      client.call('createTestPlan', { params: { project_id: 'P' }, body: { title: `plan ${i}` }, startSignal: stop.signal }).then(
        (v) => ({ ok: true as const, v }),
        (e: ApiError) => ({ ok: false as const, code: e.code }),
      ),
    );
    await firstArrived;
    stop.abort();
    const results = await Promise.all(calls);
    expect(results[0]).toMatchObject({ ok: true });
    expect(results.slice(1)).toEqual([
      { ok: false, code: 'aborted' },
      { ok: false, code: 'aborted' },
    ]);
    expect(server.log.length).toBe(1);
  });
});

describe('startSignal and ambiguous creates', () => {
  it('keeps a sent create ambiguous when the stop comes while it is in flight, so it is looked up later', async () => {
    let arrived!: () => void;
    const firstArrived = new Promise<void>((r) => (arrived = r));
    const { client } = await setup(
      () => {
        arrived();
        return { reset: true, afterMs: 100 };
      },
      { concurrency: 1, rateLimit: 1000 },
    );
    const stop = new AbortController();
    const call = client.call('createTestPlan', { params: { project_id: 'P' }, body: { title: 'x' }, startSignal: stop.signal }).catch((e: ApiError) => e);
    await firstArrived;
    stop.abort();
    const err = (await call) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.code).not.toBe('aborted');
    expect(isAmbiguous(err)).toBe(true);
  });
});
