import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { READ_CACHE_FILE, ReadCache } from '../../src/remote/read-cache.js';
import { createClient, fetchState, resolveProject, scaledClock, type TmsClient } from '../../src/remote/index.js';
import type { ActualState, RemoteCase } from '../../src/model.js';
import { pageOf, startScripted, type LoggedRequest, type Reply, type ScriptedServer } from './scripted-server.js';

const PID = '11111111-2222-3333-4444-555555555555';
const project = { id: PID, name: 'Shop Project', human_id_prefix: 'SHOP', description: '', created_at: 1, updated_at: 1 };
const other = { id: '99999999-2222-3333-4444-555555555555', name: 'Other', human_id_prefix: 'OTH', description: '', created_at: 1, updated_at: 1 };
const folder = (id: string, name: string, parent: string | null, order = 0) => ({ id, name, project_id: PID, children: [], parent_folder_id: parent, order });
const kase = (i: number, folderId: string, extra: Record<string, unknown> = {}) => ({
  id: `c${i}`,
  human_id: `SHOP-${i}`,
  title: `Case ${i}`,
  project_id: PID,
  folder_id: folderId,
  created_at: 1_700_000_000_000,
  updated_at: 1_700_000_000_000,
  individual_steps: [{ id: `s${i}`, step_description: 'do', expected_results: 'done', order: 1, step_group_id: null }],
  label_ids: [],
  ...extra,
});
const lookups = (prefix: string) => [1, 2, 3].map((i) => ({ id: `${prefix}${i}`, name: `${prefix} ${i}`, order: i }));

interface World {
  folders: ReturnType<typeof folder>[];
  cases: ReturnType<typeof kase>[];
  groups: number;
  /** `updated_at` of step group i (default 1) */
  groupUpdatedAt?: Record<number, number>;
}

function service(w: World, delayMs = 0) {
  let inFlight = 0;
  const stats = { maxInFlight: 0 };
  const route = (r: LoggedRequest): Reply => {
    const p = r.path.replace('/api/v1', '');
    const pr = `/projects/${PID}`;
    if (p === '/projects') return { json: pageOf('projects', [project, other], r, '') };
    if (p === pr) return { json: { data: { project } } };
    if (p === `${pr}/folders`) return { json: pageOf('folders', w.folders, r, '') };
    if (p === `${pr}/test_cases`) return { json: pageOf('test_cases', w.cases, r, '') };
    const tc = p.match(/\/test_cases\/(c\d+)$/);
    if (tc) {
      const c = w.cases.find((x) => x.id === tc[1])!;
      const { individual_steps: _s, label_ids: _l, ...rest } = c;
      return { json: { data: { test_case: { ...rest, human_id: `SHOP-${c.id.slice(1)}` } } } };
    }
    const groups = Array.from({ length: w.groups }, (_, i) => ({ id: `g${i}`, title: `G${i}`, human_id: `SHOP-SG-${i}`, project_id: PID, created_at: 1, updated_at: w.groupUpdatedAt?.[i] ?? 1 }));
    if (p === `${pr}/step_groups`) return { json: pageOf('step_groups', groups, r, '') };
    const sg = p.match(/\/step_groups\/(g\d+)$/);
    if (sg) {
      const g = groups.find((x) => x.id === sg[1])!;
      return { json: { data: { step_group: { ...g, steps: [{ id: `${g.id}s1`, step_description: `x${g.updated_at}`, expected_results: 'y', order: 1, step_group_id: g.id }] } } } };
    }
    if (p === `${pr}/test_plans`) return { json: pageOf('test_plans', [{ id: 'tp1', title: 'R1', status: 'ACTIVE', created_at: 1, updated_at: 1 }], r, '') };
    if (p === '/test_cases/types') return { json: pageOf('types', lookups('type'), r, '') };
    if (p === '/test_cases/statuses') return { json: pageOf('statuses', lookups('status'), r, '') };
    if (p === '/test_cases/priorities') return { json: pageOf('priorities', lookups('prio'), r, '') };
    if (p === '/test_cases/automation_types') return { json: pageOf('automation_types', lookups('auto'), r, '') };
    if (p === '/test_runs/statuses') return { json: pageOf('statuses', lookups('run'), r, '') };
    if (p === '/users') return { json: { data: [{ id: 'u1', email: 'ana@example.com', first_name: 'Ana', last_name: 'A' }] } };
    if (p === '/labels') return { json: { data: { labels: [{ id: 'l1', name: 'smoke', createdAt: 1 }] } } };
    return { status: 404, json: { message: `no route ${p}` } };
  };
  const handler = async (r: LoggedRequest): Promise<Reply> => {
    inFlight++;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    if (delayMs) await new Promise((res) => setTimeout(res, delayMs));
    inFlight--;
    return route(r);
  };
  return { handler, stats };
}

