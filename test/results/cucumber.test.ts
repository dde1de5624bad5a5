import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCucumberJson } from '../../src/results/cucumber-json.js';
import { parseCucumberMessages } from '../../src/results/cucumber-messages.js';
import { foldSteps } from '../../src/results/cucumber-outcome.js';
import { loadJunitFiles } from '../../src/results/junit.js';
import { detectFormat, loadReports } from '../../src/results/load-reports.js';
import { idTagRefs, mapResults } from '../../src/results/map-results.js';
import type { TestRecord } from '../../src/results/record.js';
import { matchScenarioNames, type NamedCase } from '../../src/results/scenario-names.js';
import { TmsyncError } from '../../src/errors.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/cucumber/', import.meta.url));
const JUNIT = fileURLToPath(new URL('../fixtures/junit/', import.meta.url));

async function load(file: string): Promise<TestRecord[]> {
  return (await loadReports([file], FIXTURES)).records;
}

/** name → outcome, in report order (a name seen twice keeps both, joined by " | "). */
function outcomes(records: readonly TestRecord[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of records) out[r.name] = out[r.name] === undefined ? r.outcome : `${out[r.name]} | ${r.outcome}`;
  return out;
}

/** ref → outcome after mapping, the way results push groups them. */
function mapped(records: readonly TestRecord[], options: Parameters<typeof mapResults>[1] = {}): Record<string, string> {
  const { cases } = mapResults(records, { prefix: 'DEMO', ...options });
  return Object.fromEntries(cases.map((c) => [c.ref, c.outcome]));
}

function thrown(fn: () => unknown): TmsyncError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TmsyncError) return err;
    throw err;
  }
  throw new Error('expected a TmsyncError');
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tmsync-cucumber-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the Cucumber outcome table', () => {
  it('folds steps and hooks into the worst outcome, the first of the worst explaining it', () => {
    const fold = (...statuses: string[]) => foldSteps(statuses.map((status, i) => ({ status, what: `step ${i}` })));
    expect(fold('passed', 'passed').outcome).toBe('passed');
    expect(fold('passed', 'failed', 'skipped')).toMatchObject({ outcome: 'failed', message: 'step 1' });
    expect(fold('passed', 'pending', 'skipped')).toMatchObject({ outcome: 'skipped', message: 'pending: step 1' });
    expect(fold('undefined', 'skipped').outcome).toBe('error');
    expect(fold('ambiguous').outcome).toBe('error');
    expect(fold('UNKNOWN').outcome).toBe('error');
    expect(fold('untested', 'untested').outcome).toBe('skipped');
    expect(fold('passed', 'hook_error').outcome).toBe('failed');
    expect(fold('undefined', 'failed')).toMatchObject({ outcome: 'failed', message: 'step 1' });
    expect(fold('weird')).toMatchObject({ outcome: 'error', message: 'status "weird": step 0' });
    // nothing ran: not a pass
    expect(foldSteps([])).toEqual({ outcome: 'skipped', message: 'no step ran' });
  });
});

