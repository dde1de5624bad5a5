import { cell } from '../csv-table.js';
import { cellsOf, customFields, firstOf, folderPath, groupRows, headNames, missingColumn, otherColumns, readJiraCsv, splitList } from './jira-common.js';
import { buildXrayProject, ISSUE_KEY, issueKind } from './xray-model.js';
import type { CsvRow } from '../csv-table.js';
import type { ImportAt, ImportedField, ImportedProject } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import type { ColumnSpec } from './jira-common.js';
import type { XrayIssue, XrayStep } from './xray-model.js';

/**
 * Xray's Test Case Importer CSV: one row per step, the rows of one test sharing its test id; the
 * test's fields on its first row. Headers are the user's own (the importer maps them), so each
 * column goes by the names Xray's documentation and examples use; `--map` adds more.
 */

const COLUMNS = {
  test_id: ['Issue Id', 'Test Id', 'TCID', 'Test Case Identifier', 'Test Case Id', 'ID'],
  key: ['Issue Key', 'Test Key', 'Key', 'Update Key'],
  issue_type: ['Issue Type', 'Xray Issue Type'],
  test_type: ['Test Type', 'TestType', 'Xray Test Type'],
  summary: ['Summary', 'Test Summary', 'Title', 'Name'],
  description: ['Description', 'Test Description'],
  priority: ['Priority', 'Test Priority'],
  status: ['Status'],
  assignee: ['Assignee', 'Owner'],
  labels: ['Labels', 'Label'],
  components: ['Component', 'Components', 'Component/s'],
  action: ['Action', 'Step Action', 'Step', 'Test Step'],
  data: ['Data', 'Test Data', 'Step Data'],
  result: ['Expected Result', 'Result', 'Expected', 'Step Result', 'Expected Results'],
  call_test: ['Call Test', 'Called Test', 'Call Test Key'],
  repository: ['Test Repository Path', 'Test Repository Folder', 'Test Repo Path', 'Test Repo', 'Repository Path', 'Folder'],
  preconditions: ['Preconditions', 'Precondition', 'Pre-conditions', 'Precondition Keys'],
  precondition_type: ['Precondition Type'],
  gherkin: ['Gherkin Definition', 'Cucumber Scenario', 'Gherkin', 'Scenario'],
  generic: ['Generic Definition', 'Unstructured Definition', 'Generic Test Definition', 'Definition', 'Conditions'],
  test_sets: ['Test Set', 'Test Sets'],
  project: ['Project Key', 'Project', 'Project Id'],
} as const satisfies ColumnSpec<string>;

type Column = keyof typeof COLUMNS;
type Columns = Record<Column, number[]>;

/** Headers only Xray's importer examples use. */
const MARKERS = ['test repository path', 'test repo path', 'test repo', 'gherkin definition', 'unstructured definition', 'generic definition', 'cucumber scenario', 'tcid', 'test case identifier', 'xray test type'];

function detect(head: string, file: string): number {
  const names = headNames(head);
  if (names.some((n) => MARKERS.includes(n)) && names.some((n) => ['action', 'step action', 'summary', 'test summary'].includes(n))) return 3;
  const has = (aliases: readonly string[]) => aliases.some((a) => names.includes(a.toLowerCase()));
  if (has(COLUMNS.test_id) && has(['Action', 'Step Action']) && has(['Test Type', 'Summary', 'Test Summary'])) return 2;
  return /xray/i.test(file) && /\.(csv|txt)$/i.test(file) ? 1 : 0;
}

/** A references cell (`1;2`, `CALC-10`) or a text: references when every item names an issue. */
function preconditionCell(value: string, localIds: ReadonlySet<string>): { refs: string[]; text: string } {
  const items = splitList(value);
  if (items.length > 0 && items.every((v) => localIds.has(v) || ISSUE_KEY.test(v))) return { refs: items, text: '' };
  return { refs: [], text: value };
}

function isStep(row: CsvRow, columns: Columns): boolean {
  return [columns.action, columns.data, columns.result, columns.call_test].some((c) => firstOf(row, c) !== '');
}

