import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeImport } from '../../src/import/decode.js';
import { testrailCsvReader } from '../../src/import/formats/testrail-csv.js';
import { testrailXmlReader } from '../../src/import/formats/testrail-xml.js';
import { IMPORT_READERS } from '../../src/import/readers.js';
import { encodeText, TEST_ENCODINGS } from '../support/encodings.js';
import { importError as errorOf, readWith } from '../support/import-read.js';

const dir = join(import.meta.dirname, '..', 'fixtures', 'import', 'testrail-xml');
const fixture = (name: string) => readFileSync(join(dir, name), 'utf8');

const read = (text: string, file = 'export.xml') => readWith(testrailXmlReader, text, file);


describe('testrail-xml: basic.xml (a single-repository project)', () => {
  const { project } = read(fixture('basic.xml'), 'basic.xml');

  it('reads the section tree without a level for the Master suite, outermost first', () => {
    expect(project.folders).toEqual([['Checkout'], ['Checkout', 'Coupons'], ['Accounts']]);
    expect(project.cases.map((c) => [c.sourceId, c.folder, c.title, c.at.line])).toEqual([
      ['C101', ['Checkout'], 'Pay with a saved card', 11],
      ['C102', ['Checkout', 'Coupons'], 'Apply a coupon', 50],
      ['C103', ['Accounts'], 'Reset a forgotten password', 90],
    ]);
  });

  it('makes a step group of the shared step set the export inlined, used by both cases', () => {
    expect(project.stepGroups).toEqual([
      {
        sourceId: 'SS7',
        title: 'Shared steps 7',
        steps: [
          { action: 'Sign in as the customer', expected: 'The account page opens' },
          { action: 'Open the cart', expected: 'The cart lists one item' },
        ],
        at: { file: 'basic.xml', line: 24 },
      },
    ]);
    const [c101, c102] = project.cases;
    expect(c101.steps).toEqual([{ use: 'SS7' }, { action: 'Pay with the saved card', expected: 'The order is confirmed' }]);
    expect(c102.steps).toEqual([{ use: 'SS7' }, { action: 'Enter the code SAVE10', expected: 'The total drops by 10 %', data: 'Codes are case-insensitive' }]);
    expect(read(fixture('basic.xml')).report.notes).toEqual(["TestRail's XML export holds a shared step set's id but not its title: its step group is named `Shared steps <id>`"]);
  });

  it('puts lookups under their keys (a dropdown without its leading space) and the rest in fields, built-in first', () => {
    const [c101, , c103] = project.cases;
    expect(c101.lookups).toEqual({ type: 'Functional', priority: 'High', automation_type: 'None' });
    expect(c101.preconditions).toBe('A customer with a saved card');
    expect(c101.fields).toEqual([
      { name: 'Estimate', value: '5m' },
      { name: 'References', value: 'SHOP-12' },
      { name: 'Browser', value: 'Firefox' },
    ]);
    expect(c103).toMatchObject({
      stepsText: '1. Open the sign-in page\n2. Choose "Forgot password" and enter the e-mail address',
      expectedResults: 'A reset link arrives by e-mail',
      lookups: { type: 'Functional', priority: 'Critical' },
    });
    expect(c103.steps).toBeUndefined();
    expect(c103.fields).toBeUndefined();
  });
});

