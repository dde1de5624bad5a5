import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { TEST_DIALECT } from '../dialect.js';
import { KEY, type Emulator } from '../support/ci-helpers.js';
import { seededEmulator } from '../support/emulator.js';

let emu: Emulator;
let cwd: string;

async function tmsync(args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' } });
}

beforeAll(async () => {
  emu = await seededEmulator(KEY);
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-plan-'));
});

afterAll(async () => {
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

describe('tmsync test-plan', () => {
  it('creates a plan with dates and labels, gets it by human id, and completes it', async () => {
    const created = await tmsync([
      'test-plan', 'create', '--title', 'Release 2.4', '--description', 'Regression for 2.4',
      '--start', '2026-11-20', '--end', '2026-11-27T18:00:00Z', '--label', 'smoke', 'Regression', '--json',
    ]);
    expect(created.code).toBe(0);
    const plan = JSON.parse(created.out).test_plan;
    // the dates land in the unit the service reads them in: seconds (document), milliseconds (live)
    const unit = TEST_DIALECT === 'live' ? 1000 : 1;
    expect(plan).toMatchObject({ title: 'Release 2.4', status: 'ACTIVE', start_date: 1_795_132_800 * unit, end_date: 1_795_802_400 * unit });
    expect(plan.label_ids).toHaveLength(2);
    expect(created.err).toContain(`Created test plan ${plan.human_id} "Release 2.4"`);

    const got = await tmsync(['test-plan', 'get', plan.human_id]);
    expect(got.code).toBe(0);
    expect(got.out.split('\n')[0]).toBe(`${plan.human_id}  ACTIVE  Release 2.4`);
    expect(got.out).toContain('start: 2026-11-20T00:00:00.000Z');
    // the emulator's integer id for the execution interface: an extension the live dialect does not show
    if (TEST_DIALECT === 'document') {
      expect(got.out).toContain(`execution id: ${plan.execution_id}`);
      expect(Number.isInteger(plan.execution_id)).toBe(true);
    } else {
      expect(got.out).not.toContain('execution id');
      expect(plan).not.toHaveProperty('execution_id');
    }

    const done = await tmsync(['test-plan', 'complete', plan.human_id]);
    expect(done.code).toBe(0);
    expect(done.out).toBe(plan.id);
    const after = await tmsync(['test-plan', 'get', plan.id, '--json']);
    expect(JSON.parse(after.out).test_plan.status).toBe('COMPLETED');
  });

  it('prints only the new id on stdout without --json, for scripts', async () => {
    const r = await tmsync(['test-plan', 'create', '--title', 'Scripted']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses an unknown label, a bad date and an unknown plan with exit 1', async () => {
    const label = await tmsync(['test-plan', 'create', '--title', 'X', '--label', 'nope']);
    expect(label.code).toBe(1);
    expect(label.err).toContain('no label "nope"');
    const date = await tmsync(['test-plan', 'create', '--title', 'X', '--start', 'next tuesday']);
    expect(date.code).toBe(1);
    expect(date.err).toContain('--start: `next tuesday` is not a date');
    const missing = await tmsync(['test-plan', 'get', 'DEMO-P-404']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('no test plan "DEMO-P-404"');
  });
});
