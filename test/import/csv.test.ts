import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import { decodeImport } from '../../src/import/decode.js';
import { csvReader, splitFolderPath, splitNumbered } from '../../src/import/formats/csv.js';
import type { ImportedProject } from '../../src/import/imported.js';
import type { ReadImportContext } from '../../src/import/reader.js';
import { importReader, IMPORT_READERS } from '../../src/import/readers.js';
import { ImportReport } from '../../src/import/report.js';
import { encodeText, TEST_ENCODINGS } from '../support/encodings.js';

const FIXTURE = new URL('../fixtures/import/csv/basic.csv', import.meta.url);

function read(text: string, columns?: ReadImportContext['columns'], file = 'export.csv'): { project: ImportedProject; report: ImportReport } {
  const report = new ImportReport();
  return { project: csvReader.read(text, { file, report, ...(columns ? { columns } : {}) }), report };
}

function failure(run: () => unknown): TmsyncError {
  try {
    run();
  } catch (err) {
    if (err instanceof TmsyncError) return err;
    throw err;
  }
  throw new Error('expected a TmsyncError');
}

describe('csv reader: the representative export', () => {
  const { project, report } = read(readFileSync(FIXTURE, 'utf8'), undefined, 'basic.csv');

  it('reads nested folders in both path forms, and a folder-only row as a declared folder', () => {
    expect(project.cases.map((c) => [c.sourceId, c.folder])).toEqual([
      ['CSV-1', ['Checkout', 'Payments']],
      ['CSV-2', ['Checkout', 'Payments', 'Refunds']],
      ['CSV-3', ['Authentication']],
    ]);
    expect(project.folders).toEqual([['Authentication', 'Password reset']]);
    expect(project.stepGroups).toEqual([]);
  });

  it('reads one row per step (continuation rows), and a numbered list in one cell with its expected and data lists', () => {
    expect(project.cases[0].steps).toEqual([
      { action: 'Open the checkout page', expected: 'The saved card is preselected' },
      { action: 'Press "Pay"', expected: 'The order confirmation shows' },
    ]);
    expect(project.cases[1].steps).toEqual([
      { action: 'Open the order', expected: 'The order shows', data: 'order 1001' },
      { action: 'Press "Refund"', expected: 'A confirmation asks for the amount', data: 'amount: 10.00' },
      { action: 'Confirm', expected: 'The refund is listed' },
    ]);
    expect(project.cases[2].steps?.[1]).toEqual({ action: 'Sign in as ana', expected: 'The dashboard shows', data: 'user: ana, password: Sécret' });
  });

  it('reads every field kind: texts, lookups by the raw names, labels split on commas and semicolons, a custom column as a field', () => {
    const [first, second, third] = project.cases;
    expect(first).toMatchObject({
      title: 'Pay with a saved card',
      description: 'Checkout with a card stored on the account.',
      preconditions: 'The user has a saved Visa card.',
      lookups: { priority: 'Critical', type: 'Functional', status: 'Ready', automation_type: 'Not Automated' },
      labels: ['smoke', 'payments'],
      fields: [{ name: 'Component', value: 'Web shop' }],
      at: { file: 'basic.csv', line: 2 },
    });
    expect(third.labels).toEqual(['auth', 'smoke']);
    expect(third.at.line).toBe(10);
    expect(second.lookups?.type).toBe('Regression');
  });

  it('keeps an attachment link in the description and lists it in the report', () => {
    expect(project.cases[1].description).toBe('Refunds go back to the card that paid.\n\n[refund-dialog.png](https://files.example.com/refund-dialog.png)');
    expect(report.attachments.count).toBe(1);
    expect(report.attachments.examples[0]).toEqual({ value: 'https://files.example.com/refund-dialog.png', at: { file: 'basic.csv', line: 4 } });
  });
});