describe('testrail-xml: full.xml (a named suite, every template and field kind)', () => {
  const { project, report } = read(fixture('full.xml'), 'full.xml');
  const [c201, c202, c203] = project.cases;

  it('gives the suite a folder level, declares empty sections and keeps non-ASCII names', () => {
    expect(project.folders).toEqual([['Web Shop'], ['Web Shop', 'Überprüfung – café'], ['Web Shop', 'Überprüfung – café', 'Exploring'], ['Web Shop', 'Empty section']]);
    expect(c201.folder).toEqual(['Web Shop', 'Überprüfung – café']);
    expect(c201.title).toBe('Price in € shows “two” decimals');
    expect(c203.sourceId).toBe('C203');
  });

  it('reads every custom field form: checkbox, date, integer, multi-select, dropdown by id only, milestone', () => {
    expect(c201.fields).toEqual([
      { name: 'Estimate', value: '1h 30m' },
      { name: 'References', value: 'SHOP-1, SHOP-2' },
      { name: 'Milestone', value: 'Release 2.0' },
      { name: 'Is Smoke', value: 'true' },
      { name: 'Release Date', value: '2024-05-31' },
      { name: 'Team Size', value: '3' },
      { name: 'Platforms', value: 'Windows, macOS' },
      { name: 'Browser', value: '2' },
    ]);
  });

  it("converts TestRail's table in a text field, keeps the attachment link and reports it", () => {
    expect(c201.preconditions).toBe(
      ['Prices:', '', '| Item | Price | Tax |', '| :--- | :--- | ---: |', '| Espresso | 2,10 € | 7 % |', '| Crème brûlée | 4,50 € | 19 % |', '', 'See ![](index.php?/attachments/get/123)'].join('\n'),
    );
    expect(report.attachments.count).toBe(1);
    expect(report.attachments.examples[0]).toEqual({ value: 'index.php?/attachments/get/123', at: { file: 'full.xml', line: 28 } });
  });

  it("puts a step's additional info and references in its data", () => {
    expect(c201.steps).toEqual([
      { action: 'Open **Espresso**', expected: 'The price reads 2,10 €', data: 'References: SHOP-3' },
      { action: 'Look at the receipt', data: 'Use the printer "Kasse 1"' },
    ]);
  });

  it('reads an exploratory session (mission → description, goals → a field) and a custom template (named in the fields)', () => {
    expect(c202).toMatchObject({ description: 'Find where the menu breaks on small screens', fields: [{ name: 'Template', value: 'Exploratory Session' }, { name: 'Goals', value: 'Every dish reachable' }] });
    expect(c203).toMatchObject({
      stepsText: 'Call it',
      expectedResults: 'HTTP 200',
      lookups: { type: 'Automated', priority: 'Medium', status: 'Approved', owner: 'Jo Tester' },
      fields: [{ name: 'Template', value: 'Test Case (API)' }, { name: 'Endpoint', value: 'GET /prices' }],
    });
  });

  it('reports the suite and section descriptions it has no slot for', () => {
    const dropped = report.entries.filter((e) => e.action === 'dropped');
    expect(dropped.map((e) => [e.field, e.count, e.examples[0].value])).toEqual([
      ['section description', 1, "Checks of the café's € prices"],
      ['suite description', 1, 'Everything the shop does'],
    ]);
  });

  it('reads the same model from every encoding, with CRLF line ends', () => {
    const crlf = fixture('full.xml').replace(/\n/g, '\r\n');
    for (const encoding of TEST_ENCODINGS) {
      const decoded = decodeImport(encodeText(crlf, encoding), 'full.xml');
      expect(read(decoded.text, 'full.xml').project, encoding).toEqual(project);
    }
  });
});

describe('testrail-xml: suites, ids and shared steps', () => {
  it('gives each suite of a multi-suite export its folder level', () => {
    const xml = '<suites><suite><name>API</name><sections><section><name>Auth</name><cases><case><id>C1</id><title>a</title></case></cases></section></sections></suite>' +
      '<suite><name>UI</name><sections><section><name>Auth</name><cases><case><id>C2</id><title>b</title></case></cases></section></sections></suite></suites>';
    expect(read(xml).project.cases.map((c) => [c.sourceId, c.folder])).toEqual([
      ['C1', ['API', 'Auth']],
      ['C2', ['UI', 'Auth']],
    ]);
  });

  it("reads fields named as TestRail's API names them (custom_ prefix)", () => {
    const xml = '<suite><name>Master</name><sections><section><name>S</name><cases><case><id>C8</id><title>t</title><custom>' +
      '<custom_preconds>p</custom_preconds><custom_steps_separated><step><content>a</content><expected>b</expected></step></custom_steps_separated><custom_automation_type><id>1</id><value> Ranorex</value></custom_automation_type>' +
      '</custom></case></cases></section></sections></suite>';
    expect(read(xml).project.cases[0]).toMatchObject({ preconditions: 'p', steps: [{ action: 'a', expected: 'b' }], lookups: { automation_type: 'Ranorex' } });
  });

  it('declares a folder once when sections of one name share a parent', () => {
    const xml = '<suite><name>Master</name><sections><section><name>A</name></section><section><name>B</name></section><section><name>A</name></section></sections></suite>';
    expect(read(xml).project.folders).toEqual([['A'], ['B']]);
  });

  it("reads the import format's <sections> root, and names a case without id by its folder path and title", () => {
    const xml = '<?xml version="1.0"?>\n<sections>\n<section><name>A</name><sections><section><name>B</name><cases>\n<case><title>No id</title></case></cases></section></sections></section></sections>';
    expect(read(xml).project.cases.map((c) => [c.sourceId, c.folder, c.at.line])).toEqual([['A / B / No id', ['A', 'B'], 4]]);
  });

  it('notes a shared step set whose steps the export does not hold', () => {
    const xml = '<suite><name>Master</name><sections><section><name>S</name><cases><case><id>C5</id><title>t</title><custom><steps_separated><step><shared_step_id>12</shared_step_id></step></steps_separated></custom></case></cases></section></sections></suite>';
    const { project, report } = read(xml);
    expect(project.cases[0].steps).toEqual([{ use: 'SS12' }]);
    expect(project.stepGroups).toEqual([]);
    expect(report.notes.join('\n')).toMatch(/shared step set SS12 .* holds none of its steps: no step group is made for it/);
  });
});

