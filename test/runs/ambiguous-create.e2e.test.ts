import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryIo } from '../../src/cli/io.js';
import type { TmsClient } from '../../src/remote/index.js';
import { startTestEmulator as startEmulator } from '../dialect.js';
import { KEY, runStatuses, seedCases, setupClient, type Emulator } from '../support/ci-helpers.js';

/**
 * `tmsync test-plan create` and `results push --new-run` make one item each outside a plan run.
 * Their create goes through the engine: when its answer is lost after the service stored it, the
 * engine's finder (`apply/finders.ts`) confirms it, and it is not created a second time.
 */

// the lookups the engine's finders ran, by operation kind
const lookups = vi.hoisted(() => [] as string[]);
vi.mock('../../src/apply/finders.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/apply/finders.js')>();
  return {
    ...real,
    reconcilerFor: (...args: Parameters<typeof real.reconcilerFor>) => {
      const lookup = real.reconcilerFor(...args);
      return (
        lookup &&
        (async () => {
          lookups.push(args[0].kind);
          return lookup();
        })
      );
    },
  };
});

const FIXTURES = fileURLToPath(new URL('../fixtures/junit/', import.meta.url));

let emu: Emulator;
let setup: TmsClient;
let projectId: string;
let cwd: string;
/** the POST whose answer is dropped after the service stored it: the first one to this path */
let dropOnce: RegExp | undefined;

async function tmsync(args: string[]) {
  const io = memoryIo({ TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' });
  const code = await main(['node', 'tmsync', ...args], io, cwd);
  return { code, out: io.out.join('\n'), err: io.err.join('\n') };
}

beforeAll(async () => {
  emu = await startEmulator({
    memory: true,
    apiKeys: [KEY],
    seed: 'demo',
    // a scripted fault: this one write is stored, then its connection is dropped without an answer
    onRequest: ({ method, path }) => {
      const hit = dropOnce !== undefined && method === 'POST' && dropOnce.test(path);
      if (hit) dropOnce = undefined;
      emu.setFaults({ failRate: hit ? 1 : 0, failAfterCommit: hit });
    },
  });
  setup = setupClient(emu);
  projectId = (await seedCases(setup, 11)).project.id;
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-ambiguous-'));
  await cp(FIXTURES, join(cwd, 'reports'), { recursive: true });
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

beforeEach(() => {
  lookups.length = 0;
  emu.clearRequestLog();
});

/** The POSTs to a collection, as the request log holds them. */
function posts(collection: string) {
  return emu.requestLog().filter((e) => e.method === 'POST' && e.path.split('?')[0].endsWith(`/${collection}`));
}

describe('a create whose answer is lost, outside a plan run', () => {
  it('test-plan create: the engine finds the plan the service stored and prints it; one plan, not two', async () => {
    dropOnce = /\/test_plans$/;
    const r = await tmsync(['test-plan', 'create', '--title', 'Release lost answer']);
    expect(r.code).toBe(0);
    expect(lookups).toEqual(['create_test_plan']);
    expect(posts('test_plans').map((e) => e.fault)).toEqual(['reset_after_commit']);
    const same = [];
    for await (const p of setup.paginate('listTestPlans', { params: { project_id: projectId } })) if (p.title === 'Release lost answer') same.push(p.id);
    expect(same).toEqual([r.out]);
    expect(r.err).toContain('Created test plan');
  });

  it('results push --new-run: the engine finds the run the service stored and sends the results into it; one run, not two', async () => {
    dropOnce = /\/test_runs$/;
    const r = await tmsync(['results', 'push', '--new-run', 'Nightly lost answer', 'reports/playwright.xml', '--json']);
    expect(r.code).toBe(0);
    expect(lookups).toEqual(['create_test_run']);
    expect(posts('test_runs').map((e) => e.fault)).toEqual(['reset_after_commit']);
    const json = JSON.parse(r.out);
    expect(json.run).toMatchObject({ title: 'Nightly lost answer', created: true });
    const same = [];
    for await (const run of setup.paginate('listTestRuns', { params: { project_id: projectId } })) if (run.title === 'Nightly lost answer') same.push(run.id);
    expect(same).toEqual([json.run.id]);
    expect(await runStatuses(setup, projectId, json.run.id)).toEqual({ 'DEMO-1': 'PASSED', 'DEMO-2': 'FAILED', 'DEMO-11': 'SKIPPED' });
  });
});
