import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseJunit, type JunitTestcase } from '../../src/results/junit.js';
import {
  describeCaseResult,
  findHumanIds,
  mapResults,
  parseStatusMap,
  refsOf,
  resolveRunStatuses,
} from '../../src/results/map-results.js';
import type { LookupEntry } from '../../src/api/resources.js';
import { buildAutomationIndex } from '../../src/test-patterns.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/junit/', import.meta.url));

async function allFixtures(): Promise<JunitTestcase[]> {
  const out: JunitTestcase[] = [];
  for (const f of ['surefire.xml', 'pytest.xml', 'jest.xml', 'playwright.xml']) {
    out.push(...parseJunit(await readFile(`${FIXTURES}${f}`, 'utf8'), f));
  }
  return out;
}

function tc(partial: Partial<JunitTestcase>): JunitTestcase {
  return { name: '', classname: '', outcome: 'passed', properties: {}, suites: [], report: 'r.xml', ...partial };
}

const STATUSES: LookupEntry[] = [
  { id: 's-pass', name: 'Passed', alias: 'passed', order: 1 },
  { id: 's-fail', name: 'Failed', alias: 'failed', order: 2 },
  { id: 's-block', name: 'Blocked', alias: 'blocked', order: 3 },
  { id: 's-skip', name: 'Skipped', alias: 'skipped', order: 4 },
  { id: 's-retest', name: 'Retest', alias: 'retest', order: 5 },
];

describe('findHumanIds', () => {
  it('finds human ids anywhere in free text, in order and without duplicates', () => {
    expect(findHumanIds('Checkout › DEMO-1 and SHOP-12 [DEMO-1]')).toEqual(['DEMO-1', 'SHOP-12']);
  });

  it('does not take the tail of a step group, plan or run id for a case id', () => {
    expect(findHumanIds('uses SHOP-SG-3 in SHOP-P-2 / SHOP-R-9')).toEqual([]);
  });

  it('with a known prefix, ignores other prefixes (ticket keys) and accepts the underscore spelling of identifiers', () => {
    expect(findHumanIds('test_checkout_DEMO_7_with_paypal fixes JIRA-12', 'DEMO')).toEqual(['DEMO-7']);
    expect(findHumanIds('DEMO-007 and DEMO-12', 'DEMO')).toEqual(['DEMO-7', 'DEMO-12']);
  });

  it('without a prefix, does not take the underscore spelling (HTTP_200 is not an id)', () => {
    expect(findHumanIds('test_HTTP_200 test_DEMO_7')).toEqual([]);
  });
});

describe('refsOf', () => {
  it('prefers the mapping file over the test_case property, and the property over the name', () => {
    const t = tc({ name: 'DEMO-1 pays', classname: 'Checkout', properties: { test_case: 'DEMO-2' } });
    expect(refsOf(t)).toEqual(['DEMO-2']);
    expect(refsOf(t, { mapping: { 'Checkout.DEMO-1 pays': 'DEMO-3' } })).toEqual(['DEMO-3']);
    expect(refsOf(t, { mapping: { 'DEMO-1 pays': ['demo-4', 'DEMO-5'] } })).toEqual(['DEMO-4', 'DEMO-5']);
  });

  it('splits a test_case property naming several cases', () => {
    expect(refsOf(tc({ properties: { test_case: 'DEMO-2, DEMO-3 DEMO-2' } }))).toEqual(['DEMO-2', 'DEMO-3']);
  });

  it('looks in the classname only when the name has no id', () => {
    expect(refsOf(tc({ name: 'refunds', classname: 'com.shop.DEMO_5_RefundTest' }), { prefix: 'DEMO' })).toEqual(['DEMO-5']);
    expect(refsOf(tc({ name: 'DEMO-1', classname: 'DEMO-5' }))).toEqual(['DEMO-1']);
  });
});

