import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildReportCases, testFolder } from '../../src/import/report-cases.js';
import type { ScannedRepository } from '../../src/import/scan-repository.js';
import { automatedTypeName, isAutomatedType } from '../../src/results/automated-type.js';
import type { TestRecord } from '../../src/results/record.js';
import { importReports } from '../../src/usecases/import-reports.js';
import { runCli } from '../support/cli.js';

const rec = (classname: string, name: string, extra: Partial<TestRecord> = {}): TestRecord => ({ classname, name, outcome: 'passed', properties: {}, suites: [], report: 'r.xml', ...extra });
const empty = (): ScannedRepository => ({ bySource: new Map(), names: new Map(), folderNames: new Map() });
const OPTIONS = { casesDir: 'cases', automatedType: 'Automated', prefix: 'SHOP' };

describe('cases from report records (pure)', () => {
  it('writes one case per test no case covers: title from the name, the automated type, automation.tests with the first test key', () => {
    const out = buildReportCases([rec('com.shop.CheckoutTest', 'paysWithCard')], [], empty(), OPTIONS);
    expect(out.cases).toEqual([{ path: 'cases/CheckoutTest/payswithcard.yaml', title: 'paysWithCard', folder: ['CheckoutTest'], test: 'com.shop.CheckoutTest.paysWithCard' }]);
    const file = out.files.find((f) => f.kind === 'case')!;
    expect(file.action === 'create' && file.content).toContain('title: paysWithCard\nautomation_type: Automated\nautomation:\n  tests:\n    - com.shop.CheckoutTest.paysWithCard\n');
  });

  it('leaves alone the tests results push maps already: an id in the name (SHOP-12 or SHOP_12), a test_case property, an id tag, a mapping entry', () => {
    const records = [
      rec('com.shop.A', 'SHOP-12 pays'),
      rec('com.shop.A', 'test_SHOP_3_refunds'),
      rec('com.shop.A', 'withProperty', { properties: { test_case: 'SHOP-4' } }),
      rec('com.shop.A', 'tagged', { tags: ['SHOP-5'] }),
      rec('com.shop.A', 'mapped'),
      // another project's or a ticket's id is no case of this project
      rec('com.shop.A', 'JIRA-7 regression'),
    ];
    const out = buildReportCases(records, [], empty(), { ...OPTIONS, mapping: { 'com.shop.A.mapped': 'SHOP-9' } });
    expect(out.cases.map((c) => c.title)).toEqual(['JIRA-7 regression']);
    expect(out.skipped).toEqual({ mapped: 5, named: 0, repeated: 0 });
  });

  it('leaves alone a test a case file names in automation.tests (by any of its keys, or a * pattern); retries and repeated names give one case', () => {
    const entries = [
      { path: 'cases/A/one.yaml', id: 'SHOP-1', title: 'one', tests: ['com.shop.A.one'] },
      { path: 'cases/A/two.yaml', title: 'two', tests: ['com.shop.B.*'] },
      { path: 'cases/A/three.yaml', title: 'three', tests: ['checkout.spec.ts > cart > three'] },
    ];
    const records = [
      rec('com.shop.A', 'one'),
      rec('com.shop.B', 'anything'),
      rec('', 'three', { file: 'checkout.spec.ts', suites: ['checkout.spec.ts', 'cart'] }),
      rec('com.shop.C', 'new'),
      rec('com.shop.C', 'new', { outcome: 'failed' }),
    ];
    const out = buildReportCases(records, entries, empty(), OPTIONS);
    expect(out.cases.map((c) => c.test)).toEqual(['com.shop.C.new']);
    expect(out.skipped).toEqual({ mapped: 0, named: 3, repeated: 1 });
  });

  it('--folder puts every case in one folder; a title its folder holds gets its class; existing file names are never reused', () => {
    const scanned = empty();
    scanned.names.set('cases/Imported', ['pays.yaml']);
    scanned.names.set('cases', ['Imported']);
    const entries = [{ path: 'cases/Imported/pays.yaml', title: 'pays', tests: [] }];
    const out = buildReportCases([rec('a.First', 'pays'), rec('b.Second', 'pays')], entries, scanned, { ...OPTIONS, folder: ['Imported'] });
    expect(out.cases.map((c) => [c.path, c.title])).toEqual([
      ['cases/Imported/pays-a-first.yaml', 'pays (a.First)'],
      ['cases/Imported/pays-b-second.yaml', 'pays (b.Second)'],
    ]);
  });

  it('folders: the class by its last name, the file by its base name, the feature of a scenario', () => {
    expect(testFolder(rec('com.shop.CheckoutTest', 'x'))).toEqual(['CheckoutTest']);
    expect(testFolder(rec('tests/e2e/checkout.spec.ts', 'x'))).toEqual(['checkout']);
    expect(testFolder(rec('tests.test_cart', 'x'))).toEqual(['test_cart']);
    expect(testFolder(rec('', 'x', { suites: ['Cart suite'] }))).toEqual(['Cart suite']);
    expect(testFolder(rec('', 'x'))).toEqual(['Automated tests']);
    expect(testFolder(rec('Checkout', 'x', { gherkin: { uri: 'f.feature', feature: 'Checkout', scenario: 'x', tags: [] } }))).toEqual(['Checkout']);
  });

  it('the automated type: the service entry named or aliased Automated, else one whose name says automated and not "not"', () => {
    expect(automatedTypeName([{ name: 'Not Automated' }, { name: 'Automated' }])).toBe('Automated');
    expect(automatedTypeName([{ name: 'Manual' }, { name: 'Auto', alias: 'automated' }])).toBe('Auto');
    expect(automatedTypeName([{ name: 'Not Automated' }, { name: 'Automated (CI)' }])).toBe('Automated (CI)');
    expect(automatedTypeName([{ name: 'Not Automated' }, { name: 'Automation Not Required' }])).toBeUndefined();
    expect(isAutomatedType('automated', 'Automated')).toBe(true);
    expect(isAutomatedType('Not Automated', 'Automated')).toBe(false);
  });
});

