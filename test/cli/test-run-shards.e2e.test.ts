import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { TEST_DIALECT } from '../dialect.js';
import type { TmsClient } from '../../src/remote/index.js';
import { KEY, runStatuses, seedCases, setupClient, type Emulator } from '../support/ci-helpers.js';
import { caseBody } from '../support/cases.js';
import { seededEmulator } from '../support/emulator.js';
import { outputSchemas } from '../../src/cli/output-schemas.js';

/**
 * One run from many CI shards: `test-run create --env-file`, three shards pushing JUnit reports
 * into it (overlapping cases, one shard pushed twice, a case the run lacks), `test-run close`.
 */

let emu: Emulator;
let setup: TmsClient;
let projectId: string;
let cwd: string;

const GITLAB = { GITLAB_CI: 'true', CI_PIPELINE_URL: 'https://gitlab.example.com/shop/web/-/pipelines/4711', CI_COMMIT_SHA: 'c0ffee1234567890', CI_COMMIT_REF_NAME: 'release/2.4' };
const GITHUB = {
  GITHUB_ACTIONS: 'true',
  GITHUB_SERVER_URL: 'https://github.com',
  GITHUB_REPOSITORY: 'shop/web',
  GITHUB_RUN_ID: '987654',
  GITHUB_SHA: 'deadbeef00112233',
  GITHUB_REF_NAME: 'main',
  GITHUB_JOB: 'e2e',
};

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO', ...extra };
}

