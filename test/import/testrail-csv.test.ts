import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeImport } from '../../src/import/decode.js';
import { numberedItems, testrailCsvReader } from '../../src/import/formats/testrail-csv.js';
import { testrailXmlReader } from '../../src/import/formats/testrail-xml.js';
import { isUseStep, type ImportedActionStep, type ImportedProject, type ImportedStep } from '../../src/import/imported.js';
import type { ReadImportContext } from '../../src/import/reader.js';
import { IMPORT_READERS } from '../../src/import/readers.js';
import { ImportReport } from '../../src/import/report.js';
import { encodeText, TEST_ENCODINGS } from '../support/encodings.js';
import { importError as errorOf } from '../support/import-read.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'import');
const fixture = (name: string) => readFileSync(join(fixtures, 'testrail-csv', name), 'utf8');

function read(text: string, file = 'export.csv', columns?: ReadImportContext['columns']): { project: ImportedProject; report: ImportReport } {
  const report = new ImportReport();
  return { project: testrailCsvReader.read(text, { file, report, ...(columns ? { columns } : {}) }), report };
}


describe('testrail-csv: basic.csv (numbered steps in one cell)', () => {
  const { project, report } = read(fixture('basic.csv'), 'basic.csv');

  it('gives the same cases as the XML export of the same project: sourceIds, folders, lookups, fields, steps (shared steps inlined)', () => {
    const xml = testrailXmlReader.read(readFileSync(join(fixtures, 'testrail-xml', 'basic.xml'), 'utf8'), { file: 'basic.xml', report: new ImportReport() });
    const inline = (steps: ImportedStep[] | undefined): ImportedActionStep[] | undefined =>
      steps?.flatMap((s) => (isUseStep(s) ? xml.stepGroups.find((g) => g.sourceId === s.use)!.steps : [s]));
    const comparable = (p: ImportedProject) => p.cases.map(({ at: _at, steps, ...c }) => ({ ...c, steps: inline(steps) }));
    expect(comparable(project)).toEqual(comparable(xml));
    expect(project.cases.map((c) => c.at.line)).toEqual([2, 7, 12]);
  });

  it('notes that the CSV inlines shared steps', () => {
    expect(report.notes).toEqual([expect.stringMatching(/CSV export writes shared steps into each case/)]);
    expect(project.stepGroups).toEqual([]);
  });
});

describe('testrail-csv: rows.csv (one row per step, a suite, custom and history columns)', () => {
  const { project, report } = read(fixture('rows.csv'), 'rows.csv');
  const [c201, c202] = project.cases;

  it("reads a case's further steps from the rows without ID and Title, lines and all", () => {
    expect(project.cases.map((c) => [c.sourceId, c.folder, c.title, c.at.line])).toEqual([
      ['C201', ['Web Shop', 'Überprüfung – café'], 'Price in € shows “two” decimals', 2],
      ['C202', ['Web Shop', 'Überprüfung – café', 'Exploring'], 'Explore the menu', 9],
    ]);
    expect(c201.steps).toEqual([
      { action: 'Open **Espresso**', expected: 'The price reads 2,10 €', data: 'References: SHOP-3' },
      { action: 'Look at the receipt' },
      { action: 'Pay\nwith cash', expected: 'Change is given\nback' },
    ]);
  });

  it('converts the table, reports the attachment, folds custom columns and drops the history', () => {
    expect(c201.preconditions).toBe('| Item | Price |\n| :--- | :--- |\n| Espresso | 2,10 € |\n\nSee ![](index.php?/attachments/get/123)');
    expect(report.attachments.examples).toEqual([{ value: 'index.php?/attachments/get/123', at: { file: 'rows.csv', line: 4 } }]);
    expect(c201.fields).toEqual([
      { name: 'Estimate', value: '1h 30m' },
      { name: 'Region', value: 'Europe' },
      { name: 'Is Smoke', value: 'Yes' },
    ]);
    const dropped = report.entries.filter((e) => e.action === 'dropped').map((e) => [e.field, e.count]);
    expect(dropped).toEqual([
      ['Created By', 2],
      ['Created On', 2],
      ['Section Description', 1],
    ]);
  });

  it('reads an exploratory session: mission → description, goals → a field', () => {
    expect(c202).toMatchObject({ description: 'Find where the menu breaks on small screens', fields: [{ name: 'Goals', value: 'Every dish reachable' }] });
    expect(c202.steps).toBeUndefined();
  });

  it('reads the same model from every encoding, with CRLF line ends', () => {
    const crlf = fixture('rows.csv').replace(/\n/g, '\r\n');
    for (const encoding of TEST_ENCODINGS) {
      const decoded = decodeImport(encodeText(crlf, encoding), 'rows.csv');
      expect(read(decoded.text, 'rows.csv').project, encoding).toEqual(project);
    }
  });
});