describe('cucumber-js JSON', () => {
  it('reads every scenario with the outcome of its worst step or hook', async () => {
    const records = await load('cucumber-js.json');
    expect(outcomes(records)).toEqual({
      'Pay by card': 'passed',
      'Pay by voucher': 'failed',
      'Pay later': 'skipped',
      'Pay with points': 'error',
      'Pay twice': 'error',
      Totals: 'passed | failed',
      Receipt: 'failed',
      'Checkout case 8': 'passed',
    });
    const byName = (n: string) => records.find((r) => r.name === n)!;
    expect(byName('Pay by voucher').message).toBe('When I pay with voucher "SPRING" — AssertionError [ERR_ASSERTION]: expected voucher SPRING to be valid');
    // a failed After hook fails a scenario whose steps passed
    expect(byName('Receipt').message).toBe('After hook (features/support/hooks.js:12) — Error: could not close the browser');
    expect(byName('Pay by card')).toMatchObject({ classname: 'Checkout', file: 'features/checkout.feature', suites: ['Checkout'], durationMs: 21 });
    // a text attachment's body is as written; an image's is base64
    expect(byName('Pay by card').attachments).toEqual([
      { mediaType: 'text/plain', body: 'card accepted', encoding: 'identity' },
      expect.objectContaining({ mediaType: 'image/png', encoding: 'base64' }),
    ]);
    expect(byName('Pay by card').gherkin?.tags).toEqual([
      { name: '@checkout', level: 'feature' },
      { name: '@DEMO-1', level: 'scenario' },
      { name: '@smoke', level: 'scenario' },
    ]);
    expect(byName('Totals').gherkin?.row).toEqual({});
  });

  it('maps each scenario by its id tag, the rows of an outline to its one case with the worst outcome', async () => {
    const records = await load('cucumber-js.json');
    expect(mapped(records)).toEqual({
      'DEMO-1': 'passed',
      'DEMO-2': 'failed',
      'DEMO-3': 'skipped',
      'DEMO-4': 'error',
      'DEMO-5': 'error',
      'DEMO-6': 'failed',
      'DEMO-7': 'failed',
    });
    // no id tag: left for the lookup by feature path and name
    expect(mapResults(records, { prefix: 'DEMO' }).unmatched.map((r) => r.name)).toEqual(['Checkout case 8']);
  });

  it('takes a --mapping entry keyed <feature>.<scenario> or <scenario> before the id tag', async () => {
    const records = await load('cucumber-js.json');
    const mapping = { 'Checkout.Checkout case 8': 'DEMO-9', 'Pay by card': 'DEMO-10' };
    const out = mapped(records, { mapping });
    expect(out).toMatchObject({ 'DEMO-9': 'passed', 'DEMO-10': 'passed' });
    expect(out['DEMO-1']).toBeUndefined();
  });
});

describe('cucumber-jvm JSON', () => {
  it('reads background results, before/after hooks, step hooks and embeddings', async () => {
    const records = await load('cucumber-jvm.json');
    expect(outcomes(records)).toEqual({ 'Add a book': 'failed', Discounts: 'passed | failed', Shipping: 'passed | passed', 'Remove a book': 'passed' });
    const book = records[0];
    // the Before hook failed: the background and the steps were skipped
    expect(book.message).toBe('Before hook (com.shop.Hooks.browser()) — java.lang.IllegalStateException: the browser did not start');
    expect(book.file).toBe('com/shop/cart.feature');
    expect(book.attachments).toEqual([expect.objectContaining({ mediaType: 'image/png', fileName: 'screenshot', encoding: 'base64' })]);
    // the background element's step counts in the scenario after it (2 ms) with its 2 steps and 2 hooks
    expect(records[1].durationMs).toBe(8);
  });

  it('maps an outline expanded per Examples to each row case by the Examples tag, and a tag on the outline to its one case', async () => {
    const records = await load('cucumber-jvm.json');
    expect(records.filter((r) => r.name === 'Discounts').map((r) => r.gherkin?.tags.filter((t) => t.level === 'examples').map((t) => t.name))).toEqual([['@DEMO-8'], ['@DEMO-9']]);
    expect(mapped(records)).toEqual({ 'DEMO-11': 'failed', 'DEMO-8': 'passed', 'DEMO-9': 'failed', 'DEMO-10': 'passed' });
  });

  it('reads an id tag with a configured prefix (@tc:DEMO-12), and then only such tags', async () => {
    const records = await load('cucumber-jvm.json');
    expect(mapResults(records, { prefix: 'DEMO' }).unmatched.map((r) => r.name)).toEqual(['Remove a book']);
    expect(mapped(records, { idTagPrefix: 'tc:' })).toEqual({ 'DEMO-12': 'passed' });
    expect(idTagRefs([{ name: '@TC:demo-012', level: 'scenario' }], 'tc:', 'DEMO')).toEqual(['DEMO-12']);
    // a ticket key, a feature's tag and a tag of another project name no case
    expect(idTagRefs([{ name: '@JIRA-7', level: 'scenario' }, { name: '@DEMO-3', level: 'feature' }], '', 'DEMO')).toEqual([]);
  });
});

