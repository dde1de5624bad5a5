import { describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import { zephyrSquadCsvReader } from '../../src/import/formats/zephyr-squad-csv.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { detected, fixture, readWith, roundTrip, thrown } from './jira-readers-helpers.js';

const read = (text: string, file = 'tests.csv', columns?: Record<string, string>) => readWith(zephyrSquadCsvReader, text, file, columns);

describe('zephyr-squad-csv', () => {
  it('reads the representative export: folders, steps with data, wiki markup, a table in a step, an attachment, a custom field', () => {
    const { project, report } = read(fixture('zephyr-squad-csv/basic.csv'), 'basic.csv');
    expect(project).toEqual({
      folders: [['Checkout', 'Cart'], ['Checkout', 'Payment'], ['Checkout']],
      stepGroups: [],
      cases: [
        {
          sourceId: 'SHOP-11',
          folder: ['Checkout', 'Cart'],
          title: 'Add to cart',
          description: 'Adds one item.\n### Notes\n- uses the **demo** catalogue',
          steps: [
            { action: 'Open a product page', expected: 'The price is shown' },
            { action: 'Press **Add to cart**', expected: 'The cart shows `1` item', data: 'qty = 1' },
          ],
          lookups: { priority: 'High' },
          labels: ['smoke'],
          fields: [
            { name: 'Component', value: 'Cart' },
            { name: 'Fix Version', value: '1.0' },
          ],
          at: { file: 'basic.csv', line: 2 },
        },
        {
          sourceId: 'SHOP-12',
          folder: ['Checkout', 'Payment'],
          title: 'Pay by card',
          steps: [
            { action: 'Open the cart' },
            { action: 'Pay with the card', expected: 'The receipt is shown [receipt.pdf](receipt.pdf)', data: '| Field | Value |\n| --- | --- |\n| Number | 4111 1111 1111 1111 |' },
          ],
          lookups: { priority: 'Medium' },
          labels: ['payment'],
          fields: [
            { name: 'Component', value: 'Payment' },
            { name: 'Fix Version', value: '1.0' },
          ],
          at: { file: 'basic.csv', line: 6 },
        },
        { sourceId: 'SHOP-13', folder: ['Checkout'], title: 'Empty cart', lookups: { priority: 'Low' }, at: { file: 'basic.csv', line: 9 } },
      ],
    });
    expect(report.attachments).toEqual({ count: 1, examples: [{ value: 'receipt.pdf', at: { file: 'basic.csv', line: 7 } }] });
  });

  it("reads Jira's issue export: repeated columns, rows without a key continuing a test, steps in Order Id order, other issue types and step ids reported", () => {
    const csv = [
      'Issue key,Issue id,Issue Type,Summary,Status,Assignee,Labels,Labels,Project,Step Id,Order Id,Test Step,Test Data,Test Result,Custom field (Risk)',
      'SHOP-1,101,Test,Checkout works,Ready,ann,a,b,SHOP,11,2,Second,,,High',
      ',,,,,,,,,12,1,First,x,,',
      'SHOP-2,102,Bug,A bug,,,,,SHOP,,,,,,',
    ].join('\n');
    const { project, report } = read(csv);
    expect(project.cases).toEqual([
      {
        sourceId: 'SHOP-1',
        folder: [],
        title: 'Checkout works',
        steps: [{ action: 'First', data: 'x' }, { action: 'Second' }],
        lookups: { status: 'Ready', owner: 'ann' },
        labels: ['a', 'b'],
        fields: [{ name: 'Custom field (Risk)', value: 'High' }],
        at: { file: 'tests.csv', line: 2 },
      },
    ]);
    expect(report.entries.map((e) => [e.action, e.field, e.count])).toEqual([
      ['dropped', 'Project', 1],
      ['dropped', 'Step Id', 2],
      ['dropped', 'Issue Type', 1],
    ]);
  });

  it('unwraps coloured text keeping it, and reports the colour as dropped', () => {
    const { project, report } = read('Issue Key,Summary,Step\nSHOP-1,S,Check the {color:#ff0000}red{color} banner\n');
    expect(project.cases[0].steps).toEqual([{ action: 'Check the red banner' }]);
    expect(report.entries).toMatchObject([{ action: 'dropped', field: 'text colour', count: 1, examples: [{ value: '#ff0000', at: { line: 2 } }] }]);
  });

  it('groups by the issue id when there is no key column, and takes header names from the column map', () => {
    expect(read('Issue Id,Summary,Step\n7,A,s1\n7,,s2\n').project.cases).toMatchObject([{ sourceId: '7', steps: [{ action: 's1' }, { action: 's2' }] }]);
    expect(read('Ticket,Summary,Step\nT-1,Mapped,s\n', 'tests.csv', { key: 'Ticket' }).project.cases).toMatchObject([{ sourceId: 'T-1', title: 'Mapped' }]);
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text encoded as %s', (encoding) => {
    const csv = 'Issue Key;Summary;Step;Test Data;Expected Result\r\nSHOP-1;Größe – “naïve” café;Öffnen;;€ 5\r\n';
    const { project } = read(roundTrip(csv, encoding, 'tests.csv'));
    expect(project.cases).toMatchObject([{ sourceId: 'SHOP-1', title: 'Größe – “naïve” café', steps: [{ action: 'Öffnen', expected: '€ 5' }] }]);
  });

  it('reads a CRLF file as its LF twin, lines included', () => {
    const lf = fixture('zephyr-squad-csv/basic.csv');
    expect(read(lf.replace(/\n/g, '\r\n')).project).toEqual(read(lf).project);
  });

  it('gives an empty project and a note for an empty export', () => {
    for (const text of ['', 'Issue Key,Summary,Step\r\n']) {
      const { project, report } = read(text);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual(['tests.csv holds no tests.']);
    }
  });

  it('names file and line of a truncated file, and the missing key column', () => {
    const text = fixture('zephyr-squad-csv/basic.csv');
    const error = thrown(() => read(text.slice(0, text.indexOf('|Number|')), 'exports/basic.csv'));
    expect(error).toBeInstanceOf(TmsyncError);
    expect(error.message).toMatch(/^exports\/basic\.csv:7: a quoted value is never closed/);
    expect(thrown(() => read('Summary,Step\na,b\n')).message).toMatch(/^tests\.csv:1: the Zephyr Squad CSV export has no key column/);
  });

  it('keeps the same source ids for a changed export and gives the changed values', () => {
    const before = read(fixture('zephyr-squad-csv/basic.csv')).project;
    const after = read(fixture('zephyr-squad-csv/basic.csv').replace('Pay by card', 'Pay by credit card').replace('Open the cart', 'Open the basket')).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[1]).toMatchObject({ title: 'Pay by credit card', steps: [{ action: 'Open the basket' }, {}] });
    expect(after.cases[0]).toEqual(before.cases[0]);
  });

  it('is the format detect() chooses for its exports', () => {
    expect(detected(fixture('zephyr-squad-csv/basic.csv'), 'basic.csv')).toEqual(['zephyr-squad-csv']);
    expect(detected('Issue Key,Summary,Test Step,Test Data,Expected Result\n', 'a.csv')).toEqual(['zephyr-squad-csv']);
    expect(zephyrSquadCsvReader.detect('a,b\n', 'zephyr-export.csv')).toBe(1);
    expect(zephyrSquadCsvReader.detect('a,b\n', 'zephyr-scale.csv')).toBe(0);
  });
});
