import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mapResults, refsOf } from '../../src/results/map-results.js';
import type { TestRecord } from '../../src/results/record.js';
import { parseTrx, resultFilePath, TRX_OUTCOMES } from '../../src/results/trx.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { loadOne, thrownBy, xmlBytes } from '../support/report-files.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/trx/', import.meta.url));

async function fixture(name: string): Promise<TestRecord[]> {
  return parseTrx(await readFile(`${FIXTURES}${name}`, 'utf8'), name);
}

function byName(records: TestRecord[], name: string): TestRecord {
  const r = records.find((c) => c.name === name);
  if (!r) throw new Error(`no record ${name}`);
  return r;
}

const NS = 'xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010"';

/** A TRX document of the given results and definitions. */
function trx(results: string, definitions = '', summary = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<TestRun id="r" name="local run" ${NS}>\n<Results>\n${results}\n</Results>\n<TestDefinitions>\n${definitions}\n</TestDefinitions>\n${summary}</TestRun>\n`;
}

describe('parseTrx', () => {
  it('maps every TRX outcome by the documented table, keeping the outcome word at the head of the message', async () => {
    const records = await fixture('checkout.trx');
    expect(records.slice(0, 14).map((r) => [r.name, r.outcome])).toEqual([
      ['DEMO_1_PaysWithSavedCard', 'passed'],
      ['DEMO_2_DeclinedCardShowsError', 'failed'],
      ['AsksFor3DSecureCode', 'error'],
      ['DEMO_4_ConfirmsOrderWithinTimeout', 'error'],
      ['DEMO_5_SendsReceiptEmail', 'error'],
      ['DEMO_6_RedeemsGiftCard', 'skipped'],
      ['DEMO_7_RoundsTax', 'skipped'],
      ['DEMO_8_SavesAddress', 'passed'],
      ['DEMO_9_ShowsDeliveryWindow', 'passed'],
      ['DEMO_10_CancelsOrder', 'error'],
      ['DEMO_11_SplitsPayment', 'error'],
      ['AwardsLoyaltyPoints', 'passed'],
      ['DEMO_13_RefundsOrder', 'error'],
      ['DEMO_14_AppliesVoucher', 'error'],
    ]);
    // the fixture holds every outcome of vstst.xsd, and the table has each of them
    expect(Object.keys(TRX_OUTCOMES).sort()).toEqual(
      ['Aborted', 'Completed', 'Disconnected', 'Error', 'Failed', 'InProgress', 'Inconclusive', 'NotExecuted', 'NotRunnable', 'Passed', 'PassedButRunAborted', 'Pending', 'Timeout', 'Warning'].sort(),
    );
    expect(byName(records, 'DEMO_2_DeclinedCardShowsError').message).toBe('Assert.AreEqual failed. Expected:<Your card was declined.>. Actual:<Something went wrong>.');
    expect(byName(records, 'DEMO_4_ConfirmsOrderWithinTimeout').message).toBe("Timeout: Test 'DEMO_4_ConfirmsOrderWithinTimeout' exceeded execution timeout period.");
    expect(byName(records, 'DEMO_6_RedeemsGiftCard').message).toBe('NotExecuted: gift cards are disabled until GIFT-88 ships');
    expect(byName(records, 'DEMO_9_ShowsDeliveryWindow').message).toBe('Warning: delivery window service answered slowly');
    expect(byName(records, 'DEMO_5_SendsReceiptEmail').message).toBe('Aborted');
    expect(byName(records, 'DEMO_1_PaysWithSavedCard').message).toBeUndefined();
    expect(byName(records, 'DEMO_2_DeclinedCardShowsError').durationMs).toBe(2002);
  });

  it('joins each result to its definition: the class, TestCategory items as tags, Properties as properties', async () => {
    const records = await fixture('checkout.trx');
    expect(byName(records, 'DEMO_2_DeclinedCardShowsError')).toMatchObject({ classname: 'Shop.Tests.CheckoutTests', tags: ['Smoke'], properties: { owner: 'ana' }, report: 'checkout.trx' });
    expect(byName(records, 'AsksFor3DSecureCode').tags).toEqual(['DEMO-3', 'Payments']);
    expect(byName(records, 'AwardsLoyaltyPoints').properties).toEqual({ test_case: 'DEMO-12' });
    expect(byName(records, 'DEMO_1_PaysWithSavedCard').tags).toBeUndefined();
    // MSTest v1 wrote the class assembly-qualified
    expect((await fixture('aborted.trx'))[0].classname).toBe('Ledger.Tests.LedgerTests');
  });

  it('reads the definitions after the results, as vstest writes them, and a test name that repeats the class (xUnit.net through TRX)', () => {
    const records = parseTrx(
      trx(
        '<UnitTestResult testId="t1" executionId="e1" testName="Shop.Tests.CartTests.AddsItem" outcome="Passed" />',
        '<UnitTest id="t1" name="Shop.Tests.CartTests.AddsItem"><TestMethod className="Shop.Tests.CartTests" name="AddsItem" /></UnitTest>',
      ),
      'x.trx',
    );
    expect(records).toEqual([expect.objectContaining({ name: 'AddsItem', classname: 'Shop.Tests.CartTests', outcome: 'passed' })]);
  });

  it('reads a data-driven test as one record per row, the parent only summing them up', async () => {
    const rows = (await fixture('checkout.trx')).filter((r) => r.name.startsWith('AddsToCart'));
    expect(rows.map((r) => [r.name, r.outcome, r.tags])).toEqual([
      ['AddsToCart (1, book)', 'passed', ['DEMO-15']],
      ['AddsToCart (2, pen)', 'failed', ['DEMO-15']],
      ['AddsToCart (3, ink)', 'passed', ['DEMO-15']],
    ]);
    expect(rows[1].message).toBe('data row 2: Assert.AreEqual failed. Expected:<2>. Actual:<1>.');
    // every row names the same case: the worst row decides it
    const mapped = mapResults(rows, { prefix: 'DEMO' });
    expect(mapped.cases).toEqual([expect.objectContaining({ ref: 'DEMO-15', outcome: 'failed' })]);
  });

  it('keeps a data-driven parent that failed when no row did (its data source could not be read), so the failure is not lost', () => {
    const records = parseTrx(
      trx(
        `<UnitTestResult testId="t1" executionId="p" testName="Imports" outcome="Failed" resultType="DataDrivenTest">
  <Output><ErrorInfo><Message>The unit test adapter failed to connect to the data source</Message></ErrorInfo></Output>
  <InnerResults>
    <UnitTestResult testId="t1" executionId="r1" parentExecutionId="p" outcome="Passed" resultType="DataDrivenDataRow" dataRowInfo="1" />
  </InnerResults>
</UnitTestResult>`,
        '<UnitTest id="t1" name="Imports"><TestMethod className="Shop.ImportTests" name="Imports" /></UnitTest>',
      ),
      'dd.trx',
    );
    expect(records.map((r) => [r.name, r.outcome])).toEqual([
      ['Imports', 'passed'],
      ['Imports', 'failed'],
    ]);
    expect(records[1].message).toBe('The unit test adapter failed to connect to the data source');
  });

  it('places ResultFiles and data-collector files under <runDeploymentRoot>/In/<result directory>/, and reads [[ATTACHMENT|…]] lines of the output', async () => {
    const records = await fixture('checkout.trx');
    expect(byName(records, 'DEMO_2_DeclinedCardShowsError').attachments).toEqual([
      { path: 'builder_CI-AGENT_2026-11-26_10_00_00/In/00000002-2222-4000-8000-000000000000/CI-AGENT/declined-card.png' },
      { path: 'screens/declined-card-page.png' },
    ]);
    expect(byName(records, 'AddsToCart (2, pen)').attachments).toEqual([{ path: 'builder_CI-AGENT_2026-11-26_10_00_00/In/00000002-3333-4000-8000-000000000000/CI-AGENT/cart-pen.png' }]);
    expect(byName(records, 'DEMO_1_PaysWithSavedCard').attachments).toBeUndefined();
    // without a <Deployment> (MSTest v1): In/<executionId>/ beside the report
    expect((await fixture('aborted.trx'))[0].attachments).toEqual([{ path: 'In/e0000001-0000-4000-8000-000000000000/ledger.log' }]);
    const withCollector = parseTrx(
      trx(`<UnitTestResult testId="t" executionId="e9" testName="Records" outcome="Failed">
  <CollectorDataEntries><Collector agentName="ci" uri="datacollector://microsoft/VideoRecorder/1.0" collectorDisplayName="Screen and Voice Recorder">
    <UriAttachments><UriAttachment><A href="ci\\Records.wmv"></A></UriAttachment></UriAttachments>
  </Collector></CollectorDataEntries>
  <ResultFiles><ResultFile path="C:\\screens\\records.png" /></ResultFiles>
</UnitTestResult>`),
      'c.trx',
    );
    expect(withCollector[0].attachments).toEqual([{ path: 'In/e9/ci/Records.wmv' }, { path: 'C:\\screens\\records.png' }]);
  });

  it('keeps an absolute path or a URL as written, and joins a relative one with forward slashes', () => {
    expect(resultFilePath('/tmp/shot.png', 'e1', 'root')).toBe('/tmp/shot.png');
    expect(resultFilePath('D:\\out\\shot.png', 'e1', 'root')).toBe('D:\\out\\shot.png');
    expect(resultFilePath('file:///tmp/shot.png', 'e1', 'root')).toBe('file:///tmp/shot.png');
    expect(resultFilePath('AGENT\\shot.png', 'e1', 'run 1')).toBe('run 1/In/e1/AGENT/shot.png');
    expect(resultFilePath('shot.png', undefined, undefined)).toBe('In/shot.png');
  });

  it('turns a run-level error into a suite-level entry that names no case, so the push lists it', async () => {
    const records = await fixture('aborted.trx');
    expect(records).toHaveLength(2);
    const entry = records[1];
    expect(entry).toMatchObject({
      name: 'nightly 2026-11-26',
      outcome: 'error',
      message: 'run-level error: The active test run was aborted. Reason: Test host process crashed : Stack overflow.',
      suiteLevel: { members: [] },
    });
    const mapped = mapResults(records, { prefix: 'DEMO' });
    expect(mapped.unmatched).toContain(entry);
    // a Warning RunInfo (the checkout run's "no test matches the filter") is not an error
    expect((await fixture('checkout.trx')).some((r) => r.suiteLevel)).toBe(false);
  });

  it('turns a failed run without any result into a suite-level entry instead of an empty report', () => {
    const records = parseTrx(trx('', '', '<ResultSummary outcome="Failed"><Counters total="0" /></ResultSummary>\n'), 'empty-run.trx');
    expect(records).toEqual([expect.objectContaining({ name: 'local run', outcome: 'error', message: 'run-level error: the run ended Failed without a result', suiteLevel: { members: [] } })]);
    expect(parseTrx(trx('', '', '<ResultSummary outcome="Completed" />\n'), 'ok.trx')).toEqual([]);
  });

  it('reads an unknown or missing outcome as an error that says so', () => {
    const records = parseTrx(trx('<UnitTestResult testId="a" testName="A" outcome="Exploded" /><UnitTestResult testId="b" testName="B" />'), 'u.trx');
    expect(records.map((r) => [r.outcome, r.message])).toEqual([
      ['error', 'unknown TRX outcome "Exploded"'],
      ['error', 'no outcome'],
    ]);
  });

  it('maps a TestCategory holding a human id to its case', () => {
    const [record] = parseTrx(
      trx('<UnitTestResult testId="t1" testName="PaysByInvoice" outcome="Passed" />', '<UnitTest id="t1" name="PaysByInvoice"><TestCategory><TestCategoryItem TestCategory="Smoke" /><TestCategoryItem TestCategory="SHOP-12" /></TestCategory><TestMethod className="Shop.Tests.InvoiceTests" name="PaysByInvoice" /></UnitTest>'),
      'cat.trx',
    );
    expect(refsOf(record)).toEqual(['SHOP-12']);
    expect(refsOf(record, { prefix: 'SHOP' })).toEqual(['SHOP-12']);
  });
});

describe('TRX files as results push reads them', () => {
  const doc = trx(
    '<UnitTestResult testId="t1" testName="Zahlt_mit_Karte_€5" outcome="Failed"><Output><ErrorInfo><Message>Erwartet: „Bestätigt“ – war: „Abgelehnt“</Message></ErrorInfo></Output></UnitTestResult>',
    '<UnitTest id="t1" name="Zahlt_mit_Karte_€5"><TestMethod className="Kasse.Tests.KartenTests" name="Zahlt_mit_Karte_€5" /></UnitTest>',
  );

  it.each(TEST_ENCODINGS.flatMap((e) => [[e, false] as const, [e, true] as const]))('reads a report in %s (CRLF: %s), the format told from the root element', async (encoding, crlf) => {
    const { records, format } = await loadOne('TestResults.trx', xmlBytes(doc, encoding, crlf));
    expect(format).toBe('trx');
    expect(records).toEqual([expect.objectContaining({ name: 'Zahlt_mit_Karte_€5', classname: 'Kasse.Tests.KartenTests', outcome: 'failed', message: 'Erwartet: „Bestätigt“ – war: „Abgelehnt“' })]);
  });

  it('says where a truncated report ends and which element was left open', () => {
    const cut = doc.slice(0, doc.indexOf('<Output>') + 8);
    const err = thrownBy(() => parseTrx(cut, 'results/cut.trx'));
    expect(err.code).toBe('invalid_report');
    expect(err.message).toMatch(/^results\/cut\.trx:4:\d+ is not well-formed XML: the file ends before <Output> \(opened at 4:\d+\) is closed: it looks truncated$/);
  });

  it('says an empty report is empty, also for an empty .trx file found by its extension', async () => {
    expect(thrownBy(() => parseTrx('', 'e.trx')).message).toBe('e.trx:1:1 is not well-formed XML: the file is empty');
    const err = await loadOne('empty.trx', '').then(
      () => undefined,
      (e: unknown) => e as Error & { code: string },
    );
    expect(err?.code).toBe('invalid_report');
    expect(err?.message).toBe('empty.trx:1:1 is not well-formed XML: the file is empty');
  });

  it('names the root it found when --format trx is given another report', () => {
    const err = thrownBy(() => parseTrx('<testsuites><testsuite name="a"/></testsuites>', 'junit.xml'));
    expect(err.code).toBe('invalid_report');
    expect(err.message).toBe('junit.xml is not a TRX report: the root element is <testsuites>, not <TestRun>');
  });

  it('says which byte of a report is not valid UTF-8 as invalid_report, not invalid_junit', async () => {
    const bytes = Buffer.concat([Buffer.from(`<?xml version="1.0" encoding="utf-8"?>\n<TestRun ${NS} name="`), Buffer.from([0xe9]), Buffer.from('"/>')]);
    const err = await loadOne('bad.trx', bytes).then(
      () => undefined,
      (e: unknown) => e as Error & { code: string },
    );
    expect(err?.code).toBe('invalid_report');
    expect(err?.message).toMatch(/^bad\.trx:2:\d+ is not valid UTF-8$/);
  });
});