describe('testrail-xml: bad and changed input', () => {
  it('gives an empty project and a note for an empty file and for a suite without cases', () => {
    for (const text of ['', '\uFEFF', '<?xml version="1.0"?>\n<suite><id>S1</id><name>Master</name><sections/></suite>']) {
      const { project, report } = read(text, 'empty.xml');
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual(['empty.xml holds no TestRail case: nothing to import from it']);
    }
  });

  it('names file and line of a truncated export', () => {
    const text = fixture('full.xml');
    const error = errorOf(() => read(text.slice(0, text.indexOf('Look at the receipt')), 'full.xml'));
    expect(error.code).toBe('invalid_import');
    expect(error.message).toMatch(/^full\.xml:46: the file ends inside <content> opened at line 46: it is truncated/);
  });

  it('refuses another XML format with the file and what was expected', () => {
    const error = errorOf(() => read('<?xml version="1.0"?>\n<testsuite name="x"><testcase name="a"/></testsuite>', 'testlink.xml'));
    expect(error.code).toBe('invalid_import');
    expect(error.message).toBe('testlink.xml:2: this is not a TestRail XML export: the root element is <testsuite>, not <suite> or <sections>');
    expect(errorOf(() => read('<case><title>x</title></case>')).message).toMatch(/^export\.xml:1: this is not a TestRail XML export/);
  });

  it('names the line of a case without a title', () => {
    expect(errorOf(() => read('<suite>\n<sections><section><name>A</name><cases>\n<case><id>C1</id></case></cases></section></sections></suite>')).message).toBe('export.xml:3: a <case> has no <title>');
  });

  it('reads a changed export to the same sourceIds with the new values', () => {
    const changed = fixture('basic.xml')
      .replace('<title>Apply a coupon</title>', '<title>Apply a discount coupon</title>')
      .replace('<priority>Critical</priority>', '<priority>High</priority>')
      .replace('<name>Coupons</name>', '<name>Discounts</name>');
    const before = read(fixture('basic.xml')).project;
    const after = read(changed).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[1]).toMatchObject({ sourceId: 'C102', title: 'Apply a discount coupon', folder: ['Checkout', 'Discounts'] });
    expect(after.cases[2].lookups?.priority).toBe('High');
  });
});

describe('testrail-xml: detect', () => {
  it('is sure of its fixtures, and the registry chooses it for them', () => {
    for (const name of ['basic.xml', 'full.xml']) {
      const head = fixture(name).slice(0, 65536);
      expect(testrailXmlReader.detect(head, name)).toBe(3);
      expect(testrailCsvReader.detect(head, name)).toBe(0);
      const scores = IMPORT_READERS.map((r) => [r.name, r.detect(head, name)] as const).sort((a, b) => b[1] - a[1]);
      expect(scores[0][0]).toBe('testrail-xml');
      expect(scores[1][1]).toBeLessThan(3);
    }
  });

  it('scores the structure 2, the file name 1, anything else 0', () => {
    expect(testrailXmlReader.detect('<sections><section><name>A</name></section></sections>', 'x.xml')).toBe(2);
    expect(testrailXmlReader.detect('<testsuite/>', 'testrail-export.xml')).toBe(1);
    expect(testrailXmlReader.detect('<testsuite/>', 'x.xml')).toBe(0);
  });
});
