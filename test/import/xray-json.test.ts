import { describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import { xrayCsvReader } from '../../src/import/formats/xray-csv.js';
import { xrayJsonReader } from '../../src/import/formats/xray-json.js';
import { TEST_ENCODINGS } from '../support/encodings.js';
import { detected, fixture, readWith, roundTrip, thrown } from './jira-readers-helpers.js';

const read = (text: string, file = 'tests.json') => readWith(xrayJsonReader, text, file);

describe('xray-json', () => {
  it('reads the representative export to the same model as its CSV twin, but for the JSON field names, a title and lines', () => {
    const json = read(fixture('xray-json/basic.json'), 'basic.json');
    const csv = readWith(xrayCsvReader, fixture('xray-csv/basic.csv'), 'basic.csv');
    const strip = (p: typeof json.project) =>
      JSON.parse(
        JSON.stringify(p, (k, v: unknown) => (k === 'at' ? undefined : v))
          .replace(/customfield_10100/g, 'Browser')
          // the step group's title differs, so that the two fixtures' groups do not meet in one project
          .replace(/"Log in"/g, '"Sign in"'),
      ) as unknown;
    const csvModel = strip(csv.project) as { cases: { fields?: { name: string }[] }[] };
    // the CSV fixture has a Component on every test and a Browser on two; the JSON one only on the first
    csvModel.cases[1].fields = undefined;
    csvModel.cases[2].fields = undefined;
    expect(strip(json.project)).toEqual(JSON.parse(JSON.stringify(csvModel)));
    expect(json.project.cases.map((c) => c.at.line)).toEqual([7, 26, 36]);
    expect(json.report.attachments.count).toBe(1);
  });

  it('reads Jira fields beside the Xray ones, the xray_ prefixes, users, statuses, test sets, links and unknown keys', () => {
    const tests = [
      { xray_issue_type: 'test_set', xray_id: 'set-1', summary: 'Regression' },
      {
        xray_testtype: 'Generic',
        summary: 'Runs the API suite',
        xray_unstructured_def: 'api/suite.py',
        key: 'CALC-8',
        assignee: { emailAddress: 'ann@example.test' },
        status: { name: 'Ready' },
        priority: 'Major',
        labels: 'api;nightly',
        components: ['Backend', 'API'],
        project: { key: 'CALC' },
        xray_test_sets: ['set-1', 'CALC-500'],
        update: { issuelinks: [{ add: { type: { name: 'Tests' }, outwardIssue: { key: 'CALC-1' } } }], watchers: [{ add: 'x' }] },
        customfield_10200: { value: 'Yes' },
        fields: { environment: 'Staging' },
      },
    ];
    const { project, report } = read(JSON.stringify(tests, null, 2));
    expect(project.cases).toEqual([
      {
        sourceId: 'CALC-8',
        folder: [],
        title: 'Runs the API suite',
        stepsText: 'api/suite.py',
        lookups: { priority: 'Major', status: 'Ready', owner: 'ann@example.test', automation_type: 'Generic' },
        labels: ['api', 'nightly'],
        fields: [
          { name: 'Component', value: 'Backend, API' },
          { name: 'Issue links', value: 'Tests CALC-1' },
          { name: 'customfield_10200', value: 'Yes' },
          { name: 'environment', value: 'Staging' },
          { name: 'Test Set', value: 'Regression, CALC-500' },
        ],
        at: { file: 'tests.json', line: 7 },
      },
    ]);
    expect(report.entries.map((e) => [e.action, e.field])).toEqual([
      ['dropped', 'project'],
      ['dropped', 'update.watchers'],
    ]);
  });

  it('reads a step whose values sit in a `fields` object, its custom step fields as data lines, and reports files inside the JSON', () => {
    const steps = [
      { index: 1, fields: { Action: 'Open', Data: 'url', 'Expected Result': 'Shown', Environment: 'EU' } },
      { action: 'Close', attachments: [{ filename: 'shot.png', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] },
    ];
    const { project, report } = read(JSON.stringify([{ testtype: 'Manual', update_key: 'C-1', fields: { summary: 'S' }, steps }]));
    expect(project.cases[0].steps).toEqual([{ action: 'Open', expected: 'Shown', data: 'url\nEnvironment: EU' }, { action: 'Close' }]);
    expect(report.entries).toMatchObject([{ action: 'dropped', field: 'step attachment', examples: [{ value: 'shot.png' }] }]);
  });

  it('reads rich text of Jira Cloud (Atlassian document format) as its plain text', () => {
    const description = { type: 'doc', version: 1, content: [{ type: 'paragraph', content: [{ type: 'text', text: 'First' }] }, { type: 'paragraph', content: [{ type: 'text', text: 'Second' }] }] };
    const { project } = read(JSON.stringify([{ testtype: 'Manual', fields: { summary: 'S', description } }]));
    expect(project.cases[0]).toMatchObject({ sourceId: 'S', description: 'First\n\nSecond' });
  });

  it('fences a Gherkin definition whose doc string uses backticks with a longer fence', () => {
    const gherkin_def = 'Given a file\n  ```\n  body\n  ```';
    const { project } = read(JSON.stringify([{ testtype: 'Cucumber', update_key: 'C-1', fields: { summary: 'S' }, gherkin_def }]));
    expect(project.cases[0].stepsText).toBe('````gherkin\nGiven a file\n  ```\n  body\n  ```\n````');
  });

  it('identifies a test without key or id by its folder and title', () => {
    const { project } = read('[{"testtype":"Manual","fields":{"summary":"Lonely"},"xray_test_repository_folder":"/A/B"}]');
    expect(project.cases[0]).toMatchObject({ sourceId: 'A/B/Lonely', folder: ['A', 'B'] });
  });

  it.each(TEST_ENCODINGS)('reads non-ASCII text encoded as %s', (encoding) => {
    const text = '[\r\n  {"testtype": "Manual", "update_key": "CALC-1", "fields": {"summary": "Größe – “naïve” café"}, "steps": [{"action": "Öffnen", "data": "", "result": "€ 5"}]}\r\n]\r\n';
    const { project } = read(roundTrip(text, encoding, 'tests.json'));
    expect(project.cases).toMatchObject([{ sourceId: 'CALC-1', title: 'Größe – “naïve” café', steps: [{ action: 'Öffnen', expected: '€ 5' }], at: { line: 2 } }]);
  });

  it('gives an empty project and a note for an empty export', () => {
    for (const text of ['', '  \n', '[]']) {
      const { project, report } = read(text);
      expect(project).toEqual({ folders: [], stepGroups: [], cases: [] });
      expect(report.notes).toEqual(['tests.json holds no tests.']);
    }
  });

  it('names file and line of a truncated or malformed file, and of content that is no array of tests', () => {
    const text = fixture('xray-json/basic.json');
    const truncated = thrown(() => read(text.slice(0, text.indexOf('"Sign out"')), 'exports/basic.json'));
    expect(truncated).toBeInstanceOf(TmsyncError);
    expect((truncated as TmsyncError).code).toBe('invalid_import');
    expect(truncated.message).toMatch(/^exports\/basic\.json:29: the JSON is malformed or truncated/);
    expect(thrown(() => read('[\n{"a": 1,,}\n]')).message).toMatch(/^tests\.json:2: the JSON is malformed/);
    expect(thrown(() => read('{"tests": []}')).message).toBe('tests.json:1: an Xray JSON export is an array of tests, this file holds an object');
    expect(thrown(() => read('[\n{"testtype":"Manual","fields":{"summary":"a"}},\n"b"\n]')).message).toBe('tests.json:3: test 2 of the array is not an object');
    expect(thrown(() => read('[{"update_key":"C-1","fields":{"summary":"a"}},\n{"update_key":"C-1","fields":{"summary":"b"}}]')).message).toBe(
      'tests.json:2: the test C-1 appears twice (first at line 1)',
    );
  });

  it('keeps the same source ids for a changed export and gives the changed values', () => {
    const before = read(fixture('xray-json/basic.json')).project;
    const after = read(fixture('xray-json/basic.json').replace('"Sign out"', '"Sign out everywhere"').replace('Press _Sign out_', 'Press _Sign out all_')).project;
    expect(after.cases.map((c) => c.sourceId)).toEqual(before.cases.map((c) => c.sourceId));
    expect(after.cases[1]).toMatchObject({ title: 'Sign out everywhere', steps: [{ use: 'CALC-2#steps' }, { action: 'Press *Sign out all*' }] });
  });

  it('is the format detect() chooses for its exports', () => {
    expect(detected(fixture('xray-json/basic.json'), 'basic.json')).toEqual(['xray-json']);
    expect(detected('[{"fields": {"summary": "x"}}]', 'a.json')).toEqual(['xray-json']);
    expect(xrayJsonReader.detect('{"a": 1}', 'xray.json')).toBe(0);
    expect(xrayJsonReader.detect('[1]', 'xray.json')).toBe(1);
  });
});
