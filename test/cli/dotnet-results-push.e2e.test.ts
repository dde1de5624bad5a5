import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runStatuses } from '../support/ci-helpers.js';
import { reportPushFixture } from '../support/report-push.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/', import.meta.url));

// DEMO-1 … DEMO-27: the TRX fixture names DEMO-1 … DEMO-15, the NUnit 3 one DEMO-16 … DEMO-27
const f = reportPushFixture(FIXTURES, 27, 'dotnet-push');
const tmsync = f.tmsync;

describe('tmsync results push with TRX and NUnit reports', () => {
  it('pushes a TRX and an NUnit 3 report into one new run: every outcome by its table, rows and suite-level failures by the worst', async () => {
    const r = await tmsync(['results', 'push', '--new-run', '.NET nightly', 'reports/trx/checkout.trx', 'reports/nunit/nunit3.xml', '--json']);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as { formats: string[]; testcases: number; unmatched: { name: string }[]; run: { id: string; created: boolean } };
    expect(out.formats).toEqual(['trx', 'nunit']);
    // 17 TRX results (the data-driven parent is not one) and 14 NUnit test-cases
    expect(out.testcases).toBe(31);
    expect(out.run.created).toBe(true);
    expect(out.unmatched.map((u) => u.name)).toEqual(['RefundsCard']);
    expect(await runStatuses(f.setup, f.projectId, out.run.id)).toEqual({
      'DEMO-1': 'PASSED',
      'DEMO-2': 'FAILED',
      // TestCategory DEMO-3, an error
      'DEMO-3': 'FAILED',
      'DEMO-4': 'FAILED',
      'DEMO-5': 'FAILED',
      'DEMO-6': 'SKIPPED',
      'DEMO-7': 'SKIPPED',
      'DEMO-8': 'PASSED',
      'DEMO-9': 'PASSED',
      'DEMO-10': 'FAILED',
      'DEMO-11': 'FAILED',
      // a test_case property
      'DEMO-12': 'PASSED',
      'DEMO-13': 'FAILED',
      'DEMO-14': 'FAILED',
      // three data rows, one failed
      'DEMO-15': 'FAILED',
      'DEMO-16': 'PASSED',
      'DEMO-17': 'FAILED',
      // NUnit Category DEMO-18, label Error
      'DEMO-18': 'FAILED',
      'DEMO-19': 'SKIPPED',
      'DEMO-20': 'SKIPPED',
      'DEMO-21': 'SKIPPED',
      'DEMO-22': 'PASSED',
      'DEMO-23': 'FAILED',
      'DEMO-24': 'FAILED',
      'DEMO-25': 'FAILED',
      'DEMO-26': 'FAILED',
      // its test passed; its fixture's OneTimeTearDown failed
      'DEMO-27': 'FAILED',
    });
  });

  it('lists a TRX run-level error that names no case instead of passing over it', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'Crashed host', 'reports/trx/checkout.trx', 'reports/trx/aborted.trx']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('1 suite-level failure named no test case');
    expect(r.err).toContain('reports/trx/aborted.trx: suite nightly 2026-11-26 error — run-level error: The active test run was aborted. Reason: Test host process crashed : Stack overflow.');
  });

  it('names the .NET formats in --help and reads them when --format says so', async () => {
    const h = (await tmsync(['results', 'push', '--help'])).out.replace(/\s+/g, ' ');
    expect(h).toMatch(/--format <format> .*\(choices: "auto", .*"trx", "nunit", "xunit".*default: "auto"\)/);
    expect(h).toContain('TRX (dotnet test --logger trx), NUnit 2/3 or xUnit.net v2 XML');
    expect(h).toContain('a tag or category that is a human id (TRX TestCategory, NUnit Category, xUnit.net Category trait, TestNG group, Robot/CTRF/Playwright tag)');
    const r = await tmsync(['results', 'push', '--new-run', 'xUnit', '--format', 'xunit', 'reports/xunit/xunit.xml', '--dry-run', '--json']);
    expect(r.code, r.err).toBe(0);
    expect((JSON.parse(r.out) as { formats: string[] }).formats).toEqual(['xunit']);
    const wrong = await tmsync(['results', 'push', '--new-run', 'X', '--format', 'nunit', 'reports/trx/checkout.trx']);
    expect(wrong.code).toBe(1);
    expect(wrong.err).toContain('reports/trx/checkout.trx is not an NUnit report: the root element is <TestRun>, not <test-run> or <test-results>');
  });
});