describe('mapResults', () => {
  it('maps the four dialects to cases with the worst outcome per case and lists the unmatched testcases', async () => {
    const mapped = mapResults(await allFixtures(), { prefix: 'DEMO' });
    const outcomes = Object.fromEntries(mapped.cases.map((c) => [c.ref, c.outcome]));
    expect(outcomes).toEqual({
      'DEMO-1': 'passed', // surefire + two playwright browsers
      'DEMO-2': 'failed', // surefire name + playwright property
      'DEMO-3': 'error',
      'DEMO-4': 'skipped',
      'DEMO-5': 'skipped', // passed in one parametrisation, xfail in another
      'DEMO-6': 'failed', // property
      'DEMO-7': 'error', // underscore name (error) beats the property-mapped pass
      'DEMO-8': 'passed',
      'DEMO-9': 'skipped',
      'DEMO-10': 'passed',
      'DEMO-11': 'skipped',
      'DEMO-99': 'passed',
    });
    expect(mapped.cases.find((c) => c.ref === 'DEMO-1')?.testcases).toHaveLength(3);
    expect(mapped.unmatched.map((t) => t.name)).toEqual(['totalIncludesTax()', 'test_coupon', 'Cart drawer updates the total']);
  });

  it('ranks failed above error above skipped above passed when testcases of one case disagree', () => {
    const run = (...outcomes: JunitTestcase['outcome'][]) =>
      mapResults(outcomes.map((o) => tc({ name: 'DEMO-1', outcome: o }))).cases[0].outcome;
    expect(run('passed', 'skipped')).toBe('skipped');
    expect(run('skipped', 'error', 'passed')).toBe('error');
    expect(run('error', 'failed')).toBe('failed');
    expect(run('passed', 'passed')).toBe('passed');
  });
});

describe('mapResults: suite-level failures', () => {
  async function suiteErrors(): Promise<JunitTestcase[]> {
    return parseJunit(await readFile(`${FIXTURES}suite-errors.xml`, 'utf8'), 'suite-errors.xml');
  }

  it('fails every case of a suite whose set-up failed: by the mapping file, a human id in the suite name, and its own testcases', async () => {
    const mapped = mapResults(await suiteErrors(), {
      prefix: 'DEMO',
      // a <classname>.<name> entry of the suite's class maps the whole class
      mapping: { 'com.example.shop.PaymentIT.paysByCard': 'DEMO-23', 'com.example.shop.PaymentIT.refundsByCard': ['DEMO-24'] },
    });
    const outcomes = Object.fromEntries(mapped.cases.map((c) => [c.ref, c.outcome]));
    expect(outcomes).toEqual({
      'DEMO-21': 'error', // passed, but its suite's tearDownClass failed
      'DEMO-22': 'error',
      'DEMO-23': 'error', // the mapping file, by the suite's class
      'DEMO-24': 'error',
      'DEMO-20': 'failed', // the human id in the suite name
    });
    expect(describeCaseResult(mapped.cases.find((c) => c.ref === 'DEMO-23')!)).toBe(
      'error: suite com.example.shop.PaymentIT — suite-level failure: Connection refused: db:5432',
    );
  });

  it('fails the cases of testcases elsewhere whose classname is the failed suite, and a mapping entry for the suite name itself', () => {
    const setupFailed = tc({ name: 'com.shop.LoginIT', outcome: 'error', suites: ['com.shop.LoginIT'], suiteLevel: { members: [] } });
    const earlier = tc({ name: 'DEMO-5 logs in', classname: 'com.shop.LoginIT', report: 'first-attempt.xml' });
    const other = tc({ name: 'DEMO-6 logs out', classname: 'com.shop.LogoutIT' });
    const mapped = mapResults([earlier, other, setupFailed], { prefix: 'DEMO' });
    expect(mapped.cases.map((c) => [c.ref, c.outcome])).toEqual([
      ['DEMO-5', 'error'],
      ['DEMO-6', 'passed'],
    ]);
    const byName = mapResults([setupFailed], { prefix: 'DEMO', mapping: { 'com.shop.LoginIT': ['DEMO-7', 'DEMO-8'] } });
    expect(byName.cases.map((c) => [c.ref, c.outcome])).toEqual([
      ['DEMO-7', 'error'],
      ['DEMO-8', 'error'],
    ]);
  });

  it('lists a suite-level failure that maps to no case as unmatched instead of dropping it', async () => {
    const mapped = mapResults(await suiteErrors(), { prefix: 'DEMO' });
    expect(mapped.unmatched.map((t) => [t.name, t.outcome, t.suiteLevel !== undefined])).toEqual([
      ['com.example.shop.PaymentIT', 'error', true],
      ['com.example.shop.ReportingIT', 'error', true],
    ]);
  });
});