function junit(cases: Record<string, 'passed' | 'failed' | 'skipped'>): string {
  const rows = Object.entries(cases).map(([id, o]) => {
    const body = o === 'failed' ? '<failure message="boom">trace</failure>' : o === 'skipped' ? '<skipped/>' : '';
    return `<testcase classname="shop.Checkout" name="pays ${id}">${body}</testcase>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="shop" tests="${rows.length}">\n${rows.join('\n')}\n</testsuite>\n`;
}

beforeAll(async () => {
  emu = await seededEmulator(KEY);
  setup = setupClient(emu);
  const seeded = await seedCases(setup, 6); // DEMO-1 … DEMO-6 in folder Checkout
  projectId = seeded.project.id;
  const template = (await setup.call('getTestCase', { params: { project_id: projectId, test_case_id: seeded.caseIds[0] } })).data.test_case as unknown as Record<string, string>;
  const refs = {
    lookups: { types: template.type_id, statuses: template.status_id, priorities: template.priority_id, automation_types: template.automation_type_id },
    user: template.owner_id,
  };
  const p = { project_id: projectId };
  const admin = (await setup.call('createFolder', { params: p, body: { name: 'Admin' } })).data.folder;
  const checkout = (await setup.call('listFolders', { params: p })).data.folders.find((f) => f.name === 'Checkout')!;
  // folders are created top-level, then moved (as the service does it)
  const payment = (await setup.call('createFolder', { params: p, body: { name: 'Payment' } })).data.folder;
  await setup.call('moveFolder', { params: { ...p, folder_id: payment.id }, body: { parent_folder_id: checkout.id } });
  const labels = (await setup.call('listLabels')).data.labels;
  // DEMO-7 outside the run's folder; DEMO-8 in a subfolder of it, labelled smoke
  await setup.call('createTestCase', { params: p, body: caseBody(refs, { title: 'Admin case', folder_id: admin.id }) });
  await setup.call('createTestCase', { params: p, body: caseBody(refs, { title: 'Card payment', folder_id: payment.id, label_ids: [labels.find((l) => l.name === 'smoke')!.id] }) });
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-shards-'));
  await writeFile(join(cwd, 'shard1.xml'), junit({ 'DEMO-1': 'passed', 'DEMO-2': 'passed', 'DEMO-3': 'passed' }));
  await writeFile(join(cwd, 'shard2.xml'), junit({ 'DEMO-1': 'failed', 'DEMO-4': 'passed', 'DEMO-5': 'failed' }));
  await writeFile(join(cwd, 'shard3.xml'), junit({ 'DEMO-1': 'passed', 'DEMO-5': 'passed', 'DEMO-6': 'skipped', 'DEMO-7': 'failed', 'DEMO-8': 'passed' }));
  await writeFile(join(cwd, 'shard2-again.xml'), junit({ 'DEMO-1': 'failed', 'DEMO-4': 'passed', 'DEMO-5': 'passed' }));
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

describe('one run from many CI shards', () => {
  it('creates a run with --env-file and the CI metadata, takes three shard pushes with the worst outcome per case and the last per shard, adds a case the run lacked, then closes', async () => {
    const envFile = join(cwd, 'build.env');
    await writeFile(envFile, 'EARLIER=1\n');
    const created = await runCli(['test-run', 'create', '--title', 'CI build 4711', '--cases', 'Checkout', '--env-file', 'build.env'], { cwd, env: env(GITLAB) });
    expect(created.err).toMatch(/Created test run DEMO-R-\d+ "CI build 4711" \(id [0-9a-f-]{36}\) holding 7 cases \(Checkout\)\./);
    expect(created.code).toBe(0);
    const runId = created.out.trim();
    expect(await readFile(envFile, 'utf8')).toBe(`EARLIER=1\nTMSYNC_TEST_RUN=${runId}\n`);
    if (TEST_DIALECT === 'document') expect(created.err).toMatch(/View run: http/);
    const run = (await setup.call('getTestRun', { params: { project_id: projectId, test_run_id: runId } })).data.test_run;
    expect(run.description).toBe('Pipeline: https://gitlab.example.com/shop/web/-/pipelines/4711\nCommit: c0ffee1234567890\nBranch: release/2.4');
    expect(Object.keys(await runStatuses(setup, projectId, runId)).sort()).toEqual(['DEMO-1', 'DEMO-2', 'DEMO-3', 'DEMO-4', 'DEMO-5', 'DEMO-6', 'DEMO-8']);

    // each shard is a GitLab job of `parallel: 3`; the run comes from the dotenv report
    const shard = (n: number, file: string) =>
      runCli(['results', 'push', file], { cwd, env: env({ ...GITLAB, TMSYNC_TEST_RUN: runId, CI_JOB_NAME: `e2e ${n}/3`, CI_NODE_INDEX: String(n) }) });
    const one = await shard(1, 'shard1.xml');
    expect(one.code).toBe(0);
    expect(one.err).toContain('Shard e2e 1/3 of 1 (e2e 1/3).');
    const two = await shard(2, 'shard2.xml');
    expect(two.code).toBe(0);
    const three = await shard(3, 'shard3.xml');
    expect(three.code).toBe(0);
    expect(three.err).toContain('Added 1 case the run did not hold to its selection: DEMO-7');
    expect(three.err).toContain('Shard e2e 3/3 of 3 (e2e 1/3, e2e 2/3, e2e 3/3): 2 cases keep a worse outcome another shard pushed.');
    expect(await runStatuses(setup, projectId, runId)).toMatchObject({ 'DEMO-1': 'FAILED', 'DEMO-5': 'FAILED' });
    // shard 2 again (a re-run job): its DEMO-5 is now passed, and its DEMO-1 still failed
    const again = await shard(2, 'shard2-again.xml');
    expect(again.code).toBe(0);
    expect(again.err).toContain('Pushed 3 of 3 results from 3 testcases');

    // a push that raced shard 2's (computed before its failure was recorded) left DEMO-1 passed: close repairs it
    const statuses = (await setup.call('listRunStatuses')).data.statuses;
    const passed = statuses.find((st) => st.name === 'Passed')!;
    const demo1 = (await setup.call('getTestCase', { params: { project_id: projectId, test_case_id: 'DEMO-1' } })).data.test_case.id;
    await setup.call('updateRunCases', {
      params: { project_id: projectId, test_run_id: runId },
      body: { test_run_cases: [{ test_case_id: demo1, test_run_status_id: passed.id, description: 'stale' }] },
    });
    expect((await runStatuses(setup, projectId, runId))['DEMO-1']).toBe('PASSED');

    const closed = await runCli(['test-run', 'close'], { cwd, env: env({ TMSYNC_TEST_RUN: runId }) });
    expect(closed.code).toBe(0);
    expect(closed.err).toContain('Set 1 case to the worst outcome the shards recorded');
    expect(closed.err).toContain('  DEMO-1: failed in shard e2e 2/3');
    expect(closed.err).toMatch(/Closed test run DEMO-R-\d+ "CI build 4711"\./);
    expect((await setup.call('getTestRun', { params: { project_id: projectId, test_run_id: runId } })).data.test_run.status).toBe('CLOSED');

    expect(await runStatuses(setup, projectId, runId)).toEqual({
      'DEMO-1': 'FAILED', // failed in shard 2, passed in shards 1 and 3
      'DEMO-2': 'PASSED',
      'DEMO-3': 'PASSED',
      'DEMO-4': 'PASSED',
      'DEMO-5': 'PASSED', // shard 2 failed it, then passed it when pushed again; shard 3 passed it
      'DEMO-6': 'SKIPPED',
      'DEMO-7': 'FAILED', // not in the run: added by shard 3
      'DEMO-8': 'PASSED',
    });
    const record = (await setup.call('getTestRun', { params: { project_id: projectId, test_run_id: runId } })).data.test_run.description ?? '';
    expect(record.startsWith('Pipeline: https://gitlab.example.com/shop/web/-/pipelines/4711\n')).toBe(true);
    expect(record).toContain('tmsync shards');

    const twice = await runCli(['test-run', 'close', runId], { cwd, env: env() });
    expect(twice.code).toBe(0);
    expect(twice.err).toContain('was already closed.');
  });

  it('records the GitHub Actions pipeline, commit and branch in a run results push --new-run creates, and prints its page', async () => {
    await writeFile(join(cwd, 'one.xml'), junit({ 'DEMO-2': 'passed' }));
    const r = await runCli(['results', 'push', 'one.xml', '--new-run', 'GitHub nightly', '--json'], { cwd, env: env(GITHUB) });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.out) as { run: { id: string; url?: string }; shard?: { name: string } };
    expect(out.shard?.name).toBe('e2e');
    const run = (await setup.call('getTestRun', { params: { project_id: projectId, test_run_id: out.run.id } })).data.test_run;
    expect(run.description).toMatch(/^Pipeline: https:\/\/github\.com\/shop\/web\/actions\/runs\/987654\nCommit: deadbeef00112233\nBranch: main\n\ntmsync shards/);
    if (TEST_DIALECT === 'document') expect(r.err).toContain(`View run: ${out.run.url}`);
  });

  it('selects the cases with a label, prints the run as JSON (its output schema), and refuses an unknown folder before creating anything', async () => {
    const r = await runCli(['test-run', 'create', '--title', 'Smoke', '--cases', 'label:smoke', '--json'], { cwd, env: env() });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out) as { test_run: { id: string; description: string }; cases: number };
    expect(outputSchemas['test-run'].safeParse(doc).success).toBe(true);
    expect(doc.cases).toBe(1);
    expect(doc.test_run.description).toBe('');
    expect(Object.keys(await runStatuses(setup, projectId, doc.test_run.id))).toEqual(['DEMO-8']);

    const before = (await setup.call('listTestRuns', { params: { project_id: projectId } })).data.test_runs.length;
    const bad = await runCli(['test-run', 'create', '--title', 'Nope', '--cases', 'Checkout/Shipping'], { cwd, env: env() });
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('Demo has no folder Checkout/Shipping; no run was created');
    expect(bad.err).toContain('folders there: Payment');
    expect((await setup.call('listTestRuns', { params: { project_id: projectId } })).data.test_runs.length).toBe(before);
  });
});
