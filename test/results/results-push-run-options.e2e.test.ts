import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadJunitFiles } from '../../src/results/junit.js';
import { pushResults } from '../../src/results/push-results.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { RemoteProject } from '../../src/model.js';
import { createClient, type TmsClient } from '../../src/remote/index.js';
import { KEY, seedCases, setupClient, startProxy, type Emulator } from '../support/ci-helpers.js';
import { seededEmulator } from '../support/emulator.js';
import { TEST_DIALECT } from '../dialect.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/junit/', import.meta.url));

let emu: Emulator;
let setup: TmsClient;
let project: RemoteProject;
let users: { id: string; email: string }[];
let dir: string;

beforeAll(async () => {
  emu = await seededEmulator(KEY);
  setup = setupClient(emu);
  ({ project } = await seedCases(setup, 11));
  users = (await setup.call('listUsers')).data;
  dir = await mkdtemp(join(tmpdir(), 'tmsync-push-options-'));
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function readRun(id: string) {
  const run = (await setup.call('getTestRun', { params: { project_id: project.id, test_run_id: id } })).data.test_run as unknown as {
    status: string;
    test_plan_id: string | null;
    environment_ids: (string | number)[];
  };
  const cases = (await setup.call('listRunCases', { params: { project_id: project.id, test_run_id: id } })).data.test_cases as unknown as {
    human_id?: string;
    id: string;
    status: string;
    assignee_id: string | null;
  }[];
  return { run, cases };
}

describe('results push --new-run with a test plan, environments, --assign-failed and --close', () => {
  it('creates the run linked to the test plan and environments, gives failed cases to the user and closes the run', async () => {
    const plan = (await setup.call('createTestPlan', { params: { project_id: project.id }, body: { title: 'Release 4.2' } })).data.test_plan;
    const ben = users.find((u) => u.email === 'ben@example.com')!;
    const result = await pushResults({
      client: setup,
      project,
      testcases: await loadJunitFiles(['surefire.xml'], FIXTURES),
      newRun: 'Nightly 812',
      testPlan: plan.human_id!,
      environments: ['3', 'staging'],
      assignFailed: 'BEN@example.com',
      close: true,
    });
    expect(result.failedBatches).toEqual([]);
    expect(result.run.closed).toBe(true);
    const { run, cases } = await readRun(result.run.id!);
    expect(run.status).toBe('CLOSED');
    expect(run.test_plan_id).toBe(plan.id);
    expect(run.environment_ids).toEqual([3, 'staging']);
    const failed = result.rows.filter((r) => r.outcome === 'failed' || r.outcome === 'error').map((r) => r.caseId);
    const others = result.rows.filter((r) => !failed.includes(r.caseId)).map((r) => r.caseId);
    expect(failed.length).toBeGreaterThan(0);
    expect(others.length).toBeGreaterThan(0);
    const assignee = (caseId: string) => cases.find((c) => c.id === caseId)?.assignee_id ?? null;
    for (const id of failed) expect(assignee(id)).toBe(ben.id);
    for (const id of others) expect(assignee(id)).not.toBe(ben.id);
    expect(result.assignedTo).toEqual({ id: ben.id, email: 'ben@example.com', rows: failed.length });
  });

  it('leaves the run open when a batch was refused, so a re-run can still send those results', async () => {
    // the first batch is answered 422 by a scripted proxy, as JSON and again in the multipart
    // encoding the client falls back to; everything else goes through
    let puts = 0;
    const proxy = await startProxy(emu.appUrl, (req) =>
      req.method === 'PUT' && req.url?.endsWith('/test_cases') && ++puts <= 2
        ? { status: 422, body: JSON.stringify({ message: 'Invalid request body', errors: { code: 422, message: 'bad row' } }) }
        : undefined,
    );
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000 });
    try {
      const result = await pushResults({
        client,
        project,
        testcases: await loadJunitFiles(['surefire.xml'], FIXTURES),
        newRun: 'Partly refused',
        batchSize: 2,
        close: true,
      });
      expect(result.failedBatches).toHaveLength(1);
      expect(result.run.closed).toBeUndefined();
      expect(result.run.notClosedReason).toBe('2 results were not sent');
      expect(proxy.seen.some((r) => r.method === 'PUT' && !r.url.endsWith('/test_cases'))).toBe(false);
      expect((await readRun(result.run.id!)).run.status).toBe('ACTIVE');
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('refuses an unknown user or test plan before creating a run', async () => {
    const before = (await setup.call('listTestRuns', { params: { project_id: project.id } })).data.test_runs.length;
    const testcases = await loadJunitFiles(['surefire.xml'], FIXTURES);
    await expect(pushResults({ client: setup, project, testcases, newRun: 'Typo', assignFailed: 'nobody@example.com' })).rejects.toMatchObject({
      code: 'unknown_user',
    });
    await expect(pushResults({ client: setup, project, testcases, newRun: 'Typo', testPlan: 'DEMO-P-999' })).rejects.toMatchObject({
      code: 'test_plan_not_found',
    });
    expect((await setup.call('listTestRuns', { params: { project_id: project.id } })).data.test_runs).toHaveLength(before);
  });

  it('refuses --test-plan and --environment with --test-run, whose run already exists', async () => {
    const testcases = await loadJunitFiles(['surefire.xml'], FIXTURES);
    await expect(pushResults({ client: setup, project, testcases, testRun: 'DEMO-R-1', environments: ['3'] })).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
  });

  it('takes the flags on the command line and says it assigned and closed', async () => {
    const config = join(dir, 'tmsync.yaml');
    await writeFile(config, `project: DEMO\nbase_url: ${emu.baseUrl}\n`);
    const io = memoryIo({ TMSYNC_API_KEY: KEY });
    const code = await main(
      ['node', 'tmsync', 'results', 'push', '--new-run', 'CLI nightly', '--environment', '4,5', '--assign-failed', 'ana@example.com', '--close', '--json', join(FIXTURES, 'surefire.xml')],
      io,
      dir,
    );
    expect(io.err.join('\n')).toMatch(/Assigned \d+ failed cases? to ana@example\.com\.\nClosed test run DEMO-R-\d+ "CLI nightly"\./);
    expect(code).toBe(0);
    const out = JSON.parse(io.out[0]) as { run: { id: string; closed: boolean } };
    expect(out.run.closed).toBe(true);
    const { run } = await readRun(out.run.id);
    expect(run.environment_ids).toEqual([4, 5]);
    expect(run.status).toBe('CLOSED');
  });

  it('assigns failed cases with --assign-failed when the results go as multipart/form-data with --multipart', async () => {
    const proxy = await startProxy(emu.appUrl);
    try {
      const config = join(dir, 'tmsync.yaml');
      await writeFile(config, `project: DEMO\nbase_url: ${proxy.origin}/api/v1\n`);
      const io = memoryIo({ TMSYNC_API_KEY: KEY });
      const code = await main(
        ['node', 'tmsync', 'results', 'push', '--new-run', 'Multipart nightly', '--multipart', '--batch-size', '2', '--assign-failed', 'ben@example.com', '--json', join(FIXTURES, 'surefire.xml')],
        io,
        dir,
      );
      expect(io.err.join('\n')).toMatch(/Assigned \d+ failed cases? to ben@example\.com\./);
      expect(code).toBe(0);
      const puts = proxy.seen.filter((s) => s.method === 'PUT' && s.url.endsWith('/test_cases'));
      expect(puts.length).toBeGreaterThan(1);
      for (const p of puts) expect(p.contentType).toMatch(/^multipart\/form-data; boundary=/);
      const out = JSON.parse(io.out[0]) as { run: { id: string }; rows: { case_id: string; outcome: string }[]; assigned_to: { id: string; rows: number } };
      const ben = users.find((u) => u.email === 'ben@example.com')!;
      const failed = out.rows.filter((r) => r.outcome === 'failed' || r.outcome === 'error').map((r) => r.case_id);
      expect(failed.length).toBeGreaterThan(0);
      expect(out.assigned_to).toMatchObject({ id: ben.id, rows: failed.length });
      const { cases } = await readRun(out.run.id);
      for (const c of cases) expect(c.assignee_id === ben.id, c.id).toBe(failed.includes(c.id));
    } finally {
      await proxy.close();
    }
  });

  it('appends what it pushed to the GitHub job summary', async () => {
    const config = join(dir, 'tmsync.yaml');
    await writeFile(config, `project: DEMO\nbase_url: ${emu.baseUrl}\n`);
    const summaryFile = join(dir, 'summary.md');
    const io = memoryIo({ TMSYNC_API_KEY: KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile });
    const code = await main(['node', 'tmsync', 'results', 'push', '--new-run', 'Summary run', '--close', join(FIXTURES, 'surefire.xml')], io, dir);
    expect(code).toBe(0);
    const text = await readFile(summaryFile, 'utf8');
    // the run's page link comes from the answer's web_url, which the live dialect (like the live service) does not send
    if (TEST_DIALECT === 'live') {
      expect(text).toMatch(/^### tmsync results push\n\n\*\*Pushed (\d+) of \1 results from \d+ testcases into DEMO-R-\d+ "Summary run"\.\*\*\n\n\| Status /);
      expect(text).not.toContain('View run');
    } else {
      expect(text).toMatch(/^### tmsync results push\n\n\*\*Pushed (\d+) of \1 results from \d+ testcases into (DEMO-R-\d+) "Summary run"\.\*\*\n\nView run: <http:\/\/[^/]+\/ui\/projects\/DEMO\/runs\/\2>\n/);
    }
    expect(text).toMatch(/\| Status \| Cases \|\n\|---\|---\|\n(\| \w+ \| \d+ \|\n?)+/);
    expect(text).toContain('- The run was closed.');
  });
});