describe('testrail-csv: columns and step layouts', () => {
  it('splits a numbered list only at the next number, so a list inside a step stays in it', () => {
    expect(numberedItems('1. Fill in:\n1. name\n2. Submit\n3. Wait')).toEqual(
      new Map([
        [1, 'Fill in:\n1. name'],
        [2, 'Submit'],
        [3, 'Wait'],
      ]),
    );
    expect(numberedItems('Just one step')).toBeUndefined();
    // beside the steps: numbers may be left out (a step without an expected result)
    expect(numberedItems('1. shown\n3. saved', 3)).toEqual(new Map([[1, 'shown'], [3, 'saved']]));
    expect(numberedItems('3. only the last', 3)).toEqual(new Map([[3, 'only the last']]));
    expect(numberedItems('4. past the steps', 3)).toBeUndefined();
  });

  it('gives an expected result without numbers to the only step, and reads columns by a --map alias', () => {
    const csv = 'Case,Name,Folder,Steps (Step),Steps (Expected Result)\n7,A case,Top,Do it,It is done\n';
    const { project } = read(csv, 'x.csv', { id: 'Case', title: ['Name'], section: 'Folder' });
    expect(project.cases).toEqual([{ sourceId: 'C7', folder: ['Top'], title: 'A case', steps: [{ action: 'Do it', expected: 'It is done' }], at: { file: 'x.csv', line: 2 } }]);
  });

  it('takes rows repeating the ID (without another title) as further steps of the case', () => {
    const { project } = read('ID,Title,Steps (Step),Steps (Expected Result)\nC1,One,a,A\nC1,,b,B\nC1,One,c,\nC2,Two,d,D\n');
    expect(project.cases.map((c) => [c.sourceId, c.steps?.map((s) => ('action' in s ? s.action : ''))])).toEqual([
      ['C1', ['a', 'b', 'c']],
      ['C2', ['d']],
    ]);
  });

  it('names a case without an ID column by its folder path and title, as the XML reader does', () => {
    const { project } = read('Title,Section Hierarchy,Suite\nNo id,A > B,Master\n');
    expect(project.cases.map((c) => [c.sourceId, c.folder])).toEqual([['A / B / No id', ['A', 'B']]]);
  });

  it('folds a template other than Steps and Text as the field Template', () => {
    const { project } = read('ID,Title,Section,Template,Steps,Expected Result,Endpoint\nC9,T,S,Test Case (API),Call it,HTTP 200,GET /prices\n');
    expect(project.cases[0]).toMatchObject({ stepsText: 'Call it', expectedResults: 'HTTP 200', fields: [{ name: 'Template', value: 'Test Case (API)' }, { name: 'Endpoint', value: 'GET /prices' }] });
  });

  it('reads the text template from Steps and Expected Result', () => {
    const { project } = read('ID,Title,Section,Template,Steps,Expected Result\nC9,T,S,Test Case (Text),"1. a\n2. b",ok\n');
    expect(project.cases[0]).toMatchObject({ stepsText: '1. a\n2. b', expectedResults: 'ok' });
    expect(project.cases[0].steps).toBeUndefined();
  });
});

describe('testrail-csv: bad and changed input', () => {
  it('gives an empty project and a note for an empty file and a header without rows', () => {
    for (const text of ['', '\uFEFF', 'ID,Title,Section\r\n']) {
      const { project, report } = read(text, 'empty.csv');
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual(['empty.csv holds no TestRail case: nothing to import from it']);
    }
  });

  it('names file and line of a truncated export', () => {
    const text = fixture('rows.csv');
    const error = errorOf(() => read(text.slice(0, text.indexOf('with cash')), 'rows.csv'));
    expect(error.code).toBe('invalid_import');
    expect(error.message).toMatch(/^rows\.csv:\d+: a quoted value is never closed/);
  });

  it('names the missing Title column and the headers there are', () => {
    const error = errorOf(() => read('ID,Name\nC1,x\n', 'x.csv'));
    expect(error.message).toBe('x.csv:1: the header has no Title column (it has "ID", "Name")');
  });

  it('names the line of a step row before any case', () => {
    expect(errorOf(() => read('ID,Title,Steps (Step)\n,,orphan\n', 'x.csv')).message).toBe('x.csv:2: a row without ID and Title comes before any case');
  });

  it('reads a changed export to the same sourceIds with the new values', () => {
    const before = read(fixture('basic.csv')).project;
    const after = read(fixture('basic.csv').replace('Apply a coupon,Coupons,Checkout > Coupons', 'Apply a discount coupon,Discounts,Checkout > Discounts').replace('Functional,Critical', 'Functional,High')).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[1]).toMatchObject({ sourceId: 'C102', title: 'Apply a discount coupon', folder: ['Checkout', 'Discounts'] });
    expect(after.cases[2].lookups?.priority).toBe('High');
  });
});

describe('testrail-csv: detect', () => {
  it('is sure of its fixtures, and the registry chooses it for them', () => {
    for (const name of ['basic.csv', 'rows.csv']) {
      const head = fixture(name).slice(0, 65536);
      expect(testrailCsvReader.detect(head, name)).toBe(3);
      expect(testrailXmlReader.detect(head, name)).toBe(0);
      const scores = IMPORT_READERS.map((r) => [r.name, r.detect(head, name)] as const).sort((a, b) => b[1] - a[1]);
      expect(scores[0][0]).toBe('testrail-csv');
      expect(scores[1][1]).toBeLessThan(3);
    }
  });

  it('scores the header names 2, the file name 1, anything else 0', () => {
    expect(testrailCsvReader.detect('ID,Title,Section,Priority\n', 'x.csv')).toBe(2);
    expect(testrailCsvReader.detect('a,b\n', 'testrail-cases.csv')).toBe(1);
    expect(testrailCsvReader.detect('Summary,Action,Result\n', 'x.csv')).toBe(0);
    expect(testrailCsvReader.detect('id,title,suite,priority,preconditions\n', 'qase.csv')).toBe(0);
  });
});
