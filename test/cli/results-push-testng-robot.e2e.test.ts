import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runStatuses } from '../support/ci-helpers.js';
import { reportPushFixture } from '../support/report-push.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/', import.meta.url));

// DEMO-1 … DEMO-14
const f = reportPushFixture(FIXTURES, 14, 'push-testng-robot');
const tmsync = f.tmsync;

interface PushOutput {
  formats: string[];
  testcases: number;
  run: { id: string; created: boolean };
  unmatched: { name: string }[];
}

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
    expect(await runStatuses(f.setup, f.projectId, out.run.id)).toEqual({
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
    expect(await runStatuses(f.setup, f.projectId, out.run.id)).toEqual({
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
    expect(await runStatuses(f.setup, f.projectId, out.run.id)).toEqual({ 'DEMO-1': 'PASSED', 'DEMO-2': 'FAILED', 'DEMO-3': 'FAILED', 'DEMO-12': 'FAILED' });
  });

  it('fails with invalid_report naming file:line:col for a truncated TestNG report, sending nothing', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'Broken', 'reports/testng/truncated.xml']);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain('reports/testng/truncated.xml:101:174 is not well-formed XML');
  });
});
