import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadFixture, recordNamed, rejectionOf } from '../support/report-files.js';
import { detectFormat, loadReports } from '../../src/results/load-reports.js';
import { mapResults } from '../../src/results/map-results.js';
import type { TestRecord } from '../../src/results/record.js';
import { parseTestng } from '../../src/results/testng.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/testng/', import.meta.url));

const load = (file: string): Promise<TestRecord[]> => loadFixture(FIXTURES, file);

const byName = recordNamed;

const rejection = rejectionOf;

describe('TestNG testng-results.xml', () => {
  it('is told by its root element and read as format testng', async () => {
    const bytes = await readFile(`${FIXTURES}testng-results.xml`);
    expect(detectFormat(bytes, 'testng-results.xml')).toBe('testng');
    expect((await loadReports(['testng-results.xml'], FIXTURES)).formats).toEqual(['testng']);
  });

  it('reads every test method with its outcome, configuration methods left out, retries folded', async () => {
    const records = await load('testng-results.xml');
    expect(records.map((r) => [r.suiteLevel ? `suite ${r.name}` : r.name, r.outcome])).toEqual([
      ['validLogin', 'passed'],
      ['DEMO_2_invalidLogin', 'failed'],
      ['DEMO_3_loginWithSso', 'skipped'],
      ['DEMO_4_rememberMe', 'passed'],
      ['DEMO_5_logout', 'passed'],
      ['DEMO_6_lockAccount', 'failed'],
      ['search[dune, 1]', 'passed'],
      ['search[DEMO-7 gift card, null]', 'failed'],
      ['DEMO_8_loadHomePage', 'passed'],
      ['paysByCard', 'skipped'],
      ['DEMO_9_paysByVoucher', 'skipped'],
      ['suite com.shop.CheckoutTest', 'failed'],
    ]);
    const failed = byName(records, 'DEMO_2_invalidLogin');
    expect(failed).toMatchObject({
      classname: 'com.shop.LoginTest',
      suites: ['Shop', 'Regression'],
      message: 'expected [Wrong password] but found [Welcome]',
      durationMs: 1034,
      report: 'testng-results.xml',
    });
    expect(byName(records, 'DEMO_3_loginWithSso').message).toBe('SSO is not configured on this environment');
    expect(byName(records, 'validLogin').properties).toEqual({ description: 'DEMO-1 logs in with a valid password' });
  });

  it('counts a retried failure that then passed as passed, and a retry analyzer giving up (FAIL, then SKIP) as failed', async () => {
    const records = await load('testng-results.xml');
    expect(byName(records, 'DEMO_4_rememberMe')).toMatchObject({ outcome: 'passed', properties: { attempts: '2' } });
    expect(byName(records, 'DEMO_5_logout')).toMatchObject({ outcome: 'passed', properties: { attempts: '2' } });
    expect(byName(records, 'DEMO_6_lockAccount')).toMatchObject({ outcome: 'failed', message: 'account not locked after 3 attempts' });
    // the retried attempt's screenshot is kept with the test
    expect(byName(records, 'DEMO_4_rememberMe').attachments).toEqual([{ path: 'screenshots/remember-me-attempt-1.png' }]);
  });

  it('makes each data-provider row its own record, named by its values', async () => {
    const records = await load('testng-results.xml');
    const rows = records.filter((r) => r.name.startsWith('search['));
    expect(rows).toHaveLength(2);
    expect(rows[1].properties['data-provider']).toBe('queries');
    const { cases } = mapResults(records, { prefix: 'DEMO' });
    expect(cases.find((c) => c.ref === 'DEMO-7')?.outcome).toBe('failed');
  });

  it('turns a failed configuration method into a suite-level entry for its class that fails its cases', async () => {
    const records = await load('testng-results.xml');
    const entry = records.find((r) => r.suiteLevel);
    expect(entry).toMatchObject({
      name: 'com.shop.CheckoutTest',
      outcome: 'failed',
      suites: ['Shop', 'Regression', 'com.shop.CheckoutTest'],
      message: 'suite-level failure: createCart failed: Connection refused: cart-service:8080',
      attachments: [{ path: 'screenshots/create-cart.png' }],
    });
    expect(entry?.suiteLevel?.members.map((m) => m.name)).toEqual(['paysByCard', 'DEMO_9_paysByVoucher']);
    const { cases } = mapResults(records, { prefix: 'DEMO' });
    const outcome = Object.fromEntries(cases.map((c) => [c.ref, c.outcome]));
    // skipped by TestNG, failed through their class's set-up
    expect(outcome['DEMO-9']).toBe('failed');
    expect(outcome['DEMO-12']).toBe('failed');
  });

  it('reads groups as tags, and a group that is a human id maps the method to that case', async () => {
    const records = await load('testng-results.xml');
    expect(byName(records, 'validLogin').tags).toEqual(['smoke']);
    expect(byName(records, 'paysByCard').tags).toEqual(['smoke', 'DEMO-12']);
    const { cases } = mapResults(records.filter((r) => !r.suiteLevel), { prefix: 'DEMO' });
    expect(cases.find((c) => c.ref === 'DEMO-12')?.testcases.map((t) => t.name)).toEqual(['paysByCard']);
  });

  it('reads a groups attribute on the test method too', () => {
    const xml = `<testng-results><suite name="S"><test name="T"><class name="C"><test-method status="PASS" name="m" groups="DEMO-30, fast" signature="m()"/></class></test></suite></testng-results>`;
    expect(parseTestng(xml, 'r.xml')[0].tags).toEqual(['DEMO-30', 'fast']);
  });

  it('takes attachments from reporter output: links, images, [[ATTACHMENT|…]] and an @AfterMethod screenshot', async () => {
    const records = await load('testng-results.xml');
    expect(byName(records, 'DEMO_2_invalidLogin').attachments).toEqual([
      { path: 'logs/invalid-login.log' },
      { path: 'screenshots/invalid-login.png' },
      { path: 'target/screenshots/DEMO_2_invalidLogin-after.png' },
    ]);
    expect(byName(records, 'validLogin').attachments).toBeUndefined();
  });

  it('refuses a fragmented report whose suites are in other files, rather than reading nothing', () => {
    const xml = `<testng-results><suite name="Shop" url="Shop/suite.xml" duration-ms="5"/></testng-results>`;
    expect(() => parseTestng(xml, 'testng-results.xml')).toThrow('testng-results.xml: the results of suite "Shop" are in another file (url="Shop/suite.xml"), which tmsync does not read');
  });

  it('names an unknown status', () => {
    const xml = `<testng-results><suite name="S"><test name="T"><class name="C"><test-method status="WEIRD" name="m" signature="m()"/></class></test></suite></testng-results>`;
    expect(parseTestng(xml, 'r.xml')[0]).toMatchObject({ outcome: 'error', message: 'TestNG status "WEIRD"' });
  });

  it('reads a declared windows-1252 file, UTF-16 with a byte order mark, and UTF-8 with a BOM and CRLF', async () => {
    const latin = await load('windows-1252.xml');
    expect(latin[0]).toMatchObject({ name: 'crèmeBrûlée', classname: 'com.shop.CaféTest', suites: ['Café', 'Régression'], message: 'expected “€ 3”', tags: ['café'] });
    expect((await load('utf16.xml'))[0]).toMatchObject({ name: 'DEMO_10_ümlaut', outcome: 'passed' });
    expect((await load('bom-crlf.xml'))[0]).toMatchObject({ name: 'DEMO_11_crlf', outcome: 'passed', durationMs: 2 });
  });

  it('fails with invalid_report and file:line:col for an empty or truncated file, and for a wrong root', async () => {
    // an empty .xml file has no root to tell its format: read as JUnit unless --format says
    expect((await rejection(load('empty.xml'))).code).toBe('invalid_junit');
    const forced = await rejection(loadReports(['empty.xml'], FIXTURES, 'testng'));
    expect(forced.code).toBe('invalid_report');
    expect(forced.message).toBe('empty.xml:1:1 is not well-formed XML: the file is empty');
    const truncated = await rejection(load('truncated.xml'));
    expect(truncated.code).toBe('invalid_report');
    expect(truncated.message).toBe('truncated.xml:101:174 is not well-formed XML: the file ends inside the value of started-at in <test-method> (opened at the quote)');
    expect(() => parseTestng('<testsuites/>', 'junit.xml')).toThrow(/junit\.xml is not a TestNG report: the root element is <testsuites>/);
  });
});
