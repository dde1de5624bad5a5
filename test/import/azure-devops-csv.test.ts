import { describe, expect, it } from 'vitest';
import { azureDevopsCsvReader, stepHtml } from '../../src/import/formats/azure-devops-csv.js';
import { htmlToMarkdown } from '../../src/import/text/html-markdown.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { detectedFormats, importError, importFixture, readEncoded, readWith } from '../support/import-read.js';

const FILE = 'exports/azure.csv';
const HEADER = 'ID,Work Item Type,Title,Test Step,Step Action,Step Expected,Area Path,State';

describe('azure-devops-csv', () => {
  it('reads test cases with their step rows, Shared Steps as step groups, Area Path folders below the project, lookups, tags and a custom column', () => {
    const { project, report } = readWith(azureDevopsCsvReader, importFixture('azure-devops-csv/basic.csv'), FILE);
    expect(project.stepGroups).toEqual([{ sourceId: '501', title: 'Open the basket page (Azure shared steps)', steps: [{ action: 'Open the cart', expected: 'The cart lists the item' }], at: { file: FILE, line: 2 } }]);
    expect(project.cases.map((c) => [c.sourceId, c.folder.join('/'), c.title, c.at.line])).toEqual([
      ['601', 'Checkout/Payment', 'Pay by card', 4],
      ['602', 'Checkout', 'Apply a voucher', 7],
      ['603', 'Accounts', 'Sign in', 10],
    ]);
    expect(project.cases[0]).toMatchObject({
      lookups: { priority: '1', status: 'Design', automation_type: 'Not Automated', owner: 'Ann Smith <ann@example.com>' },
      labels: ['payment', 'smoke'],
      fields: [{ name: 'Browser', value: 'Firefox' }],
      steps: [{ use: '501' }, { action: 'Choose **Pay by card** and confirm', expected: 'The order is paid' }],
    });
    expect(project.cases[1].steps).toEqual([
      { action: 'Enter the code', expected: 'The code is accepted' },
      { action: 'Submit', expected: 'The total drops' },
    ]);
    expect(report.entries).toEqual([]);
  });

  it('keeps a repeated first step row once, a step on the item row, a reference to shared steps not in the file as a step, and drops other work item types', () => {
    const text = [
      HEADER,
      '11,Test Case,Login,1,Open the page,The page opens,Web\\Auth,Design',
      ',,,1,Open the page,The page opens,,',
      ',,,2,Shared Steps: #77 Sign in as admin,,,',
      '12,Bug,Not a test,,,,Web,Active',
      ',,,1,Bug repro step,,,',
      '13,Test Case,After the bug,,,,Web,Design',
      ',,,1,Works,,,',
    ].join('\n');
    const { project, report } = readWith(azureDevopsCsvReader, text, FILE);
    expect(project.cases.map((c) => [c.sourceId, c.folder, c.steps])).toEqual([
      ['11', ['Auth'], [{ action: 'Open the page', expected: 'The page opens' }, { action: 'Shared Steps: #77 Sign in as admin' }]],
      ['13', [], [{ action: 'Works' }]],
    ]);
    expect(report.entries.map((e) => [e.action, e.field, e.examples[0].value])).toEqual([
      ['dropped', 'Work Item Type', 'Bug'],
      ['folded', 'shared steps reference', 'Shared Steps: #77 Sign in as admin'],
    ]);
  });

  it('leaves out the project level only when every Area Path starts with it', () => {
    const rows = (areas: string[]) => [HEADER, ...areas.map((a, i) => `${i + 1},Test Case,T${i},,,,${a},Design`)].join('\n');
    const folders = (areas: string[]) => readWith(azureDevopsCsvReader, rows(areas), FILE).project.cases.map((c) => c.folder.join('/'));
    expect(folders(['Shop\\A\\B', 'Shop', 'Shop\\C'])).toEqual(['A/B', '', 'C']);
    expect(folders(['Checkout\\Payment', 'Accounts'])).toEqual(['Checkout/Payment', 'Accounts']);
  });

  it('converts HTML of steps and the description to Markdown, lists attachment links, and names a case without ID by area and title', () => {
    const text = [
      `${HEADER},Description`,
      ',Test Case,New case,,,,Web\\Shop,Design,<DIV><P>Checks the <I>basket</I>.</P></DIV>',
      ',,,1,"<DIV>Open <A href=""https://example.com/shop"">the shop</A></DIV>","<P>See <IMG src=""https://dev.azure.com/org/_apis/wit/attachments/abc?fileName=shot.png""></P>",,,',
    ].join('\n');
    const { project, report } = readWith(azureDevopsCsvReader, text, FILE);
    expect(project.cases).toEqual([
      {
        sourceId: 'Shop/New case',
        folder: ['Shop'],
        title: 'New case',
        at: { file: FILE, line: 2 },
        description: 'Checks the *basket*.',
        lookups: { status: 'Design' },
        steps: [{ action: 'Open [the shop](https://example.com/shop)', expected: 'See ![](https://dev.azure.com/org/_apis/wit/attachments/abc?fileName=shot.png)' }],
      },
    ]);
    expect(report.attachments.examples.map((e) => e.value)).toEqual(['https://example.com/shop', 'https://dev.azure.com/org/_apis/wit/attachments/abc?fileName=shot.png']);
  });

  it("reads Azure's plain step HTML without turndown, giving what htmlToMarkdown gives", () => {
    const samples = [
      '<DIV><P>Open the cart</P></DIV>', '<P>a</P><P>b</P>', '<P>a</P>\r\n<P>b</P>', 'a<BR>b', '<div><p>one<br/>two</p><p>three  four</p></div>', '<P> spaced   out </P>',
      '<div></div>', '<p>x.y, (z)! "q" \'r\' ; : ? / @ $ % ^</p>', '<span>in span</span> after', '<P>a\nb</P>', '<div>x<br><br>y</div>', '<div>  <p>nested</p>  </div>',
      // these take turndown: Markdown characters, entities, attributes, a numbered line
      '<p>2 * 3 = 6_a</p>', '<p>a &amp; b</p>', '<p class="x">c</p>', '<p>1. first</p>', '<ul><li>item</li></ul>', 'plain\ntext',
    ];
    for (const html of samples) expect([html, stepHtml(html)]).toEqual([html, htmlToMarkdown(html)]);
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text in %s with CRLF line ends', (encoding) => {
    const text = `${HEADER}\r\n9,Test Case,Zahlung prüfen – café 5 €,,,,Shop\\Paiement à la carte,Design\r\n,,,1,Öffnen,Geöffnet,,\r\n`;
    const { project } = readEncoded(azureDevopsCsvReader, text, encoding, FILE);
    expect(project.cases).toEqual([
      { sourceId: '9', folder: ['Paiement à la carte'], title: 'Zahlung prüfen – café 5 €', at: { file: FILE, line: 2 }, lookups: { status: 'Design' }, steps: [{ action: 'Öffnen', expected: 'Geöffnet' }] },
    ]);
  });

  it('gives an empty project and a note for an empty export or a header alone', () => {
    for (const text of ['', `${HEADER}\r\n`]) {
      const { project, report } = readWith(azureDevopsCsvReader, text, FILE);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual([`${FILE} holds no work item: nothing to import`]);
    }
  });

  it('names file and line of a truncated file, a step row before any item, shared steps without ID and a file of another format', () => {
    const truncated = importError(() => readWith(azureDevopsCsvReader, `${HEADER}\n1,Test Case,T,,,,P,Design\n,,,1,"<P>cut`, FILE));
    expect(truncated.code).toBe('invalid_import');
    expect(truncated.message).toMatch(/^exports\/azure\.csv:3: a quoted value is never closed/);
    expect(importError(() => readWith(azureDevopsCsvReader, `${HEADER}\n,,,1,Orphan,,,\n`, FILE)).message).toBe(`${FILE}:2: a step row with no work item above it`);
    expect(importError(() => readWith(azureDevopsCsvReader, `${HEADER}\n,Shared Steps,Sign in,,,,P,Active\n`, FILE)).message).toBe(`${FILE}:2: the Shared Steps "Sign in" have no ID`);
    expect(importError(() => readWith(azureDevopsCsvReader, 'Key,Summary\nA-1,x\n', FILE)).message).toBe(`${FILE}:1: not an Azure Test Plans export: the header lacks "ID", "Work Item Type", "Title"`);
  });

  it('keeps the sourceIds of a changed export, with the changed values', () => {
    const before = readWith(azureDevopsCsvReader, importFixture('azure-devops-csv/basic.csv'), FILE).project;
    const after = readWith(azureDevopsCsvReader, importFixture('azure-devops-csv/basic.csv').replace(',Pay by card,', ',Pay by saved card,').replace('Ready,2', 'Ready,1'), FILE).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[0].title).toBe('Pay by saved card');
    expect(after.cases[1].lookups?.priority).toBe('1');
  });

  it('is the format detected for its export', () => {
    expect(detectedFormats(importFixture('azure-devops-csv/basic.csv'), 'export.csv')).toEqual(['azure-devops-csv']);
  });
});
