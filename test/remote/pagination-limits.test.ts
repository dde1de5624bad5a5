import { afterEach, describe, expect, it } from 'vitest';
import type { TmsyncError } from '../../src/errors.js';
import { createClient, scaledClock, type ClientOptions, type TmsClient } from '../../src/remote/index.js';
import { paginatePages, type PageShape, type Query } from '../../src/remote/paginate.js';
import { startScripted, type LoggedRequest, type Reply, type ScriptedServer } from './scripted-server.js';

const KEY = 'sk-live-0123456789abcdef';
const item = (i: number) => ({ id: `id-${i}`, name: `Name ${i}`, order: i, alias: `n${i}` });

let server: ScriptedServer | undefined;
let client: TmsClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: (r: LoggedRequest) => Reply, options: Partial<ClientOptions> = {}) {
  const clock = scaledClock(100);
  server = await startScripted(handler, clock);
  // the clock runs 100 times fast: the default 30 s attempt timeout would be 0.3 s of real time, which a busy
  // machine can exceed (no retries here: the test would fail); no test here is about timeouts
  client = createClient({ baseUrl: `${server.url}/api/v1`, apiKey: KEY, clock, random: () => 0.5, rateLimit: 1000, maxRetries: 0, timeoutMs: 100 * 60_000, ...options });
  return { server, client };
}

async function readAll(c: TmsClient): Promise<unknown[]> {
  const got: unknown[] = [];
  for await (const x of c.paginate('listCaseTypes')) got.push(x);
  return got;
}

/** A hostile list: every page has a `next` that advances forever. */
const endless = (opts: { total?: number; perPage: number; cursor?: boolean }) => (r: LoggedRequest): Reply => {
  const page = Number(r.query.get('page') ?? r.query.get('cursor') ?? 1);
  const size = Number(r.query.get('page_size') ?? 10);
  return {
    json: {
      message: '',
      data: { types: Array.from({ length: opts.perPage }, (_, i) => item(page * 1000 + i)) },
      page_info: {
        page_size: size,
        ...(opts.total !== undefined ? { total_count: opts.total } : {}),
        next: opts.cursor ? String(page + 1) : `${r.path}?page=${page + 1}&page_size=${size}`,
      },
    },
  };
};

