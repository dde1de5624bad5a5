import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapResults, refsOf } from '../../src/results/map-results.js';
import { parseNunit } from '../../src/results/nunit.js';
import type { TestRecord } from '../../src/results/record.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { loadOne, thrownBy, xmlBytes } from '../support/report-files.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/nunit/', import.meta.url));

async function fixture(name: string): Promise<TestRecord[]> {
  return parseNunit(await readFile(`${FIXTURES}${name}`, 'utf8'), name);
}

function byName(records: TestRecord[], name: string): TestRecord {
  const r = records.find((c) => c.name === name);
  if (!r) throw new Error(`no record ${name}`);
  return r;
}

describe('parseNunit: NUnit 3 <test-run>', () => {
  it('maps result and label: Failed with label Error, Invalid or Cancelled is an error; Skipped, Inconclusive are skipped; Warning passed', async () => {
    const records = (await fixture('nunit3.xml')).filter((r) => !r.suiteLevel);
    expect(records.map((r) => [r.name, r.outcome])).toEqual([
      ['DEMO_16_AddsItem', 'passed'],
      ['DEMO_17_RemovesItem', 'failed'],
      ['EmptiesCart', 'error'],
      ['DEMO_19_SharesCart', 'skipped'],
      ['DEMO_20_ImportsWishlist', 'skipped'],
      ['DEMO_21_EstimatesShipping', 'skipped'],
      ['DEMO_22_ShowsTotals', 'passed'],
      ['DEMO_23_MergesCarts', 'error'],
      ['DEMO_24_SavesForLater', 'error'],
      ['AppliesDiscount(10)', 'passed'],
      ['AppliesDiscount(20)', 'failed'],
      ['DEMO_26_ChargesCard', 'error'],
      ['RefundsCard', 'error'],
      ['DEMO_27_PrintsReceipt', 'passed'],
    ]);
    expect(byName(records, 'DEMO_17_RemovesItem')).toMatchObject({ message: 'Expected: 0', durationMs: 250 });
    expect(byName(records, 'DEMO_19_SharesCart').message).toBe('sharing is off until CART-9');
    expect(byName(records, 'DEMO_23_MergesCarts').message).toBe('No arguments were provided');
    expect(byName(records, 'DEMO_20_ImportsWishlist').message).toBeUndefined();
  });

  it('gives each test-case its class, its suite path, its Category properties as tags and its other properties', async () => {
    const records = await fixture('nunit3.xml');
    expect(byName(records, 'DEMO_16_AddsItem')).toMatchObject({
      classname: 'Shop.Tests.CartTests',
      suites: ['Shop.Tests.dll', 'Shop', 'Tests', 'CartTests'],
      tags: ['Smoke'],
      properties: { Description: 'adds one item' },
      report: 'nunit3.xml',
    });
    expect(byName(records, 'EmptiesCart').tags).toEqual(['DEMO-18']);
    // a fixture's category is not its tests' (as a Feature's tag is not its scenarios' id tag)
    expect(byName(records, 'DEMO_17_RemovesItem').tags).toBeUndefined();
  });

  it('reads a parameterized method as one record per row, with the method\'s categories', async () => {
    const rows = (await fixture('nunit3.xml')).filter((r) => r.name.startsWith('AppliesDiscount'));
    expect(rows.map((r) => [r.name, r.outcome, r.tags, r.suites.at(-1)])).toEqual([
      ['AppliesDiscount(10)', 'passed', ['DEMO-25'], 'AppliesDiscount'],
      ['AppliesDiscount(20)', 'failed', ['DEMO-25'], 'AppliesDiscount'],
    ]);
    expect(mapResults(rows, { prefix: 'DEMO' }).cases).toEqual([expect.objectContaining({ ref: 'DEMO-25', outcome: 'failed' })]);
  });

  it('adds a suite-level entry for a OneTimeSetUp (site SetUp) and a OneTimeTearDown (site TearDown) failure, none for a Child failure', async () => {
    const records = await fixture('nunit3.xml');
    const entries = records.filter((r) => r.suiteLevel);
    expect(entries.map((e) => [e.name, e.outcome, e.message, e.suiteLevel?.members.map((m) => m.name)])).toEqual([
      ['Shop.Tests.PaymentTests', 'error', 'suite-level failure: OneTimeSetUp: System.InvalidOperationException : the payment sandbox is unreachable', ['DEMO_26_ChargesCard', 'RefundsCard']],
      ['Shop.Tests.ReceiptTests', 'error', 'suite-level failure: OneTimeTearDown: System.IO.IOException : the receipt printer spool is locked', ['DEMO_27_PrintsReceipt']],
    ]);
    // the tear-down failure fails the case whose test itself passed
    const mapped = mapResults(records, { prefix: 'DEMO' });
    expect(mapped.cases.find((c) => c.ref === 'DEMO-27')?.outcome).toBe('error');
    // RefundsCard names no case; its fixture's entry still reaches DEMO-26 through the fixture's other test
    expect(mapped.cases.find((c) => c.ref === 'DEMO-26')?.testcases.map((t) => t.name)).toEqual(['DEMO_26_ChargesCard', 'Shop.Tests.PaymentTests']);
  });

  it('adds one entry for a set-up fixture\'s failure, not one more for each suite below it that shows it with site="Parent"', () => {
    const records = parseNunit(
      `<test-run>
  <test-suite type="SetUpFixture" name="Shop" fullname="Shop" result="Failed" label="Error" site="SetUp">
    <failure><message>OneTimeSetUp: database down</message></failure>
    <test-suite type="TestFixture" name="A" fullname="Shop.A" classname="Shop.A" result="Failed" label="Error" site="Parent">
      <failure><message>OneTimeSetUp: database down</message></failure>
      <test-case name="SHOP_1_Works" fullname="Shop.A.SHOP_1_Works" classname="Shop.A" result="Failed" label="Error" site="Parent" />
    </test-suite>
  </test-suite>
  <test-suite type="TestFixture" name="B" fullname="Other.B" classname="Other.B" result="Failed" label="Error" site="Parent">
    <failure><message>OneTimeSetUp: cache down</message></failure>
    <test-case name="Runs" classname="Other.B" result="Failed" label="Error" site="Parent" />
  </test-suite>
</test-run>`,
      'setup.xml',
    );
    expect(records.filter((r) => r.suiteLevel).map((r) => [r.name, r.suiteLevel?.members.length])).toEqual([
      ['Shop', 1],
      // its set-up fixture is not in this report (a filtered run): this suite's failure stands for it
      ['Other.B', 1],
    ]);
  });

  it('reads <attachments> file paths and [[ATTACHMENT|…]] lines of <output>', async () => {
    const records = await fixture('nunit3.xml');
    expect(byName(records, 'DEMO_17_RemovesItem').attachments).toEqual([{ path: '/build/TestResults/cart-remove.png' }, { path: 'screens/cart-after-remove.png' }]);
    expect(byName(records, 'DEMO_16_AddsItem').attachments).toBeUndefined();
  });

  it('maps a Category holding a human id to its case', () => {
    const [record] = parseNunit(
      '<test-run><test-suite type="TestFixture" name="InvoiceTests" fullname="Shop.InvoiceTests"><test-case name="PaysByInvoice" classname="Shop.InvoiceTests" result="Passed"><properties><property name="Category" value="SHOP-12" /></properties></test-case></test-suite></test-run>',
      'cat.xml',
    );
    expect(record.tags).toEqual(['SHOP-12']);
    expect(refsOf(record, { prefix: 'SHOP' })).toEqual(['SHOP-12']);
  });

  it('reads an unknown result as an error that says so', () => {
    const [record] = parseNunit('<test-run><test-case name="A" classname="X" result="Exploded" /></test-run>', 'u.xml');
    expect(record).toMatchObject({ outcome: 'error', message: 'unknown NUnit result "Exploded"' });
  });
});

