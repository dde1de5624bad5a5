import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapResults, refsOf } from '../../src/results/map-results.js';
import type { TestRecord } from '../../src/results/record.js';
import { parseXunit } from '../../src/results/xunit.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { loadOne, thrownBy, xmlBytes } from '../support/report-files.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/xunit/', import.meta.url));

async function fixture(name: string): Promise<TestRecord[]> {
  return parseXunit(await readFile(`${FIXTURES}${name}`, 'utf8'), name);
}

function byName(records: TestRecord[], name: string): TestRecord {
  const r = records.find((c) => c.name === name);
  if (!r) throw new Error(`no record ${name}`);
  return r;
}

describe('parseXunit', () => {
  it('maps Pass, Fail, Skip and NotRun, with the failure message or skip reason', async () => {
    const records = (await fixture('xunit.xml')).filter((r) => !r.suiteLevel);
    expect(records.map((r) => [r.name, r.outcome])).toEqual([
      ['DEMO_1_AddsItem', 'passed'],
      ['DEMO_2_RemovesItem', 'failed'],
      ['EmptiesCart', 'skipped'],
      ['DEMO_4_SharesCart', 'skipped'],
      ['AppliesDiscount(percent: 10)', 'passed'],
      ['AppliesDiscount(percent: 20)', 'failed'],
      ['DEMO_6_Checkout', 'passed'],
      ['DEMO_7_Totals', 'skipped'],
      ['DEMO_8_PrintsReceipt', 'passed'],
    ]);
    expect(byName(records, 'DEMO_2_RemovesItem')).toMatchObject({ message: 'Assert.Equal() Failure: Values differ', durationMs: 25 });
    expect(byName(records, 'EmptiesCart').message).toBe('emptying is being redesigned');
    expect(byName(records, 'DEMO_4_SharesCart').message).toBe('not run');
    expect(byName(records, 'DEMO_7_Totals').message).toBeUndefined();
  });

  it('takes the class from type, the name without it, traits as properties and Category traits as tags', async () => {
    const records = await fixture('xunit.xml');
    expect(byName(records, 'DEMO_1_AddsItem')).toMatchObject({
      classname: 'Shop.Tests.CartTests',
      suites: ['Shop.Tests.dll', 'Test collection for Shop.Tests.CartTests'],
      tags: ['Smoke'],
      properties: { Category: 'Smoke', owner: 'ana' },
      report: 'xunit.xml',
    });
    expect(byName(records, 'EmptiesCart').tags).toEqual(['DEMO-3']);
  });

  it('reads a theory as one record per row, each mapping by its trait', async () => {
    const rows = (await fixture('xunit.xml')).filter((r) => r.name.startsWith('AppliesDiscount'));
    expect(rows).toHaveLength(2);
    expect(mapResults(rows, { prefix: 'DEMO' }).cases).toEqual([expect.objectContaining({ ref: 'DEMO-5', outcome: 'failed', testcases: rows })]);
  });

  it('turns an assembly <error> into a suite-level entry over the tests it concerns', async () => {
    const records = await fixture('xunit.xml');
    const entries = records.filter((r) => r.suiteLevel);
    expect(entries.map((e) => [e.name, e.outcome, e.message, e.suiteLevel?.members.map((m) => m.name)])).toEqual([
      ['Shop.Tests.ReceiptTests', 'error', 'suite-level failure: test-class-cleanup: System.IO.IOException : the receipt spool is locked', ['DEMO_8_PrintsReceipt']],
    ]);
    expect(mapResults(records, { prefix: 'DEMO' }).cases.find((c) => c.ref === 'DEMO-8')?.outcome).toBe('error');
  });

  it('scopes a collection clean-up error to its collection and a fatal error to the whole assembly', () => {
    const records = parseXunit(
      `<assemblies><assembly name="C:\\b\\A.dll">
  <errors>
    <error type="test-collection-cleanup" name="Db collection"><failure><message>dispose failed</message></failure></error>
    <error type="fatal"><failure><message>catastrophic</message></failure></error>
  </errors>
  <collection name="Db collection"><test name="A.T1" type="A" method="T1" result="Pass" /></collection>
  <collection name="Other"><test name="B.T2" type="B" method="T2" result="Pass" /></collection>
</assembly></assemblies>`,
      'e.xml',
    );
    expect(records.filter((r) => r.suiteLevel).map((r) => [r.name, r.message, r.suiteLevel?.members.map((m) => m.name)])).toEqual([
      ['Db collection', 'suite-level failure: test-collection-cleanup: dispose failed', ['T1']],
      ['A.dll', 'suite-level failure: fatal: catastrophic', ['T1', 'T2']],
    ]);
  });

  it('reads [[ATTACHMENT|…]] lines of <output>', async () => {
    const records = await fixture('xunit.xml');
    expect(byName(records, 'DEMO_2_RemovesItem').attachments).toEqual([{ path: 'screens/cart-after-remove.png' }]);
    expect(byName(records, 'DEMO_1_AddsItem').attachments).toBeUndefined();
  });

  it('reads a bare <assembly> root and the v1 <class> grouping with a <reason><message>', () => {
    const records = parseXunit(
      '<assembly name="A.dll"><class name="Ns.C"><test name="Ns.C.Skips" type="Ns.C" method="Skips" result="Skip"><reason><message>later</message></reason></test></class></assembly>',
      'v1.xml',
    );
    expect(records).toEqual([expect.objectContaining({ name: 'Skips', classname: 'Ns.C', outcome: 'skipped', message: 'later', suites: ['A.dll', 'Ns.C'] })]);
  });

  it('maps a Category trait holding a human id to its case, and reads an unknown result as an error', () => {
    const [tagged, odd] = parseXunit(
      '<assemblies><assembly><collection name="c"><test name="Shop.T.Pays" type="Shop.T" method="Pays" result="Pass"><traits><trait name="Category" value="SHOP-12" /></traits></test><test name="Shop.T.Odd" type="Shop.T" result="Exploded" /></collection></assembly></assemblies>',
      'cat.xml',
    );
    expect(refsOf(tagged, { prefix: 'SHOP' })).toEqual(['SHOP-12']);
    expect(odd).toMatchObject({ outcome: 'error', message: 'unknown xUnit.net result "Exploded"' });
  });
});

