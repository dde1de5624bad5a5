import { cellsOf, customFields, firstOf, folderPath, groupRows, headNames, jiraText, missingColumn, otherColumns, readJiraCsv, splitList, unique } from './jira-common.js';
import type { CsvRow } from '../csv-table.js';
import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import type { ColumnSpec } from './jira-common.js';

/**
 * Zephyr Squad (Zephyr for Jira): the test export with step columns, one row per step, the rows of
 * one test sharing its issue key (or leaving it empty after the first). Texts are Jira wiki markup.
 */

const COLUMNS = {
  key: ['Issue Key', 'Key', 'Test Key', 'Issue key'],
  issue_id: ['Issue Id', 'Issue ID'],
  issue_type: ['Issue Type'],
  summary: ['Summary', 'Test Summary', 'Name', 'Test Name'],
  description: ['Description'],
  priority: ['Priority'],
  status: ['Status'],
  assignee: ['Assignee'],
  labels: ['Labels', 'Label'],
  components: ['Component', 'Components', 'Component/s'],
  step: ['Step', 'Test Step', 'Teststep', 'Step Description', 'Action'],
  data: ['Test Data', 'Data', 'Step Data', 'Teststep Data'],
  result: ['Expected Result', 'Result', 'Expected Results', 'Teststep Result'],
  order: ['Order Id', 'OrderId', 'Step Number', 'Step No', 'Step #', 'Step Order', 'Order'],
  step_id: ['Step Id', 'StepId', 'Teststep Id'],
  folder: ['Folder', 'Folder Name', 'Folder Path'],
  project: ['Project', 'Project Key', 'Project Name'],
} as const satisfies ColumnSpec<string>;

type Column = keyof typeof COLUMNS;
type Columns = Record<Column, number[]>;

function detect(head: string, file: string): number {
  const names = headNames(head);
  const has = (aliases: readonly string[]) => aliases.some((a) => names.includes(a.toLowerCase()));
  const steps = has(['Step', 'Test Step', 'Teststep']) && has(['Test Data', 'Expected Result']);
  if (steps && has(['Order Id', 'OrderId', 'Teststep Id'])) return 3;
  if (steps && has(['Issue Key'])) return 2;
  return /zephyr/i.test(file) && !/scale/i.test(file) && /\.csv$/i.test(file) ? 1 : 0;
}

function isStep(row: CsvRow, columns: Columns): boolean {
  return [columns.step, columns.data, columns.result].some((c) => firstOf(row, c) !== '');
}

function stepsOf(rows: readonly CsvRow[], columns: Columns, context: ReadImportContext): ImportedActionStep[] {
  const rowsWithSteps = rows.filter((r) => isStep(r, columns));
  const order = (r: CsvRow) => Number(firstOf(r, columns.order));
  // the export lists steps in order; an `Order Id` that says otherwise wins (stable for equal ones)
  const sorted = rowsWithSteps.every((r) => Number.isFinite(order(r)) && firstOf(r, columns.order) !== '')
    ? rowsWithSteps.map((r, i) => ({ r, i })).sort((a, b) => order(a.r) - order(b.r) || a.i - b.i).map((x) => x.r)
    : rowsWithSteps;
  return sorted.map((row) => {
    const at: ImportAt = { file: context.file, line: row.line };
    for (const id of cellsOf(row, columns.step_id)) context.report.record('dropped', 'Step Id', "Zephyr's own step id: the service numbers steps itself", id, at);
    const expected = jiraText(firstOf(row, columns.result), context.report, at);
    const data = jiraText(firstOf(row, columns.data), context.report, at);
    return { action: jiraText(firstOf(row, columns.step), context.report, at), ...(expected !== '' ? { expected } : {}), ...(data !== '' ? { data } : {}) };
  });
}

function caseOf(sourceId: string, rows: CsvRow[], columns: Columns, headers: readonly string[], others: readonly number[], context: ReadImportContext): ImportedCase {
  const at: ImportAt = { file: context.file, line: rows[0].line };
  const first = (c: Column) => rows.map((r) => firstOf(r, columns[c])).find((v) => v !== '') ?? '';
  const all = (c: Column) => unique(rows.flatMap((r) => cellsOf(r, columns[c])));
  for (const project of all('project').slice(0, 1)) context.report.record('dropped', 'Project', 'the target is the configured project', project, at);
  const summary = first('summary');
  if (summary === '') context.report.note(`A test without a summary is titled by its key (${sourceId}).`);
  const description = jiraText(first('description'), context.report, at);
  const components = unique(all('components').flatMap((v) => splitList(v)));
  const labels = unique(all('labels').flatMap((v) => splitList(v, true)));
  const lookups = Object.fromEntries(
    Object.entries({ priority: first('priority'), status: first('status'), owner: first('assignee') }).filter(([, v]) => v !== ''),
  ) as ImportedLookups;
  const fields: ImportedField[] = [
    ...(components.length > 0 ? [{ name: 'Component', value: components.join(', ') }] : []),
    ...customFields(headers, others, rows),
  ];
  const steps = stepsOf(rows, columns, context);
  return {
    sourceId,
    folder: folderPath(first('folder')),
    title: summary || sourceId,
    ...(description !== '' ? { description } : {}),
    ...(steps.length > 0 ? { steps } : {}),
    ...(Object.keys(lookups).length > 0 ? { lookups } : {}),
    ...(labels.length > 0 ? { labels } : {}),
    ...(fields.length > 0 ? { fields } : {}),
    at,
  };
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const csv = readJiraCsv(text, context, COLUMNS);
  if (!csv) return { folders: [], stepGroups: [], cases: [] };
  const { table, columns } = csv;
  if (columns.key.length === 0 && columns.issue_id.length === 0) throw missingColumn(context.file, 'Zephyr Squad CSV', 'key', COLUMNS.key, table.headers);
  const idColumn = columns.key.length > 0 ? columns.key : columns.issue_id;
  const others = otherColumns(table.headers, columns);
  const cases: ImportedCase[] = [];
  for (const group of groupRows(table, (row) => firstOf(row, idColumn))) {
    const type = group.rows.map((r) => firstOf(r, columns.issue_type)).find((v) => v !== '') ?? '';
    if (type !== '' && !/test/i.test(type)) {
      context.report.record('dropped', 'Issue Type', 'only tests are imported', `${group.id} (${type})`, { file: context.file, line: group.rows[0].line });
      continue;
    }
    cases.push(caseOf(group.id, group.rows, columns, table.headers, others, context));
  }
  const folders = unique(cases.filter((c) => c.folder.length > 0).map((c) => c.folder.join('\u0000'))).map((f) => f.split('\u0000'));
  return { folders, stepGroups: [], cases };
}

export const zephyrSquadCsvReader: ImportReader = {
  name: 'zephyr-squad-csv',
  tool: 'zephyr-squad',
  about: 'Zephyr Squad (Zephyr for Jira) test export with step columns: one row per step, grouped by issue key',
  detect,
  read,
};
