import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { Backup } from '../../src/backup/backup-format.js';
import { API_KEY, emptyProject, emulator, projectSnapshot, seedVariedProject } from '../support/transfer-helpers.js';

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

describe('backup and restore between two emulators', () => {
  let a: RunningEmulator;
  let b: RunningEmulator;
  let dir: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([emulator(), emulator()]);
    await seedVariedProject(a, 'SRC');
    emptyProject(b, 'DST');
    dir = await mkdtemp(join(tmpdir(), 'tmsync-backup-'));
    // the emulators are unlimited: let the client go fast too
    await writeFile(join(dir, 'tmsync.yaml'), 'rate_limit: 1000\nconcurrency: 8\n');
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('writes a gzipped backup that parses with the strict schema and never holds the key', async () => {
    const r = await tmsync(dir, 'backup', '--out', 'src.json.gz', '--base-url', a.baseUrl, '--project', 'SRC');
    expect(r.err).toContain('Backed up Varied SRC');
    expect(r.code).toBe(0);
    const text = gunzipSync(await readFile(join(dir, 'src.json.gz'))).toString('utf8');
    expect(text).not.toContain(API_KEY);
    const backup = Backup.parse(JSON.parse(text));
    expect(backup.format_version).toBe(1);
    expect(backup.test_cases.length).toBe(66);
    expect(backup.step_groups.every((g) => g.steps.length > 0)).toBe(true);
    expect(backup.test_runs.flatMap((run) => run.cases).some((rc) => rc.status === 'PASSED')).toBe(true);
  });

  it('restores into an empty project of another instance so that both projects are equal without ids and timestamps', async () => {
    const r = await tmsync(dir, 'restore', 'src.json.gz', '--base-url', b.baseUrl, '--project', 'DST');
    expect(r.err).toMatch(/Restored Varied SRC \(SRC\) into Project DST \(DST\): 10 folders, 2 step groups, 66 test cases, 2 test plans, 3 test runs created/);
    expect(r.code).toBe(0);
    const source = (await projectSnapshot(a.baseUrl, 'SRC')) as { runs: { status: string; cases: string[][] }[]; plans: { status: string }[] };
    // the comparison covers results, closed runs and completed plans, not just counts
    expect(source.runs.some((run) => run.status === 'CLOSED')).toBe(true);
    expect(source.runs.flatMap((run) => run.cases).some((rc) => rc[1] === 'PASSED' && rc[2] !== '')).toBe(true);
    expect(source.plans.some((p) => p.status === 'COMPLETED')).toBe(true);
    expect(await projectSnapshot(b.baseUrl, 'DST')).toEqual(source);
  });

  it('does nothing the second time: the journal knows every item, so no duplicates are created', async () => {
    const before = b.requestLog().length;
    const r = await tmsync(dir, 'restore', 'src.json.gz', '--base-url', b.baseUrl, '--project', 'DST');
    expect(r.code).toBe(0);
    expect(r.err).toContain('0 folders, 0 step groups, 0 test cases, 0 test plans, 0 test runs created');
    const writes = b.requestLog().slice(before).filter((e) => e.method === 'POST');
    expect(writes).toEqual([]);
    expect(await projectSnapshot(b.baseUrl, 'DST')).toEqual(await projectSnapshot(a.baseUrl, 'SRC'));
  });

  it('refuses a backup of another format_version before connecting, saying which version it reads', async () => {
    const text = gunzipSync(await readFile(join(dir, 'src.json.gz'))).toString('utf8');
    await writeFile(join(dir, 'v2.json'), text.replace('"format_version": 1', '"format_version": 2'));
    const before = b.requestLog().length;
    const r = await tmsync(dir, 'restore', 'v2.json', '--base-url', b.baseUrl, '--project', 'DST');
    expect(r.code).toBe(1);
    expect(r.err).toContain('format_version 2; this tmsync reads backups of format_version 1');
    expect(b.requestLog().length).toBe(before);
  });

  it('refuses a truncated backup, plain or gzipped, before anything is written', async () => {
    const text = gunzipSync(await readFile(join(dir, 'src.json.gz'))).toString('utf8');
    await writeFile(join(dir, 'cut.json'), text.slice(0, Math.floor(text.length / 2)));
    const gz = gzipSync(text);
    await writeFile(join(dir, 'cut.json.gz'), gz.subarray(0, Math.floor(gz.length / 2)));
    const before = b.requestLog().length;
    for (const f of ['cut.json', 'cut.json.gz']) {
      const r = await tmsync(dir, 'restore', f, '--base-url', b.baseUrl, '--project', 'DST');
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/truncated/);
    }
    expect(b.requestLog().length).toBe(before);
  });

  it('lists the lookups, users and labels the target lacks, with the flags that map them, and writes nothing', async () => {
    const text = gunzipSync(await readFile(join(dir, 'src.json.gz'))).toString('utf8');
    const data = JSON.parse(text);
    data.lookups.types = data.lookups.types.map((t: { name: string }) => (t.name === 'Smoke' ? { ...t, name: 'Exploratory', alias: 'exploratory' } : t));
    data.users = data.users.map((u: { email: string }) => (u.email === 'ana@example.com' ? { ...u, email: 'ana@elsewhere.example' } : u));
    await writeFile(join(dir, 'foreign.json'), JSON.stringify(data));
    emptyProject(b, 'OTHER');
    const before = b.requestLog().filter((e) => e.method !== 'GET').length;
    const r = await tmsync(dir, 'restore', 'foreign.json', '--base-url', b.baseUrl, '--project', 'OTHER');
    expect(r.code).toBe(1);
    expect(r.err).toContain('type "Exploratory"');
    expect(r.err).toContain('user "ana@elsewhere.example"');
    expect(r.err).toContain('--map-user');
    expect(b.requestLog().filter((e) => e.method !== 'GET').length).toBe(before);
  });

  it('restores a backup whose user the target lacks once --map-user maps it to a target user', async () => {
    const text = gunzipSync(await readFile(join(dir, 'src.json.gz'))).toString('utf8');
    const data = JSON.parse(text);
    data.users = data.users.map((u: { email: string }) => (u.email === 'ana@example.com' ? { ...u, email: 'ana@elsewhere.example' } : u));
    await writeFile(join(dir, 'mapped.json'), JSON.stringify(data));
    emptyProject(b, 'MAPPED');
    const r = await tmsync(dir, 'restore', 'mapped.json', '--base-url', b.baseUrl, '--project', 'MAPPED', '--map-user', 'ana@elsewhere.example=ana@example.com');
    expect(r.err).toContain('66 test cases');
    expect(r.code).toBe(0);
    expect(await projectSnapshot(b.baseUrl, 'MAPPED')).toEqual(await projectSnapshot(a.baseUrl, 'SRC'));
  });
});