describe('behave JSON', () => {
  it('reads behave statuses, its tags without @, seconds, error lines, hook errors and outline row names', async () => {
    const records = await load('behave.json');
    expect(outcomes(records)).toEqual({
      'Log in': 'passed',
      'Log in with a wrong password': 'failed',
      'Reset the password': 'error',
      'Lock out -- @1.1 attempts': 'passed',
      'Lock out -- @1.2 attempts': 'skipped',
      'Log out': 'failed',
    });
    expect(records[0]).toMatchObject({ file: 'features/account/login.feature', durationMs: 254 });
    expect(records[1].message).toBe('Then she sees an error — Assertion Failed: no error message shown');
    expect(records[2].message).toBe('undefined: When ann resets her password');
    expect(records[5].message).toBe('hook_error: a hook of the scenario');
    expect(records[3].gherkin).toMatchObject({ scenario: 'Lock out', row: { examples: 'attempts' }, line: 29 });
    expect(mapped(records)).toEqual({ 'DEMO-13': 'passed', 'DEMO-14': 'failed', 'DEMO-15': 'error', 'DEMO-16': 'skipped' });
  });

  it("reads behave's older {\"features\": [...]} wrapper", () => {
    const records = parseCucumberJson(JSON.stringify({ features: [{ keyword: 'Feature', name: 'F', tags: [], location: 'a.feature:1', elements: [{ type: 'scenario', name: 'S', tags: ['DEMO-4'], location: 'a.feature:3', steps: [{ keyword: 'Given', name: 'x', result: { status: 'passed', duration: 0.5 } }] }] }] }), 'old.json');
    expect(records).toMatchObject([{ name: 'S', outcome: 'passed', durationMs: 500 }]);
    expect(mapped(records)).toEqual({ 'DEMO-4': 'passed' });
  });
});

describe('Cucumber messages (NDJSON)', () => {
  it('reads one record per scenario run: the last attempt of a retried one, rules, rows, hooks and attachments', async () => {
    const records = await load('messages.ndjson');
    expect(outcomes(records)).toEqual({
      'Find a book': 'passed',
      'Flaky search': 'passed',
      'Filter by price': 'passed',
      'Sort by title': 'passed',
      'Sort by price': 'failed',
    });
    const [find, , filter, title, price] = records;
    expect(find.attachments).toEqual([{ mediaType: 'text/plain', body: 'searched for dune', encoding: 'identity' }]);
    expect(filter).toMatchObject({ suites: ['Search', 'Filters'], attachments: [expect.objectContaining({ fileName: 'screenshot.png', encoding: 'base64' })] });
    expect(title.gherkin).toMatchObject({ scenario: 'Sort by <field>', rule: 'Filters', row: { examples: 'by title', cells: ['title', 'Anna'] }, line: 30 });
    // the step failed first; the After hook's failure after it does not replace the explanation
    expect(price.message).toBe('Then the first is Zoo — AssertionError: expected Zoo, got Anna');
    expect(mapped(records)).toEqual({ 'DEMO-17': 'passed', 'DEMO-21': 'passed', 'DEMO-18': 'passed', 'DEMO-19': 'passed', 'DEMO-20': 'failed' });
  });

  it('names a failed hook with its type and name', async () => {
    const text = (await readFile(join(FIXTURES, 'messages.ndjson'), 'utf8')).replace('"testStepId":"c4-h1","testStepResult":{"status":"PASSED"', '"testStepId":"c4-h1","testStepResult":{"message":"Error: no browser","status":"FAILED"');
    const title = parseCucumberMessages(text, 'm.ndjson').find((r) => r.name === 'Sort by title')!;
    expect(title).toMatchObject({ outcome: 'failed', message: 'Before hook (open browser) — Error: no browser' });
  });

  it('keeps a scenario the file never finishes (a killed run) as an error, never drops it', async () => {
    const lines = (await readFile(join(FIXTURES, 'messages.ndjson'), 'utf8')).split('\n');
    const cut = lines.findIndex((l) => l.includes('"testCaseFinished":{"testCaseStartedId":"a6"'));
    const records = parseCucumberMessages(lines.slice(0, cut).join('\n'), 'killed.ndjson');
    expect(records.at(-1)).toMatchObject({ name: 'Sort by price', outcome: 'failed' });
    const early = parseCucumberMessages(lines.slice(0, cut - 4).join('\n'), 'killed.ndjson');
    expect(early.at(-1)).toMatchObject({ name: 'Sort by price', outcome: 'error', message: expect.stringContaining('the report ends before this scenario finished') });
  });

  it('rejects a line cut in the middle with the file and line, and a line that is no envelope', async () => {
    const text = await readFile(join(FIXTURES, 'messages.ndjson'), 'utf8');
    const cutAt = text.indexOf('{"testCaseStarted":{"id":"a4"') + 30;
    const line = text.slice(0, cutAt).split('\n').length;
    const err = thrown(() => parseCucumberMessages(text.slice(0, cutAt), 'cut.ndjson'));
    expect(err.code).toBe('invalid_report');
    expect(err.message).toMatch(new RegExp(`^cut\\.ndjson:${line}:\\d+ is not complete: the file ends before the JSON is complete: it looks truncated$`));
    expect(err.details).toMatchObject({ file: 'cut.ndjson', line });
    const bad = thrown(() => parseCucumberMessages('{"meta":{}}\n[1,2]\n', 'bad.ndjson'));
    expect(bad.message).toBe('bad.ndjson:2: is not a Cucumber message: a line holds a JSON array, not an envelope object');
    const garbage = thrown(() => parseCucumberMessages('{"meta":{}}\n{"pickle": nope}\n', 'bad.ndjson'));
    expect(garbage.message).toMatch(/^bad\.ndjson:2:\d+ is not valid JSON/);
  });
});