function stepsOf(rows: readonly CsvRow[], columns: Columns, headers: readonly string[], others: readonly number[], file: string): XrayStep[] {
  const steps: XrayStep[] = [];
  rows.forEach((row, n) => {
    if (!isStep(row, columns)) return;
    const action = firstOf(row, columns.action);
    const data = firstOf(row, columns.data);
    const result = firstOf(row, columns.result);
    const call = firstOf(row, columns.call_test);
    // other columns on a step row after the first are the step's own (Xray's custom step fields)
    const extra: ImportedField[] = n === 0 ? [] : others.map((i) => ({ name: headers[i].trim(), value: cell(row, i).trim() })).filter((f) => f.value !== '');
    steps.push({ action, data, result, ...(call !== '' ? { call } : {}), ...(extra.length > 0 ? { extra } : {}), at: { file, line: row.line } });
  });
  return steps;
}

function issueOf(id: string, rows: CsvRow[], columns: Columns, headers: readonly string[], others: readonly number[], localIds: ReadonlySet<string>, context: ReadImportContext): XrayIssue {
  const at: ImportAt = { file: context.file, line: rows[0].line };
  const first = (c: Column) => rows.map((r) => firstOf(r, columns[c])).find((v) => v !== '') ?? '';
  const all = (c: Column) => rows.flatMap((r) => cellsOf(r, columns[c]));
  const key = first('key');
  const pre = preconditionCell(first('preconditions'), localIds);
  const components = all('components').flatMap((v) => splitList(v));
  for (const project of all('project').slice(0, 1)) context.report.record('dropped', 'Project key', 'the target is the configured project', project, at);
  for (const type of all('precondition_type').slice(0, 1)) context.report.record('dropped', 'Precondition Type', 'a precondition becomes text: it has no type', type, at);
  const fields: ImportedField[] = [
    ...(components.length > 0 ? [{ name: 'Component', value: [...new Set(components)].join(', ') }] : []),
    // the first row's other columns, and those of rows that are no step, are the test's fields
    ...customFields(headers, others, rows.filter((r, n) => n === 0 || !isStep(r, columns))),
  ];
  return {
    kind: issueKind(first('issue_type'), at),
    localId: columns.test_id.length > 0 ? id : '',
    key,
    testType: first('test_type'),
    summary: first('summary'),
    description: first('description'),
    lookups: { priority: first('priority'), status: first('status'), owner: first('assignee'), automation_type: first('test_type') },
    labels: all('labels').flatMap((v) => splitList(v, true)),
    folder: folderPath(first('repository')),
    steps: stepsOf(rows, columns, headers, others, context.file),
    gherkin: first('gherkin'),
    generic: first('generic'),
    preconditionRefs: pre.refs,
    preconditionText: pre.text,
    testSets: all('test_sets').flatMap((v) => splitList(v)),
    fields,
    at,
  };
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const csv = readJiraCsv(text, context, COLUMNS);
  if (!csv) return { folders: [], stepGroups: [], cases: [] };
  const { table, columns } = csv;
  if (columns.test_id.length === 0 && columns.key.length === 0) throw missingColumn(context.file, 'Xray CSV', 'test_id', COLUMNS.test_id, table.headers);
  if (columns.summary.length === 0 && columns.key.length === 0) throw missingColumn(context.file, 'Xray CSV', 'summary', COLUMNS.summary, table.headers);
  const idColumn = columns.test_id.length > 0 ? columns.test_id : columns.key;
  const groups = groupRows(table, (row) => firstOf(row, idColumn));
  const others = otherColumns(table.headers, columns);
  const localIds = new Set(groups.map((g) => g.id));
  const issues = groups.map((g) => issueOf(g.id, g.rows, columns, table.headers, others, localIds, context));
  return buildXrayProject(issues, context.report);
}

export const xrayCsvReader: ImportReader = {
  name: 'xray-csv',
  tool: 'xray',
  about: "Xray's Test Case Importer CSV: one row per step, grouped by a test id column",
  detect,
  read,
};
