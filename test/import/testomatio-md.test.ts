import { describe, expect, it } from 'vitest';
import { parseStepList, testomatioMdReader } from '../../src/import/formats/testomatio-md.js';
import { commonDirectory } from '../../src/usecases/import-exports.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { detectedFormats, importError, importFixture, readEncoded, readWith } from '../support/import-read.js';

const FILE = 'export/Checkout.md';

describe('testomatio-md', () => {
  it('reads a suite file: tests with ids, lookups, title and metadata tags, labels with values, steps in both list styles, examples', () => {
    const { project, report } = readWith(testomatioMdReader, importFixture('testomatio-md/basic.md'), FILE);
    expect(project.folders).toEqual([['Checkout']]);
    expect(project.cases).toEqual([
      {
        sourceId: 'T1a2b3c4d',
        folder: ['Checkout'],
        title: 'Pay by card',
        at: { file: FILE, line: 10 },
        description: 'The shopper pays with a saved card.',
        steps: [
          { action: 'Open the cart', expected: 'The cart lists the item' },
          { action: 'Choose "Pay by card" and confirm', expected: 'The order is paid' },
        ],
        lookups: { automation_type: 'manual', priority: 'high', owner: 'qa@example.com' },
        labels: ['payment', 'regression', 'smoke', 'critical-path'],
        fields: [{ name: 'Browser', value: 'Firefox' }],
      },
      {
        sourceId: 'T5e6f7a8b',
        folder: ['Checkout'],
        title: 'Apply a voucher',
        at: { file: FILE, line: 29 },
        description: 'Examples:\n\n| code | discount |\n| --- | --- |\n| SPRING | 10% |',
        steps: [
          { action: 'Enter the code', expected: 'The code is accepted' },
          { action: 'Submit', expected: 'The total drops' },
        ],
        lookups: { automation_type: 'automated', priority: 'normal' },
        labels: ['payment'],
      },
    ]);
    expect(report.entries.map((e) => [e.action, e.field, e.count])).toEqual([
      ['labelled', 'suite tags', 1],
      ['dropped', 'suite emoji', 1],
      ['dropped', 'suite description', 1],
      ['folded', 'example', 1],
    ]);
  });

  it('takes the directories below the root as parent folders, and none without a root', () => {
    const file = 'test/fixtures/import/testomatio-md/tree/Billing/Invoices/Download.md';
    const text = importFixture('testomatio-md/tree/Billing/Invoices/Download.md');
    const withRoot = readWith(testomatioMdReader, text, file, { root: './test/fixtures/import/testomatio-md/tree/' }).project;
    expect(withRoot.folders).toEqual([['Billing', 'Invoices', 'Download']]);
    expect(withRoot.cases[0]).toMatchObject({ folder: ['Billing', 'Invoices', 'Download'], steps: [{ action: 'Open the invoice', expected: 'The PDF button is shown' }] });
    expect(readWith(testomatioMdReader, text, file).project.folders).toEqual([['Download']]);
  });

  it('is given the directory all the imported files share as the root (the use case)', () => {
    expect(commonDirectory(['export/Checkout.md', 'export/Billing/Invoices/Download.md', 'export/Billing/Tax.md'])).toBe('export');
    expect(commonDirectory(['export\\Billing\\A.md', 'export\\Billing\\B.md'])).toBe('export/Billing');
    expect(commonDirectory(['Checkout.md', 'Billing/Tax.md'])).toBe('');
    expect(commonDirectory(['export/Billing/Invoices/Download.md'])).toBe('export/Billing/Invoices');
    const files = ['export/Checkout.md', 'export/Billing/Invoices/Download.md'];
    const root = commonDirectory(files);
    const tree = readWith(testomatioMdReader, importFixture('testomatio-md/tree/Billing/Invoices/Download.md'), files[1], { root }).project;
    expect(tree.folders).toEqual([['Billing', 'Invoices', 'Download']]);
  });

  it('reads one-line metadata blocks, a test without id or suite block, continuation lines and a Steps section ended by a heading', () => {
    const text = [
      '<!-- test priority: critical tags: ui, @fast labels: Team: Web -->',
      '## Search by name',
      '',
      '### Steps',
      '1. Type a name',
      '   into the search box',
      '   - a nested note',
      '   **Expected:** Matches are listed',
      '   sorted by name',
      '2. Clear the box',
      '',
      '### Notes',
      'Runs on staging only. See [the log](https://app.testomat.io/attachments/ab12.txt).',
    ].join('\n');
    const { project, report } = readWith(testomatioMdReader, text, 'Search.md');
    expect(project.folders).toEqual([]);
    expect(project.cases).toEqual([
      {
        sourceId: 'Search/Search by name',
        folder: ['Search'],
        title: 'Search by name',
        at: { file: 'Search.md', line: 1 },
        description: '### Notes\nRuns on staging only. See [the log](https://app.testomat.io/attachments/ab12.txt).',
        steps: [
          { action: 'Type a name\ninto the search box\n- a nested note', expected: 'Matches are listed\nsorted by name' },
          { action: 'Clear the box' },
        ],
        lookups: { priority: 'critical' },
        labels: ['ui', 'fast'],
        fields: [{ name: 'Team', value: 'Web' }],
      },
    ]);
    expect(report.attachments).toEqual({ count: 1, examples: [{ value: 'https://app.testomat.io/attachments/ab12.txt', at: { file: 'Search.md', line: 1 } }] });
  });

  it('reads a label whose name is a metadata key in a block of lines', () => {
    const text = '<!-- test\nid: @T0000000a\nlabels: Type: smoke, Priority: P1\n-->\n# Labelled\n';
    expect(readWith(testomatioMdReader, text, FILE).project.cases[0]).toMatchObject({ sourceId: 'T0000000a', fields: [{ name: 'Type', value: 'smoke' }, { name: 'Priority', value: 'P1' }] });
  });

  it('keeps text under Steps that is no list in the description', () => {
    expect(parseStepList(['Do it all at once.', ''])).toEqual({ steps: [], rest: ['Do it all at once.'] });
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text in %s with CRLF line ends', (encoding) => {
    const text = '<!-- suite\r\nid: @S00000001\r\n-->\r\n# Paiement à la carte\r\n\r\n<!-- test\r\nid: @T00000002\r\n-->\r\n# Zahlung prüfen – café 5 €\r\n\r\n## Steps\r\n\r\n* Öffnen\r\n  *Expected*: Geöffnet\r\n';
    const { project } = readEncoded(testomatioMdReader, text, encoding, FILE);
    expect(project.cases).toEqual([
      { sourceId: 'T00000002', folder: ['Paiement à la carte'], title: 'Zahlung prüfen – café 5 €', at: { file: FILE, line: 6 }, steps: [{ action: 'Öffnen', expected: 'Geöffnet' }] },
    ]);
  });

  it('gives an empty project and a note for an empty file or one without blocks', () => {
    for (const text of ['', '# Just a readme\n\nNothing here.\n']) {
      const { project, report } = readWith(testomatioMdReader, text, FILE);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual([`${FILE} holds no <!-- suite --> or <!-- test --> block: nothing to import`]);
    }
  });

  it('names file and line of a truncated metadata block and of a block without its heading', () => {
    const text = importFixture('testomatio-md/basic.md');
    const cut = text.slice(0, text.indexOf('type: automated'));
    const err = importError(() => readWith(testomatioMdReader, cut, FILE));
    expect(err.code).toBe('invalid_import');
    expect(err.message).toBe(`${FILE}:29: the <!-- test metadata block is never closed with -->`);
    expect(importError(() => readWith(testomatioMdReader, '<!-- test -->\nNo heading\n<!-- test -->\n# T\n', FILE)).message).toBe(`${FILE}:1: the <!-- test --> block has no # heading with its title after it`);
  });

  it('keeps the sourceIds of a changed export, with the changed values', () => {
    const before = readWith(testomatioMdReader, importFixture('testomatio-md/basic.md'), FILE).project;
    const after = readWith(testomatioMdReader, importFixture('testomatio-md/basic.md').replace('# Pay by card', '# Pay by saved card').replace('priority: normal', 'priority: low'), FILE).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[0].title).toBe('Pay by saved card');
    expect(after.cases[1].lookups?.priority).toBe('low');
  });

  it('is the format detected for its export', () => {
    expect(detectedFormats(importFixture('testomatio-md/basic.md'), 'Checkout.md')).toEqual(['testomatio-md']);
    expect(detectedFormats('<!-- test id: @T12345678 -->\n# A test\n', 'a.md')).toEqual(['testomatio-md']);
  });
});