describe('csv reader: step layouts', () => {
  it('gives an unnumbered expected text of a numbered list to the last step, and takes an unnumbered cell as one step', () => {
    const { project } = read('Title,Steps,Expected\nA,"1. one\n2. two","all done"\nB,"Open it\nand look",Shown\n');
    expect(project.cases[0].steps).toEqual([{ action: 'one' }, { action: 'two', expected: 'all done' }]);
    expect(project.cases[1].steps).toEqual([{ action: 'Open it\nand look', expected: 'Shown' }]);
  });

  it('keeps a number out of sequence inside its step, and an item going on over lines', () => {
    expect(splitNumbered('1. In\n2024. was a year\n2) then\n  more').items).toEqual(['In\n2024. was a year', 'then\n  more']);
    expect(splitNumbered('')).toEqual({ items: [], numbered: false });
    expect(splitFolderPath(' A / B/ ')).toEqual(['A', 'B']);
    expect(splitFolderPath('A/B > C')).toEqual(['A/B', 'C']);
  });

  it('does not split a cell when a step number column says each row is one step', () => {
    const { project } = read('Title,Step #,Steps\nA,1,"1. looks like a list\n2. but is one step"\n');
    expect(project.cases[0].steps).toEqual([{ action: '1. looks like a list\n2. but is one step' }]);
  });

  it('takes rows repeating the case id (and title) as its steps, as Xray-like files do', () => {
    const { project } = read('Key,Summary,Action,Result\nT-1,A,a1,r1\nT-1,,a2,r2\nT-1,A,a3,\n');
    expect(project.cases).toHaveLength(1);
    expect(project.cases[0].steps).toEqual([{ action: 'a1', expected: 'r1' }, { action: 'a2', expected: 'r2' }, { action: 'a3' }]);
  });

  it('reads template TCD (text steps) when the template column says so', () => {
    const { project } = read('Title,Template,Steps,Expected Result\nA,Text,"Do this\nthen that",It works\n');
    expect(project.cases[0]).toMatchObject({ stepsText: 'Do this\nthen that', expectedResults: 'It works' });
    expect(project.cases[0].steps).toBeUndefined();
  });
});

describe('csv reader: columns by header name', () => {
  it('finds columns by alias whatever their order, case and spacing', () => {
    const { project } = read('tags;EXPECTED_RESULT;test case title;Folder Path\nx;shown;Open;A > B\n');
    expect(project.cases[0]).toMatchObject({ title: 'Open', folder: ['A', 'B'], labels: ['x'], steps: [{ action: '', expected: 'shown' }] });
  });

  it('uses the column map over the built-in aliases, a list of aliases too, and an empty list to turn a column off', () => {
    const text = 'Name,Testfall,Etiketten,Folder\nignored,Öffnen,"a,b",Kasse\n';
    const { project } = read(text, { title: 'Testfall', labels: ['Schlagworte', 'Etiketten'], folder: [] });
    expect(project.cases[0]).toMatchObject({ title: 'Öffnen', labels: ['a', 'b'], folder: [], fields: [{ name: 'Name', value: 'ignored' }, { name: 'Folder', value: 'Kasse' }] });
  });

  it('gives the header the map names to its field even when it is another field’s built-in alias', () => {
    const { project } = read('Title,Headline\nthe description,the title\n', { title: 'Headline', description: 'Title' });
    expect(project.cases[0]).toMatchObject({ title: 'the title', description: 'the description' });
  });

  it('says which headers it found and how to map the title when there is no title column', () => {
    const err = failure(() => read('Identifier,Beschreibung\n1,x\n', undefined, 'in/tests.csv'));
    expect(err.code).toBe('invalid_import');
    expect(err.message).toBe('in/tests.csv:1: no title column: the headers are "Identifier", "Beschreibung"');
    expect(err.hint).toMatch(/--map FILE.*columns: \{ title: "<your header>" \}/);
  });

  it('leaves aside a map key of another format (noting a near miss of a field), and falls back to the built-in names for a header this file lacks', () => {
    const { project, report } = read('Title,Priority\nA,High\n', { tilte: 'Title', test_id: 'TCID', priority: 'Prio', owner: 'Besitzer' });
    expect(project.cases[0]).toMatchObject({ title: 'A', lookups: { priority: 'High' } });
    expect(report.notes).toEqual([
      'export.csv: the column map\'s "tilte" is no field of the generic CSV (did you mean "title"?): left aside',
      'export.csv: the column map names "Prio" for priority, which this file lacks: its built-in name "Priority" was used',
      'export.csv: the column map names "Besitzer" for owner, which this file lacks: no column holds it',
    ]);
  });
});

