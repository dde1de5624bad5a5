import type { DesiredState } from '../model.js';
import { CSV_COLUMNS, type CsvColumnField } from '../import/formats/csv.js';
import type { ImportReport } from '../import/report.js';
import { csvText } from './csv-write.js';
import { exportView, templateOf, type ExportStep } from './view.js';

/**
 * `tmsync export csv`: the generic CSV that `tmsync import csv` reads back (each header is the
 * first alias of its field there). One row per step: the case's first row carries its fields and
 * its first step, the rows after it only `Step #`, the action and the expected result; a `Step #`
 * column tells the reader that each row is one step, so a step whose text looks like a numbered
 * list stays one step. A folder that holds no case is a row with only its folder path.
 */

/** The columns written, in order: every field of the reader's table the repository can fill. */
const WRITTEN: readonly CsvColumnField[] = [
  'id',
  'folder',
  'title',
  'template',
  'description',
  'preconditions',
  'step_number',
  'steps',
  'expected',
  'priority',
  'type',
  'status',
  'automation_type',
  'owner',
  'reviewer',
  'labels',
];

const COLUMN = Object.fromEntries(WRITTEN.map((f, i) => [f, i])) as Record<(typeof WRITTEN)[number], number>;

/** `A/B/C`, or `A > B > C` when a name holds a `/` (the reader splits on `>` first). */
export function folderCell(path: readonly string[], report: ImportReport): string {
  if (path.some((name) => name.includes('>'))) {
    report.note(`csv: a folder name holding ">" reads back as two folders (${path.join(' / ')})`);
  }
  return path.some((name) => name.includes('/')) ? path.join(' > ') : path.join('/');
}

function labelsCell(labels: readonly string[] | undefined, report: ImportReport): string {
  for (const label of labels ?? []) {
    if (/[,;]/.test(label)) report.note(`csv: the label "${label}" holds a comma or semicolon, the separators of the Labels column: it reads back as more than one label`);
  }
  return (labels ?? []).join(', ');
}

function emptyRow(): string[] {
  return WRITTEN.map(() => '');
}

function stepRow(row: string[], step: ExportStep, n: number): string[] {
  row[COLUMN.step_number] = String(n);
  row[COLUMN.steps] = step.action;
  row[COLUMN.expected] = step.expected;
  return row;
}

export function exportCsv(repository: DesiredState, report: ImportReport): string {
  const view = exportView(repository, report, 'csv', 'csv');
  const rows: string[][] = [];
  for (const { case: kase, externalId, steps } of view.cases) {
    const f = kase.fields;
    const first = emptyRow();
    const set = (field: (typeof WRITTEN)[number], value: string | undefined) => {
      if (value !== undefined) first[COLUMN[field]] = value;
    };
    set('id', externalId);
    set('folder', folderCell(kase.folderPath, report));
    set('title', kase.title);
    set('template', templateOf(kase));
    set('description', f.description);
    set('preconditions', f.preconditions);
    set('priority', f.priority);
    set('type', f.type);
    set('status', f.status);
    set('automation_type', f.automationType);
    set('owner', f.owner);
    set('reviewer', f.reviewer);
    set('labels', labelsCell(f.labels, report));
    if (templateOf(kase) === 'TCD') {
      set('steps', f.stepsText);
      set('expected', f.expectedResults);
      rows.push(first);
      continue;
    }
    const written = (steps ?? []).filter((s) => {
      if (s.action.trim() !== '' || s.expected.trim() !== '') return true;
      report.record('dropped', 'step', 'an empty step (no action, no expected result) has no row', '(empty)', { file: kase.file });
      return false;
    });
    rows.push(written.length > 0 ? stepRow(first, written[0], 1) : first);
    written.slice(1).forEach((s, i) => rows.push(stepRow(emptyRow(), s, i + 2)));
  }
  // a path names its parents: only the deepest empty folders need a row
  const deepest = view.emptyFolders.filter((p) => !view.emptyFolders.some((q) => q.length > p.length && p.every((n, i) => q[i] === n)));
  for (const path of deepest) {
    const row = emptyRow();
    row[COLUMN.folder] = folderCell(path, report);
    rows.push(row);
  }
  return csvText(
    WRITTEN.map((f) => CSV_COLUMNS[f][0]),
    rows,
  );
}