describe('endless pagination', () => {
  it('stops with pagination_runaway once more items arrive than total_count says the list holds', async () => {
    const { server, client } = await setup(endless({ total: 30, perPage: 10 }), { pageSize: 10, prefetchPages: 0 });
    const err = await readAll(client).catch((e) => e);
    expect(err.code).toBe('pagination_runaway');
    expect(err.message).toMatch(/40 items read, but the service says the list holds 30 \(total_count\)/);
    expect(server.log).toHaveLength(4);
  });

  it('stops with pagination_runaway when pages exceed ceil(total_count / page_size) + 2, even when they are empty', async () => {
    const { server, client } = await setup(endless({ total: 30, perPage: 0 }), { pageSize: 10, prefetchPages: 0 });
    const err = await readAll(client).catch((e) => e);
    expect(err.code).toBe('pagination_runaway');
    expect(err.message).toMatch(/6 pages read, more than the 5 that 30 items \(total_count\) in pages of 10 need/);
    expect(server.log).toHaveLength(6);
  });

  // the response schemas require total_count, so a list without one is walked by paginatePages
  // directly (the cap guards services and endpoints that give no total)
  const noTotal = (pages: number) => {
    const asked: Query[] = [];
    const fetchPage = async (q: Query): Promise<PageShape> => {
      asked.push(q);
      const page = Number(q.cursor ?? 1);
      return { data: { types: [item(page)] }, page_info: { next: page < pages ? String(page + 1) : '' } };
    };
    const walk = (maxPages: number) =>
      (async () => {
        const got: unknown[] = [];
        const o = { key: 'types', base: {}, pageSize: 1, cursorParam: 'cursor', baseUrl: 'http://x/api/v1', prefetch: 0, describe: 'GET /types', endpoint: 'listCaseTypes', maxPages };
        for await (const x of paginatePages(fetchPage, o)) got.push(x);
        return got;
      })();
    return { asked, walk };
  };

  it('stops a list without total_count after max_pages pages and says which setting to raise', async () => {
    const { asked, walk } = noTotal(1_000_000);
    const err = await walk(5).catch((e) => e);
    expect(err.code).toBe('pagination_runaway');
    expect(err.message).toMatch(/more than 5 pages \(max_pages\) and the service gives no total_count/);
    expect(err.hint).toMatch(/max_pages/);
    expect(asked).toHaveLength(6);
  });

  it('stops a list whose total_count grows by a page on every page after max_pages pages, naming both totals', async () => {
    const asked: Query[] = [];
    const fetchPage = async (q: Query): Promise<PageShape> => {
      asked.push(q);
      const page = Number(q.cursor ?? 1);
      // always one page more than read so far: items never exceed the total, pages never the bound
      return { data: { types: [item(page)] }, page_info: { page_size: 1, total_count: page + 2, next: String(page + 1) } };
    };
    const o = { key: 'types', base: {}, pageSize: 1, cursorParam: 'cursor', baseUrl: 'http://x/api/v1', prefetch: 0, describe: 'GET /types', endpoint: 'listCaseTypes', maxPages: 20 };
    const err = await (async () => {
      for await (const x of paginatePages(fetchPage, o)) void x;
    })().catch((e: unknown) => e);
    expect((err as TmsyncError).code).toBe('pagination_runaway');
    expect((err as TmsyncError).message).toBe('GET /types: stopped reading the list: 21 pages read while total_count kept growing (3 when the walk began, 23 now), more than 20 (max_pages)');
    expect(asked).toHaveLength(21);
  });

  it('reads a list without total_count of exactly max_pages pages', async () => {
    const { walk } = noTotal(5);
    expect(await walk(5)).toHaveLength(5);
  });

  it('reads a list whose pages hold fewer items than the page_size they announce without stopping it as endless', async () => {
    const items = Array.from({ length: 100 }, (_, i) => item(i));
    const { client } = await setup(
      (r) => {
        // the service clamps pages to 5 items but echoes the page_size asked for
        const page = Number(r.query.get('page') ?? 1);
        const more = page * 5 < items.length;
        return { json: { message: '', data: { types: items.slice((page - 1) * 5, page * 5) }, page_info: { page_size: 50, total_count: 100, next: more ? `${r.path}?page=${page + 1}&page_size=50` : '' } } };
      },
      { pageSize: 50, prefetchPages: 0 },
    );
    expect(await readAll(client)).toHaveLength(100);
  });

  it('follows a list whose total grows while it is read without stopping it as endless', async () => {
    const items = Array.from({ length: 20 }, (_, i) => item(i));
    const { client } = await setup(
      (r) => {
        const page = Number(r.query.get('page') ?? 1);
        if (page === 2) items.push(...Array.from({ length: 15 }, (_, i) => item(100 + i)));
        const slice = items.slice((page - 1) * 10, page * 10);
        const more = page * 10 < items.length;
        return { json: { message: '', data: { types: slice }, page_info: { page_size: 10, total_count: items.length, next: more ? `${r.path}?page=${page + 1}&page_size=10` : '' } } };
      },
      { pageSize: 10, prefetchPages: 0 },
    );
    expect(await readAll(client)).toHaveLength(35);
  });
});