describe('report files: format, encodings, broken files', () => {
  it('tells each format from the content, whatever the extension, and --format overrides', async () => {
    const js = await readFile(join(FIXTURES, 'cucumber-js.json'));
    const nd = await readFile(join(FIXTURES, 'messages.ndjson'));
    expect(detectFormat(js, 'report.txt')).toBe('cucumber-json');
    expect(detectFormat(nd, 'report.json')).toBe('cucumber-messages');
    expect(detectFormat(Buffer.from('\uFEFF  <?xml version="1.0"?><testsuite/>'), 'r')).toBe('junit');
    expect(detectFormat(Buffer.from(''), 'empty.xml')).toBe('junit');
    expect(detectFormat(Buffer.from('hello'), 'notes.txt')).toBeUndefined();
    await writeFile(join(dir, 'cucumber.out'), js);
    const { records, formats } = await loadReports(['cucumber.out'], dir);
    expect(formats).toEqual(['cucumber-json']);
    expect(records).toHaveLength(9);
    await expect(loadReports(['cucumber.out'], dir, 'junit')).rejects.toMatchObject({ code: 'invalid_junit' });
    await writeFile(join(dir, 'notes.txt'), 'hello');
    await expect(loadReports(['notes.txt'], dir)).rejects.toMatchObject({ code: 'invalid_report', message: expect.stringContaining('notes.txt is not a test report tmsync can read') });
  });

  it('reads JUnit through the same loader exactly as before', async () => {
    const files = ['surefire.xml', 'pytest.xml', 'jest.xml', 'playwright.xml'];
    const { records, formats } = await loadReports(files, JUNIT);
    expect(formats).toEqual(['junit', 'junit', 'junit', 'junit']);
    expect(records).toEqual(await loadJunitFiles(files, JUNIT));
    await expect(loadReports(['missing.xml'], JUNIT)).rejects.toMatchObject({ code: 'junit_not_found' });
    await expect(loadReports(['missing.json'], JUNIT)).rejects.toMatchObject({ code: 'report_not_found' });
  });

  it('reads UTF-8 with a byte order mark, UTF-16 with one, CRLF lines and Windows-1252', async () => {
    const text = await readFile(join(FIXTURES, 'cucumber-js.json'), 'utf8');
    const expected = await load('cucumber-js.json');
    const crlf = text.replace(/\n/g, '\r\n');
    await writeFile(join(dir, 'bom.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(crlf)]));
    await writeFile(join(dir, 'utf16.json'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(crlf, 'utf16le')]));
    for (const f of ['bom.json', 'utf16.json']) expect((await loadReports([f], dir)).records).toEqual(expected.map((r) => ({ ...r, report: f })));
    const nd = (await readFile(join(FIXTURES, 'messages.ndjson'), 'utf8')).replace(/\n/g, '\r\n');
    await writeFile(join(dir, 'crlf.ndjson'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(nd)]));
    expect((await loadReports(['crlf.ndjson'], dir)).records.map((r) => r.outcome)).toEqual(['passed', 'passed', 'passed', 'passed', 'failed']);
    // an older runner on Windows: the platform's code page, no way to declare it in JSON
    const cp1252 = Buffer.from(text.replace('"name": "Checkout",', '"name": "Caf\u00e9 \u2013 Kasse",'), 'latin1');
    cp1252[cp1252.indexOf(Buffer.from(' Kasse', 'latin1')) - 1] = 0x96; // the en dash of Windows-1252
    await writeFile(join(dir, 'cp1252.json'), cp1252);
    expect((await loadReports(['cp1252.json'], dir)).records[0].classname).toBe('Caf\u00e9 \u2013 Kasse');
  });

  it('rejects an empty file, a truncated one and one that is no report, naming the file (and line and column)', async () => {
    expect(thrown(() => parseCucumberJson('  \n', 'empty.json'))).toMatchObject({ code: 'invalid_report', message: 'empty.json is empty' });
    expect(thrown(() => parseCucumberMessages('', 'empty.ndjson'))).toMatchObject({ code: 'invalid_report', message: 'empty.ndjson is empty' });
    const text = await readFile(join(FIXTURES, 'cucumber-js.json'), 'utf8');
    const cut = text.slice(0, text.indexOf('"Pay later"'));
    const err = thrown(() => parseCucumberJson(cut, 'cut.json'));
    const lines = cut.split('\n');
    expect(err.message).toBe(`cut.json:${lines.length}:${lines.at(-1)!.length + 1} is not complete: the file ends before the JSON is complete: it looks truncated`);
    expect(err.hint).toMatch(/finished writing the report/);
    expect(thrown(() => parseCucumberJson('[{"name": "x",, }]', 'bad.json')).message).toMatch(/^bad\.json:1:\d+ is not valid JSON/);
    expect(thrown(() => parseCucumberJson('{"testsuites": []}', 'x.json')).message).toBe('x.json is not a Cucumber JSON report: it holds an object, not an array of features');
    expect(thrown(() => parseCucumberJson('[{"name": "F", "elements": {}}]', 'x.json')).message).toBe('x.json features[0].elements is an object, not an array');
    // a run with no features is an empty report, not an error
    expect(parseCucumberJson('[]', 'none.json')).toEqual([]);
  });
});

