import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadJunitFiles, parseJunit, type JunitTestcase } from '../../src/ci/junit.js';
import { TmsyncError } from '../../src/errors.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/junit/', import.meta.url));

async function fixture(name: string): Promise<JunitTestcase[]> {
  return parseJunit(await readFile(`${FIXTURES}${name}`, 'utf8'), name);
}

function byName(cases: JunitTestcase[], name: string): JunitTestcase {
  const tc = cases.find((c) => c.name === name);
  if (!tc) throw new Error(`no testcase ${name}`);
  return tc;
}

function thrown(fn: () => unknown): TmsyncError {
  try {
    fn();
  } catch (err) {
    return err as TmsyncError;
  }
  throw new Error('expected a throw');
}

describe('parseJunit', () => {
  it('reads a surefire report with a bare <testsuite> root, its outcomes, durations and the suite name', async () => {
    const cases = await fixture('surefire.xml');
    expect(cases.map((c) => [c.name, c.outcome])).toEqual([
      ['DEMO-1 pays with a saved card', 'passed'],
      ['DEMO-2 declined card shows an error', 'failed'],
      ['DEMO-3 asks for the 3-D Secure code', 'error'],
      ['totalIncludesTax()', 'passed'],
      ['DEMO-4 redeems a gift card', 'skipped'],
    ]);
    const failed = byName(cases, 'DEMO-2 declined card shows an error');
    expect(failed.classname).toBe('com.example.shop.CheckoutTest');
    expect(failed.message).toBe('expected: <Your card was declined.> but was: <Something went wrong>');
    expect(failed.durationMs).toBe(873);
    expect(failed.suites).toEqual(['com.example.shop.CheckoutTest']);
    expect(failed.report).toBe('surefire.xml');
    // thousands separators in `time` (older surefire) are read, not turned into NaN
    expect(byName(cases, 'DEMO-3 asks for the 3-D Secure code').durationMs).toBe(2_001_500);
    expect(byName(cases, 'DEMO-4 redeems a gift card').message).toBe('gift cards are disabled until GIFT-88 ships');
  });

  it('does not give testcases the JVM properties of their surefire suite, and counts a flaky pass as passed', async () => {
    const cases = await fixture('surefire.xml');
    for (const c of cases) expect(c.properties).toEqual({});
    expect(byName(cases, 'DEMO-1 pays with a saved card').outcome).toBe('passed');
  });

  it('reads a pytest report: dotted classname, file attribute, testcase properties, xfail as skipped, setup errors', async () => {
    const cases = await fixture('pytest.xml');
    expect(cases).toHaveLength(6);
    const removed = byName(cases, 'test_remove_item');
    expect(removed).toMatchObject({
      classname: 'tests.checkout.test_cart',
      file: 'tests/checkout/test_cart.py',
      outcome: 'failed',
      properties: { test_case: 'DEMO-6', owner: 'ana' },
      suites: ['pytest'],
    });
    // the message attribute's first line, entity-decoded
    expect(removed.message).toBe('AssertionError: assert 2 == 1');
    expect(byName(cases, 'test_price_rounding[DEMO-5-eur]')).toMatchObject({ outcome: 'skipped', message: 'rounding bug #412' });
    expect(byName(cases, 'test_checkout_DEMO_7_with_paypal')).toMatchObject({
      outcome: 'error',
      message: 'failed on setup with "ConnectionError: sandbox.paypal.example unreachable"',
    });
  });

  it('reads a jest-junit report: the <testsuites> name is not a suite, and a failure without a message attribute gives its first text line', async () => {
    const cases = await fixture('jest.xml');
    expect(cases.map((c) => c.outcome)).toEqual(['passed', 'failed', 'skipped', 'passed', 'passed']);
    const failed = byName(cases, 'Cart drawer updates the total');
    expect(failed.suites).toEqual(['Cart drawer']);
    expect(failed.classname).toBe('Cart drawer updates the total');
    expect(failed.message).toBe('Error: expect(received).toBe(expected) // Object.is equality');
    expect(failed.file).toBeUndefined();
    expect(byName(cases, 'Cart drawer coupons rejects an expired coupon').properties).toEqual({ test_case: 'DEMO-10' });
  });

  it('reads a playwright report: the spec file from the classname, one testcase per browser project, CDATA failures', async () => {
    const cases = await fixture('playwright.xml');
    expect(cases).toHaveLength(5);
    const smoke = cases.filter((c) => c.name === 'Checkout › DEMO-1 pays with a saved card @smoke');
    expect(smoke).toHaveLength(2);
    expect(smoke.every((c) => c.file === 'checkout.spec.ts' && c.outcome === 'passed')).toBe(true);
    const declined = byName(cases, 'Checkout › declined card shows an error');
    expect(declined).toMatchObject({
      outcome: 'failed',
      message: 'checkout.spec.ts:31:7 declined card shows an error',
      properties: { test_case: 'DEMO-2', issue: 'https://tracker.example/SHOP/issues/311' },
    });
    expect(byName(cases, 'Checkout › DEMO-11 pays with Apple Pay').outcome).toBe('skipped');
  });

  it('walks suites nested in suites (phpunit) and keeps the suite path and the file of the inner suite', async () => {
    const cases = await fixture('phpunit-nested.xml');
    expect(cases).toHaveLength(3);
    const dataSet = byName(cases, 'testAddsItems with data set "DEMO-2 one item"');
    expect(dataSet.suites).toEqual(['Shop Test Suite', 'Unit', 'Tests\\Unit\\CartTest', 'Tests\\Unit\\CartTest::testAddsItems']);
    expect(dataSet.file).toBe('/app/tests/Unit/CartTest.php');
    expect(dataSet.classname).toBe('Tests.Unit.CartTest');
  });

  it('returns no testcases for an empty <testsuites> element', () => {
    expect(parseJunit('<?xml version="1.0"?>\n<testsuites/>', 'empty.xml')).toEqual([]);
  });

  it('rejects malformed XML with invalid_junit naming the file, line and column', () => {
    const err = thrown(() => parseJunit('<testsuite name="a">\n  <testcase name="x">\n</testsuite>', 'reports/broken.xml'));
    expect(err).toBeInstanceOf(TmsyncError);
    expect(err.code).toBe('invalid_junit');
    expect(err.message).toMatch(/^reports\/broken\.xml:3:\d+ is not well-formed XML/);
    expect(err.details).toMatchObject({ file: 'reports/broken.xml', line: 3 });
  });

  it('rejects a truncated report (a crashed run) with invalid_junit rather than a parser exception', () => {
    const err = thrown(() => parseJunit('<testsuites><testsuite name="a"><testcase name="x"/>', 'cut.xml'));
    expect(err).toBeInstanceOf(TmsyncError);
    expect(err.code).toBe('invalid_junit');
    expect(err.message).toContain('cut.xml');
  });

  it('rejects well-formed XML that is not a JUnit report, naming its root element', () => {
    const err = thrown(() => parseJunit('<?xml version="1.0"?><coverage line-rate="0.9"/>', 'coverage.xml'));
    expect(err.code).toBe('invalid_junit');
    expect(err.message).toContain('<coverage>');
  });
});

describe('loadJunitFiles', () => {
  it('reads several files in order, keeping each testcase\'s report path', async () => {
    const cases = await loadJunitFiles(['surefire.xml', 'jest.xml'], FIXTURES);
    expect(cases).toHaveLength(10);
    expect(cases[0].report).toBe('surefire.xml');
    expect(cases[9].report).toBe('jest.xml');
  });

  it('fails with junit_not_found for a missing file', async () => {
    await expect(loadJunitFiles(['missing.xml'], FIXTURES)).rejects.toMatchObject({ code: 'junit_not_found' });
  });
});
