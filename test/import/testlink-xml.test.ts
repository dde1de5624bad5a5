import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeImport } from '../../src/import/decode.js';
import { testlinkXmlReader as reader } from '../../src/import/formats/testlink-xml.js';
import { zephyrScaleXmlReader } from '../../src/import/formats/zephyr-scale-xml.js';
import { IMPORT_READERS } from '../../src/import/readers.js';
import { encodeText, TEST_ENCODINGS } from '../support/encodings.js';
import { importError as errorOf, readWith } from '../support/import-read.js';

const FIXTURES = new URL('../fixtures/import/', import.meta.url);
const basic = readFileSync(new URL('testlink-xml/basic.xml', FIXTURES), 'utf8');
const zephyr = readFileSync(new URL('zephyr-scale-xml/basic.xml', FIXTURES), 'utf8');

const read = (text: string, file = 'tl.xml') => readWith(reader, text, file);


const lineOf = (text: string, marker: string) => text.slice(0, text.indexOf(marker)).split('\n').length;

/** A `<testcases>` export (cases without suites) around the given cases. */
function casesExport(...cases: string[]): string {
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<testcases>', ...cases, '</testcases>', ''].join('\n');
}

describe('testlink-xml reader', () => {
  it('reads the suite tree (empty suites too, the nameless project root left out) and a case with every kind of field', () => {
    const { project } = read(basic);
    expect(project.folders).toEqual([['Checkout'], ['Checkout', 'Payment'], ['Checkout', 'Returns'], ['Search']]);
    expect(project.cases.map((c) => [c.sourceId, c.folder.join('/'), c.title])).toEqual([
      ['SHOP-1', 'Checkout/Payment', 'Log in to the shop'],
      ['SHOP-2', 'Checkout/Payment', 'Pay by card – Größe M'],
      ['SHOP-3', 'Search', 'Find an item by part of its name'],
    ]);
    expect(project.cases[1]).toEqual({
      sourceId: 'SHOP-2',
      folder: ['Checkout', 'Payment'],
      title: 'Pay by card – Größe M',
      description:
        'The customer pays the cart (**€ 19,90**) by card.\n\n![](https://testlink.example.test/lib/attachments/attachmentdownload.php?id=77)\n\nAttachments:\n- receipt.png (Receipt)',
      preconditions: '-   A cart with one item\n-   A valid test card',
      steps: [{ use: 'SHOP-1#1' }, { action: 'Press **Pay** and enter the card\n\n| Number | 4111 1111 1111 1111 |\n| --- | --- |', expected: 'The receipt shows „Bezahlt“' }],
      lookups: { priority: 'High', automation_type: 'Automated', status: 'Draft' },
      labels: ['smoke', 'payment'],
      fields: [
        { name: 'Estimated duration', value: '5.00 min' },
        { name: 'Browser', value: 'Firefox' },
        { name: 'Requirements', value: 'REQ-PAY-1 Card payment (Payments)' },
      ],
      at: { file: 'tl.xml', line: lineOf(basic, '<testcase internalid="205"') },
    });
    expect(project.cases[0].lookups).toEqual({ priority: 'Medium', automation_type: 'Manual', status: 'Final' });
    expect(project.cases[2]).toMatchObject({ description: 'Find an item by part of its name.', steps: [{ action: 'Type "tas" into the search field', expected: '"Tasse" is listed' }], lookups: { status: 'Ready for review', priority: 'Low' } });
  });

  it('makes a ghost step (TestLink reuse of another case\'s step) a step group the case uses', () => {
    const { project, report } = read(basic);
    expect(project.stepGroups).toEqual([
      {
        sourceId: 'SHOP-1#1',
        title: 'Log in to the shop – step 1',
        steps: [{ action: 'Open the login page and sign in as *anna@example.test*', expected: 'The start page greets Anna' }],
        at: { file: 'tl.xml', line: lineOf(basic, '<testcase internalid="201"') },
      },
    ]);
    expect(report.entries.find((e) => e.field === 'ghost step')).toBeUndefined();
  });

  it('keeps a ghost whose case is not in the export as written, and records it', () => {
    const { project, report } = read(
      casesExport('<testcase internalid="9" name="Uses another"><externalid>9</externalid><steps><step><step_number>1</step_number><actions><![CDATA[[ghost]"Step":2,"TestCase":"OTHER-4","Version":1[/ghost]]]></actions></step></steps></testcase>'),
    );
    expect(project.stepGroups).toEqual([]);
    expect(project.cases[0].steps).toEqual([{ action: '[ghost]"Step":2,"TestCase":"OTHER-4","Version":1[/ghost]' }]);
    expect(report.entries.find((e) => e.field === 'ghost step')).toMatchObject({ action: 'folded', count: 1 });
  });

  it('resolves ghosts in a summary and preconditions the way TestLink shows them, and keeps one it cannot resolve', () => {
    const { project, report } = read(
      casesExport(
        '<testcase internalid="1" name="Login"><fullexternalid>P-1</fullexternalid><preconditions><![CDATA[<p>A user</p>]]></preconditions><steps><step><step_number>1</step_number><actions><![CDATA[<p>Sign in</p>]]></actions></step></steps></testcase>',
        '<testcase internalid="2" name="Order"><fullexternalid>P-2</fullexternalid>',
        '<summary><![CDATA[<p>First [ghost]&quot;Step&quot;:1,&quot;TestCase&quot;:&quot;P-1&quot;,&quot;Version&quot;:1[/ghost], see [ghost]"TestCase":"P-1","Version":1[/ghost] and [ghost]"TestCase":"Q-9"[/ghost]</p>]]></summary>',
        '<preconditions><![CDATA[<p>[ghost]"Preconditions":1,"TestCase":"P-1"[/ghost]</p>]]></preconditions></testcase>',
      ),
    );
    expect(project.cases[1]).toMatchObject({ description: 'First Sign in, see P-1: Login and \\[ghost\\]"TestCase":"Q-9"\\[/ghost\\]', preconditions: 'A user' });
    expect(report.entries.find((e) => e.field === 'ghost text')).toMatchObject({ action: 'folded', count: 1 });
  });

  it('records what it labels and drops: keywords, keyword notes, versions, step execution types, attachment contents, suite details', () => {
    const { report } = read(basic);
    expect(report.entries.map((e) => [e.action, e.field, e.count]).sort()).toEqual([
      ['dropped', 'attachment content', 1],
      ['dropped', 'keyword notes', 1],
      ['dropped', 'step execution_type', 1],
      ['dropped', 'testsuite details', 1],
      ['dropped', 'version', 3],
      ['labelled', 'keyword', 2],
    ]);
    expect(report.entries.find((e) => e.field === 'testsuite details')?.examples[0]).toEqual({ value: 'Everything between the cart and the receipt.', at: { file: 'tl.xml', line: 5 } });
    expect(report.attachments.count).toBe(2);
    expect(report.attachments.examples.map((e) => e.value)).toEqual(['https://testlink.example.test/lib/attachments/attachmentdownload.php?id=77', 'receipt.png']);
  });

  it('reads the old layout: steps and expected results as one text each (template TCD), and cases without a prefix', () => {
    const { project } = read(
      casesExport(
        '<testcase internalid="12644" name="High speed">',
        '<node_order><![CDATA[0]]></node_order><externalid><![CDATA[182]]></externalid>',
        '<summary><![CDATA[]]></summary><steps><![CDATA[<ol><li>Start</li><li>Accelerate</li></ol>]]></steps>',
        '<expectedresults><![CDATA[<p>Top speed reached</p>]]></expectedresults></testcase>',
        '<testcase internalid="12645" name="No external id"><summary>x</summary></testcase>',
      ),
    );
    expect(project.folders).toEqual([]);
    expect(project.cases[0]).toEqual({ sourceId: '182', folder: [], title: 'High speed', stepsText: '1.  Start\n2.  Accelerate', expectedResults: 'Top speed reached', at: { file: 'tl.xml', line: 3 } });
    expect(project.cases[1].sourceId).toBe('internal-12645');
    const mixed = read(casesExport('<testcase internalid="5" name="Both"><externalid>5</externalid><steps><step><actions>a</actions></step></steps><expectedresults>all done</expectedresults></testcase>')).project;
    expect(mixed.cases[0]).toMatchObject({ steps: [{ action: 'a' }], fields: [{ name: 'Expected results', value: 'all done' }] });
    expect(mixed.cases[0].expectedResults).toBeUndefined();
  });

  it('keeps elements it has no rule for as fields, and an unknown code as it is', () => {
    const { project } = read(casesExport('<testcase internalid="1" name="n"><externalid>1</externalid><importance>9</importance><platforms><platform><name>Linux</name></platform></platforms><relations><relation><type>blocks</type><destination>SHOP-9</destination></relation></relations></testcase>'));
    expect(project.cases[0]).toMatchObject({ lookups: { priority: '9' }, fields: [{ name: 'Platforms', value: 'Linux' }, { name: 'relations', value: 'relation: type: blocks; destination: SHOP-9' }] });
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text in %s with CRLF line ends', (encoding) => {
    const text = casesExport('<testcase internalid="7" name="Café „Größe“ – 5 €"><externalid>7</externalid>', '<steps><step><step_number>1</step_number><actions><![CDATA[<p>Prüfen &amp; zahlen</p>]]></actions></step></steps></testcase>').replace(/\n/g, '\r\n');
    const { project } = read(decodeImport(encodeText(text, encoding), 'tl.xml').text);
    expect(project.cases[0]).toMatchObject({ title: 'Café „Größe“ – 5 €', steps: [{ action: 'Prüfen & zahlen' }], at: { line: 3 } });
  });

  it('reads an ISO-8859-1 or Windows-1252 export as it declares itself, and strips a BOM left in the text', () => {
    for (const label of ['ISO-8859-1', 'windows-1252']) {
      const text = casesExport('<testcase internalid="8" name="Größe – “quoted”"><externalid>8</externalid></testcase>').replace('UTF-8', label);
      expect(read(decodeImport(encodeText(text, 'windows-1252'), 'tl.xml').text).project.cases[0].title).toBe('Größe – “quoted”');
    }
    expect(read(`\ufeff${casesExport('<testcase internalid="8" name="BOM"/>')}`).project.cases[0].title).toBe('BOM');
  });

  it('gives an empty project and a note for an empty export and an empty file', () => {
    for (const text of ['<?xml version="1.0" encoding="UTF-8"?>\n<testcases></testcases>', '<testsuite id="" name="">\n<details/></testsuite>', '']) {
      const { project, report } = read(text);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual(['tl.xml holds no test case: nothing to import.']);
    }
  });

  it('names the file and line of a truncated export', () => {
    const cut = basic.slice(0, basic.indexOf('<expectedresults><![CDATA[<p>The receipt'));
    const error = errorOf(() => read(cut));
    expect(error.code).toBe('invalid_import');
    expect(error.message).toBe(`tl.xml:${cut.split('\n').length}: the file ends inside <step> opened at line ${lineOf(basic, '<step_number><![CDATA[2]]>') - 1}: it is truncated`);
  });

  it('refuses another XML format, a case without a name and an id given twice, naming file and line', () => {
    expect(errorOf(() => read(zephyr)).message).toMatch(/^tl\.xml:2: <project> is not a TestLink export/);
    expect(errorOf(() => read(casesExport('<testcase internalid="3"><externalid>3</externalid></testcase>'))).message).toMatch(/^tl\.xml:3: the test case 3 has no name/);
    expect(errorOf(() => read(casesExport('<testcase internalid="3" name="a"><externalid>3</externalid></testcase>', '<testcase internalid="4" name="b"><externalid>3</externalid></testcase>'))).message).toMatch(
      /^tl\.xml:4: the test case 3 appears twice \(first at line 3\)/,
    );
  });

  it('gives the same sourceIds for a changed export, with the changed values', () => {
    const changed = basic.replace('name="Find an item by part of its name"', 'name="Find an item by its name"').replace('<importance><![CDATA[1]]></importance>', '<importance><![CDATA[2]]></importance>');
    const before = read(basic).project;
    const after = read(changed).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[2]).toMatchObject({ title: 'Find an item by its name', lookups: { priority: 'Medium' } });
    expect(after.cases.slice(0, 2)).toEqual(before.cases.slice(0, 2));
    expect(after.stepGroups).toEqual(before.stepGroups);
  });

  it('is detected by its markers, not taken for JUnit, and chosen over every other reader for its export', () => {
    expect(reader.detect(basic.slice(0, 65536), 'tl.xml')).toBe(3);
    expect(reader.detect('<testcases><testcase name="a"><summary/></testcase></testcases>', 'x.xml')).toBe(2);
    expect(reader.detect('<testsuite name="junit"><testcase name="a" classname="b"/></testsuite>', 'x.xml')).toBe(0);
    expect(reader.detect('<a/>', 'testlink-export.xml')).toBe(1);
    expect(reader.detect(zephyr.slice(0, 65536), 'x.xml')).toBe(0);
    expect(zephyrScaleXmlReader.detect(basic.slice(0, 65536), 'x.xml')).toBe(0);
    const scores = IMPORT_READERS.filter((r) => r !== reader).map((r) => r.detect(basic.slice(0, 65536), 'tl.xml'));
    expect(Math.max(0, ...scores)).toBeLessThan(3);
    expect(IMPORT_READERS).toContain(reader);
  });
});
