import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { KEY, api, folder, refs, start, testCase, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
let ids: Awaited<ReturnType<typeof refs>>;
beforeAll(async () => {
  ({ emu, http } = await start());
  ids = await refs(http);
});
afterAll(() => emu.close());

/** Every page of a list, 3 cases a page: the titles in order, and each page's total_count. */
async function walk(query: string): Promise<{ titles: string[]; totals: number[] }> {
  const titles: string[] = [];
  const totals: number[] = [];
  for (let page = 1; ; page++) {
    const r = await http.get(`/projects/DEMO/test_cases?page_size=3&page=${page}${query}`);
    expect(r.status).toBe(200);
    totals.push(r.body.page_info.total_count);
    const items = r.body.data.test_cases as { title: string; individual_steps: { step_description: string }[] }[];
    for (const c of items) {
      // each case carries its own steps, however the page was cut
      expect(c.individual_steps.map((s) => s.step_description)).toEqual([`${c.title} step 1`, `${c.title} step 2`]);
      titles.push(c.title);
    }
    if (items.length < 3) return { titles, totals };
  }
}

async function create(folderId: string, title: string) {
  const steps = [1, 2].map((n) => ({ step_description: `${title} step ${n}`, expected_results: 'ok' }));
  return testCase(http, ids, folderId, { title, individual_steps: steps });
}

/** The lists as a client sees them: the whole project's (only this test's cases) and each folder's. */
async function expectLists(model: Map<string, string[]>, order: string[]) {
  const all = order.filter((t) => [...model.values()].some((titles) => titles.includes(t)));
  const project = await walk('');
  expect(project.titles.filter((t) => all.includes(t))).toEqual(all);
  expect(new Set(project.totals).size).toBe(1);
  for (const [folderId, titles] of model) {
    const inFolder = await walk(`&folder_id=${folderId}`);
    expect(inFolder.titles).toEqual(order.filter((t) => titles.includes(t)));
    expect(inFolder.totals.every((n) => n === titles.length)).toBe(true);
  }
}

describe('case list pages', () => {
  it('pages the project and each folder exactly after creates, moves, edits and deletes', async () => {
    const a = await folder(http, 'Pages A');
    const b = await folder(http, 'Pages B');
    const order: string[] = [];
    const made = new Map<string, string>();
    for (let i = 0; i < 12; i++) {
      const title = `P${String(i).padStart(2, '0')}`;
      const c = await create(i % 3 === 0 ? b : a, title);
      made.set(title, c.id);
      order.push(title);
    }
    const model = new Map<string, string[]>([
      [a, order.filter((_, i) => i % 3 !== 0)],
      [b, order.filter((_, i) => i % 3 === 0)],
    ]);
    await expectLists(model, order);

    // a move keeps the case's place in the project and puts it in order in its new folder
    await http.put(`/projects/DEMO/test_cases/${made.get('P04')}`, { folder_id: b });
    model.set(a, model.get(a)!.filter((t) => t !== 'P04'));
    model.set(b, [...model.get(b)!, 'P04']);
    // a delete closes the gap on every later page
    await http.del(`/projects/DEMO/test_cases/${made.get('P01')}`);
    model.set(a, model.get(a)!.filter((t) => t !== 'P01'));
    order.splice(order.indexOf('P01'), 1);
    // a create goes last
    await create(a, 'P12');
    order.push('P12');
    model.set(a, [...model.get(a)!, 'P12']);
    await expectLists(model, order);

    // an edit of a field shows at once on its page
    await http.put(`/projects/DEMO/test_cases/${made.get('P05')}`, { title: 'P05 edited', individual_steps: [1, 2].map((n) => ({ step_description: `P05 edited step ${n}`, expected_results: 'ok' })) });
    order[order.indexOf('P05')] = 'P05 edited';
    model.set(a, model.get(a)!.map((t) => (t === 'P05' ? 'P05 edited' : t)));
    await expectLists(model, order);
  });

  it('drops the cases of a folder removed underneath them (a cascade) from every list', async () => {
    const keep = await folder(http, 'Cascade keep');
    const gone = await folder(http, 'Cascade gone');
    for (const t of ['C1', 'C2', 'C3', 'C4']) await create(t === 'C2' || t === 'C4' ? gone : keep, t);
    const before = await walk('');
    expect(before.titles.filter((t) => t.startsWith('C'))).toEqual(['C1', 'C2', 'C3', 'C4']);
    // the API refuses deleting a folder that holds cases; the database's own cascade does not ask
    emu.db.db.prepare('DELETE FROM folders WHERE id = ?').run(gone);
    const after = await walk('');
    expect(after.titles.filter((t) => t.startsWith('C'))).toEqual(['C1', 'C3']);
    expect(after.totals[0]).toBe(before.totals[0] - 2);
    expect((await walk(`&folder_id=${keep}`)).titles).toEqual(['C1', 'C3']);
  });

  it('answers an empty page past the end with the list total', async () => {
    const f = await folder(http, 'Past the end');
    await create(f, 'E1');
    const r = await http.get(`/projects/DEMO/test_cases?folder_id=${f}&page_size=3&page=5`);
    expect(r.body.data.test_cases).toEqual([]);
    expect(r.body.page_info.total_count).toBe(1);
  });
});

describe('page answers written into lent buffers', () => {
  it('are each whole and their own while many are in flight, and again once the buffers are given back', async () => {
    const f = await folder(http, 'Lent buffers');
    const titles = Array.from({ length: 60 }, (_, i) => `L${String(i).padStart(2, '0')}`);
    for (const t of titles) await create(f, t);
    // the 6th page of 10 is the smallest: a buffer lent for a larger page is written over by it
    const pageOf = (n: number) => http.get(`/projects/DEMO/test_cases?folder_id=${f}&page_size=10&page=${n}`);
    for (let round = 0; round < 3; round++) {
      const pages = await Promise.all(Array.from({ length: 24 }, (_, i) => pageOf((i % 6) + 1)));
      pages.forEach((r, i) => {
        expect(r.status).toBe(200);
        const page = (i % 6) + 1;
        expect(r.body.data.test_cases.map((c: { title: string }) => c.title)).toEqual(titles.slice((page - 1) * 10, page * 10));
        expect(r.body.page_info.total_count).toBe(60);
      });
    }
  });
});

describe('case lists after writes, against a fresh emulator on the same database', () => {
  it('walk in the order a restarted emulator reads, in every folder and the project, after creates, moves and deletes', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tmsync-lists-')), 'emu.sqlite');
    const walkAll = async (h: Api, folders: string[]) => {
      const out: Record<string, string[]> = {};
      for (const f of ['', ...folders]) {
        const ids: string[] = [];
        for (let page = 1; ; page++) {
          const items = (await h.get(`/projects/DEMO/test_cases?page_size=4&page=${page}${f ? `&folder_id=${f}` : ''}`)).body.data.test_cases as { id: string }[];
          ids.push(...items.map((c) => c.id));
          if (items.length < 4) break;
        }
        out[f || 'project'] = ids;
      }
      return out;
    };
    const first = await startEmulator({ db: file, apiKeys: [KEY], seed: 'demo' });
    let folders: string[];
    let before: Record<string, string[]>;
    try {
      const h = api(first);
      const r = await refs(h);
      folders = [await folder(h, 'Fresh A'), await folder(h, 'Fresh B'), await folder(h, 'Fresh C')];
      const made: string[] = [];
      // the lists are read between the writes, so each write meets lists already kept
      for (let i = 0; i < 18; i++) {
        made.push((await testCase(h, r, folders[i % 3], { title: `F${i}` })).id);
        if (i % 4 === 3) await walkAll(h, folders);
      }
      for (const [i, id] of made.entries()) {
        if (i % 5 === 0) await h.del(`/projects/DEMO/test_cases/${id}`);
        else if (i % 3 === 1) await h.put(`/projects/DEMO/test_cases/${id}`, { folder_id: folders[(i + 1) % 3] });
        if (i % 6 === 5) await walkAll(h, folders);
      }
      for (let i = 18; i < 22; i++) await testCase(h, r, folders[i % 3], { title: `F${i}` });
      before = await walkAll(h, folders);
    } finally {
      await first.close();
    }
    const second = await startEmulator({ db: file, apiKeys: [KEY] });
    try {
      expect(await walkAll(api(second), folders)).toEqual(before);
    } finally {
      await second.close();
    }
    expect(before.project.length).toBeGreaterThanOrEqual(18);
  });
});
