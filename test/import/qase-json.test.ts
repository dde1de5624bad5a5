import { describe, expect, it } from 'vitest';
import { qaseJsonReader } from '../../src/import/formats/qase-json.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { detectedFormats, importError, importFixture, readEncoded, readWith } from '../support/import-read.js';

const FILE = 'exports/qase.json';

function exportOf(cases: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ suites: [{ id: 1, title: 'Suite', suites: [], cases }], ...extra }, null, 2);
}

describe('qase-json', () => {
  it('reads the suites tree, cases with lookups, fields, custom fields, steps with data and a shared step', () => {
    const { project, report } = readWith(qaseJsonReader, importFixture('qase-json/basic.json'), FILE);
    expect(project.folders).toEqual([['Checkout'], ['Checkout', 'Payment'], ['Accounts']]);
    expect(project.stepGroups).toEqual([
      { sourceId: 'a1b2c3d4e5', title: 'Open the cart from the header (Qase shared step)', steps: [{ action: 'Open the cart', expected: 'The cart lists the item' }], at: { file: FILE, line: 96 } },
    ]);
    expect(project.cases.map((c) => [c.sourceId, c.folder.join('/'), c.title, c.at.line])).toEqual([
      ['21', 'Checkout/Payment', 'Pay by card', 18],
      ['22', 'Checkout', 'Apply a voucher', 47],
      ['23', 'Accounts', 'Sign in', 81],
    ]);
    const [card, voucher] = project.cases;
    expect(card).toMatchObject({
      description: 'The shopper pays with a saved card.',
      preconditions: 'A cart with one item',
      lookups: { priority: 'high', type: 'functional', status: 'actual', automation_type: 'is-not-automated' },
      labels: ['payment', 'smoke'],
      steps: [{ use: 'a1b2c3d4e5' }, { action: 'Choose "Pay by card" and confirm', expected: 'The order is paid', data: 'card 4242 4242 4242 4242' }],
    });
    expect(card.fields).toEqual([
      { name: 'Severity', value: 'critical' },
      { name: 'Behavior', value: 'positive' },
      { name: 'Layer', value: 'e2e' },
      { name: 'Browser', value: 'Firefox' },
    ]);
    expect(voucher.fields).toEqual([
      { name: 'Postconditions', value: 'The voucher is used up' },
      { name: 'Severity', value: 'normal' },
      { name: 'Layer', value: 'api' },
      { name: 'Flaky', value: 'yes' },
    ]);
    expect(report.entries).toEqual([]);
  });

  it('flattens nested steps after their parent, keeps a shared step missing from the export as a step, and reports both', () => {
    const text = exportOf([
      {
        id: 5,
        title: 'Nested',
        steps: [
          { position: 2, action: 'Second', expected_result: '', data: '', steps: [] },
          { position: 1, action: 'First', expected_result: 'ok', data: '', steps: [{ position: 1, action: 'First, inner', expected_result: 'inner ok', data: 'x', steps: [] }] },
          { position: 3, shared_step_hash: 'ffff', steps: [] },
        ],
      },
    ]);
    const { project, report } = readWith(qaseJsonReader, text, FILE);
    expect(project.cases[0].steps).toEqual([
      { action: 'First', expected: 'ok' },
      { action: 'First, inner', expected: 'inner ok', data: 'x' },
      { action: 'Second' },
      { action: 'Shared step ffff (not in this export)' },
    ]);
    expect(report.entries.map((e) => [e.action, e.field, e.count])).toEqual([
      ['folded', 'nested step', 1],
      ['folded', 'shared_step_hash', 1],
    ]);
  });

  it('keeps attachment links in the text and lists them; custom fields by object, params and unknown keys become fields', () => {
    const text = exportOf([
      {
        id: 6,
        title: 'With files',
        description: 'Look at ![shot](https://qase.io/attachment/aa/shot.png)',
        attachments: [{ filename: 'log.txt', url: 'https://qase.io/attachment/bb/log.txt' }],
        steps: [{ position: 1, action: 'Open', attachments: ['https://qase.io/attachment/cc/step.png'], steps: [] }],
        custom_fields: { Browser: 'Chrome', Empty: '' },
        params: { user: ['ann', 'bob'] },
        estimate: 15,
        tags: [{ title: 'ui' }, 'ui', 'api'],
      },
    ]);
    const { project, report } = readWith(qaseJsonReader, text, FILE);
    const c = project.cases[0];
    expect(c.description).toBe('Look at ![shot](https://qase.io/attachment/aa/shot.png)\n\nAttachments:\n\n[log.txt](https://qase.io/attachment/bb/log.txt)');
    expect(c.steps).toEqual([{ action: 'Open\n\n[https://qase.io/attachment/cc/step.png](https://qase.io/attachment/cc/step.png)' }]);
    expect(report.attachments.count).toBe(3);
    expect(c.fields).toEqual([
      { name: 'Browser', value: 'Chrome' },
      { name: 'Parameter user', value: 'ann, bob' },
      { name: 'estimate', value: '15' },
    ]);
    expect(c.labels).toEqual(['ui', 'api']);
  });

  it('puts the cases outside any suite at the top and drops a suite description with a report entry', () => {
    const text = JSON.stringify({ suites: [{ id: 1, title: 'S', description: 'About S', cases: [] }], cases: [{ id: 9, title: 'Loose' }] });
    const { project, report } = readWith(qaseJsonReader, text, FILE);
    expect(project.cases.map((c) => [c.title, c.folder])).toEqual([['Loose', []]]);
    expect(report.entries.map((e) => [e.action, e.field])).toEqual([['dropped', 'suite description']]);
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text in %s with CRLF line ends', (encoding) => {
    const text = JSON.stringify({ suites: [{ id: 1, title: 'Paiement à la carte', cases: [{ id: 9, title: 'Zahlung prüfen – café 5 €', steps: [{ position: 1, action: 'Öffnen', steps: [] }] }] }] }, null, 2).replace(/\n/g, '\r\n');
    const { project } = readEncoded(qaseJsonReader, text, encoding, FILE);
    expect(project.cases[0]).toMatchObject({ title: 'Zahlung prüfen – café 5 €', folder: ['Paiement à la carte'], steps: [{ action: 'Öffnen' }] });
  });

  it('finds the lines of cases whose titles the export escaped, past the titles of custom fields', () => {
    const text = ['{ "suites": [ { "title": "S", "cases": [', '  { "id": 1, "title": "Plain", "custom_fields": [ { "title": "Caf\\u00e9", "value": "x" } ] },', '  { "id": 2, "title": "Caf\\u00e9" }', '] } ] }'].join('\n');
    const { project } = readWith(qaseJsonReader, text, FILE);
    expect(project.cases.map((c) => [c.title, c.at.line])).toEqual([
      ['Plain', 2],
      ['Café', 3],
    ]);
  });

  it('gives an empty project and a note for an empty file or an export without suites', () => {
    for (const text of ['', '{ "suites": [] }']) {
      const { project, report } = readWith(qaseJsonReader, text, FILE);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toHaveLength(1);
    }
  });

  it('names file and line of a truncated file, of bad JSON, of a JSON that is no Qase export and of a case without id', () => {
    const full = importFixture('qase-json/basic.json');
    const cut = full.slice(0, full.indexOf('"Apply a voucher"'));
    const truncated = importError(() => readWith(qaseJsonReader, cut, FILE));
    expect(truncated.code).toBe('invalid_import');
    expect(truncated.message).toBe(`${FILE}:${cut.split('\n').length}: the JSON ends too early: the file is truncated`);
    expect(importError(() => readWith(qaseJsonReader, '{\n  "suites": [\n    }\n', FILE)).message).toBe('exports/qase.json:3: not valid JSON: unexpected "}\\n"');
    expect(importError(() => readWith(qaseJsonReader, '[{ "id": 1 }]', FILE)).message).toMatch(/^exports\/qase\.json:1: not a Qase JSON export/);
    expect(importError(() => readWith(qaseJsonReader, exportOf([{ title: 'No id' }]), FILE)).message).toMatch(/^exports\/qase\.json:\d+: the case "No id" has no id$/);
  });

  it('keeps the sourceIds of a changed export, with the changed values', () => {
    const before = readWith(qaseJsonReader, importFixture('qase-json/basic.json'), FILE).project;
    const after = readWith(qaseJsonReader, importFixture('qase-json/basic.json').replace('"Pay by card"', '"Pay by saved card"').replace('"priority": "low"', '"priority": "high"'), FILE).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[0].title).toBe('Pay by saved card');
    expect(after.cases[2].lookups?.priority).toBe('high');
    expect(after.stepGroups.map((g) => g.sourceId)).toEqual(['a1b2c3d4e5']);
  });

  it('is the format detected for its export', () => {
    expect(detectedFormats(importFixture('qase-json/basic.json'), 'export.json')).toEqual(['qase-json']);
  });
});
