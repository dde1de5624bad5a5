import { mkdir, mkdtemp, readFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceUser } from '../support/api.js';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CLIENT_DEFAULTS, createClient, resolveProject } from '../../src/remote/index.js';
import { SYNC_BASE_FILE } from '../../src/base/base.js';
import { LIVE_PAGE_SIZE_CAP, TEST_DIALECT } from '../dialect.js';
import { demoConfigYaml } from '../support/demo-config.js';
import { startHookProxy, type HookProxy, type PassingAnswer } from '../support/hook-proxy.js';
import { seededEmulator } from '../support/emulator.js';

/**
 * Issue 24, item 2: a case deleted on the service while its list is read page by page. An offset
 * moves past the case that takes the deleted one's place: the read must see it all the same. The
 * deletion is made by a proxy in front of the emulator once the first page of the case list is
 * answered and before the client gets it, so the client's next page is asked after it, always.
 */

const API_KEY = 'paged-read-e2e-key';
const CASES = 250;
/** the items on a page of the case list as tmsync reads it in this dialect */
const PAGE = TEST_DIALECT === 'live' ? LIVE_PAGE_SIZE_CAP : CLIENT_DEFAULTS.pageSize;

interface ListedCase {
  id: string;
  human_id?: string;
  title: string;
}