describe('parseNunit: NUnit 2 <test-results>', () => {
  it('maps Success, Failure, Error, Ignored, NotRunnable, Inconclusive, Skipped, Cancelled and the success attribute alone', async () => {
    const records = (await fixture('nunit2.xml')).filter((r) => !r.suiteLevel);
    expect(records.map((r) => [r.name, r.outcome])).toEqual([
      ['DEMO_1_PostsEntry', 'passed'],
      ['DEMO_2_BalancesDebits', 'failed'],
      ['ReversesEntry', 'error'],
      ['DEMO_4_ClosesPeriod', 'skipped'],
      ['DEMO_5_ExportsJournal', 'error'],
      ['DEMO_6_RoundsCents', 'skipped'],
      ['DEMO_7_ArchivesYear', 'skipped'],
      ['DEMO_8_ImportsBankFeed', 'error'],
      ['DEMO_9_TotalsLedger', 'passed'],
      ['ConvertsCurrency("EUR")', 'passed'],
      ['ConvertsCurrency("JPY")', 'failed'],
      ['DEMO_11_SyncsAccounts', 'failed'],
    ]);
    expect(byName(records, 'DEMO_4_ClosesPeriod').message).toBe('period close moves to LEDGER-12');
  });

  it('takes the class from the namespaces and fixture around a test-case, whose name is written in full', async () => {
    const records = await fixture('nunit2.xml');
    expect(byName(records, 'DEMO_1_PostsEntry')).toMatchObject({
      classname: 'Ledger.Tests.PostingTests',
      suites: ['Ledger.Tests.dll', 'Ledger', 'Tests', 'PostingTests'],
      tags: ['Smoke'],
      properties: { owner: 'ana' },
    });
    expect(byName(records, 'ReversesEntry').tags).toEqual(['DEMO-3']);
    expect(byName(records, 'ConvertsCurrency("JPY")')).toMatchObject({ classname: 'Ledger.Tests.PostingTests', tags: ['DEMO-10'] });
  });

  it('adds a suite-level entry for a fixture\'s own failure, none for "Child test failed"', async () => {
    const entries = (await fixture('nunit2.xml')).filter((r) => r.suiteLevel);
    expect(entries.map((e) => [e.name, e.outcome, e.message, e.suiteLevel?.members.map((m) => m.name)])).toEqual([
      ['Ledger.Tests.BankTests', 'failed', 'suite-level failure: TestFixtureSetUp failed in BankTests', ['DEMO_11_SyncsAccounts']],
    ]);
  });
});

