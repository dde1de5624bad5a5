import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { resolveProject } from '../../src/remote/index.js';
import { API_KEY, client, emptyProject, emulator, projectSnapshot, seedVariedProject } from '../support/transfer-helpers.js';

const BIN = resolve(import.meta.dirname, '../../bin/tmsync.js');
const ENV = { TMSYNC_API_KEY: API_KEY, SRC_KEY: API_KEY, DST_KEY: API_KEY };

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: ENV });
}

const config = (a: string, b: string, target: string, rate = 1000) =>
  [
    'profiles:',
    `  src: { base_url: "${a}", project: SRC, api_key_env: SRC_KEY, rate_limit: ${rate} }`,
    `  dst: { base_url: "${b}", project: ${target}, api_key_env: DST_KEY, rate_limit: ${rate} }`,
    '',
  ].join('\n');

describe('tmsync migrate between two emulators', () => {
  let a: RunningEmulator;
  let b: RunningEmulator;
  const dirs: string[] = [];
  const fresh = async (target: string, rate?: number) => {
    const d = await mkdtemp(join(tmpdir(), 'tmsync-migrate-'));
    dirs.push(d);
    await writeFile(join(d, 'tmsync.yaml'), config(a.baseUrl, b.baseUrl, target, rate));
    return d;
  };
  beforeAll(async () => {
    [a, b] = await Promise.all([emulator(), emulator()]);
    await seedVariedProject(a, 'SRC');
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('refuses to run without a terminal unless --auto-approve is given, after showing the plan', async () => {
    emptyProject(b, 'ASK');
    const dir = await fresh('ASK');
    const r = await tmsync(dir, 'migrate', '--from', 'src', '--to', 'dst');
    expect(r.code).toBe(1);
    // the plan is the result: on stdout (issue 30 item 3); the refusal on stderr
    expect(r.out).toContain('Plan:');
    expect(r.err).not.toContain('Plan:');
    expect(r.err).toContain('--auto-approve');
    expect(b.requestLog().filter((e) => e.method === 'POST')).toEqual([]);
  });

  it('copies folders, step groups and cases so both projects are equal, and a second run changes nothing', async () => {
    emptyProject(b, 'ALL');
    const dir = await fresh('ALL');
    const r = await tmsync(dir, 'migrate', '--from', 'src', '--to', 'dst', '--auto-approve');
    expect(r.out).toContain('Migration complete');
    expect(r.code).toBe(0);
    expect(await projectSnapshot(b.baseUrl, 'ALL', { runs: false })).toEqual(await projectSnapshot(a.baseUrl, 'SRC', { runs: false }));
    const again = await tmsync(dir, 'migrate', '--from', 'src', '--to', 'dst', '--auto-approve');
    expect(again.code).toBe(0);
    expect(again.out).toContain('No changes');

    // an item only the target has is left alone, and the plan says so without a word of --prune (issue 30 item 8)
    const c = client(b.baseUrl);
    const project = await resolveProject(c, 'ALL');
    await c.call('createFolder', { params: { project_id: project.id }, body: { name: 'Only in the target' } });
    await c.close();
    const third = await tmsync(dir, 'migrate', '--from', 'src', '--to', 'dst', '--auto-approve');
    expect(third.code).toBe(0);
    expect(third.out).toContain('In the target but not in the source (left as they are):\n  folder Only in the target\n');
    expect(third.out).not.toContain('Not managed by this repository');
    expect(third.out).not.toContain('--prune');
  });

  it('copies one folder subtree only', async () => {
    emptyProject(b, 'SUB');
    const dir = await fresh('SUB');
    const r = await tmsync(dir, 'migrate', '--from', 'src', '--to', 'dst', '--folder', 'Checkout/Payments', '--auto-approve');
    expect(r.code).toBe(0);
    const snap = (await projectSnapshot(b.baseUrl, 'SUB', { runs: false })) as { folders: { path: string }[]; cases: { folder: string }[] };
    expect(snap.folders.map((f) => f.path)).toEqual(['Checkout', 'Checkout/Payments']);
    expect(snap.cases.length).toBe(11);
    expect(new Set(snap.cases.map((c) => c.folder))).toEqual(new Set(['Checkout/Payments']));
  });

  it('finishes a migration killed halfway when run again: the target ends equal to the source, with no duplicates', async () => {
    emptyProject(b, 'KIL');
    const dir = await fresh('KIL', 40);
    const creates = () => b.requestLog().filter((e) => e.method === 'POST' && /\/test_cases$/.test(e.path) && e.path.includes('/projects/')).length;
    const before = creates();
    const child = spawn(process.execPath, [BIN, 'migrate', '--from', 'src', '--to', 'dst', '--auto-approve'], {
      cwd: dir,
      env: { ...process.env, ...ENV },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
    // kill it once part of the cases exist
    for (let i = 0; i < 600 && creates() - before < 20; i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    await exited;
    const made = creates() - before;
    expect(made).toBeGreaterThanOrEqual(20);
    expect(made).toBeLessThan(66);

    const r = await tmsync(dir, 'migrate', '--from', 'src', '--to', 'dst', '--auto-approve');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\d+ adopted/);
    expect(await projectSnapshot(b.baseUrl, 'KIL', { runs: false })).toEqual(await projectSnapshot(a.baseUrl, 'SRC', { runs: false }));
  });
});
