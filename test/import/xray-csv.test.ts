import { describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import { xrayCsvReader } from '../../src/import/formats/xray-csv.js';
import { buildImportFiles } from '../../src/import/import-files.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { detected, fixture, readWith, roundTrip, thrown } from './jira-readers-helpers.js';

const read = (text: string, file = 'tests.csv', columns?: Record<string, string>) => readWith(xrayCsvReader, text, file, columns);

describe('xray-csv', () => {
  it('reads the representative export: folders, steps, a called test as a step group, a precondition, a Cucumber test, a custom field', () => {
    const { project, report } = read(fixture('xray-csv/basic.csv'), 'basic.csv');
    const signIn = [
      { action: 'Open the sign-in page', expected: 'The form is shown' },
      { action: 'Enter the user name', data: '`jdoe`' },
      { action: 'Press **Sign in**', expected: 'The dashboard is shown ![dashboard.png](dashboard.png)' },
    ];
    expect(project.stepGroups).toEqual([
      { sourceId: 'CALC-2#steps', title: 'Sign in', description: 'Sign in with **valid** credentials.\nSee [the spec](https://wiki.example.test/login).', steps: signIn, at: { file: 'basic.csv', line: 3 } },
    ]);
    expect(project.cases).toEqual([
      {
        sourceId: 'CALC-2',
        folder: ['Accounts', 'Sign in'],
        title: 'Sign in',
        description: 'Sign in with **valid** credentials.\nSee [the spec](https://wiki.example.test/login).',
        preconditions: '**Signed out**\n\nThe browser holds no session cookie',
        steps: signIn,
        lookups: { priority: 'High', automation_type: 'Manual' },
        labels: ['smoke', 'auth'],
        fields: [
          { name: 'Component', value: 'Web' },
          { name: 'Browser', value: 'Firefox' },
        ],
        at: { file: 'basic.csv', line: 3 },
      },
      {
        sourceId: 'CALC-3',
        folder: ['Accounts'],
        title: 'Sign out',
        steps: [{ use: 'CALC-2#steps' }, { action: 'Press *Sign out*', expected: 'The sign-in page is shown' }],
        lookups: { priority: 'Medium', automation_type: 'Manual' },
        labels: ['auth'],
        fields: [
          { name: 'Component', value: 'Web' },
          { name: 'Browser', value: 'Chrome' },
        ],
        at: { file: 'basic.csv', line: 7 },
      },
      {
        sourceId: 'CALC-4',
        folder: ['Calculator'],
        title: 'Add two numbers',
        stepsText: '```gherkin\nGiven I have entered 1 into the calculator\nAnd I have entered 2 into the calculator\nWhen I press add\nThen the result should be 3 on the screen\n```',
        lookups: { priority: 'Low', automation_type: 'Cucumber' },
        fields: [{ name: 'Component', value: 'Calculator' }],
        at: { file: 'basic.csv', line: 9 },
      },
    ]);
    expect(project.folders).toEqual([['Accounts', 'Sign in'], ['Accounts'], ['Calculator']]);
    expect(report.notes).toContain('1 Cucumber test(s): the Gherkin definition became the steps text (template TCD) as a fenced gherkin block.');
    // the called test's attachment is one link, reported once though its steps are in a case and a group
    expect(report.attachments).toEqual({ count: 1, examples: [{ value: 'dashboard.png', at: { file: 'basic.csv', line: 6 } }] });
  });

  it('gives the writer a called test as a case and a step group with sources of their own', () => {
    const { project, report } = read(fixture('xray-csv/basic.csv'), 'basic.csv');
    const scanned = { bySource: new Map(), names: new Map(), folderNames: new Map() };
    const written = buildImportFiles(project, scanned, { tool: 'xray', casesDir: 'cases', stepGroupsDir: 'step-groups', under: [], values: {}, report });
    expect(written.files.filter((f) => f.action === 'create' && f.kind !== 'folder').map((f) => [f.path, f.source])).toEqual([
      ['step-groups/sign-in.yaml', 'xray:CALC-2#steps'],
      ['cases/Accounts/Sign in/sign-in.yaml', 'xray:CALC-2'],
      ['cases/Accounts/sign-out.yaml', 'xray:CALC-3'],
      ['cases/Calculator/add-two-numbers.yaml', 'xray:CALC-4'],
    ]);
    expect(report.entries.map((e) => e.field)).not.toContain('duplicate case');
  });

  it("reads Xray's semicolon layout: precondition and test set rows, id lists, keys outside the export, repeated columns, Generic tests", () => {
    const csv = [
      'Issue Id;Issue key;Issue type;Test type;Test Summary;Test Priority;Component;Component;Labels;Labels;Action;Data;Result;Project key;Test Set;Precondition;Unstructured definition;Test Repo;Status;Assignee',
      '1;;precondition;;Logged out;Highest;;;;;;;;EWB;;;No session;;;',
      '2;;testset;;Login set;;;;;;;;;EWB;;;;;;',
      '3;;test;Manual;Login;High;Web;API;a;b c;"Go to\nlogin page";;;EWB;2;"1;CALC-9";;Main/login;Ready;jdoe@example.test',
      '3;;;Manual;;;;;;;Enter name;peter;;;;;;;;',
      '4;;test;Generic;Login API;Low;;;;;;;;EWB;;Logged out by hand;tests/login_api.py::test_ok;Main;;',
      '',
    ].join('\n');
    const { project, report } = read(csv);
    expect(project.cases).toEqual([
      {
        sourceId: '3',
        folder: ['Main', 'login'],
        title: 'Login',
        preconditions: '**Logged out**\n\nNo session\n\nPrecondition CALC-9',
        steps: [{ action: 'Go to\nlogin page' }, { action: 'Enter name', data: 'peter' }],
        lookups: { priority: 'High', status: 'Ready', owner: 'jdoe@example.test', automation_type: 'Manual' },
        labels: ['a', 'b', 'c'],
        fields: [
          { name: 'Component', value: 'Web, API' },
          { name: 'Test Set', value: 'Login set' },
        ],
        at: { file: 'tests.csv', line: 4 },
      },
      {
        sourceId: '4',
        folder: ['Main'],
        title: 'Login API',
        preconditions: 'Logged out by hand',
        stepsText: 'tests/login_api.py::test_ok',
        lookups: { priority: 'Low', automation_type: 'Generic' },
        at: { file: 'tests.csv', line: 7 },
      },
    ]);
    expect(report.entries.map((e) => [e.action, e.field, e.count])).toEqual([
      ['dropped', 'Project key', 4],
      ['dropped', 'precondition field', 1],
      ['folded', 'Precondition', 1],
    ]);
    expect(report.notes.join(' ')).toMatch(/1 test set/);
    expect(report.notes.join(' ')).toMatch(/1 Generic test\(s\): the unstructured definition became the steps text/);
  });

  it('keeps custom step fields with their step, a called test not in the export as a step, and a Gherkin beside steps as a field', () => {
    const csv = [
      'TCID,Summary,Action,Data,Expected Result,Call Test,Step Component,Gherkin Definition',
      '1,Calls,Do a,,A done,,,',
      '1,,,,,CALC-99,,',
      '1,,Do b,,,,Backend,',
      '2,Both,Step,,,,,Given x',
    ].join('\r\n');
    const { project, report } = read(csv);
    expect(project.cases[0].steps).toEqual([{ action: 'Do a', expected: 'A done' }, { action: 'Call test CALC-99' }, { action: 'Do b', data: 'Step Component: Backend' }]);
    expect(project.cases[1]).toMatchObject({ steps: [{ action: 'Step' }], fields: [{ name: 'Gherkin definition', value: 'Given x' }] });
    expect(project.stepGroups).toEqual([]);
    expect(report.entries).toMatchObject([{ action: 'folded', field: 'Call test', count: 1, examples: [{ value: 'CALC-99', at: { line: 3 } }] }]);
  });

  it('inlines the calls of a called test into its step group', () => {
    const csv = ['Issue Id,Summary,Action,Call Test', '1,Leaf,leaf step,', '2,Middle,,1', '2,,middle step,', '3,Top,,2'].join('\n');
    const { project, report } = read(csv);
    expect(project.stepGroups.map((g) => [g.sourceId, g.steps.map((s) => s.action)])).toEqual([
      ['1#steps', ['leaf step']],
      ['2#steps', ['leaf step', 'middle step']],
    ]);
    expect(project.cases.find((c) => c.sourceId === '2')?.steps).toEqual([{ use: '1#steps' }, { action: 'middle step' }]);
    expect(report.notes.join(' ')).toMatch(/inlined/);
  });

  it('groups by the issue key when there is no test id column, a row without a key continuing the test before it', () => {
    const { project } = read('Issue Key,Summary,Action\nCALC-1,One,a\n,,b\nCALC-2,Two,c\n');
    expect(project.cases.map((c) => [c.sourceId, c.steps?.length])).toEqual([
      ['CALC-1', 2],
      ['CALC-2', 1],
    ]);
  });

  it('takes header names from the column map', () => {
    const { project } = read('Case No,Headline,Action\n7,Mapped,a\n', 'tests.csv', { test_id: 'Case No', summary: 'Headline' });
    expect(project.cases).toMatchObject([{ sourceId: '7', title: 'Mapped', steps: [{ action: 'a' }] }]);
    // the generic CSV's field names serve too
    const generic = read('Case No,Headline,Do\n7,Mapped,a\n', 'tests.csv', { id: 'Case No', title: 'Headline', steps: 'Do' }).project;
    expect(generic.cases).toMatchObject([{ sourceId: '7', title: 'Mapped', steps: [{ action: 'a' }] }]);
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text encoded as %s', (encoding) => {
    const csv = 'Issue Id,Summary,Action,Expected Result\r\n1,Größe – “naïve” café,Öffnen,€ 5\r\n';
    const { project } = read(roundTrip(csv, encoding, 'tests.csv'));
    expect(project.cases).toMatchObject([{ sourceId: '1', title: 'Größe – “naïve” café', steps: [{ action: 'Öffnen', expected: '€ 5' }] }]);
  });

  it('reads a CRLF file as its LF twin, lines included', () => {
    const lf = fixture('xray-csv/basic.csv');
    expect(read(lf.replace(/\n/g, '\r\n')).project).toEqual(read(lf).project);
  });

  it('gives an empty project and a note for an empty export', () => {
    for (const text of ['', '\uFEFF', 'Issue Id,Summary,Action\n']) {
      const { project, report } = read(text);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual(['tests.csv holds no tests.']);
    }
  });

  it('names file and line of a truncated file', () => {
    const text = fixture('xray-csv/basic.csv');
    const error = thrown(() => read(text.slice(0, text.indexOf('See [the spec')), 'exports/basic.csv'));
    expect(error).toBeInstanceOf(TmsyncError);
    expect((error as TmsyncError).code).toBe('invalid_import');
    expect(error.message).toMatch(/^exports\/basic\.csv:3: a quoted value is never closed/);
  });

  it('says which column is missing and which issue type is unknown', () => {
    expect(thrown(() => read('Summary,Action\nx,y\n')).message).toMatch(/^tests\.csv:1: the Xray CSV export has no test_id column \(looked for "Issue Id"/);
    expect(thrown(() => read('Issue Id,Issue Type,Summary\n1,Epic,x\n')).message).toBe('tests.csv:2: the issue type "Epic" is none of test, precondition, test set');
    expect(thrown(() => read('Issue Id,Issue Key,Summary\n1,CALC-1,a\n2,CALC-1,b\n')).message).toBe('tests.csv:3: the test CALC-1 appears twice (first at line 2)');
  });

  it('keeps the same source ids for a changed export and gives the changed values', () => {
    const before = read(fixture('xray-csv/basic.csv')).project;
    const changed = fixture('xray-csv/basic.csv').replace('Sign out,,Medium', 'Sign out everywhere,,High').replace('Press _Sign out_', 'Press _Sign out all_');
    const after = read(changed).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[1]).toMatchObject({ title: 'Sign out everywhere', lookups: { priority: 'High' }, steps: [{ use: 'CALC-2#steps' }, { action: 'Press *Sign out all*' }] });
    expect(after.cases[0]).toEqual(before.cases[0]);
  });

  it('is the format detect() chooses for its exports', () => {
    expect(detected(fixture('xray-csv/basic.csv'), 'basic.csv')).toEqual(['xray-csv']);
    expect(detected('TCID;Test Summary;Action;Data;Result;Test Repo Path\n', 'a.csv')).toEqual(['xray-csv']);
    expect(detected('Issue Id,Test Type,Summary,Action,Data,Result\n', 'a.csv')).toEqual(['xray-csv']);
    expect(xrayCsvReader.detect('a,b\n', 'xray-tests.csv')).toBe(1);
    expect(xrayCsvReader.detect('a,b\n', 'tests.csv')).toBe(0);
  });
});
