import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseJunit } from '../../src/results/junit.js';
import { runCli } from '../support/cli.js';
import { runRunTrigger } from '../../src/cli/commands/run-trigger.js';
import { memoryIo } from '../../src/cli/io.js';
import { outputSchemas } from '../../src/cli/output-schemas.js';
import { TEST_DIALECT, startTestEmulator as startEmulator } from '../dialect.js';
import type { TmsClient } from '../../src/remote/index.js';
import { KEY, executionRef, seedCases, setupClient, startProxy, type Emulator } from '../support/ci-helpers.js';
import { findPlanAnywhere } from '../../src/emulator/db/index.js';
import { seededEmulator } from '../support/emulator.js';

const APP_KEY = 'execution-key';

let emu: Emulator;
let setup: TmsClient;
let projectId: string;
let passingPlan: string;
let failingPlan: string;
let cwd: string;

/** A new plan, as `run trigger --test-plan` names it in the dialect under test. */
async function createPlan(title: string): Promise<string> {
  const res = await setup.call('createTestPlan', { params: { project_id: projectId }, body: { title } });
  return executionRef(emu, res.data.test_plan.id);
}

/** The last status a wait out of time can read: the run is not yet in progress, or is. */
const UNFINISHED = '(?:created|queued|pre-flight|in progress)';

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_APP_API_KEY: APP_KEY, ...extra };
}

async function tmsync(args: string[], e: NodeJS.ProcessEnv = env(), dir = cwd) {
  return runCli(args, { cwd: dir, env: e });
}

