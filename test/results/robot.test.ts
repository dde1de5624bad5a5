import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadFixture, recordNamed, rejectionOf } from '../support/report-files.js';
import { detectFormat, loadReports } from '../../src/results/load-reports.js';
import { mapResults } from '../../src/results/map-results.js';
import type { TestRecord } from '../../src/results/record.js';
import { parseRobot } from '../../src/results/robot.js';
import { testKeys } from '../../src/results/test-key.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/robot/', import.meta.url));

const load = (file: string): Promise<TestRecord[]> => loadFixture(FIXTURES, file);

const byName = recordNamed;

function mapped(records: readonly TestRecord[]): Record<string, string> {
  return Object.fromEntries(mapResults(records, { prefix: 'DEMO' }).cases.map((c) => [c.ref, c.outcome]));
}

const rejection = rejectionOf;

describe('Robot Framework output.xml', () => {
  it('is told by its root element <robot>, in every version', async () => {
    for (const file of ['robot3.xml', 'robot4.xml', 'robot6.xml', 'robot7.xml', 'robot7-utf16.xml', 'robot7-bom-crlf.xml']) {
      expect(detectFormat(await readFile(`${FIXTURES}${file}`), file), file).toBe('robot');
    }
  });

  it('reads RF 3: <tags>, html="yes" screenshots, starttime/endtime, a failed suite set-up as a suite-level entry', async () => {
    const records = await load('robot3.xml');
    expect(records.map((r) => [r.suiteLevel ? `suite ${r.name}` : r.name, r.outcome])).toEqual([
      ['DEMO-1 Valid login', 'passed'],
      ['Invalid login', 'failed'],
      ['DEMO-3 Pay by card', 'failed'],
      ['Pay by voucher', 'failed'],
      ['suite Shop.Checkout', 'failed'],
    ]);
    const invalid = byName(records, 'Invalid login');
    expect(invalid).toMatchObject({
      classname: 'Shop.Login',
      suites: ['Shop', 'Login'],
      file: '/builds/shop/tests/login.robot',
      message: "Page should have contained text 'Wrong password' but did not.",
      durationMs: 850,
      tags: ['DEMO-2', 'regression'],
      attachments: [{ path: 'selenium-screenshot-1.png' }],
    });
    expect(testKeys(invalid)[0]).toBe('Shop.Login.Invalid login');
    expect(byName(records, 'DEMO-1 Valid login')).toMatchObject({ durationMs: 1500, tags: ['smoke'] });
    expect(byName(records, 'DEMO-1 Valid login').attachments).toBeUndefined();
    const entry = records.find((r) => r.suiteLevel);
    expect(entry).toMatchObject({
      name: 'Shop.Checkout',
      suites: ['Shop', 'Checkout'],
      message: 'suite-level failure: suite set-up failed: ConnectionError: cart-service:8080 refused the connection',
      attachments: [{ path: 'selenium-screenshot-2.png' }],
    });
    expect(entry?.suiteLevel?.members.map((m) => m.name)).toEqual(['DEMO-3 Pay by card', 'Pay by voucher']);
  });

  it('maps a Robot tag that is a human id to its case (DEMO-12), and a suite set-up failure fails it', async () => {
    const records = await load('robot3.xml');
    expect(mapped(records)).toEqual({ 'DEMO-1': 'passed', 'DEMO-2': 'failed', 'DEMO-3': 'failed', 'DEMO-12': 'failed' });
    const { cases } = mapResults(records, { prefix: 'DEMO' });
    expect(cases.find((c) => c.ref === 'DEMO-12')?.testcases.map((t) => t.name)).toEqual(['Pay by voucher', 'Shop.Checkout']);
  });

  it('reads RF 4: bare <tag>, SKIP, keywords inside FOR and IF, a failed suite tear-down', async () => {
    const records = await load('robot4.xml');
    expect(records.map((r) => [r.suiteLevel ? `suite ${r.name}` : r.name, r.outcome])).toEqual([
      ['DEMO-4 Lists products', 'passed'],
      ['DEMO-5 Creates an order', 'skipped'],
      ['DEMO-6 Deletes a product', 'failed'],
      ['suite Api', 'failed'],
    ]);
    expect(byName(records, 'DEMO-4 Lists products')).toMatchObject({ classname: 'Api', tags: ['api', 'DEMO-40'], durationMs: 600, attachments: [{ path: 'screens/product-1.png' }] });
    expect(byName(records, 'DEMO-5 Creates an order').message).toBe('orders API not deployed');
    expect(records[3].message).toBe("suite-level failure: suite tear-down failed: Session 'shop' already closed");
    // the tear-down failed after every test: each case is failed, the passed one included (the JUnit rule);
    // a tag that is a human id wins over the one in the name
    expect(mapped(records)).toEqual({ 'DEMO-40': 'failed', 'DEMO-5': 'failed', 'DEMO-6': 'failed' });
  });

  it('reads RF 6: NOT RUN as skipped, an embedded screenshot as a body', async () => {
    const records = await load('robot6.xml');
    expect(byName(records, 'DEMO-7 Finds a book')).toMatchObject({
      outcome: 'failed',
      attachments: [{ body: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', encoding: 'base64', mediaType: 'image/png' }],
    });
    expect(byName(records, 'DEMO-8 Sorts by price').outcome).toBe('skipped');
  });

  it('reads RF 7: start/elapsed, <variable>, type="SETUP" passing and failing', async () => {
    const records = await load('robot7.xml');
    expect(records.map((r) => [r.suiteLevel ? `suite ${r.name}` : r.name, r.outcome, r.durationMs])).toEqual([
      ['DEMO-9 Adds an item', 'passed', 1250],
      ['Removes an item', 'failed', 10200],
      ['DEMO-11 Empties the cart', 'skipped', 60],
      ['DEMO-13 Pays by card', 'failed', 0],
      ['suite Shop.Payment', 'failed', undefined],
    ]);
    expect(byName(records, 'Removes an item')).toMatchObject({
      classname: 'Shop.Cart',
      tags: ['cart', 'DEMO-10'],
      attachments: [{ path: 'browser/screenshot/fail-screenshot-1.png' }],
      message: 'TimeoutError: locator.click: Timeout 10000ms exceeded.',
    });
    expect(records[4].message).toBe("suite-level failure: suite set-up failed: No keyword with name 'Connect To Payment Sandbox' found.");
  });

  it('reads a <setup>/<teardown> element of a suite as its set-up and tear-down', () => {
    const xml = `<robot><suite name="S"><setup name="Open"><status status="FAIL" start="2026-01-01T00:00:00" elapsed="0.1">boom</status></setup><test name="DEMO-20 t"><status status="FAIL" start="2026-01-01T00:00:00" elapsed="0">Parent suite setup failed:\nboom</status></test></suite></robot>`;
    const records = parseRobot(xml, 'output.xml');
    expect(records[1]).toMatchObject({ name: 'S', outcome: 'failed', message: 'suite-level failure: suite set-up failed: boom' });
  });

  it('names an unknown status, and a test without a status is an error', () => {
    const odd = parseRobot('<robot><suite name="S"><test name="a"><status status="WEIRD"/></test><test name="b"/></suite></robot>', 'o.xml');
    expect(odd.map((r) => [r.name, r.outcome, r.message])).toEqual([
      ['a', 'error', 'Robot status "WEIRD"'],
      ['b', 'error', 'the report has no status for this test'],
    ]);
  });

  it('reads UTF-8 with a BOM and CRLF, UTF-16 with a BOM, and a declared windows-1252 file', async () => {
    const crlf = await load('robot7-bom-crlf.xml');
    expect(crlf.map((r) => r.name)).toEqual((await load('robot7.xml')).map((r) => r.name));
    expect(byName(crlf, 'Removes an item').message).toBe('TimeoutError: locator.click: Timeout 10000ms exceeded.');
    expect((await load('robot7-utf16.xml'))[0].name).toBe('DEMO-9 Ajoute un article à 0,50 €');
    expect((await load('windows-1252.xml'))[0]).toMatchObject({ name: 'DEMO-14 Crème brûlée', classname: 'Café', tags: ['dessert – sucré'], message: 'Prix attendu “3 €”', durationMs: 250 });
  });

  it('fails with invalid_report and file:line:col for a truncated file, an empty one and another root', async () => {
    const truncated = await rejection(load('truncated.xml'));
    expect(truncated.code).toBe('invalid_report');
    expect(truncated.message).toMatch(/^truncated\.xml:\d+:\d+ is not well-formed XML: the file ends inside/);
    const empty = await rejection(loadReports(['empty.xml'], FIXTURES, 'robot'));
    expect(empty).toMatchObject({ code: 'invalid_report', message: 'empty.xml:1:1 is not well-formed XML: the file is empty' });
    expect(() => parseRobot('<testsuite/>', 'x.xml')).toThrow(/x\.xml is not a Robot Framework report: the root element is <testsuite>/);
  });
});
