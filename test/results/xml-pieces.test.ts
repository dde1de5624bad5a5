import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseNunit, readNunitInPieces } from '../../src/results/nunit.js';
import { parseTrx, readTrxInPieces } from '../../src/results/trx.js';
import { parseXunit, readXunitInPieces } from '../../src/results/xunit.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { thrownBy, xmlBytes } from '../support/report-files.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/reports/', import.meta.url));

const READERS = {
  'trx/checkout.trx': [parseTrx, readTrxInPieces],
  'trx/aborted.trx': [parseTrx, readTrxInPieces],
  'nunit/nunit3.xml': [parseNunit, readNunitInPieces],
  'nunit/nunit2.xml': [parseNunit, readNunitInPieces],
  'xunit/xunit.xml': [parseXunit, readXunitInPieces],
} as const;

/** A report with text the single-byte encodings and UTF-16 write differently. */
const NON_ASCII = `<?xml version="1.0" encoding="utf-8"?>
<test-run>
  <test-suite type="TestFixture" name="KartenTests" fullname="Kasse.KartenTests" classname="Kasse.KartenTests" result="Failed" site="Child">
    <test-case name="Zahlt_mit_Karte_€5" classname="Kasse.KartenTests" result="Failed">
      <failure><message><![CDATA[Erwartet: „Bestätigt“ – war: „Abgelehnt“ <html> ]]></message></failure>
    </test-case>
    <test-case name="Prüft_Beträge" classname="Kasse.KartenTests" result="Passed" />
  </test-suite>
</test-run>
`;

describe('reading a report too large for one text, a piece at a time', () => {
  it.each(Object.keys(READERS) as (keyof typeof READERS)[])('gives the records of %s that reading it whole gives, pieces cut anywhere', async (name) => {
    const [whole, inPieces] = READERS[name];
    const bytes = await readFile(`${FIXTURES}${name}`);
    const expected = whole(bytes.toString('utf8'), name);
    for (const size of [1, 37, 512, 1 << 20]) expect(inPieces(bytes, name, size)).toEqual(expected);
  });

  it.each(TEST_ENCODINGS)('decodes every piece in the encoding of the file, %s, as its declaration or byte order mark says', (encoding) => {
    const expected = parseNunit(NON_ASCII, 'r.xml');
    expect(expected.map((r) => r.name)).toEqual(['Zahlt_mit_Karte_€5', 'Prüft_Beträge']);
    for (const crlf of [false, true]) {
      const bytes = xmlBytes(NON_ASCII, encoding, crlf);
      for (const size of [3, 64]) expect(readNunitInPieces(bytes, 'r.xml', size)).toEqual(expected);
    }
  });

  it('says where a truncated report ends, over the whole file, and which element was left open', () => {
    const text = NON_ASCII.slice(0, NON_ASCII.indexOf('<failure>'));
    const err = thrownBy(() => readNunitInPieces(Buffer.from(text), 'big.xml', 16));
    expect(err.code).toBe('invalid_report');
    expect(err.message).toMatch(/^big\.xml:5:\d+ is not well-formed XML: the file ends before <test-case> \(opened at 4:\d+\) is closed: it looks truncated$/);
  });

  it('says where a report is malformed and where bytes are not valid UTF-8, counting lines over every piece', () => {
    const broken = NON_ASCII.replace('</test-suite>', '</test-sweet>');
    const err = thrownBy(() => readNunitInPieces(Buffer.from(broken), 'big.xml', 20));
    expect(err.code).toBe('invalid_report');
    expect(err.message).toMatch(/^big\.xml:8:\d+ is not well-formed XML: /);
    const bad = Buffer.concat([Buffer.from(NON_ASCII.slice(0, NON_ASCII.indexOf('Prüft'))), Buffer.from([0xff]), Buffer.from('x" />\n</test-suite></test-run>')]);
    const utf8 = thrownBy(() => readNunitInPieces(bad, 'big.xml', 20));
    expect(utf8.code).toBe('invalid_report');
    const col = NON_ASCII.split('\n')[6].indexOf('Prüft') + 1;
    expect(utf8.message).toBe(`big.xml:7:${col} is not valid UTF-8`);
  });

  it('reads the HTML entities runners write, as the reading of whole texts does', () => {
    const doc = '<test-run><test-case name="A&nbsp;B &amp; C&#x20AC;" classname="X" result="Failed"><failure><message>a&nbsp;&lt;b&gt;</message></failure></test-case></test-run>';
    const expected = parseNunit(doc, 'e.xml');
    expect(expected[0]).toMatchObject({ name: 'A\u00a0B & C€', message: 'a\u00a0<b>' });
    expect(readNunitInPieces(Buffer.from(doc), 'e.xml', 7)).toEqual(expected);
  });

  it('names the root of another kind of report', () => {
    expect(thrownBy(() => readTrxInPieces(Buffer.from('<test-run></test-run>'), 'x.trx', 5)).message).toBe('x.trx is not a TRX report: the root element is <test-run>, not <TestRun>');
  });
});