describe('csv reader: identity', () => {
  it('uses folder path and title when there is no id column, and tells twins apart by order', () => {
    const { project, report } = read('Folder,Title\nA/B,Same\nA/B,Same\nC,Other\n');
    expect(project.cases.map((c) => c.sourceId)).toEqual(['A/B/Same', 'A/B/Same #2', 'C/Other']);
    expect(report.notes[0]).toMatch(/"A\/B\/Same" occurs more than once/);
  });

  it('refuses the same id on two cases apart, naming both lines', () => {
    const err = failure(() => read('ID,Title\nX-1,A\nX-2,B\nX-1,C\n'));
    expect(err.message).toBe('export.csv:4: the id "X-1" is already the case on line 2');
  });

  it('refuses a step row before any case and a case id without a title', () => {
    expect(failure(() => read('Title,Steps\n,orphan step\n')).message).toBe('export.csv:2: a step row comes before any case');
    expect(failure(() => read('ID,Title\nX-1,\n')).message).toBe('export.csv:2: the case "X-1" has no title');
  });

  it('keeps the same sourceIds when a changed export is read again, with the changed values', () => {
    const before = read('ID,Folder,Title,Priority\nX-1,A,One,High\nX-2,A,Two,Low\n').project;
    const after = read('ID,Folder,Title,Priority\nX-2,B,Two renamed,Low\nX-1,A,One,Medium\nX-3,A,Three,Low\n').project;
    const byId = (p: ImportedProject) => new Map(p.cases.map((c) => [c.sourceId, c]));
    expect([...byId(after).keys()].sort()).toEqual(['X-1', 'X-2', 'X-3']);
    expect(byId(after).get('X-1')?.lookups?.priority).toBe('Medium');
    expect(byId(after).get('X-2')).toMatchObject({ title: 'Two renamed', folder: ['B'] });
    expect(byId(before).get('X-2')?.title).toBe('Two');
  });
});

describe('csv reader: files as they arrive', () => {
  const text = 'Folder,Title,Steps\nKassé,Zahlung prüfen – “schnell”,Öffnen\n';

  it.each(TEST_ENCODINGS)('reads non-ASCII text in %s, the BOM never in the first header', (encoding) => {
    const decoded = decodeImport(encodeText(text, encoding), 'f.csv');
    const { project } = read(decoded.text);
    expect(project.cases[0]).toMatchObject({ folder: ['Kassé'], title: 'Zahlung prüfen – “schnell”', steps: [{ action: 'Öffnen' }] });
  });

  it('reads CRLF files with line breaks inside quoted cells as \\n', () => {
    const { project } = read('\uFEFFTitle,Steps\r\nA,"1. one\r\n2. two"\r\n,three\r\n');
    expect(project.cases[0].steps).toEqual([{ action: '1. one\n2. two' }, { action: 'three' }]);
  });

  it('gives an empty project and a note for an empty file or headers without rows', () => {
    for (const empty of ['', '\uFEFF', 'Title,Steps\r\n']) {
      const { project, report } = read(empty);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toHaveLength(1);
    }
  });

  it('names file and line of a truncated file', () => {
    const err = failure(() => read('Title,Steps\nA,one\nB,"two\n', undefined, 'cut.csv'));
    expect(err.code).toBe('invalid_import');
    expect(err.message).toMatch(/^cut\.csv:3: a quoted value is never closed/);
  });
});

describe('csv reader: detection and registry', () => {
  it('is registered as `csv` of tool csv', () => {
    expect(importReader('csv')).toBe(csvReader);
    expect(IMPORT_READERS).toContain(csvReader);
    expect(csvReader.tool).toBe('csv');
  });

  it('is the one format detected for its fixture and for what `tmsync export csv` writes', () => {
    const exported = readFileSync(FIXTURE, 'utf8');
    const scores = (text: string, file: string) => IMPORT_READERS.filter((r) => r.detect(text, file) > 0).map((r) => r.name);
    expect(scores(exported, 'basic.csv')).toEqual(['csv']);
    const written = 'ID,Folder,Title,Template,Description,Preconditions,Step #,Steps,Expected Result,Priority,Type,Status,Automation Type,Owner,Reviewer,Labels\r\n';
    expect(scores(written, 'cases.csv')).toEqual(['csv']);
  });

  it('only ever says "maybe" (1): a CSV with a title column or a .csv name, never XML or JSON', () => {
    expect(csvReader.detect(readFileSync(FIXTURE, 'utf8'), 'basic.csv')).toBe(1);
    expect(csvReader.detect('Summary;Action\n', 'export.txt')).toBe(1);
    expect(csvReader.detect('<?xml version="1.0"?><suite/>', 'export.xml')).toBe(0);
    expect(csvReader.detect('{"cases": []}', 'export.json')).toBe(0);
  });
});