/** one minute of real time on a clock scaled by 100 */
const REAL_MINUTE = 100 * 60_000;

let server: ScriptedServer | undefined;
let client: TmsClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function setup(w: World, options: { pageSize?: number; delayMs?: number } = {}) {
  const clock = scaledClock(100);
  const svc = service(w, options.delayMs);
  server = await startScripted(svc.handler, clock);
  // the clock runs 100 times fast: the default 30 s attempt timeout would be 0.3 s of real time, which a
  // busy machine can exceed and turn into a retry these counts do not expect; no test here is about timeouts
  client = createClient({ baseUrl: `${server.url}/api/v1`, apiKey: 'k-0000', clock, rateLimit: 1000, pageSize: options.pageSize, timeoutMs: REAL_MINUTE });
  return { server, client, svc };
}

const world = (): World => ({
  folders: [folder('f1', 'Checkout', ''), folder('f2', 'Payments', 'f1'), folder('f3', 'Auth', null, 1), folder('f4', 'Deep', 'f2')],
  cases: Array.from({ length: 25 }, (_, i) => kase(i + 1, ['f1', 'f2', 'f3', 'f4'][i % 4])),
  groups: 3,
});

describe('fetchState', () => {
  it('reads the whole project with one request per list page plus one GET per step group, and freezes the result', async () => {
    const { server, client } = await setup(world(), { pageSize: 10 });
    const state = await fetchState(client, 'SHOP');
    expect(state.project).toEqual({ id: PID, name: 'Shop Project', humanIdPrefix: 'SHOP', description: '' });
    expect(state.folders.map((f) => [f.id, f.parentId])).toEqual([
      ['f1', null],
      ['f2', 'f1'],
      ['f3', null],
      ['f4', 'f2'],
    ]);
    expect(state.cases).toHaveLength(25);
    expect(state.cases[0]).toMatchObject({ id: 'c1', humanId: 'SHOP-1', createdAt: 1_700_000_000, labelIds: [] });
    expect(state.stepGroups.map((g) => g.steps.length)).toEqual([1, 1, 1]);
    expect(state.testPlans[0]).toMatchObject({ id: 'tp1', status: 'ACTIVE' });
    expect(state.lookups.priorities.map((l) => l.name)).toEqual(['prio 1', 'prio 2', 'prio 3']);
    expect(state.users).toEqual([{ id: 'u1', email: 'ana@example.com', firstName: 'Ana', lastName: 'A' }]);
    expect(state.labels).toEqual([{ id: 'l1', name: 'smoke' }]);
    expect(state.labelsReadable).toBe(true);
    // projects 1 + folders 1 + cases 3 + step groups 1 + 3 GETs + plans 1 + lookups 5 + users 1 + labels 1
    expect(server.log).toHaveLength(17);
    expect(server.log.filter((r) => /test_cases\/c/.test(r.path))).toHaveLength(0);
    expect(Object.isFrozen(state)).toBe(true);
    expect(Object.isFrozen(state.cases[0].individualSteps[0])).toBe(true);
  });

  it('gives onRead the state without its cases, then each page of cases as it arrives; the result holds those very objects', async () => {
    const { client } = await setup(world(), { pageSize: 10 });
    const contexts: ActualState[] = [];
    const pages: (readonly RemoteCase[])[] = [];
    const state = await fetchState(client, 'SHOP', { onRead: { context: (s) => contexts.push(s), cases: (cs) => pages.push(cs) } });
    expect(contexts).toHaveLength(1);
    const context = contexts[0];
    expect(context.cases).toEqual([]);
    for (const key of ['folders', 'stepGroups', 'lookups', 'users', 'labels'] as const) expect(state[key]).toBe(context[key]);
    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat().every((c, i) => c === state.cases[i])).toBe(true);
  });

  it('reads users and labels before the case pages waiting for the rate limit: the state without its cases comes early', async () => {
    // everything waits for the rate limit: a chain of case pages must not keep users and labels waiting
    const clock = scaledClock(100);
    server = await startScripted(service({ ...world(), cases: Array.from({ length: 40 }, (_, i) => kase(i + 1, 'f1')) }).handler, clock);
    client = createClient({ baseUrl: `${server.url}/api/v1`, apiKey: 'k-0000', clock, rateLimit: 4, concurrency: 1, pageSize: 1, timeoutMs: REAL_MINUTE });
    let pagesBeforeContext: number | undefined;
    let pages = 0;
    await fetchState(client, 'SHOP', { onRead: { context: () => (pagesBeforeContext = pages), cases: () => void pages++ } });
    const order = server.log.map((r) => r.path.replace('/api/v1', '').replace(`/projects/${PID}`, ''));
    const firstPages = order.flatMap((p, i) => (p === '/test_cases' ? [i] : [])).slice(0, 3);
    for (const p of ['/users', '/labels']) expect(order.indexOf(p)).toBeLessThan(firstPages[2]);
    expect(pagesBeforeContext).toBeLessThan(10);
  });

  it('GETs only the cases whose list entry lacks a human id, and marks labels unreadable when the list omits them', async () => {
    const w = world();
    w.cases = w.cases.map((c, i) => {
      const { label_ids: _drop, ...rest } = c;
      return i < 3 ? { ...rest, human_id: undefined } : rest;
    }) as World['cases'];
    const { server, client } = await setup(w);
    const state = await fetchState(client, PID);
    expect(state.cases.slice(0, 3).map((c) => c.humanId)).toEqual(['SHOP-1', 'SHOP-2', 'SHOP-3']);
    expect(server.log.filter((r) => /test_cases\/c\d+$/.test(r.path))).toHaveLength(3);
    expect(state.labelsReadable).toBe(false);
    expect(state.cases.every((c) => c.labelIds === undefined)).toBe(true);
  });

  it("reads labels the list reports as objects (the live shape) without a request per case", async () => {
    const w = world();
    w.cases = w.cases.map((c) => {
      const { label_ids: _drop, ...rest } = c;
      return { ...rest, labels: [{ id: 'l1', name: 'smoke', createdAt: 1_700_000_000_000, updatedAt: 1_700_000_000_000 }] };
    }) as unknown as World['cases'];
    const { server, client } = await setup(w);
    const state = await fetchState(client, PID);
    expect(state.labelsReadable).toBe(true);
    expect(state.cases.every((c) => c.labelIds?.length === 1 && c.labelIds[0] === 'l1')).toBe(true);
    expect(server.log.filter((r) => /test_cases\/c\d+$/.test(r.path))).toHaveLength(0);
  });

  it('keeps only the scoped top-level folders, their subfolders and their cases', async () => {
    const { client } = await setup(world());
    const state = await fetchState(client, 'Shop Project', { scope: ['Checkout'] });
    expect(state.folders.map((f) => f.id).sort()).toEqual(['f1', 'f2', 'f4']);
    expect(new Set(state.cases.map((c) => c.folderId))).toEqual(new Set(['f1', 'f2', 'f4']));
    expect(state.cases).toHaveLength(19);
    expect(state.stepGroups).toHaveLength(3);
  });

  it('skips the project lookup when given a resolved project', async () => {
    const { server, client } = await setup(world());
    const project = await resolveProject(client, 'SHOP');
    const before = server.log.length;
    const state = await fetchState(client, project);
    expect(state.project).toEqual(project);
    expect(server.log.slice(before).some((r) => r.path.endsWith('/projects') || r.path.endsWith(`/projects/${PID}`))).toBe(false);
  });

  it('runs independent reads concurrently', async () => {
    const { client, svc } = await setup(world(), { delayMs: 15 });
    await fetchState(client, 'SHOP');
    expect(svc.stats.maxInFlight).toBeGreaterThanOrEqual(3);
  });

  it('rebuilds folders that an answer nests under children', async () => {
    const w = world();
    w.folders = [{ ...folder('f1', 'Checkout', ''), children: [folder('f2', 'Payments', 'f1')] } as never, folder('f3', 'Auth', null)];
    const { client } = await setup(w);
    const state = await fetchState(client, 'SHOP');
    expect(state.folders.map((f) => [f.id, f.parentId])).toEqual([
      ['f1', null],
      ['f2', 'f1'],
      ['f3', null],
    ]);
  });
});

