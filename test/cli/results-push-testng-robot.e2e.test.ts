import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TmsClient } from '../../src/remote/index.js';
import { runCli } from '../support/cli.js';
import { KEY, runStatuses, seedCases, setupClient, type Emulator } from '../support/ci-helpers.js';
import { seededEmulator } from '../support/emulator.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/', import.meta.url));

let emu: Emulator;
let setup: TmsClient;
let projectId: string;
let cwd: string;

async function tmsync(args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' } });
}

interface PushOutput {
  formats: string[];
  testcases: number;
  run: { id: string; created: boolean };
  unmatched: { name: string }[];
}

beforeAll(async () => {
  emu = await seededEmulator(KEY);
  setup = setupClient(emu);
  // DEMO-1 … DEMO-14
  projectId = (await seedCases(setup, 14)).project.id;
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-push-testng-robot-'));
  await cp(FIXTURES, join(cwd, 'reports'), { recursive: true });
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

describe('tmsync results push with TestNG and Robot Framework reports', () => {
  it('pushes testng-results.xml into a new run: retries folded, a data-provider row, a group naming a case, a failed @BeforeClass failing its class', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'TestNG nightly', 'reports/testng/testng-results.xml', '--json']);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as PushOutput;
    expect(out.formats).toEqual(['testng']);
    expect(out.testcases).toBe(11);
    expect(out.run.created).toBe(true);
    // validLogin names its case only in its description, which is not read for mapping; the row "dune" names none
    expect(out.unmatched.map((u) => u.name)).toEqual(['validLogin', 'search[dune, 1]']);
    expect(await runStatuses(setup, projectId, out.run.id)).toEqual({
      'DEMO-2': 'FAILED',
      'DEMO-3': 'SKIPPED',
      'DEMO-4': 'PASSED',
      'DEMO-5': 'PASSED',
      'DEMO-6': 'FAILED',
      'DEMO-7': 'FAILED',
      'DEMO-8': 'PASSED',
      'DEMO-9': 'FAILED',
      'DEMO-12': 'FAILED',
    });
  });

  it('pushes a Robot Framework 7 output.xml into a new run: SKIP, a tag naming a case, a failed suite set-up', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'Robot nightly', 'reports/robot/robot7.xml', '--json']);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as PushOutput;
    expect(out.formats).toEqual(['robot']);
    expect(out.testcases).toBe(4);
    expect(out.unmatched).toEqual([]);
    expect(await runStatuses(setup, projectId, out.run.id)).toEqual({
      'DEMO-9': 'PASSED',
      'DEMO-10': 'FAILED',
      'DEMO-11': 'SKIPPED',
      'DEMO-13': 'FAILED',
    });
  });

  it('pushes a Robot Framework 3 output.xml, --format robot given', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'Robot 3', '--format', 'robot', 'reports/robot/robot3.xml', '--json']);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as PushOutput;
    expect(await runStatuses(setup, projectId, out.run.id)).toEqual({ 'DEMO-1': 'PASSED', 'DEMO-2': 'FAILED', 'DEMO-3': 'FAILED', 'DEMO-12': 'FAILED' });
  });

  it('fails with invalid_report naming file:line:col for a truncated TestNG report, sending nothing', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'Broken', 'reports/testng/truncated.xml']);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('reports/testng/truncated.xml:101:174 is not well-formed XML');
  });
});
