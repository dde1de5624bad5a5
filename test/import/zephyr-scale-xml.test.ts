import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeImport } from '../../src/import/decode.js';
import { zephyrScaleXmlReader as reader } from '../../src/import/formats/zephyr-scale-xml.js';
import { IMPORT_READERS } from '../../src/import/readers.js';
import { encodeText, TEST_ENCODINGS } from '../support/encodings.js';
import { importError as errorOf, readWith } from '../support/import-read.js';

const FIXTURES = new URL('../fixtures/import/zephyr-scale-xml/', import.meta.url);
const basic = readFileSync(new URL('basic.xml', FIXTURES), 'utf8');

const read = (text: string, file = 'export.xml') => readWith(reader, text, file);


/** A small export around the given `<testCase>` elements. */
function exportOf(...cases: string[]): string {
  return ['<?xml version="1.0" encoding="UTF-8" standalone="yes"?>', '<project>', '  <projectKey>SHOP</projectKey>', '  <testCases>', ...cases, '  </testCases>', '</project>', ''].join('\n');
}

describe('zephyr-scale-xml reader', () => {
  it('reads folders (empty ones too), and a case with every kind of field', () => {
    const { project, report } = read(basic);
    expect(project.folders).toEqual([['Checkout'], ['Checkout', 'Payment'], ['Checkout', 'Returns'], ['Search']]);
    expect(project.stepGroups).toEqual([]);
    expect(project.cases.map((c) => c.sourceId)).toEqual(['SHOP-T1', 'SHOP-T2', 'SHOP-T3']);
    expect(project.cases[0]).toEqual({
      sourceId: 'SHOP-T1',
      folder: ['Checkout', 'Payment'],
      title: 'Pay with a saved card – Zürich store',
      description:
        'The customer pays with a card saved in the profile. Prices in *€*.\n\nAttachments:\n- [card-form.png](https://jira.example.test/secure/attachment/9001/card-form.png)',
      preconditions: '-   A customer with a saved card\n-   A cart with one item',
      steps: [
        { action: 'Open the cart and press **Pay**', expected: 'The payment page lists the saved card', data: 'Cart: 1 × “Tasse”' },
        { action: 'Choose the saved card and confirm', expected: 'The order is paid\n\n| Field | Value |\n| --- | --- |\n| Status | Paid |' },
      ],
      lookups: { priority: 'High', status: 'Approved', owner: 'anna.berg' },
      labels: ['smoke', 'payment'],
      fields: [
        { name: 'Component', value: 'Web shop' },
        { name: 'Issues', value: 'SHOP-42 (Pay by card)' },
        { name: 'Estimated time', value: '1h 30m (5400000 ms)' },
        { name: 'Risk', value: 'High' },
        { name: 'Browsers', value: 'Firefox, Chrome' },
        { name: 'Regression', value: 'true' },
        { name: 'Notes', value: 'Use the **sandbox** acquirer.' },
      ],
      at: { file: 'export.xml', line: 14 },
    });
    expect(report.attachments).toEqual({ count: 1, examples: [{ value: 'https://jira.example.test/secure/attachment/9001/card-form.png', at: { file: 'export.xml', line: 16 } }] });
    expect(report.notes.some((n) => /call to test.*inlined/.test(n))).toBe(true);
    expect(report.entries.filter((e) => e.action === 'dropped').map((e) => [e.field, e.count])).toEqual([
      ['createdby', 1],
      ['createdon', 1],
      ['updatedby', 1],
      ['updatedon', 1],
    ]);
  });

  it('keeps a plain text script and a BDD script as the steps text (template TCD), the BDD one recorded', () => {
    const { project, report } = read(basic);
    expect(project.cases[1]).toMatchObject({ title: 'Return a parcel', stepsText: '1\\. Open the order history\n2\\. Choose *Return* on the order', description: 'A customer returns a parcel within 30 days.' });
    expect(project.cases[1].steps).toBeUndefined();
    expect(project.cases[2].stepsText).toBe('Given the catalogue holds "Tasse"\nWhen I search for "tas"\nThen "Tasse" is listed');
    expect(report.entries.find((e) => e.field === 'BDD test script')).toMatchObject({ action: 'folded', count: 1 });
  });

  it('reads HTML escaped instead of in CDATA, entities inside CDATA, a step layout without <steps>, and inline images as attachments', () => {
    const { project, report } = read(
      exportOf(
        '<testCase key="SHOP-T9"><name>Escaped &amp; entities</name>',
        '<objective>&lt;p&gt;Gl&amp;oacute;wna &lt;img src="https://x.test/shot.png"&gt;&lt;/p&gt;</objective>',
        '<precondition><![CDATA[Menu &bdquo;Kursy&rdquo;]]></precondition>',
        '<testScript type="STEP_BY_STEP"><step index="1"><description>second</description></step><step index="0"><description>first</description></step></testScript>',
        '</testCase>',
      ),
    );
    expect(project.cases[0]).toMatchObject({ title: 'Escaped & entities', description: 'Glówna ![](https://x.test/shot.png)', preconditions: 'Menu „Kursy”', steps: [{ action: 'first' }, { action: 'second' }] });
    expect(report.attachments.count).toBe(1);
  });

  it('names a call to a test the export did not inline, and folds step custom fields into the step data', () => {
    const { project, report } = read(
      exportOf(
        '<testCase key="SHOP-T10"><name>Calls</name><testScript type="steps"><steps>',
        '<step index="0"><testCaseKey>SHOP-T1</testCaseKey></step>',
        '<step index="1"><description>Check</description><testData>x=1</testData><customFields><customField name="Device" type="SINGLE_LINE_TEXT"><value>Pixel</value></customField></customFields></step>',
        '</steps></testScript></testCase>',
      ),
    );
    expect(project.cases[0].steps).toEqual([{ action: 'Call to test SHOP-T1' }, { action: 'Check', data: 'x=1\nDevice: Pixel' }]);
    expect(report.entries.map((e) => [e.action, e.field])).toEqual([
      ['folded', 'call to test'],
      ['folded', 'step custom field Device'],
    ]);
  });

  it('keeps elements it has no rule for as fields, and falls back to the folder path and name without a key', () => {
    const { project } = read(exportOf('<testCase><folder>/A/B</folder><name>No key</name><environment>Staging</environment><parameters><parameter name="user" defaultValue="bob"/></parameters></testCase>'));
    expect(project.cases[0]).toMatchObject({ sourceId: 'A/B/No key', folder: ['A', 'B'], fields: [{ name: 'Parameters', value: 'parameter: user bob' }, { name: 'environment', value: 'Staging' }] });
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text in %s with CRLF line ends', (encoding) => {
    const text = exportOf('<testCase key="SHOP-T5"><name><![CDATA[Café „Größe“ – 5 €]]></name><folder>/Ünïcode</folder>', '<testScript type="steps"><steps><step index="0"><description>Prüfen</description></step></steps></testScript></testCase>').replace(/\n/g, '\r\n');
    const decoded = decodeImport(encodeText(text, encoding), 'export.xml');
    const { project } = read(decoded.text);
    expect(project.cases[0]).toMatchObject({ title: 'Café „Größe“ – 5 €', folder: ['Ünïcode'], steps: [{ action: 'Prüfen' }], at: { line: 5 } });
  });

  it('reads a file that declares ISO-8859-1, and strips a BOM left in the text', () => {
    const latin = Buffer.from(exportOf('<testCase key="SHOP-T6"><name>Größe</name></testCase>').replace('UTF-8', 'ISO-8859-1'), 'latin1');
    expect(read(decodeImport(latin, 'export.xml').text).project.cases[0].title).toBe('Größe');
    expect(read(`\ufeff${exportOf('<testCase key="SHOP-T7"><name>BOM</name></testCase>')}`).project.cases[0].title).toBe('BOM');
  });

  it('gives an empty project and a note for an empty export and an empty file', () => {
    for (const text of ['<?xml version="1.0"?>\n<project><folders/><testCases/></project>', '']) {
      const { project, report } = read(text);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual(['export.xml holds no test case: nothing to import.']);
    }
  });

  it('names the file and line of a truncated export', () => {
    const cut = basic.slice(0, basic.indexOf('<name><![CDATA[Return'));
    const opened = basic.slice(0, basic.indexOf('<testCase id="5002"')).split('\n').length;
    const error = errorOf(() => read(cut));
    expect(error.code).toBe('invalid_import');
    expect(error.message).toBe(`export.xml:${cut.split('\n').length}: the file ends inside <testcase> opened at line ${opened}: it is truncated`);
    expect(error.details).toEqual({ file: 'export.xml', line: cut.split('\n').length });
  });

  it('refuses another XML format, a case without a name and a key given twice, naming file and line', () => {
    expect(errorOf(() => read('<?xml version="1.0"?>\n<suite><name>S</name></suite>')).message).toMatch(/^export\.xml:2: <suite> is not a Zephyr Scale test case export/);
    expect(errorOf(() => read(exportOf('<testCase key="SHOP-T1"><name></name></testCase>'))).message).toMatch(/^export\.xml:5: the test case SHOP-T1 has no <name>/);
    expect(errorOf(() => read(exportOf('<testCase key="SHOP-T1"><name>a</name></testCase>', '<testCase key="SHOP-T1"><name>b</name></testCase>'))).message).toMatch(
      /^export\.xml:6: the test case key SHOP-T1 appears twice \(first at line 5\)/,
    );
  });

  it('gives the same sourceIds for a changed export, with the changed values', () => {
    const changed = basic
      .replace('Pay with a saved card – Zürich store', 'Pay with a stored card')
      .replace('<![CDATA[Choose the saved card and confirm]]>', '<![CDATA[Pick the card]]>')
      .replace('<priority><![CDATA[High]]></priority>', '<priority><![CDATA[Normal]]></priority>');
    const before = read(basic).project;
    const after = read(changed).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[0]).toMatchObject({ title: 'Pay with a stored card', lookups: { priority: 'Normal' } });
    expect(after.cases[0].steps?.[1]).toMatchObject({ action: 'Pick the card' });
    expect(after.cases.slice(1)).toEqual(before.cases.slice(1));
  });

  it('is detected by its markers, and chosen over every other reader for its export', () => {
    expect(reader.detect(basic.slice(0, 65536), 'export.xml')).toBe(3);
    expect(reader.detect('<?xml version="1.0"?><project><testCases></testCases></project>', 'x.xml')).toBe(2);
    expect(reader.detect('<a/>', 'tm4j-export.xml')).toBe(1);
    expect(reader.detect('<suite><sections/></suite>', 'x.xml')).toBe(0);
    const scores = IMPORT_READERS.filter((r) => r !== reader).map((r) => r.detect(basic.slice(0, 65536), 'export.xml'));
    expect(Math.max(0, ...scores)).toBeLessThan(3);
    expect(IMPORT_READERS).toContain(reader);
  });
});
