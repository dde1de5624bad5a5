import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { fetchState, resolveProject } from '../../src/remote/index.js';
import { API_KEY, client, emptyProject, emulator, projectSnapshot, seedVariedProject } from '../support/transfer-helpers.js';

async function tmsync(cwd: string, env: Record<string, string>, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY, ...env } });
}

const writes = (emu: RunningEmulator, from: number) => emu.requestLog().slice(from).filter((e) => e.method !== 'GET');

/** Every folder path, case (path › title), step group, plan and run (title › plan) of a project, sorted. */
async function names(baseUrl: string, prefix: string) {
  const c = client(baseUrl);
  try {
    const project = await resolveProject(c, prefix);
    const s = await fetchState(c, project.id);
    const byId = new Map(s.folders.map((f) => [f.id, f]));
    const path = (id: string): string => {
      const f = byId.get(id)!;
      return f.parentId ? `${path(f.parentId)}/${f.name}` : f.name;
    };
    const params = { project_id: project.id };
    const plans: { id: string; title: string }[] = [];
    for await (const p of c.paginate('listTestPlans', { params })) plans.push(p);
    const runs: string[] = [];
    for await (const r of c.paginate('listTestRuns', { params })) runs.push(`${r.title} › ${plans.find((p) => p.id === r.test_plan_id)?.title ?? ''}`);
    return {
      folders: s.folders.map((f) => path(f.id)).sort(),
      cases: s.cases.map((x) => `${path(x.folderId)} › ${x.title}`).sort(),
      stepGroups: s.stepGroups.map((g) => g.title).sort(),
      plans: plans.map((p) => p.title).sort(),
      runs: runs.sort(),
    };
  } finally {
    await c.close();
  }
}

const unique = (xs: string[]) => [...new Set(xs)];

