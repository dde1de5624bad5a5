import type { DesiredState } from '../model.js';
import type { ImportReport } from '../import/report.js';
import { csvText } from './csv-write.js';
import { exportView, templateOf } from './view.js';

/**
 * `tmsync export xray-csv`: the CSV of Xray's Test Case Importer, one row per step, the rows of
 * one test grouped by `TCID` (on every row); the test's fields on its first row. `Test Type` is
 * Manual; a TCD case is one step (its steps text the action, its expected results the result).
 * Labels are repeated `Labels` columns, as Jira's CSV import takes several values of a field.
 * The fields Xray's tests have no field for (preconditions, which Xray keeps as issues of their
 * own, type, status, automation type, reviewer) are columns of their tmsync names: the importer's
 * mapping step maps them to custom fields or leaves them out. Step groups (Xray's "call test" has
 * no CSV form) are inlined.
 */

const FIXED = [
  'TCID',
  'Summary',
  'Description',
  'Test Type',
  'Priority',
  'Assignee',
  'Test Repository Path',
  'Action',
  'Data',
  'Expected Result',
  'Precondition',
  'Case Type',
  'Status',
  'Automation Type',
  'Reviewer',
] as const;

type Column = (typeof FIXED)[number];
const AT = Object.fromEntries(FIXED.map((h, i) => [h, i])) as Record<Column, number>;

export function exportXrayCsv(repository: DesiredState, report: ImportReport): string {
  const view = exportView(repository, report, 'xray-csv', 'xray');
  const labelColumns = Math.max(1, ...view.cases.map((c) => c.case.fields.labels?.length ?? 0));
  const width = FIXED.length + labelColumns;
  const rows: string[][] = [];
  if (view.emptyFolders.length > 0) {
    report.record('dropped', 'folder', 'a folder without cases: the Test Case Importer creates folders only from a test’s repository path', view.emptyFolders[0].join('/'));
  }
  view.cases.forEach(({ case: kase, externalId, steps }, n) => {
    const f = kase.fields;
    const tcid = externalId ?? String(n + 1);
    const first = Array<string>(width).fill('');
    const set = (column: Column, value: string | undefined) => {
      if (value !== undefined) first[AT[column]] = value;
    };
    set('TCID', tcid);
    set('Summary', kase.title);
    set('Description', f.description);
    set('Test Type', 'Manual');
    set('Priority', f.priority);
    set('Assignee', f.owner);
    if (kase.folderPath.some((name) => name.includes('/'))) {
      report.note(`xray-csv: a folder name holding "/" reads back as two folders (${kase.folderPath.join(' > ')})`);
    }
    set('Test Repository Path', kase.folderPath.join('/'));
    set('Precondition', f.preconditions);
    set('Case Type', f.type);
    set('Status', f.status);
    set('Automation Type', f.automationType);
    set('Reviewer', f.reviewer);
    (f.labels ?? []).forEach((label, i) => (first[FIXED.length + i] = label));
    const list =
      templateOf(kase) === 'TCD'
        ? f.stepsText !== undefined || f.expectedResults !== undefined
          ? [{ action: f.stepsText ?? '', expected: f.expectedResults ?? '' }]
          : []
        : (steps ?? []);
    const stepRow = (row: string[], s: { action: string; expected: string }) => {
      row[AT.Action] = s.action;
      row[AT['Expected Result']] = s.expected;
      return row;
    };
    rows.push(list.length > 0 ? stepRow(first, list[0]) : first);
    for (const s of list.slice(1)) {
      const row = Array<string>(width).fill('');
      row[AT.TCID] = tcid;
      rows.push(stepRow(row, s));
    }
  });
  const labels = view.cases.filter((c) => c.case.fields.labels?.some((l) => /\s/.test(l)));
  if (labels.length > 0) report.note('xray-csv: Jira labels cannot hold spaces: Jira refuses or splits a label with one');
  return csvText([...FIXED, ...Array<string>(labelColumns).fill('Labels')], rows);
}
