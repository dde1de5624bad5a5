import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { countTestcases, loadJunitFiles, parseJunit, type JunitTestcase } from '../../src/results/junit.js';
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

describe('parseJunit: nothing is lost silently', () => {
  it('turns a <failure> or <error> of a <testsuite> without testcases into a suite-level entry instead of dropping it', async () => {
    const entries = await fixture('suite-errors.xml');
    const suiteLevel = entries.filter((e) => e.suiteLevel);
    expect(suiteLevel.map((e) => [e.name, e.outcome, e.suites])).toEqual([
      ['com.example.shop.PaymentIT', 'error', ['com.example.shop.PaymentIT']],
      ['DEMO-20 refunds', 'failed', ['DEMO-20 refunds']],
      ['com.example.shop.ReportingIT', 'error', ['com.example.shop.ReportingIT']],
      ['com.example.shop.CartTest', 'error', ['com.example.shop.CartTest']],
    ]);
    expect(suiteLevel[0].message).toBe('suite-level failure: Connection refused: db:5432');
    expect(suiteLevel[0].suiteLevel?.members).toEqual([]);
    // a suite with testcases and its own error (tearDownClass) knows its testcases
    expect(suiteLevel[3].suiteLevel?.members.map((m) => m.name)).toEqual(['DEMO-21 adds an item', 'DEMO-22 removes an item']);
    // the suite-level entries are not testcases
    expect(countTestcases(entries)).toBe(2);
  });

  it('reads status="disabled", status="notrun" and result="suppressed" testcases as skipped, not passed', async () => {
    const entries = await fixture('not-run.xml');
    expect(entries.map((e) => [e.name, e.outcome])).toEqual([
      ['DEMO-30 signs in', 'passed'],
      ['DISABLED_DEMO-31 signs in with SSO', 'skipped'],
      ['DEMO-32 locks after five attempts', 'skipped'],
      ['DEMO-33 remembers the device', 'skipped'],
      // a failure the report records wins over its status
      ['DEMO-34 fails then is disabled', 'failed'],
      ['', 'passed'],
    ]);
    expect(byName(entries, 'DEMO-32 locks after five attempts').message).toBe('not run (disabled)');
  });

  it('counts a bare <testcase/> without attributes as a testcase', () => {
    const entries = parseJunit('<testsuite name="s"><testcase/><testcase name="b"/></testsuite>', 'bare.xml');
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ name: '', classname: '', outcome: 'passed', suites: ['s'] });
    expect(countTestcases(entries)).toBe(2);
  });

  it('reports a truncated file at its end, naming the element left open and where it opened', async () => {
    const err = await loadJunitFiles(['truncated.xml'], FIXTURES).then(
      () => undefined,
      (e: unknown) => e as TmsyncError,
    );
    expect(err?.code).toBe('invalid_junit');
    // the file's last line is line 6, cut inside the name attribute of a <testcase>
    expect(err?.message).toMatch(/^truncated\.xml:6:\d+ is not well-formed XML: the file ends inside the value of name in <testcase>/);
    expect(err?.details).toMatchObject({ file: 'truncated.xml', line: 6 });
    const cut = thrown(() => parseJunit('<testsuites>\n  <testsuite name="a">\n    <testcase name="x"/>\n', 'cut.xml'));
    expect(cut.message).toBe('cut.xml:4:1 is not well-formed XML: the file ends before <testsuite> (opened at 2:3) is closed: it looks truncated');
    expect(cut.details).toMatchObject({ line: 4, col: 1 });
  });

  it('reports an empty file as empty at 1:1, not at an undefined column', async () => {
    const err = await loadJunitFiles(['empty.xml'], FIXTURES).then(
      () => undefined,
      (e: unknown) => e as TmsyncError,
    );
    expect(err?.code).toBe('invalid_junit');
    expect(err?.message).toBe('empty.xml:1:1 is not well-formed XML: the file is empty');
  });

  it('names the line and column of a closing tag that does not match', () => {
    const err = thrown(() => parseJunit('<testsuite name="a">\n  <testcase name="x">\n  </testsuite>', 'broken.xml'));
    expect(err.message).toBe('broken.xml:3:3 is not well-formed XML: </testsuite> where </testcase> was expected (opened at 2:3)');
  });
});

describe('loadJunitFiles: encodings', () => {
  it('reads an ISO-8859-1 report in its declared encoding, so accented names stay intact', async () => {
    const [a, b] = await loadJunitFiles(['latin1.xml'], FIXTURES);
    expect(a).toMatchObject({ name: 'DEMO-40 crème brûlée is listed', classname: 'tests.café', suites: ['Café tests'] });
    expect(b).toMatchObject({ name: 'DEMO-41 prix à 3E? no: Straße', outcome: 'failed', message: 'expected « Öl »' });
  });

  it('reads a Windows-1252 report, including the characters Latin-1 lacks (€, curly quotes, dashes)', async () => {
    const [a, b] = await loadJunitFiles(['windows-1252.xml'], FIXTURES);
    expect(a.name).toBe('DEMO-42 shows “€ 3,50”');
    expect(b).toMatchObject({ name: 'DEMO-43 naïve rounding – half up', message: 'expected ‘3,50 €’' });
  });

  it('reads a UTF-16 report with a byte order mark', async () => {
    const [a, b] = await loadJunitFiles(['utf16.xml'], FIXTURES);
    expect(a).toMatchObject({ name: 'DEMO-44 日本語の名前', classname: 'tests.ü', suites: ['Ünïcode'] });
    expect(b).toMatchObject({ name: 'DEMO-45 Ελληνικά', outcome: 'failed', message: 'attendu « oui »' });
  });

  it('refuses a report declared UTF-8 that is not, naming the line and column of the first bad byte', async () => {
    await expect(loadJunitFiles(['not-utf8.xml'], FIXTURES)).rejects.toMatchObject({
      code: 'invalid_junit',
      message: 'not-utf8.xml:4:50 is not valid UTF-8',
      details: { file: 'not-utf8.xml', line: 4, col: 50 },
    });
  });

  it('reads a file declaring UTF-16 but written in single bytes (re-encoded by a tool) as UTF-8', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-junit-'));
    try {
      await writeFile(join(dir, 'relabelled.xml'), '<?xml version="1.0" encoding="UTF-16"?>\n<testsuite name="s"><testcase name="DEMO-1 café"/></testsuite>');
      expect((await loadJunitFiles(['relabelled.xml'], dir)).map((t) => t.name)).toEqual(['DEMO-1 café']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses an encoding it cannot read, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-junit-'));
    try {
      await writeFile(join(dir, 'ebcdic.xml'), '<?xml version="1.0" encoding="IBM037"?><testsuite/>');
      await expect(loadJunitFiles(['ebcdic.xml'], dir)).rejects.toMatchObject({ code: 'invalid_junit', message: 'ebcdic.xml declares encoding "IBM037", which tmsync cannot read' });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('loadJunitFiles: size', () => {
  it('reads a report of 200,000 testcases (more than a spread into push() survives) and keeps every one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-junit-'));
    try {
      const n = 200_000;
      const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuite name="big">'];
      for (let i = 1; i <= n; i++) lines.push(`<testcase classname="c" name="DEMO-${i}"/>`);
      lines.push('</testsuite>');
      await writeFile(join(dir, 'big.xml'), lines.join('\n'));
      const entries = await loadJunitFiles(['big.xml'], dir);
      expect(entries).toHaveLength(n);
      expect(entries[n - 1].name).toBe(`DEMO-${n}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