describe('importReports: files on disk', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'tmsync-import-reports-'));
    await mkdir(join(root, 'cases'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });
  const report = (names: string[]) =>
    `<?xml version="1.0"?>\n<testsuite name="s">\n${names.map((n) => `  <testcase classname="com.shop.CheckoutTest" name="${n}"/>`).join('\n')}\n</testsuite>\n`;
  const run = (dryRun = false) => importReports({ root, casesDir: 'cases', stepGroupsDir: 'step_groups', files: ['r.xml'], cwd: root, format: 'junit', prefix: 'SHOP', dryRun });

  it('writes the new tests; run again after more tests were added, it writes only those and leaves the first files as they were', async () => {
    await writeFile(join(root, 'r.xml'), report(['pays', 'SHOP-1 refunds']));
    const first = await run();
    expect(first.cases.map((c) => c.path)).toEqual(['cases/CheckoutTest/pays.yaml']);
    expect(first.skipped.mapped).toBe(1);
    // the case got its id from apply meanwhile
    const file = join(root, 'cases/CheckoutTest/pays.yaml');
    await writeFile(file, `id: SHOP-2\n${await readFile(file, 'utf8')}`);
    const before = await readFile(file, 'utf8');

    await writeFile(join(root, 'r.xml'), report(['pays', 'SHOP-1 refunds', 'ships', 'pays']));
    expect((await run(true)).cases.map((c) => c.path)).toEqual(['cases/CheckoutTest/ships.yaml']);
    expect(await readdir(join(root, 'cases/CheckoutTest'))).toEqual(['pays.yaml']);
    const second = await run();
    expect(second.cases.map((c) => c.path)).toEqual(['cases/CheckoutTest/ships.yaml']);
    expect(second.skipped).toEqual({ mapped: 1, named: 1, repeated: 1 });
    expect(await readFile(file, 'utf8')).toBe(before);
    expect((await run()).cases).toEqual([]);
  });
});

describe('tmsync import: exports and reports', () => {
  it('without the format word a test report is not taken for an export: the error names the word to add', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-import-hint-'));
    try {
      await writeFile(join(dir, 'tmsync.yaml'), 'project: SHOP\n');
      await writeFile(join(dir, 'r.xml'), '<testsuite name="s"><testcase classname="a.B" name="c"/></testsuite>');
      const r = await runCli(['import', 'r.xml', '--no-service'], { cwd: dir });
      expect(r.code).toBe(1);
      expect(r.err).toContain('r.xml is not an export of another tool; it may be a test report (junit)');
      expect(r.err).toContain('tmsync import junit r.xml');
      const named = await runCli(['import', 'junit', 'r.xml', '--no-service'], { cwd: dir });
      expect(named.code, named.err).toBe(0);
      expect(await readdir(join(dir, 'cases', 'B'))).toEqual(['c.yaml']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