beforeAll(async () => {
  emu = await startEmulator({ memory: true, apiKeys: [KEY, APP_KEY], seed: 'demo', runDurationMs: 300 });
  setup = setupClient(emu);
  const seeded = await seedCases(setup, 3);
  projectId = seeded.project.id;
  passingPlan = await createPlan('Release 2.4 smoke');
  failingPlan = await createPlan('Release 2.4 known to fail');
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-run-'));
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

describe('tmsync run trigger', () => {
  it('follows a passing run to completion, exits 0, prints the run id on stdout and writes the JUnit report', async () => {
    const r = await tmsync(['run', 'trigger', '--test-plan', passingPlan, '--build', '812', '--wait', '--poll', '50ms', '--timeout', '20s', '--junit', 'reports/run.xml']);
    expect(r.err).toContain('passed (success): 3 total, 3 passed, 0 failed');
    expect(r.code).toBe(0);
    expect(r.io.out[0]).toMatch(/^\d+$/);
    expect(r.err).toMatch(new RegExp(`Started run ${r.io.out[0]} of test plan ${passingPlan}: http://127\\.0\\.0\\.1:\\d+/`));
    const junit = parseJunit(await readFile(join(cwd, 'reports/run.xml'), 'utf8'), 'run.xml');
    expect(junit).toHaveLength(3);
    expect(junit.every((t) => t.outcome === 'passed')).toBe(true);
  });

  it("starts a plan named by its integer execution id, as the vendor's CI script does", async () => {
    const planUuid = (await setup.call('createTestPlan', { params: { project_id: projectId }, body: { title: 'Numbered' } })).data.test_plan.id;
    const executionId = findPlanAnywhere(emu.db, planUuid)!.execution_id;
    const r = await tmsync(['run', 'trigger', '--test-plan', String(executionId), '--wait', '--poll', '50ms', '--timeout', '20s']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('passed (success): 3 total, 3 passed, 0 failed');
  });

  it('names a plan by its human id when a project is configured: its execution id where the service shows one, else a refusal saying to pass the number', async () => {
    const plan = (await setup.call('createTestPlan', { params: { project_id: projectId }, body: { title: 'By human id' } })).data.test_plan;
    const r = await tmsync(['run', 'trigger', '--test-plan', plan.human_id!, '--json'], env({ TMSYNC_PROJECT: 'DEMO' }));
    const sent = emu.requestLog().filter((x) => x.method === 'POST' && x.path === '/api/v1/execution_results');
    expect(sent.length).toBeGreaterThan(0);
    if (TEST_DIALECT === 'document') {
      // the document dialect shows the plan's execution_id: the trigger sends that number
      expect(r.code, r.err).toBe(0);
      const id = JSON.parse(r.out).run.id;
      const status = await tmsync(['run', 'status', String(id), '--json']);
      expect(JSON.parse(status.out).execution_id).toBe(findPlanAnywhere(emu.db, plan.id)!.execution_id);
    } else {
      // live shows none: the uuid is sent, refused, and the hint says what to pass
      expect(r.code).toBe(1);
      expect(r.err).toContain('pass --test-plan <number>');
    }
  });

  it('exits 3 for a run that completes with FAILURE and prints its counts', async () => {
    const r = await tmsync(['run', 'trigger', '--test-plan', failingPlan, '--wait', '--poll', '50ms', '--timeout', '20s']);
    expect(r.code).toBe(3);
    expect(r.err).toContain('did not pass (failure): 3 total, 2 passed, 1 failed');
  });

  it('exits 3 for runs that end ABORTED, STOPPED or NOT_EXECUTED, with their counts', async () => {
    for (const [outcome, result, counts] of [
      ['aborted', 'aborted', '3 total, 1 passed, 0 failed, 2 aborted'],
      ['stopped', 'stopped', '3 total, 1 passed, 0 failed, 2 stopped'],
      ['not-executed', 'not executed', '3 total, 0 passed, 0 failed, 3 not executed'],
    ] as const) {
      const plan = await createPlan(`Release 2.5 outcome:${outcome}`);
      const r = await tmsync(['run', 'trigger', '--test-plan', plan, '--wait', '--poll', '50ms', '--timeout', '20s']);
      expect(r.code, r.err).toBe(3);
      expect(r.err).toContain(`did not pass (${result}): ${counts}`);
    }
  });

  it('waits through STATUS_CREATED, STATUS_QUEUED, STATUS_PRE_FLIGHT and STATUS_IN_PROGRESS, reporting each in words', async () => {
    // one clock for the emulator and the wait: each sleep moves both, so the polls land in every state
    let t = 1_900_000_000_000;
    const clocked = await seededEmulator(KEY, { now: () => t, runDurationMs: 6000, runQueueMs: 3000 });
    const c = setupClient(clocked);
    try {
      const { project } = await seedCases(c, 2);
      const plan = executionRef(clocked, (await c.call('createTestPlan', { params: { project_id: project.id }, body: { title: 'Queued plan' } })).data.test_plan.id);
      const io = memoryIo({ TMSYNC_BASE_URL: clocked.baseUrl, TMSYNC_API_KEY: KEY });
      const clock = { now: () => t, sleep: async (ms: number) => void (t += ms) };
      const code = await runRunTrigger({ cwd, json: false, verbose: false, color: { stdout: false, stderr: false }, testPlan: plan, wait: true, poll: '1s', timeout: '1m', clock }, io);
      expect(code).toBe(0);
      const states = io.err.flatMap((line) => /^Run \d+: ([a-z -]+?)(?: \(|$)/.exec(line)?.[1] ?? []);
      expect(states).toEqual(['queued', 'pre-flight', 'in progress', 'completed']);
      expect(io.err.join('\n')).not.toMatch(/STATUS_|SUCCESS/);
      expect(io.err.join('\n')).toContain('passed (success): 2 total, 2 passed, 0 failed');
    } finally {
      await c.close();
      await clocked.close();
    }
  });

  it('exits 3 when the timeout passes before the run completes, naming the last status', async () => {
    const slow = await seededEmulator(KEY, { runDurationMs: 600_000 });
    const c = setupClient(slow);
    try {
      const { project } = await seedCases(c, 1);
      const plan = executionRef(slow, (await c.call('createTestPlan', { params: { project_id: project.id }, body: { title: 'Slow plan' } })).data.test_plan.id);
      const r = await tmsync(
        ['run', 'trigger', '--test-plan', plan, '--wait', '--poll', '40ms', '--timeout', '300ms', '--json'],
        { TMSYNC_BASE_URL: slow.baseUrl, TMSYNC_API_KEY: KEY },
      );
      expect(r.code).toBe(3);
      expect(r.err).toMatch(new RegExp(`did not finish within 300ms \\(last status: ${UNFINISHED}\\): 1 total, 0 passed, 0 failed, 1 queued`));
      const json = JSON.parse(r.io.out[r.io.out.length - 1]);
      expect(json.outcome).toBe('timeout');
      expect(json.polls).toBeGreaterThan(1);
    } finally {
      await c.close();
      await slow.close();
    }
  });

  it('survives 5xx answers while polling: the client retries, and a poll that still fails is waited through', async () => {
    // the 2nd to 4th status reads get 503; with max_retries 1 the 2nd and 3rd exhaust one poll's retries
    let reads = 0;
    const proxy = await startProxy(emu.appUrl, (req) =>
      req.method === 'GET' && req.url?.includes('/execution_results/') && ++reads >= 2 && reads <= 4
        ? { status: 503, body: JSON.stringify({ message: 'Service Unavailable' }) }
        : undefined,
    );
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-run-5xx-'));
    try {
      await writeFile(join(dir, 'tmsync.yaml'), 'max_retries: 1\n');
      const r = await tmsync(
        ['run', 'trigger', '--test-plan', passingPlan, '--wait', '--poll', '50ms', '--timeout', '20s'],
        env({ TMSYNC_BASE_URL: `${proxy.origin}/api/v1`, TMSYNC_APP_URL: proxy.origin }),
        dir,
      );
      expect(r.err).toMatch(/Warning: reading the status of run \d+ failed \(.*server_error 503.*\); still waiting/);
      expect(r.code).toBe(0);
      expect(proxy.seen.filter((s) => s.url.includes('/execution_results/')).length).toBeGreaterThan(4);
    } finally {
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('uses TMSYNC_APP_API_KEY for the execution interface: a wrong one fails with exit 1', async () => {
    const r = await tmsync(['run', 'trigger', '--test-plan', passingPlan], env({ TMSYNC_APP_API_KEY: 'not-a-key' }));
    expect(r.code).toBe(1);
    expect(r.err).toContain('unauthorized');
    expect(r.err).not.toContain('not-a-key');
  });

  it('without --wait, prints the run id and exits 0 at once; --json gives the id and link', async () => {
    const r = await tmsync(['run', 'trigger', '--test-plan', passingPlan, '--environment', '4', '--runtime-data', 'browser=firefox', '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json.run.id).toEqual(expect.any(Number));
    expect(json.run.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('refuses --junit without --wait and a malformed --timeout before contacting the service', async () => {
    const a = await tmsync(['run', 'trigger', '--test-plan', passingPlan, '--junit', 'x.xml']);
    expect(a.code).toBe(1);
    expect(a.err).toContain('--junit needs --wait');
    const b = await tmsync(['run', 'trigger', '--test-plan', passingPlan, '--wait', '--timeout', 'soon']);
    expect(b.code).toBe(1);
    expect(b.err).toContain('--timeout: `soon` is not a duration');
  });
});

describe('tmsync run status', () => {
  it("prints a finished run's status, result and counts", async () => {
    const started = await tmsync(['run', 'trigger', '--test-plan', passingPlan, '--wait', '--poll', '50ms']);
    expect(started.code).toBe(0);
    const id = started.io.out[0];
    const r = await tmsync(['run', 'status', id]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('STATUS_COMPLETED SUCCESS — 3 total, 3 passed, 0 failed');
    const j = await tmsync(['run', 'status', id, '--json']);
    expect(JSON.parse(j.out)).toMatchObject({ format_version: 2, id: Number(id), status: 'STATUS_COMPLETED', result: 'SUCCESS' });
    expect(outputSchemas['run-status'].safeParse(JSON.parse(j.out)).error?.issues ?? [], j.out).toEqual([]);
  });

  it('works with only the execution interface variables set (TMSYNC_APP_URL, TMSYNC_APP_API_KEY)', async () => {
    const started = await tmsync(['run', 'trigger', '--test-plan', passingPlan], { TMSYNC_APP_URL: emu.appUrl, TMSYNC_APP_API_KEY: APP_KEY });
    expect(started.code).toBe(0);
    const r = await tmsync(['run', 'status', started.io.out[0]], { TMSYNC_APP_URL: emu.appUrl, TMSYNC_APP_API_KEY: APP_KEY });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^STATUS_[A-Z_]+ /);
  });

  it('exits 1 for a run that does not exist', async () => {
    const r = await tmsync(['run', 'status', '999999']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('not_found');
  });
});

describe('tmsync run report', () => {
  it('downloads the JUnit report of a run started without --wait once it has finished, and starts no run', async () => {
    const started = await tmsync(['run', 'trigger', '--test-plan', passingPlan]);
    expect(started.code).toBe(0);
    const id = started.io.out[0];
    // wait for the end through `run status` (the emulator's runs take 300 ms)
    for (let i = 0; i < 200; i++) {
      const s = await tmsync(['run', 'status', id]);
      if (s.out.startsWith('STATUS_COMPLETED')) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const runsBefore = emu.requestLog().filter((e) => e.method === 'POST').length;
    const r = await tmsync(['run', 'report', id, '--junit', 'reports/later.xml', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(emu.requestLog().filter((e) => e.method === 'POST').length).toBe(runsBefore);
    expect(r.err).toContain(`JUnit report of run ${id} (passed: 3 total, 3 passed, 0 failed) written to reports/later.xml`);
    expect(outputSchemas['run-report'].safeParse(JSON.parse(r.out)).success).toBe(true);
    expect(JSON.parse(r.out)).toEqual({ format_version: 2, run_id: Number(id), status: 'STATUS_COMPLETED', result: 'SUCCESS', outcome: 'passed', junit: 'reports/later.xml' });
    const suites = parseJunit(await readFile(join(cwd, 'reports/later.xml'), 'utf8'), 'later.xml');
    expect(suites.length).toBeGreaterThan(0);
  });

  it('refuses a run that has not finished, saying so, and writes nothing', async () => {
    const slow = await seededEmulator(KEY, { runDurationMs: 600_000 });
    const c = setupClient(slow);
    try {
      const { project } = await seedCases(c, 1);
      const plan = executionRef(slow, (await c.call('createTestPlan', { params: { project_id: project.id }, body: { title: 'Slow plan' } })).data.test_plan.id);
      const e = { TMSYNC_BASE_URL: slow.baseUrl, TMSYNC_API_KEY: KEY };
      const started = await tmsync(['run', 'trigger', '--test-plan', plan], e);
      const r = await tmsync(['run', 'report', started.io.out[0], '--junit', 'reports/unfinished.xml'], e);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`run ${started.io.out[0]} has not finished \\(${UNFINISHED}\\)`));
      await expect(readFile(join(cwd, 'reports/unfinished.xml'))).rejects.toThrow();
    } finally {
      await c.close();
      await slow.close();
    }
  });

  it('is the command `run trigger --junit` without --wait points to', async () => {
    const r = await tmsync(['run', 'trigger', '--test-plan', passingPlan, '--junit', 'x.xml']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('tmsync run report RUN_ID --junit FILE');
    expect(r.err).not.toContain('run trigger … --wait --junit');
  });
});
