import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { TmsClient } from '../../src/remote/index.js';
import { runCli, sigintAt, type HookedRequest } from '../support/cli.js';
import { KEY, runStatuses, seedCases, setupClient } from '../support/ci-helpers.js';
import { seededEmulator } from '../support/emulator.js';
import { API_KEY, emptyProject, emulator, projectSnapshot, seedVariedProject } from '../support/transfer-helpers.js';

/**
 * Ctrl-C is main's for every command (src/cli/main.ts); interrupt.e2e.test.ts covers apply and
 * `run trigger --wait`. Here: migrate, restore and `results push`, each stopped the way its docs
 * say (docs/transfer.md, docs/ci.md), exit 130, and a second run that finishes the work. The
 * SIGINT is raised from the target emulator's `onRequest` hook at a request the test names.
 */
let hook: { onRequest: (r: HookedRequest) => void } = { onRequest: () => undefined };
const hooked = { onRequest: (r: HookedRequest) => hook.onRequest(r) };
const dirs: string[] = [];

async function scratch(prefix: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const isCreate = (r: HookedRequest) => r.method === 'POST';

describe('Ctrl-C in migrate and restore: the creates in flight finish, the journal keeps them, a second run finishes', () => {
  let a: RunningEmulator;
  let b: RunningEmulator;
  beforeAll(async () => {
    [a, b] = await Promise.all([emulator(), emulator(hooked)]);
    await seedVariedProject(a, 'SRC');
  });
  afterAll(async () => {
    hook = { onRequest: () => undefined };
    await Promise.all([a?.close(), b?.close()]);
  });

  it('migrate: `Migration interrupted: …; run the same command again to finish.`, exit 130; the same command again completes', async () => {
    emptyProject(b, 'MIG');
    const dir = await scratch('tmsync-interrupt-migrate-');
    await writeFile(
      join(dir, 'tmsync.yaml'),
      [
        'profiles:',
        `  src: { base_url: "${a.baseUrl}", project: SRC, api_key_env: SRC_KEY, rate_limit: 1000 }`,
        `  dst: { base_url: "${b.baseUrl}", project: MIG, api_key_env: DST_KEY, rate_limit: 1000, concurrency: 1 }`,
        '',
      ].join('\n'),
    );
    const env = { SRC_KEY: API_KEY, DST_KEY: API_KEY };
    const at = sigintAt(isCreate, 3);
    hook = at;
    const r = await runCli(['migrate', '--from', 'src', '--to', 'dst', '--auto-approve'], { cwd: dir, env });
    hook = { onRequest: () => undefined };
    expect(at.raised).toBe(true);
    expect(r.out).toMatch(/Migration interrupted: \d+ created, \d+ updated, \d+ moved, \d+ adopted; run the same command again to finish\./);
    expect(r.out).not.toContain('Migration complete');
    expect(r.code).toBe(130);
    // the creates that were sent are journalled, per source/target pair
    expect((await readdir(join(dir, '.tmsync'))).some((f) => f.startsWith('migrate-'))).toBe(true);
    // nothing was copied twice nor left out: the target equals the source once the re-run is done
    const again = await runCli(['migrate', '--from', 'src', '--to', 'dst', '--auto-approve'], { cwd: dir, env });
    expect(again.out).toContain('Migration complete');
    expect(again.code).toBe(0);
    expect(await projectSnapshot(b.baseUrl, 'MIG', { runs: false })).toEqual(await projectSnapshot(a.baseUrl, 'SRC', { runs: false }));
  });

  it('restore: `the restore was interrupted: N items not started`, exit 130; the same restore again resumes without duplicates', async () => {
    emptyProject(b, 'RES');
    const dir = await scratch('tmsync-interrupt-restore-');
    await writeFile(join(dir, 'tmsync.yaml'), 'rate_limit: 1000\nconcurrency: 1\n');
    const env = { TMSYNC_API_KEY: API_KEY };
    const backup = await runCli(['backup', '--out', 'src.json.gz', '--base-url', a.baseUrl, '--project', 'SRC'], { cwd: dir, env });
    expect(backup.code).toBe(0);
    const at = sigintAt(isCreate, 3);
    hook = at;
    const r = await runCli(['restore', 'src.json.gz', '--base-url', b.baseUrl, '--project', 'RES'], { cwd: dir, env });
    hook = { onRequest: () => undefined };
    expect(at.raised).toBe(true);
    expect(r.err).toMatch(/the restore was interrupted: \d+ items? not started/);
    expect(r.err).toContain('run the same restore again: it resumes where it stopped, without duplicates');
    expect(r.err).not.toContain('Restored ');
    expect(r.code).toBe(130);
    expect((await readdir(join(dir, '.tmsync'))).some((f) => /^restore-.*\.jsonl$/.test(f))).toBe(true);
    const again = await runCli(['restore', 'src.json.gz', '--base-url', b.baseUrl, '--project', 'RES'], { cwd: dir, env });
    expect(again.err).toMatch(/created \([1-9]\d* already restored by an earlier run, 0 found in the target and adopted\)/);
    expect(again.code).toBe(0);
    expect(await projectSnapshot(b.baseUrl, 'RES')).toEqual(await projectSnapshot(a.baseUrl, 'SRC'));
  });
});

describe('Ctrl-C in results push: no batch starts after it, the run is left open, the same push again completes', () => {
  let emu: RunningEmulator;
  let setup: TmsClient;
  let projectId: string;
  let caseIds: string[];
  let cwd: string;
  beforeAll(async () => {
    emu = await seededEmulator(KEY, hooked);
    setup = setupClient(emu);
    ({ caseIds, project: { id: projectId } } = await seedCases(setup, 11));
    cwd = await scratch('tmsync-interrupt-push-');
    await cp(fileURLToPath(new URL('../fixtures/junit/', import.meta.url)), join(cwd, 'reports'), { recursive: true });
  });
  afterAll(async () => {
    hook = { onRequest: () => undefined };
    await setup?.close();
    await emu?.close();
  });

  it('results push --close: exit 130 at the second batch, the later batches not sent, the run not closed; again: all pushed and closed', async () => {
    const run = (
      await setup.call('createTestRun', {
        params: { project_id: projectId },
        body: { title: 'Interrupted push', selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: caseIds }] },
      })
    ).data.test_run as { id: string; human_id: string };
    const runPath = `/test_runs/${run.id}`;
    const isBatch = (r: HookedRequest) => r.method === 'PUT' && r.path.endsWith(`${runPath}/test_cases`);
    const env = { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' };
    // multipart: one request per batch in both dialects (the live one refuses a JSON update first)
    const args = ['results', 'push', '--test-run', run.human_id, '--batch-size', '3', '--multipart', '--close', 'reports/surefire.xml', 'reports/pytest.xml', 'reports/jest.xml', 'reports/playwright.xml'];
    const before = emu.requestLog().length;
    const at = sigintAt(isBatch, 2);
    hook = at;
    const r = await runCli(args, { cwd, env });
    hook = { onRequest: () => undefined };
    expect(at.raised).toBe(true);
    // the first batch confirmed, the second abandoned in flight (its answer is not awaited)
    expect(r.err).toContain(`results push was interrupted: the service confirmed 3 of 11 results for ${run.human_id} "Interrupted push"; the run was left open`);
    expect(r.err).toContain('run the same command again');
    expect(r.err).not.toContain('Pushed ');
    expect(r.code).toBe(130);
    const sent = emu.requestLog().slice(before);
    // 11 results in batches of 3: the two batches sent before Ctrl-C, none after, and no close
    expect(sent.filter((e) => isBatch(e)).length).toBe(2);
    expect(sent.filter((e) => e.method === 'PUT' && e.path.endsWith(runPath))).toEqual([]);
    const again = await runCli(args, { cwd, env });
    expect(again.err).toContain(`Pushed 11 of 11 results from 21 testcases into ${run.human_id} "Interrupted push"`);
    expect(again.err).toContain('Closed test run');
    expect(again.code).toBe(0);
    expect(Object.values(await runStatuses(setup, projectId, run.id))).not.toContain('UNTESTED');
  });

  it('results push --new-run: the hint names the run it created, and pushing into it with --test-run completes without a second run', async () => {
    const isBatch = (r: HookedRequest) => r.method === 'PUT' && /\/test_runs\/[^/]+\/test_cases$/.test(r.path);
    const env = { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' };
    const reports = ['reports/surefire.xml', 'reports/pytest.xml', 'reports/jest.xml', 'reports/playwright.xml'];
    const at = sigintAt(isBatch, 2);
    hook = at;
    const r = await runCli(['results', 'push', '--new-run', 'Interrupted new run', '--batch-size', '3', '--multipart', ...reports], { cwd, env });
    hook = { onRequest: () => undefined };
    expect(at.raised).toBe(true);
    expect(r.code).toBe(130);
    expect(r.err).toMatch(/results push was interrupted: the service confirmed 3 of 11 results for DEMO-R-\d+ "Interrupted new run"\n/);
    const created = /the same command with --test-run (DEMO-R-\d+) in place of --new-run/.exec(r.err)?.[1];
    expect(created).toBeDefined();
    const again = await runCli(['results', 'push', '--test-run', created!, '--batch-size', '3', '--multipart', ...reports], { cwd, env });
    expect(again.err).toContain(`Pushed 11 of 11 results from 21 testcases into ${created} "Interrupted new run"`);
    expect(again.code).toBe(0);
    const titles: string[] = [];
    for await (const x of setup.paginate('listTestRuns', { params: { project_id: projectId } })) titles.push(x.title);
    expect(titles.filter((t) => t === 'Interrupted new run').length).toBe(1);
  });
});