describe('restore never duplicates and never restores a project onto itself', () => {
  let a: RunningEmulator;
  let b: RunningEmulator;
  const dirs: string[] = [];
  const fresh = async (yaml = 'rate_limit: 1000\nconcurrency: 8\n') => {
    const d = await mkdtemp(join(tmpdir(), 'tmsync-restore-safety-'));
    dirs.push(d);
    await writeFile(join(d, 'tmsync.yaml'), yaml);
    return d;
  };
  let twins: string;
  let plain: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([emulator(), emulator()]);
    // SRC has twin cases ("Duplicate title" twice in a folder); ONE has none
    await seedVariedProject(a, 'SRC');
    await seedVariedProject(a, 'ONE', { casesPerFolder: 9 });
    const d = await fresh();
    twins = join(d, 'src.json');
    plain = join(d, 'one.json');
    expect((await tmsync(d, {}, 'backup', '--out', twins, '--base-url', a.baseUrl, '--project', 'SRC')).code).toBe(0);
    expect((await tmsync(d, {}, 'backup', '--out', plain, '--base-url', a.baseUrl, '--project', 'ONE')).code).toBe(0);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('refuses a restore without --project, even when tmsync.yaml and TMSYNC_PROJECT name a project, and sends no request', async () => {
    const d = await fresh(`base_url: ${a.baseUrl}\nproject: SRC\nrate_limit: 1000\n`);
    const before = a.requestLog().length;
    for (const env of [{}, { TMSYNC_PROJECT: 'SRC' }] as Record<string, string>[]) {
      const r = await tmsync(d, env, 'restore', twins);
      expect(r.code).toBe(1);
      expect(r.err).toContain('restore needs the target project on the command line');
      expect(r.err).toContain('--project P');
    }
    expect(a.requestLog().slice(before)).toEqual([]);
    expect((await names(a.baseUrl, 'SRC')).cases).toHaveLength(66);
  });

  it('refuses to restore a backup into its own non-empty source project and writes nothing', async () => {
    const d = await fresh();
    const before = a.requestLog().length;
    const r = await tmsync(d, {}, 'restore', twins, '--base-url', a.baseUrl, '--project', 'SRC');
    expect(r.code).toBe(1);
    expect(r.err).toContain('is the project this backup was taken from');
    expect(r.err).toContain('66 test cases');
    expect(writes(a, before)).toEqual([]);
    expect((await names(a.baseUrl, 'SRC')).cases).toHaveLength(66);
  });

  it('restores into the source project (known by its id) only while it is empty, or to resume from the first directory', async () => {
    emptyProject(a, 'BLANK');
    const c = client(a.baseUrl);
    const blank = await resolveProject(c, 'BLANK');
    await c.close();
    // the same project id on another base URL still names the source project
    const data = JSON.parse(await readFile(plain, 'utf8'));
    data.source.project.id = blank.id;
    data.source.base_url = 'https://elsewhere.example/api/v1';
    const first = await fresh();
    const file = join(first, 'self.json');
    await writeFile(file, JSON.stringify(data));
    expect((await tmsync(first, {}, 'restore', file, '--base-url', a.baseUrl, '--project', 'BLANK')).code).toBe(0);

    const before = a.requestLog().length;
    const elsewhere = await tmsync(await fresh(), {}, 'restore', file, '--base-url', a.baseUrl, '--project', 'BLANK');
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.err).toContain('is the project this backup was taken from, and it is not empty (10 folders, 2 step groups, 54 test cases');
    expect(writes(a, before)).toEqual([]);
    const again = await tmsync(first, {}, 'restore', file, '--base-url', a.baseUrl, '--project', 'BLANK');
    expect(again.code).toBe(0);
    expect(again.err).toContain('0 folders, 0 step groups, 0 test cases, 0 test plans, 0 test runs created (71 already restored by an earlier run');
    expect(await projectSnapshot(a.baseUrl, 'BLANK')).toEqual(await projectSnapshot(a.baseUrl, 'ONE'));
  });

  it('ends with exactly one copy of every folder, case, step group, plan and run when the restore runs twice from two directories', async () => {
    emptyProject(b, 'TWICE');
    const first = await tmsync(await fresh(), {}, 'restore', plain, '--base-url', b.baseUrl, '--project', 'TWICE');
    expect(first.code).toBe(0);
    expect(first.err).toContain('54 test cases');

    const before = b.requestLog().length;
    const second = await tmsync(await fresh(), {}, 'restore', plain, '--base-url', b.baseUrl, '--project', 'TWICE');
    expect(second.code).toBe(0);
    // 10 folders + 2 step groups + 54 cases + 2 plans + 3 runs, all found
    expect(second.err).toContain('0 folders, 0 step groups, 0 test cases, 0 test plans, 0 test runs created (0 already restored by an earlier run, 71 found in the target and adopted)');
    expect(second.err).toContain('already held 10 folders, 2 step groups, 54 test cases, 2 test plans, 3 test runs; 71 of them matched backup items by name and were adopted as they are.');
    expect(writes(b, before)).toEqual([]);

    const got = await names(b.baseUrl, 'TWICE');
    expect(got).toEqual(await names(a.baseUrl, 'ONE'));
    for (const list of Object.values(got)) expect(unique(list)).toEqual(list);
    expect(got.folders.filter((f) => f === 'Authentication')).toHaveLength(1);
    // results, assignees, closed runs and completed plans are as in the source, too
    expect(await projectSnapshot(b.baseUrl, 'TWICE')).toEqual(await projectSnapshot(a.baseUrl, 'ONE'));
  });

  it('adopts what a partial target holds and creates only what it lacks, so results land on adopted cases', async () => {
    emptyProject(b, 'PART');
    expect((await tmsync(await fresh(), {}, 'restore', plain, '--base-url', b.baseUrl, '--project', 'PART')).code).toBe(0);
    // take away a folder, the cases of another, a plan and a run that uses adopted cases
    const c = client(b.baseUrl);
    const project = await resolveProject(c, 'PART');
    const params = { project_id: project.id };
    const s = await fetchState(c, project.id);
    const payments = s.folders.find((f) => f.name === 'Payments')!;
    const gone = s.cases.filter((x) => x.folderId === payments.id);
    for (const x of gone) await c.call('deleteTestCase', { params: { ...params, test_case_id: x.id } });
    await c.call('deleteFolder', { params: { ...params, folder_id: s.folders.find((f) => f.name === 'Empty folder')!.id } });
    for await (const r of c.paginate('listTestRuns', { params })) {
      if (r.title === 'Ad-hoc') await c.call('deleteTestRun', { params: { ...params, test_run_id: r.id } });
    }
    await c.close();
    expect(gone.length).toBe(9);

    const r = await tmsync(await fresh(), {}, 'restore', plain, '--base-url', b.baseUrl, '--project', 'PART');
    expect(r.code).toBe(0);
    expect(r.err).toContain('1 folder, 0 step groups, 9 test cases, 0 test plans, 1 test run created (0 already restored by an earlier run, 60 found in the target and adopted)');
    expect(await projectSnapshot(b.baseUrl, 'PART')).toEqual(await projectSnapshot(a.baseUrl, 'ONE'));
  });

  it('refuses, listing the names, when a name the target already holds is shared by twins, and writes nothing', async () => {
    emptyProject(b, 'TWINS');
    expect((await tmsync(await fresh(), {}, 'restore', twins, '--base-url', b.baseUrl, '--project', 'TWINS')).code).toBe(0);
    const before = b.requestLog().length;
    const r = await tmsync(await fresh(), {}, 'restore', twins, '--base-url', b.baseUrl, '--project', 'TWINS');
    expect(r.code).toBe(1);
    expect(r.err).toContain('cannot be paired without guessing; nothing was written');
    expect(r.err).toContain('test case Authentication › "Duplicate title": 2 in the backup, 2 in the target');
    expect(writes(b, before)).toEqual([]);
    expect((await names(b.baseUrl, 'TWINS')).cases).toHaveLength(66);
  });
});