describe('resolveProject', () => {
  it('finds a project by id, by prefix in any case, and by exact name', async () => {
    const { client } = await setup(world());
    expect((await resolveProject(client, PID)).humanIdPrefix).toBe('SHOP');
    expect((await resolveProject(client, 'shop')).id).toBe(PID);
    expect((await resolveProject(client, 'Other')).humanIdPrefix).toBe('OTH');
  });

  it('names the available projects when none matches', async () => {
    const { client } = await setup(world());
    const err = await resolveProject(client, 'Nope').catch((e) => e);
    expect(err.code).toBe('project_not_found');
    expect(err.hint).toContain('Shop Project (SHOP)');
    expect(err.hint).toContain('Other (OTH)');
  });

});

describe('fetchState with the read cache of the last run', () => {
  const perItem = (log: LoggedRequest[]) => log.filter((r) => /\/(test_cases\/c|step_groups\/g)\d+$/.test(r.path)).map((r) => r.path.replace(/.*\/(test_cases|step_groups)\//, '$1/'));
  const noHumanIds = (w: World) => {
    w.cases = w.cases.map((c, i) => (i < 3 ? { ...c, human_id: undefined } : c)) as World['cases'];
    return w;
  };

  it('skips the step group and case GETs whose updated_at is unchanged and re-reads exactly the changed ones', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-read-cache-'));
    try {
      const w = noHumanIds(world());
      const { server, client } = await setup(w);
      const first = await fetchState(client, PID, { cache: await ReadCache.load(root, 'svc|p') });
      expect(perItem(server.log).sort()).toEqual(['step_groups/g0', 'step_groups/g1', 'step_groups/g2', 'test_cases/c1', 'test_cases/c2', 'test_cases/c3']);
      const cache1 = await ReadCache.load(root, 'svc|p');
      // nothing saved yet: everything is read again
      expect(cache1.stepGroup('g0', 1)).toBeUndefined();

      const c = ReadCache.empty('svc|p');
      await fetchState(client, PID, { cache: c });
      await c.save(root);
      server.log.length = 0;
      const second = await fetchState(client, PID, { cache: await ReadCache.load(root, 'svc|p') });
      expect(perItem(server.log)).toEqual([]);
      expect(second.stepGroups).toEqual(first.stepGroups);
      expect(second.cases).toEqual(first.cases);

      // one step group and one case changed on the service since
      w.groupUpdatedAt = { 1: 2 };
      w.cases[1] = { ...w.cases[1], updated_at: 1_700_000_000_500 };
      const cache3 = await ReadCache.load(root, 'svc|p');
      server.log.length = 0;
      const third = await fetchState(client, PID, { cache: cache3 });
      expect(perItem(server.log).sort()).toEqual(['step_groups/g1', 'test_cases/c2']);
      expect(third.stepGroups.find((g) => g.id === 'g1')!.steps[0].description).toBe('x2');
      expect(third.stepGroups.find((g) => g.id === 'g0')!.steps[0].description).toBe('x1');
      await cache3.save(root);
      server.log.length = 0;
      await fetchState(client, PID, { cache: await ReadCache.load(root, 'svc|p') });
      expect(perItem(server.log)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('ignores a corrupt cache, one of another format version and one written for another project: everything is read again', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-read-cache-'));
    try {
      const { server, client } = await setup(noHumanIds(world()));
      const c = ReadCache.empty('svc|p');
      await fetchState(client, PID, { cache: c });
      await c.save(root);
      const file = join(root, READ_CACHE_FILE);
      const text = await readFile(file, 'utf8');
      // a whole file that cannot be trusted is ignored; an entry that cannot, only that entry
      const variants: [string, number][] = [
        ['{"format_version":1,"target":"svc|p","step_groups":{"g0":', 6],
        [text.replace('"format_version":1', '"format_version":2'), 6],
        [text.replace('"target":"svc|p"', '"target":"svc|other"'), 6],
        [text.replace(/"steps":\[[^\]]*\]/g, '"steps":"nope"'), 3],
      ];
      for (const [v, reads] of variants) {
        await mkdir(join(root, '.tmsync', 'cache'), { recursive: true });
        await writeFile(file, v);
        server.log.length = 0;
        const state = await fetchState(client, PID, { cache: await ReadCache.load(root, 'svc|p') });
        expect(perItem(server.log)).toHaveLength(reads);
        expect(state.stepGroups.map((g) => g.steps.length)).toEqual([1, 1, 1]);
      }
      await writeFile(file, text);
      server.log.length = 0;
      await fetchState(client, PID, { cache: await ReadCache.load(root, 'svc|p') });
      expect(perItem(server.log)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
