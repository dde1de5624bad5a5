import { describe, expect, it } from 'vitest';
import { numberedItems, qaseCsvReader } from '../../src/import/formats/qase-csv.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { detectedFormats, importError, importFixture, readEncoded, readWith } from '../support/import-read.js';

const HEADER = 'v2.id,title,description,preconditions,postconditions,tags,priority,severity,type,behavior,automation,status,is_flaky,layer,steps_type,steps_actions,steps_result,steps_data,milestone_id,milestone,suite_id,suite_parent_id,suite,suite_without_cases,parameters';
const FILE = 'exports/qase.csv';

describe('qase-csv', () => {
  it('reads the suites tree, V2 quoted steps with data, V1 plain steps, lookups, fields and a custom column', () => {
    const { project, report } = readWith(qaseCsvReader, importFixture('qase-csv/basic.csv'), FILE);
    expect(project.folders).toEqual([['Checkout'], ['Checkout', 'Payment'], ['Accounts']]);
    expect(project.cases.map((c) => [c.sourceId, c.folder.join('/'), c.title, c.at.line])).toEqual([
      ['21', 'Checkout/Payment', 'Pay by card', 5],
      ['22', 'Checkout', 'Apply a voucher', 12],
      ['23', 'Accounts', 'Sign in', 15],
    ]);
    const [card, voucher] = project.cases;
    expect(card).toMatchObject({
      description: 'The shopper pays with a saved card.',
      preconditions: 'A cart with one item',
      lookups: { priority: 'high', type: 'functional', status: 'actual', automation_type: 'is-not-automated' },
      labels: ['payment', 'smoke'],
      steps: [
        { action: 'Open the cart', expected: 'The cart lists the item' },
        { action: 'Choose "Pay by card"\nthen confirm', expected: 'The order is paid', data: 'card 4242 4242 4242 4242' },
      ],
    });
    expect(card.steps?.[0]).not.toHaveProperty('data');
    expect(card.fields).toEqual([
      { name: 'Severity', value: 'critical' },
      { name: 'Behavior', value: 'positive' },
      { name: 'Layer', value: 'e2e' },
      { name: 'Browser', value: 'Firefox' },
    ]);
    // `undefined` is Qase's "not set"; is_flaky: yes and postconditions are folded
    expect(voucher.fields).toEqual([
      { name: 'Postconditions', value: 'The voucher is used up' },
      { name: 'Severity', value: 'normal' },
      { name: 'Layer', value: 'api' },
      { name: 'Flaky', value: 'yes' },
    ]);
    expect(voucher.steps).toEqual([
      { action: 'Enter the code', expected: 'The code is accepted' },
      { action: 'Submit', expected: 'The total drops' },
    ]);
    expect(report.notes).toEqual([]);
  });

  it('takes one row per step (rows with no id continue the case), the V1 `id` header, Gherkin steps and parameters', () => {
    const text = [
      'id,title,steps_type,steps_actions,steps_result,steps_data,suite_id,suite,parameters',
      '7,Login,classic,1. Open the page,1. The page opens,,3,Auth,',
      ',,,2. Type the password,2. Dots are shown,2. s3cret,,,',
      ',,,3. Press Enter,,,,,',
      '8,Gherkin login,gherkin,"1. Given a user\n2. When they sign in\n3. Then the home page shows",,,3,Auth,"user: ann, bob"',
    ].join('\n');
    const { project } = readWith(qaseCsvReader, text, FILE);
    // no suite rows: the suite column names the folder
    expect(project.cases.map((c) => c.folder)).toEqual([['Auth'], ['Auth']]);
    expect(project.cases[0].steps).toEqual([
      { action: 'Open the page', expected: 'The page opens' },
      { action: 'Type the password', expected: 'Dots are shown', data: 's3cret' },
      { action: 'Press Enter' },
    ]);
    expect(project.cases[1].steps?.map((s) => ('action' in s ? s.action : ''))).toEqual(['Given a user', 'When they sign in', 'Then the home page shows']);
    expect(project.cases[1].fields).toEqual([{ name: 'Parameters', value: 'user: ann, bob' }]);
  });

  it('splits numbered cells by number, V2 items as JSON strings, V1 continuation lines kept', () => {
    expect([...numberedItems('1. "a\\nb \\"c\\""\n2. ""\n10. "ten"\n')]).toEqual([
      [1, 'a\nb "c"'],
      [2, ''],
      [10, 'ten'],
    ]);
    expect([...numberedItems('1. first\nstill first\n3.5 kg of it\n2) second\n3.')]).toEqual([
      [1, 'first\nstill first\n3.5 kg of it'],
      [2, 'second'],
      [3, ''],
    ]);
  });

  it('lists attachment links of the Markdown texts and keeps them in the text', () => {
    const text = `${HEADER}\n5,Screenshot,"See ![login](https://qase.io/attachment/abc123/login.png) and [log](https://qase.io/attachment/def/log.txt)",,,,,,,,,,,,classic,1. Look,,,,,,,,,\n`;
    const { project, report } = readWith(qaseCsvReader, text, FILE);
    expect(project.cases[0].description).toContain('![login](https://qase.io/attachment/abc123/login.png)');
    expect(report.attachments.count).toBe(2);
    expect(report.attachments.examples[0]).toEqual({ value: 'https://qase.io/attachment/abc123/login.png', at: { file: FILE, line: 2 } });
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text in %s with CRLF line ends', (encoding) => {
    const text = `${HEADER}\r\n,,,,,,,,,,,,,,,,,,,,1,,Paiement à la carte,1,\r\n9,"Zahlung prüfen – café 5 €",,,,,,,,,,,,,classic,"1. ""Öffnen""\r\n2. ""Prüfen""",1. Geöffnet,,,,1,,Paiement à la carte,,\r\n`;
    const { project } = readEncoded(qaseCsvReader, text, encoding, FILE);
    expect(project.folders).toEqual([['Paiement à la carte']]);
    expect(project.cases[0]).toMatchObject({ sourceId: '9', title: 'Zahlung prüfen – café 5 €', folder: ['Paiement à la carte'], at: { line: 3 } });
    expect(project.cases[0].steps).toEqual([{ action: 'Öffnen', expected: 'Geöffnet' }, { action: 'Prüfen' }]);
  });

  it('gives an empty project and a note for an empty export or a header alone', () => {
    for (const text of ['', `${HEADER}\n`]) {
      const { project, report } = readWith(qaseCsvReader, text, FILE);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual([`${FILE} holds no suite and no case: nothing to import`]);
    }
  });

  it('names file and line of a truncated file, a case without id and a file of another format', () => {
    const truncated = `${HEADER}\n5,"Cut short,\n`;
    expect(importError(() => readWith(qaseCsvReader, truncated, FILE)).message).toMatch(/^exports\/qase\.csv:\d+: a quoted value is never closed/);
    const noId = `${HEADER}\n,Lost case,,,,,,,,,,,,,,,,,,,4,,S,,\n`;
    const err = importError(() => readWith(qaseCsvReader, noId, FILE));
    expect(err.code).toBe('invalid_import');
    expect(err.message).toBe('exports/qase.csv:2: the case "Lost case" has no id (column v2.id)');
    expect(importError(() => readWith(qaseCsvReader, 'Name,Steps\nx,y\n', FILE)).message).toMatch(/^exports\/qase\.csv:1: not a Qase CSV export/);
  });

  it('keeps the sourceIds of a changed export, with the changed values', () => {
    const before = readWith(qaseCsvReader, importFixture('qase-csv/basic.csv'), FILE).project;
    const changed = importFixture('qase-csv/basic.csv').replace('"Pay by card"', '"Pay by saved card"').replace('low,minor', 'high,minor');
    const after = readWith(qaseCsvReader, changed, FILE).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[0].title).toBe('Pay by saved card');
    expect(after.cases[2].lookups?.priority).toBe('high');
  });

  it('is the format detected for its export', () => {
    expect(detectedFormats(importFixture('qase-csv/basic.csv'), 'export.csv')).toEqual(['qase-csv']);
    expect(detectedFormats('id,title,steps_actions\n', 'x.csv')).toEqual(['qase-csv']);
  });
});