describe('feature path and scenario name (no id tag)', () => {
  const record = (scenario: string, uri: string, feature: string, rule?: string): TestRecord => ({
    name: scenario,
    classname: feature,
    outcome: 'passed',
    properties: {},
    suites: [feature],
    report: 'r.json',
    gherkin: { uri, feature, scenario, tags: [], ...(rule ? { rule } : {}) },
  });
  const cases: NamedCase[] = [
    { id: 'a', humanId: 'DEMO-1', title: 'Empty cart', folderPath: ['Shop', 'cart', 'Checkout'] },
    { id: 'b', humanId: 'DEMO-2', title: 'Empty cart', folderPath: ['Shop', 'wishlist', 'Checkout'] },
    { id: 'c', humanId: 'DEMO-3', title: 'Empty cart', folderPath: ['Other'] },
    { id: 'd', humanId: 'DEMO-4', title: 'Sort', folderPath: ['search', 'Search', 'Filters'] },
    { id: 'e', title: 'Log out', folderPath: ['account', 'login'] },
  ];

  it('takes the case whose folder path shares the longest tail with the feature path, the feature (or file stem) level at least', () => {
    const recs = [
      record('Empty cart', 'src/test/resources/Shop/cart/checkout.feature', 'Checkout'),
      record('Empty cart', 'features/checkout.feature', 'Checkout'),
      record('Empty cart', 'features/other.feature', 'Nothing like it'),
      record('Sort', 'features/search/search.feature', 'Search', 'Filters'),
      record('Log out', 'features/account/login.feature', 'Logging in and out'),
      record('Unknown title', 'features/checkout.feature', 'Checkout'),
    ];
    const { refs, ambiguous } = matchScenarioNames(recs, cases);
    expect(recs.map((r) => refs.get(r))).toEqual(['DEMO-1', undefined, 'DEMO-3', 'DEMO-4', 'e', undefined]);
    // two Checkout folders fit equally well: neither is taken, both are named
    expect(ambiguous.get(recs[1])).toEqual(['DEMO-1', 'DEMO-2']);
  });

  it('is the last rule: an id tag, then a human id in the name win over it', () => {
    const r = record('Empty cart', 'features/cart/checkout.feature', 'Checkout');
    const tagged = { ...r, gherkin: { ...r.gherkin!, tags: [{ name: '@DEMO-9', level: 'scenario' as const }] } };
    const byName = new Map([[r, 'DEMO-1'], [tagged, 'DEMO-1']]);
    expect(mapResults([r, tagged], { prefix: 'DEMO', byName }).cases.map((c) => [c.ref, c.testcases.length])).toEqual([
      ['DEMO-1', 1],
      ['DEMO-9', 1],
    ]);
  });
});
