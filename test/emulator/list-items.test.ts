import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as db from '../../src/emulator/db/index.js';
import type { EndpointContext } from '../../src/emulator/http.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { handlers } from '../../src/emulator/routes/index.js';
import { folder, refs, start, testCase, type Api } from './helpers.js';

let emu: RunningEmulator;
let http: Api;
let ids: Awaited<ReturnType<typeof refs>>;
beforeAll(async () => {
  ({ emu, http } = await start());
  ids = await refs(http);
});
afterAll(() => emu.close());

interface Item {
  id: string;
  title: string;
  individual_steps: { step_description: string; step_group_id: string | null }[];
}

const list = async (folderId: string) => (await http.get(`/projects/DEMO/test_cases?folder_id=${folderId}&page_size=100`)).body as { data: { test_cases: Item[] }; page_info: { total_count: number } };

/** The list page as the handler answers it, called directly: the way to read a list inside a transaction. */
function listInProcess(folderId: string): Item[] {
  const c = {
    params: { project_id: 'DEMO' },
    query: { folder_id: folderId, page_size: 100 },
    body: undefined,
    db: emu.db,
    urls: { origin: emu.appUrl, baseUrl: emu.baseUrl, assetsUrl: emu.assetsUrl },
    request: { url: `/api/v1/projects/DEMO/test_cases?folder_id=${folderId}&page_size=100` } as FastifyRequest,
    now: Date.now,
    runDurationMs: 0,
    dialect: 'document',
    filters: [],
  } satisfies EndpointContext<'listTestCases'>;
  const reply = handlers.listTestCases(c) as { body: Buffer };
  return (JSON.parse(reply.body.toString('utf8')) as { data: { test_cases: Item[] } }).data.test_cases;
}

/** Rolls back whatever `fn` wrote. */
function rolledBack(fn: () => void): void {
  const rollback = new Error('roll back');
  expect(() =>
    emu.db.tx(() => {
      fn();
      throw rollback;
    }),
  ).toThrow(rollback);
}