describe('NUnit files as results push reads them', () => {
  const doc = `<?xml version="1.0" encoding="utf-8"?>
<test-run result="Failed">
  <test-suite type="TestFixture" name="KartenTests" fullname="Kasse.KartenTests" classname="Kasse.KartenTests" result="Failed" site="Child">
    <test-case name="Zahlt_mit_Karte_€5" classname="Kasse.KartenTests" result="Failed">
      <failure><message><![CDATA[Erwartet: „Bestätigt“ – war: „Abgelehnt“]]></message></failure>
    </test-case>
  </test-suite>
</test-run>
`;

  it.each(TEST_ENCODINGS.flatMap((e) => [[e, false] as const, [e, true] as const]))('reads a report in %s (CRLF: %s), the format told from the root element', async (encoding, crlf) => {
    const { records, format } = await loadOne('TestResult.xml', xmlBytes(doc, encoding, crlf));
    expect(format).toBe('nunit');
    expect(records).toEqual([expect.objectContaining({ name: 'Zahlt_mit_Karte_€5', classname: 'Kasse.KartenTests', outcome: 'failed', message: 'Erwartet: „Bestätigt“ – war: „Abgelehnt“' })]);
  });

  it('tells an NUnit 2 report by its root element too', async () => {
    const { format } = await loadOne('TestResult.xml', await readFile(`${FIXTURES}nunit2.xml`));
    expect(format).toBe('nunit');
  });

  it('says where a truncated report ends and which element was left open', () => {
    const cut = doc.slice(0, doc.indexOf('<failure>'));
    const err = thrownBy(() => parseNunit(cut, 'TestResult.xml'));
    expect(err.code).toBe('invalid_report');
    expect(err.message).toMatch(/^TestResult\.xml:5:\d+ is not well-formed XML: the file ends before <test-case> \(opened at 4:5\) is closed: it looks truncated$/);
  });

  it('says an empty report is empty, and names the root of another kind of report', () => {
    expect(thrownBy(() => parseNunit('  \n', 'e.xml')).message).toBe('e.xml:2:1 is not well-formed XML: the file is empty');
    const err = thrownBy(() => parseNunit('<assemblies/>', 'x.xml'));
    expect(err.code).toBe('invalid_report');
    expect(err.message).toBe('x.xml is not an NUnit report: the root element is <assemblies>, not <test-run> or <test-results>');
  });
});