describe('xUnit.net files as results push reads them', () => {
  const doc = `<?xml version="1.0" encoding="utf-8"?>
<assemblies>
  <assembly name="Kasse.Tests.dll">
    <collection name="Kasse">
      <test name="Kasse.KartenTests.Zahlt_mit_Karte_€5" type="Kasse.KartenTests" method="Zahlt_mit_Karte_€5" result="Fail">
        <failure><message>Erwartet: „Bestätigt“ – war: „Abgelehnt“</message></failure>
      </test>
    </collection>
  </assembly>
</assemblies>
`;

  it.each(TEST_ENCODINGS.flatMap((e) => [[e, false] as const, [e, true] as const]))('reads a report in %s (CRLF: %s), the format told from the root element', async (encoding, crlf) => {
    const { records, format } = await loadOne('xunit.xml', xmlBytes(doc, encoding, crlf));
    expect(format).toBe('xunit');
    expect(records).toEqual([expect.objectContaining({ name: 'Zahlt_mit_Karte_€5', classname: 'Kasse.KartenTests', outcome: 'failed', message: 'Erwartet: „Bestätigt“ – war: „Abgelehnt“' })]);
  });

  it('says where a truncated report ends and which element was left open, and names another root', () => {
    const err = thrownBy(() => parseXunit(doc.slice(0, doc.indexOf('<failure>')), 'xunit.xml'));
    expect(err.code).toBe('invalid_report');
    expect(err.message).toMatch(/^xunit\.xml:6:\d+ is not well-formed XML: the file ends before <test> \(opened at 5:7\) is closed: it looks truncated$/);
    expect(thrownBy(() => parseXunit('', 'e.xml')).message).toBe('e.xml:1:1 is not well-formed XML: the file is empty');
    expect(thrownBy(() => parseXunit('<test-run/>', 'n.xml')).message).toBe('n.xml is not an xUnit.net report: the root element is <test-run>, not <assemblies> or <assembly>');
  });
});