describe('a case deleted while the case list is read', () => {
  let emu: RunningEmulator;
  let proxy: HookProxy;
  let root: string;
  let projectId: string;

  const tmsync = async (...args: string[]) => {
    return runCli(args, { cwd: root, env: { TMSYNC_API_KEY: API_KEY } });
  };
  const direct = () => createClient({ baseUrl: emu.baseUrl, apiKey: API_KEY, rateLimit: 1000 });
  /** the project's cases in list order, read straight from the emulator */
  const listCases = async (): Promise<ListedCase[]> => {
    const c = direct();
    try {
      const out: ListedCase[] = [];
      for await (const x of c.paginate('listTestCases', { params: { project_id: projectId } })) out.push({ id: x.id, human_id: x.human_id ?? undefined, title: x.title });
      return out;
    } finally {
      await c.close();
    }
  };
  const exists = async (ref: string): Promise<boolean> => {
    const res = await fetch(`${emu.baseUrl}/projects/${projectId}/test_cases/${encodeURIComponent(ref)}`, { headers: { authorization: `Bearer ${API_KEY}` } });
    if (res.status !== 200 && res.status !== 404) throw new Error(`GET case ${ref}: ${res.status}`);
    return res.status === 200;
  };
  const api = (method: string, path: string, body?: unknown) => serviceUser(emu.baseUrl, API_KEY)(method, path, body);
  const isCaseList = (a: PassingAnswer) => a.method === 'GET' && /\/projects\/[^/]+\/test_cases$/.test(a.path);
  /**
   * Once the first page of the whole case list is answered: the page's second case is deleted
   * (and `also` runs); returns what was deleted once it was.
   */
  const deleteDuringRead = (also?: (page: ListedCase[]) => Promise<void>) => {
    let deleted: ListedCase | undefined;
    proxy.onAnswer = async (a) => {
      if (deleted || !isCaseList(a) || a.query.has('folder_id') || a.query.has('title__CONTAINS') || a.query.has('search')) return;
      const page = (JSON.parse(a.body.toString('utf8')) as { data: { test_cases: ListedCase[] } }).data.test_cases;
      deleted = page[1];
      await api('DELETE', `/projects/${projectId}/test_cases/${deleted.id}`);
      await also?.(page);
    };
    return () => {
      proxy.onAnswer = undefined;
      expect(deleted, 'the case list was read').toBeDefined();
      return deleted!;
    };
  };
  /** the files of the cases, by the `id:` each holds */
  const filesById = async (): Promise<Map<string, string>> => {
    const dir = join(root, 'cases', 'Paged');
    const out = new Map<string, string>();
    for (const name of await readdir(dir)) {
      const m = /^id: (\S+)$/m.exec(await readFile(join(dir, name), 'utf8'));
      if (m) out.set(m[1], `cases/Paged/${name}`);
    }
    return out;
  };
  const fileOf = async (c: ListedCase) => {
    const files = await filesById();
    const file = files.get(c.human_id ?? '') ?? files.get(c.id);
    expect(file, `the file of ${c.title}`).toBeDefined();
    return file!;
  };
  /** the case the first page's offset would pass over once one of its cases is deleted */
  const passedOver = async () => (await listCases())[PAGE];

  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    proxy = await startHookProxy(emu.appUrl);
    root = await mkdtemp(join(tmpdir(), 'tmsync-paged-read-'));
    await writeFile(join(root, 'tmsync.yaml'), demoConfigYaml(proxy.baseUrl, { rate_limit: 1000, concurrency: 4 }));
    await mkdir(join(root, 'cases', 'Paged'), { recursive: true });
    for (let i = 1; i <= CASES; i++) {
      const n = String(i).padStart(3, '0');
      await writeFile(join(root, 'cases', 'Paged', `case-${n}.yaml`), `title: Case ${n}\ndescription: Case ${n} as written\n`);
    }
    const first = await tmsync('apply', '--auto-approve');
    expect(first.code, first.err).toBe(0);
    const c = direct();
    projectId = (await resolveProject(c, 'DEMO')).id;
    await c.close();
    expect(await listCases()).toHaveLength(CASES);
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('backup holds every case the service still has, each once, and exits 0', async () => {
    const skipped = await passedOver();
    const done = deleteDuringRead();
    const r = await tmsync('backup', '--out', 'during.json.gz', '--project', 'DEMO');
    const deleted = done();
    expect(r.code, r.err).toBe(0);
    const backup = JSON.parse(gunzipSync(await readFile(join(root, 'during.json.gz'))).toString('utf8')) as { test_cases: { id: string }[] };
    const ids = backup.test_cases.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    const live = await listCases();
    expect(live.some((c) => c.id === deleted.id)).toBe(false);
    // the one an offset passes over first of all
    expect(ids).toContain(skipped.id);
    expect(live.map((c) => c.id).filter((id) => !ids.includes(id))).toEqual([]);
  });

  it('plan does not call a case the service has "deleted on the service", and lists no false conflict', async () => {
    const skipped = await passedOver();
    const file = await fileOf(skipped);
    const text = await readFile(join(root, file), 'utf8');
    await writeFile(join(root, file), text.replace(/^description: .*$/m, `description: ${skipped.title} edited in the file`));
    const done = deleteDuringRead();
    const r = await tmsync('plan', '--format', 'json');
    done();
    expect(r.code, r.err).toBe(0);
    const plan = JSON.parse(r.out) as { sync?: { conflicts: { id: string; field: string }[]; remote_changes: { id: string; field: string }[] }; operations: { kind: string; remoteId?: string; id?: string }[] };
    expect(plan.sync?.conflicts ?? []).toEqual([]);
    for (const d of (plan.sync?.remote_changes ?? []).filter((c) => c.field === 'deleted')) expect(await exists(d.id), `${d.id} is called deleted`).toBe(false);
    expect(JSON.stringify(plan.operations)).toContain(`${skipped.title} edited in the file`);
  });

  it('apply --prefer local updates the case the read passed over instead of creating a duplicate of it', async () => {
    const skipped = await passedOver();
    const file = await fileOf(skipped);
    const text = await readFile(join(root, file), 'utf8');
    await writeFile(join(root, file), text.replace(/^description: .*$/m, `description: ${skipped.title} sent with prefer local`));
    const done = deleteDuringRead();
    const r = await tmsync('apply', '--auto-approve', '--prefer', 'local');
    done();
    expect(r.code, r.err).toBe(0);
    const live = await listCases();
    expect(live.filter((c) => c.title === skipped.title)).toHaveLength(1);
    // the file still names the case it had
    expect(await readFile(join(root, file), 'utf8')).toContain(`id: ${skipped.human_id ?? skipped.id}`);
  });

  it('pull keeps the file of the case the read passed over and takes every case the service has', async () => {
    const skipped = await passedOver();
    const done = deleteDuringRead();
    const r = await tmsync('pull');
    done();
    expect(r.code, r.err).toBe(0);
    expect(`${r.out}\n${r.err}`).not.toContain(await fileOf(skipped));
    const files = await filesById();
    for (const c of await listCases()) expect(files.has(c.human_id ?? c.id), c.title).toBe(true);
  });

  it('without a sync base, never tells to remove the `id:` of a case the service has', async () => {
    await unlink(join(root, SYNC_BASE_FILE));
    const skipped = await passedOver();
    const done = deleteDuringRead();
    const r = await tmsync('plan');
    done();
    expect(`${r.out}\n${r.err}`).not.toContain(await fileOf(skipped));
    for (const m of `${r.out}\n${r.err}`.matchAll(/has id (\S+), which the service does not have/g)) expect(await exists(m[1]), `${m[1]} exists`).toBe(false);
  });

  it('a deletion and an addition no total shows: the case passed over is read by id before it is called gone', async () => {
    const skipped = await passedOver();
    // a new case at the end keeps the total as it was: the walk cannot tell the list changed
    const done = deleteDuringRead(async (page) => {
      await api('POST', `/projects/${projectId}/test_cases`, { ...(await caseBodyLike(page[0].id)), title: 'Added while read' });
    });
    const r = await tmsync('plan');
    done();
    expect(`${r.out}\n${r.err}`).not.toContain(await fileOf(skipped));
    for (const m of `${r.out}\n${r.err}`.matchAll(/has id (\S+), which the service does not have/g)) expect(await exists(m[1]), `${m[1]} exists`).toBe(false);
  });

  it('backup and pull exit 1 and write nothing when the list keeps changing under every walk', async () => {
    // a case deleted after the first page of every walk: no walk can be trusted
    let deletions = 0;
    proxy.onAnswer = async (a) => {
      if (!isCaseList(a) || a.query.has('folder_id') || a.query.has('title__CONTAINS') || a.query.has('search') || a.query.has('page') || a.query.has('cursor')) return;
      const page = (JSON.parse(a.body.toString('utf8')) as { data: { test_cases: ListedCase[] } }).data.test_cases;
      deletions++;
      await api('DELETE', `/projects/${projectId}/test_cases/${page[1].id}`);
    };
    try {
      const b = await tmsync('backup', '--out', 'churn.json', '--project', 'DEMO');
      expect(b.code).toBe(1);
      expect(b.err).toMatch(/the list changed while it was read, 3 times in a row \(total_count fell/);
      expect(b.err).toContain('run the command again');
      await expect(readFile(join(root, 'churn.json'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(deletions).toBe(3);
      const before = await readFile(join(root, SYNC_BASE_FILE), 'utf8').catch(() => '');
      const p = await tmsync('pull');
      expect(p.code).toBe(1);
      expect(p.err).toMatch(/the list changed while it was read/);
      expect(await readFile(join(root, SYNC_BASE_FILE), 'utf8').catch(() => '')).toBe(before);
    } finally {
      proxy.onAnswer = undefined;
    }
  });

  /** a create body copied from an existing case (its folder and the lookups a create requires) */
  async function caseBodyLike(id: string): Promise<Record<string, unknown>> {
    const res = await fetch(`${emu.baseUrl}/projects/${projectId}/test_cases/${id}`, { headers: { authorization: `Bearer ${API_KEY}` } });
    const c = ((await res.json()) as { data: { test_case: Record<string, unknown> } }).data.test_case;
    const body: Record<string, unknown> = {};
    for (const k of ['folder_id', 'type_id', 'status_id', 'priority_id', 'automation_type_id', 'owner_id']) if (c[k] !== undefined && c[k] !== null) body[k] = c[k];
    return body;
  }
});