describe('run statuses', () => {
  it('resolves the default outcome names, case-insensitively by name', () => {
    expect(resolveRunStatuses(STATUSES)).toEqual({
      passed: { id: 's-pass', name: 'Passed' },
      failed: { id: 's-fail', name: 'Failed' },
      error: { id: 's-fail', name: 'Failed' },
      skipped: { id: 's-skip', name: 'Skipped' },
    });
  });

  it('applies --status-map overrides by name or alias', () => {
    const choice = resolveRunStatuses(STATUSES, parseStatusMap(['skipped=blocked', 'ERROR=Retest']));
    expect(choice.skipped).toEqual({ id: 's-block', name: 'Blocked' });
    expect(choice.error).toEqual({ id: 's-retest', name: 'Retest' });
  });

  it('refuses a status the service does not have, listing the ones it has', () => {
    expect(() => resolveRunStatuses(STATUSES, { skipped: 'Ignored' })).toThrow(/no run status "Ignored"/);
    try {
      resolveRunStatuses(STATUSES.filter((s) => s.name !== 'Skipped'));
    } catch (err) {
      expect((err as { code: string; hint: string }).code).toBe('unknown_run_status');
      expect((err as { hint: string }).hint).toContain('Passed, Failed, Blocked, Retest');
      return;
    }
    throw new Error('expected unknown_run_status');
  });

  it('accepts several --status-map entries in one comma-separated value', () => {
    expect(parseStatusMap(['skipped=Blocked,error=Retest', 'passed=Passed'])).toEqual({ skipped: 'Blocked', error: 'Retest', passed: 'Passed' });
  });

  it('rejects a --status-map entry whose outcome is unknown or whose status is empty', () => {
    expect(() => parseStatusMap(['flaky=Retest'])).toThrow(/not outcome=status/);
    expect(() => parseStatusMap(['passed='])).toThrow(/not outcome=status/);
  });
});

describe('describeCaseResult', () => {
  it('writes one line per testcase with its outcome, place and message, capped in length', () => {
    const mapped = mapResults([
      tc({ name: 'DEMO-1 pays', classname: 'Checkout', outcome: 'failed', message: 'expected 2' }),
      tc({ name: 'DEMO-1 again', outcome: 'passed' }),
    ]);
    expect(describeCaseResult(mapped.cases[0])).toBe('failed: Checkout › DEMO-1 pays — expected 2\npassed: DEMO-1 again');
    expect(describeCaseResult(mapped.cases[0], 20)).toHaveLength(20);
  });
});

describe('the automation: key of case files', () => {
  const index = buildAutomationIndex([
    { id: 'SHOP-1', file: 'cases/A/one.yaml', title: 'one', tests: ['com.shop.CheckoutTest.paysWithCard'] },
    { id: 'SHOP-2', file: 'cases/A/two.yaml', title: 'two', tests: ['checkout.spec.ts > *'] },
    { file: 'cases/A/new.yaml', title: 'new', tests: ['com.shop.NewTest.works'] },
  ]);

  it('maps a test through it after the mapping file and before properties and names', () => {
    const t = tc({ classname: 'com.shop.CheckoutTest', name: 'paysWithCard', properties: { test_case: 'SHOP-9' } });
    expect(refsOf(t, { automation: index })).toEqual(['SHOP-1']);
    expect(refsOf(t, { automation: index, mapping: { 'com.shop.CheckoutTest.paysWithCard': 'SHOP-7' } })).toEqual(['SHOP-7']);
    expect(refsOf(t)).toEqual(['SHOP-9']);
    expect(refsOf(tc({ name: 'pays with card', file: 'checkout.spec.ts', suites: ['checkout.spec.ts'] }), { automation: index })).toEqual(['SHOP-2']);
  });

  it('leaves a test unmatched when only a case without an id names it, whatever its properties say', () => {
    const t = tc({ classname: 'com.shop.NewTest', name: 'works', properties: { test_case: 'SHOP-4' } });
    expect(refsOf(t, { automation: index })).toEqual([]);
    expect(mapResults([t], { automation: index }).unmatched).toEqual([t]);
  });
});

describe('a suite-level failure and the automation: key', () => {
  it('fails the applied cases whose automation: names a test of the suite, by name or pattern', () => {
    const index = buildAutomationIndex([
      { id: 'SHOP-1', file: 'cases/A/one.yaml', title: 'one', tests: ['com.shop.RefundTest.full'] },
      { id: 'SHOP-2', file: 'cases/A/two.yaml', title: 'two', tests: ['com.shop.Refund*'] },
      { id: 'SHOP-3', file: 'cases/A/three.yaml', title: 'three', tests: ['com.shop.RefundTestOther.x', 'com.shop.Pay*'] },
      { file: 'cases/A/new.yaml', title: 'new', tests: ['com.shop.RefundTest.partial'] },
    ]);
    const suite = tc({ name: 'com.shop.RefundTest', outcome: 'error', suiteLevel: { members: [] } });
    const mapped = mapResults([suite], { automation: index });
    expect(mapped.cases.map((c) => `${c.ref} ${c.outcome}`)).toEqual(['SHOP-1 error', 'SHOP-2 error']);
    expect(mapped.unmatched).toEqual([]);
  });
});