describe('a list that changes while it is read', () => {
  const options = (prefetch = 0) => ({ key: 'types', base: {}, pageSize: 10, cursorParam: 'cursor', baseUrl: 'http://x/api/v1', prefetch, describe: 'GET /types', endpoint: 'listCaseTypes' });
  const walk = async (fetchPage: (q: Query) => Promise<PageShape>, prefetch = 0) => {
    const got: string[] = [];
    for await (const x of paginatePages(fetchPage, options(prefetch))) got.push((x as { id: string }).id);
    return got;
  };

  it('stops at once when a next keeps serving the same items under a huge total_count, and gives up after a bounded number of walks', async () => {
    const asked: Query[] = [];
    const fetchPage = async (q: Query): Promise<PageShape> => {
      asked.push(q);
      const page = Number(q.cursor ?? 0);
      // a cursor that advances forever, always the same ten items, a total that allows a million pages
      return { data: { types: Array.from({ length: 10 }, (_, i) => item(i)) }, page_info: { page_size: 10, total_count: 10_000_000, next: String(page + 1) } };
    };
    const err = await walk(fetchPage).catch((e: unknown) => e);
    expect((err as TmsyncError).code).toBe('list_changed');
    expect((err as TmsyncError).message).toBe(
      'GET /types: the list changed while it was read, 3 times in a row (item id-0 came twice; item id-0 came twice; item id-0 came twice)',
    );
    // two pages a walk: the first, and the one that repeats it
    expect(asked).toHaveLength(6);
  });

  /** An offset-paged list of `n` items; `change(pageAnswered)` may edit it after a page is answered. */
  const offsetList = (n: number, change: (page: number, items: ReturnType<typeof item>[]) => void) => {
    const items = Array.from({ length: n }, (_, i) => item(i));
    const asked: Query[] = [];
    const fetchPage = async (q: Query): Promise<PageShape> => {
      asked.push(q);
      const page = Number(q.page ?? 1);
      const answer: PageShape = {
        data: { types: items.slice((page - 1) * 10, page * 10) },
        page_info: { page_size: 10, total_count: items.length, next: page * 10 < items.length ? `/types?page=${page + 1}&page_size=10` : '' },
      };
      change(page, items);
      return answer;
    };
    return { items, asked, fetchPage };
  };

  it('reads the list again when an item is deleted between two pages, so the item shifted onto a page already read is not passed over', async () => {
    let deleted = false;
    const { asked, fetchPage } = offsetList(30, (page, items) => {
      if (page === 1 && !deleted) {
        deleted = true;
        items.splice(4, 1); // id-4
      }
    });
    const got = await walk(fetchPage);
    // id-10 moved onto page 1 after it was read: only the second walk sees it
    expect(got).toContain('id-10');
    expect(new Set(got).size).toBe(got.length);
    expect(got.filter((id) => id !== 'id-4').sort()).toEqual(Array.from({ length: 30 }, (_, i) => `id-${i}`).filter((id) => id !== 'id-4').sort());
    // the first walk stops at the page whose total fell; the second is whole
    expect(asked.map((q) => q.page ?? 1).map(String)).toEqual(['1', '2', '1', '2', '3']);
  });

  it('reads the list again when an item is inserted before the pages still to read (an item comes twice), with pages fetched ahead', async () => {
    let added = false;
    const { fetchPage } = offsetList(30, (page, items) => {
      if (page === 1 && !added) {
        added = true;
        items.unshift(item(99));
      }
    });
    const got = await walk(fetchPage, 4);
    expect(new Set(got).size).toBe(got.length);
    expect(got.sort()).toEqual([...Array.from({ length: 30 }, (_, i) => `id-${i}`), 'id-99'].sort());
  });

  it('gives up with list_changed after a bounded number of walks when every walk sees a deletion', async () => {
    const { asked, fetchPage } = offsetList(100, (page, items) => {
      if (page === 1) items.splice(0, 1);
    });
    const err = await walk(fetchPage).catch((e: unknown) => e);
    expect((err as TmsyncError).code).toBe('list_changed');
    expect((err as TmsyncError).message).toMatch(/changed while it was read, 3 times in a row \(total_count fell from 100 to 99; total_count fell from 99 to 98; total_count fell from 98 to 97\)/);
    expect((err as TmsyncError).hint).toMatch(/run the command again/);
    expect(asked).toHaveLength(6);
  });

  it('takes a total that is off for what it is: a second walk that brings nothing new ends the read', async () => {
    const asked: Query[] = [];
    const fetchPage = async (q: Query): Promise<PageShape> => {
      asked.push(q);
      return { data: { types: [item(1), item(2)] }, page_info: { page_size: 10, total_count: 3, next: '' } };
    };
    expect(await walk(fetchPage)).toEqual(['id-1', 'id-2']);
    expect(asked).toHaveLength(2);
  });

  it('reads a list that does not change once', async () => {
    const { asked, fetchPage } = offsetList(30, () => undefined);
    expect(await walk(fetchPage)).toHaveLength(30);
    expect(asked).toHaveLength(3);
  });
});

describe('answer size cap', () => {
  const big = (r: LoggedRequest, headers: Record<string, string> = {}): Reply => ({
    headers,
    json: { message: '', data: { types: Array.from({ length: 200, }, (_, i) => item(i)) }, page_info: { page_size: 200, total_count: 200, next: '' } },
  });

  it('fails with response_too_large when Content-Length announces more than max_response_size', async () => {
    const { client } = await setup((r) => big(r), { maxResponseBytes: 4096 });
    const err = await readAll(client).catch((e) => e);
    expect(err.code).toBe('response_too_large');
    expect(err.message).toMatch(/larger than max_response_size \(4 KiB\)/);
    expect(err.hint).toMatch(/max_response_size/);
  });

  it('stops reading a chunked answer as soon as it passes max_response_size', async () => {
    const { client } = await setup((r) => big(r, { 'transfer-encoding': 'chunked' }), { maxResponseBytes: 4096 });
    const err = await readAll(client).catch((e) => e);
    expect(err.code).toBe('response_too_large');
    expect(err.message).toMatch(/larger than max_response_size \(4 KiB\)/);
  });

  it('reads an answer under the cap', async () => {
    const { client } = await setup((r) => big(r), { maxResponseBytes: 1024 * 1024 });
    expect(await readAll(client)).toHaveLength(200);
  });
});