describe('kept list items', () => {
  it('are byte-identical to items built afresh, after edits of rows and steps and a step group deletion clearing a step', async () => {
    const f = await folder(http, 'Kept items');
    const sg = (await http.post('/projects/DEMO/step_groups', { title: 'Kept SG', steps: [{ step_description: 's', expected_result: 'r', order: 1 }] })).body.data.step_group;
    const made = [];
    for (const n of [1, 2, 3]) {
      made.push(await testCase(http, ids, f, { title: `K${n}`, individual_steps: [{ step_description: `K${n} a`, expected_results: 'ok', step_group_id: sg.id }] }));
    }
    // the `__` filter path builds every item afresh; the plain path serves kept items
    const afresh = async () => {
      const text = (await http.get(`/projects/DEMO/test_cases?folder_id=${f}&page_size=100&title__CONTAINS=K`)).text;
      return JSON.stringify((JSON.parse(text) as { data: unknown }).data);
    };
    const kept = async () => JSON.stringify((await list(f)).data);
    expect(await kept()).toBe(await afresh());
    expect(await kept()).toBe(await afresh()); // a second read serves what the first kept

    await http.put(`/projects/DEMO/test_cases/${made[0].id}`, { title: 'K1 edited' });
    await http.put(`/projects/DEMO/test_cases/${made[1].id}`, { individual_steps: [{ step_description: 'K2 b', expected_results: 'ok' }] });
    expect(await kept()).toBe(await afresh());
    expect((await list(f)).data.test_cases.map((c) => c.title)).toEqual(['K1 edited', 'K2', 'K3']);

    // a step group's deletion clears the steps' group through the database (ON DELETE SET NULL)
    expect((await http.del(`/projects/DEMO/step_groups/${sg.id}`)).status).toBe(204);
    const items = (await list(f)).data.test_cases;
    expect(items.map((c) => c.individual_steps.map((s) => s.step_group_id))).toEqual([[null], [null], [null]]);
    expect(await kept()).toBe(await afresh());
  });

  it('builds a page of many changed cases through its range, byte-identical to items built afresh', async () => {
    const f = await folder(http, 'Many changed');
    for (let n = 0; n < 20; n++) await testCase(http, ids, f, { title: `M${n}`, individual_steps: [{ step_description: `M${n} a`, expected_results: 'ok' }] });
    // changed underneath the API: none of the new values is kept, and more than a few are missing
    emu.db.db.prepare("UPDATE cases SET description = 'changed in bulk' WHERE folder_id = ?").run(f);
    const page = await list(f);
    expect(page.data.test_cases.map((c) => (c as Item & { description: string }).description)).toEqual(Array(20).fill('changed in bulk'));
    const afresh = (await http.get(`/projects/DEMO/test_cases?folder_id=${f}&page_size=100&title__CONTAINS=M`)).body as { data: unknown };
    expect(JSON.stringify(page.data)).toBe(JSON.stringify(afresh.data));
  });

  it('drops every kept item when more changes were made since the last read than the log of changed cases keeps', async () => {
    const f = await folder(http, 'Log overrun');
    const c = await testCase(http, ids, f, { title: 'Overrun v1' });
    const other = await testCase(http, ids, f, { title: 'Other' });
    expect((await list(f)).data.test_cases.map((x) => x.title)).toEqual(['Overrun v1', 'Other']);
    const update = emu.db.db.prepare('UPDATE cases SET title = ? WHERE id = ?');
    update.run('Overrun v2', c.id);
    // the log keeps the last 4,096 to 4,351 entries: the first change above is no longer in it
    emu.db.tx(() => {
      for (let i = 0; i < 4400; i++) update.run(`Other ${i}`, other.id);
    });
    expect(emu.db.db.prepare('SELECT count(*) AS n FROM case_changes WHERE case_id = ?').get(c.id)).toEqual({ n: 0 });
    expect((emu.db.db.prepare('SELECT count(*) AS n FROM case_changes').get() as { n: number }).n).toBeLessThanOrEqual(4351);
    expect((await list(f)).data.test_cases.map((x) => x.title)).toEqual(['Overrun v2', 'Other 4399']);
  });

  it('never keeps an item read inside a transaction that rolls back (the next write numbers its change-log entries the same)', async () => {
    const f = await folder(http, 'Rollback items');
    const c = await testCase(http, ids, f, { title: 'Committed v1' });
    expect((await list(f)).data.test_cases.map((x) => x.title)).toEqual(['Committed v1']);
    const current = db.findCase(emu.db, c.project_id, c.id)!;
    rolledBack(() => {
      db.updateCase(emu.db, current, { title: 'Rolled back' }, undefined);
      // read inside the transaction: it sees its own write, numbering its change-log entry as the next write will
      expect(listInProcess(f).map((x) => x.title)).toEqual(['Rolled back']);
    });
    expect(db.findCase(emu.db, c.project_id, c.id)!.title).toBe('Committed v1');
    await http.put(`/projects/DEMO/test_cases/${c.id}`, { title: 'Committed v2' });
    expect((await list(f)).data.test_cases.map((x) => x.title)).toEqual(['Committed v2']);
  });

  it("never keeps a list's order read inside a transaction that rolls back (its list version is counted again by the next write)", async () => {
    const a = await folder(http, 'Rollback order A');
    const b = await folder(http, 'Rollback order B');
    await testCase(http, ids, a, { title: 'A1' });
    expect((await list(a)).page_info.total_count).toBe(1);
    const project = db.findProject(emu.db, 'DEMO')!;
    const fields = { ...db.findCase(emu.db, project.id, (await list(a)).data.test_cases[0].id)!, title: 'A2 rolled back' };
    rolledBack(() => {
      db.insertCase(emu.db, project.id, project.human_id_prefix, fields, []);
      expect(listInProcess(a).map((x) => x.title)).toEqual(['A1', 'A2 rolled back']);
    });
    // the next insert takes the same list version and the same position, in another folder
    await testCase(http, ids, b, { title: 'B1' });
    const inA = await list(a);
    expect(inA.data.test_cases.map((x) => x.title)).toEqual(['A1']);
    expect(inA.page_info.total_count).toBe(1);
    expect((await list(b)).data.test_cases.map((x) => x.title)).toEqual(['B1']);
  });
});
