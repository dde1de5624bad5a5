import { cell, columnIndex, readCsv, type CsvRow } from '../csv-table.js';
import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import { testrailMarkdown } from '../text/testrail-markdown.js';
import { caseSourceId, fallbackSourceId, FIELD, importError, isLayoutTemplate, stepData, suiteFolder } from './testrail-shared.js';

/**
 * TestRail's CSV export (Test Cases → Export → CSV) with the columns the user chose. Columns are
 * found by TestRail's header names (and `--map` aliases), never by position. Separated steps come
 * either as numbered lists in one cell per column (`1. a\n2. b`) or one row per step, the rows
 * after a case's first having an empty ID and Title. docs/import-formats/testrail-csv.md has the mapping.
 */

/** The columns the reader knows, by a key (`--map` may give more aliases per key), with TestRail's names. */
const COLUMNS = {
  id: ['ID', 'Case ID'],
  title: ['Title'],
  suite: ['Suite'],
  section: ['Section'],
  hierarchy: ['Section Hierarchy'],
  sectionDescription: ['Section Description'],
  template: ['Template'],
  type: ['Type'],
  priority: ['Priority'],
  status: ['Status'],
  owner: ['Assigned To'],
  automation: ['Automation Type'],
  estimate: ['Estimate'],
  references: ['References'],
  milestone: ['Milestone'],
  preconditions: ['Preconditions', 'Preconds'],
  step: ['Steps (Step)'],
  stepExpected: ['Steps (Expected Result)'],
  stepInfo: ['Steps (Additional Info)'],
  stepRefs: ['Steps (References)'],
  steps: ['Steps'],
  expected: ['Expected Result', 'Expected Results'],
  mission: ['Mission'],
  goals: ['Goals'],
} as const;
type Column = keyof typeof COLUMNS;

/** Columns that place a case (the folder says it) or record its history (the service keeps its own): read or dropped, never folded. */
const STRUCTURAL = ['Section ID', 'Section Depth', 'Suite ID'];
const HISTORY = ['Created By', 'Created On', 'Updated By', 'Updated On'];

type Columns = Record<Column, number>;

function findColumns(headers: readonly string[], context: ReadImportContext): Columns {
  const out = {} as Columns;
  for (const key of Object.keys(COLUMNS) as Column[]) {
    const given = context.columns?.[key];
    const extra = given === undefined ? [] : typeof given === 'string' ? [given] : given;
    out[key] = columnIndex(headers, [...extra, ...COLUMNS[key]]);
  }
  // an export whose separated steps are headed plain `Steps` beside `Steps (Expected Result)`
  if (out.step === -1 && out.stepExpected !== -1 && out.expected === -1 && out.steps !== -1) {
    out.step = out.steps;
    out.steps = -1;
  }
  return out;
}

/**
 * A cell holding a numbered list (`1. a\n2. b`): its items by number. Without `max` (the steps'
 * own column) the list starts at 1 and only the next number starts an item, so a list inside a
 * step stays in it. With `max` (the columns beside it: expected results, additional info) a number
 * may be left out (a step without one): an item starts at any number above the last, up to `max`.
 * Undefined when the cell does not start with a number that may start the list.
 */
export function numberedItems(text: string, max?: number): Map<number, string> | undefined {
  const lines = text.replace(/\r\n?/g, '\n').trim().split('\n');
  const starts = (line: string, last: number): number | undefined => {
    const m = /^(\d+)\.(?:\s|$)/.exec(line.trimStart());
    const k = m ? Number(m[1]) : NaN;
    return max === undefined ? (k === last + 1 ? k : undefined) : k > last && k <= max ? k : undefined;
  };
  if (starts(lines[0], 0) === undefined) return undefined;
  const items = new Map<number, string>();
  let n = 0;
  for (const line of lines) {
    const k = starts(line, n);
    if (k !== undefined) items.set((n = k), line.trimStart().replace(/^\d+\.\s?/, ''));
    else items.set(n, `${items.get(n)}\n${line}`);
  }
  for (const [k, v] of items) items.set(k, v.trim());
  return items;
}

interface CaseRows {
  first: CsvRow;
  rows: CsvRow[];
}

/**
 * Rows → cases: a row with an ID or a Title starts a case; the rows after it without either (or
 * repeating its ID without another Title) are its further steps.
 */
function groupRows(rows: readonly CsvRow[], cols: Columns, file: string): CaseRows[] {
  const cases: CaseRows[] = [];
  for (const row of rows) {
    const id = cell(row, cols.id).trim();
    const title = cell(row, cols.title).trim();
    const last = cases[cases.length - 1];
    const repeats = last !== undefined && id !== '' && id === cell(last.first, cols.id).trim() && (title === '' || title === cell(last.first, cols.title).trim());
    if ((id !== '' || title !== '') && !repeats) cases.push({ first: row, rows: [row] });
    else if (repeats) last.rows.push(row);
    else if (row.values.some((v) => v.trim() !== '')) {
      if (!last) throw importError(file, row.line, 'a row without ID and Title comes before any case', 'a step row belongs under the row of its case: check the export');
      last.rows.push(row);
    }
  }
  return cases;
}

function stepOf(action: string, expected: string, info: string, refs: string): ImportedActionStep {
  const data = stepData(info, refs);
  return { action, ...(expected !== '' ? { expected } : {}), ...(data !== undefined ? { data } : {}) };
}

/** Separated steps: one row per step, or numbered lists in the first row's cells. */
function readSteps(group: CaseRows, cols: Columns, text: (row: CsvRow, col: number) => string): ImportedActionStep[] {
  if (group.rows.length > 1) {
    return group.rows
      .map((r) => stepOf(text(r, cols.step), text(r, cols.stepExpected), text(r, cols.stepInfo), text(r, cols.stepRefs)))
      .filter((s) => s.action !== '' || s.expected !== undefined || s.data !== undefined);
  }
  const row = group.first;
  const cells = [cols.step, cols.stepExpected, cols.stepInfo, cols.stepRefs].map((c) => text(row, c));
  if (cells.every((c) => c === '')) return [];
  const actions = numberedItems(cells[0]);
  const count = actions ? Math.max(...actions.keys()) : 1;
  const lists = cells.map((c, i) => (i === 0 ? actions : actions ? numberedItems(c, count) : undefined));
  // a cell that is not a numbered list belongs to the only step, or to the last one
  const item = (i: number, n: number) => {
    const list = lists[i];
    if (list) return list.get(n) ?? '';
    return n === count ? cells[i] : '';
  };
  const steps: ImportedActionStep[] = [];
  for (let n = 1; n <= count; n++) steps.push(stepOf(item(0, n), item(1, n), item(2, n), item(3, n)));
  return steps;
}

/** Where the columns are: the known ones by key, the history ones, and the rest (custom fields, named by their header). */
interface Layout {
  headers: readonly string[];
  cols: Columns;
  history: number[];
  custom: number[];
}

function layoutOf(headers: readonly string[], context: ReadImportContext): Layout {
  const cols = findColumns(headers, context);
  const known = new Set<number>(Object.values(cols));
  const history = HISTORY.map((h) => columnIndex(headers, [h])).filter((i) => i !== -1);
  const skip = new Set([...STRUCTURAL.map((h) => columnIndex(headers, [h])), ...history]);
  const custom = headers.map((_, i) => i).filter((i) => !known.has(i) && !skip.has(i) && headers[i].trim() !== '');
  return { headers, cols, history, custom };
}

function readCase(group: CaseRows, { headers, cols, history, custom }: Layout, context: ReadImportContext): ImportedCase {
  const { file, report } = context;
  const row = group.first;
  const at: ImportAt = { file, line: row.line };
  const text = (r: CsvRow, col: number) => testrailMarkdown(cell(r, col), report, { file, line: r.line });
  // each cell converted once: converting reports its attachment links
  const values = new Map<number, string>();
  const value = (col: number) => {
    let v = values.get(col);
    if (v === undefined) values.set(col, (v = text(row, col)));
    return v;
  };
  const hierarchy = value(cols.hierarchy);
  const sections = hierarchy !== '' ? hierarchy.split(/\s+>\s+/) : value(cols.section) !== '' ? [value(cols.section)] : [];
  const folder = [...suiteFolder(value(cols.suite)), ...sections.map((s) => s.trim())];
  const title = value(cols.title).replace(/\s+/g, ' ');
  if (title === '') throw importError(file, row.line, 'the case has no Title', 'every TestRail case has a title: fill in the Title column');
  const c: ImportedCase = { sourceId: caseSourceId(value(cols.id)) ?? fallbackSourceId(folder, title), folder, title, at };

  const lookups: ImportedLookups = {};
  const lookup = (key: keyof ImportedLookups, col: number) => {
    if (value(col) !== '') lookups[key] = value(col);
  };
  lookup('type', cols.type);
  lookup('priority', cols.priority);
  lookup('status', cols.status);
  lookup('owner', cols.owner);
  lookup('automation_type', cols.automation);
  if (Object.keys(lookups).length > 0) c.lookups = lookups;

  if (value(cols.preconditions) !== '') c.preconditions = value(cols.preconditions);
  if (value(cols.mission) !== '') c.description = value(cols.mission);
  const steps = readSteps(group, cols, (r, col) => (r === row ? value(col) : text(r, col)));
  if (steps.length > 0) c.steps = steps;
  const stepsText = value(cols.steps);
  const expected = value(cols.expected);
  const fields: ImportedField[] = [];
  if (steps.length === 0) {
    if (stepsText !== '') c.stepsText = stepsText;
    if (expected !== '') c.expectedResults = expected;
  } else {
    // a case with both layouts filled: the separated steps are its steps, the text is kept beside them
    if (stepsText !== '') fields.push({ name: headers[cols.steps], value: stepsText });
    if (expected !== '') fields.push({ name: headers[cols.expected], value: expected });
  }
  const template = value(cols.template);
  if (!isLayoutTemplate(template)) fields.push({ name: FIELD.template, value: template });
  fields.push({ name: FIELD.estimate, value: value(cols.estimate) }, { name: FIELD.references, value: value(cols.references) }, { name: FIELD.milestone, value: value(cols.milestone) });
  fields.push({ name: FIELD.goals, value: value(cols.goals) });
  for (const i of custom) fields.push({ name: headers[i], value: value(i) });
  for (const i of history) {
    const v = value(i);
    if (v !== '') report.record('dropped', headers[i], 'history: the service records its own', v, at);
  }
  const kept = fields.filter((f) => f.value !== '');
  if (kept.length > 0) c.fields = kept;
  return c;
}

function detect(head: string, file: string): number {
  const firstLine = head.replace(/^\uFEFF/, '').split('\n', 1)[0];
  let headers: readonly string[] = [];
  try {
    headers = readCsv(firstLine, file).headers;
  } catch {
    headers = [];
  }
  const has = (name: string) => columnIndex(headers, [name]) !== -1;
  if (has('Section Hierarchy') || has('Steps (Step)') || has('Steps (Expected Result)')) return 3;
  // `Section` (Qase, Xray and others say suite, folder or path): TestRail's word
  if (has('Title') && has('Section') && ['ID', 'Priority', 'Type', 'Template', 'Preconditions'].some(has)) return 2;
  return /testrail[^/\\]*\.csv$/i.test(file) ? 1 : 0;
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const { file, report } = context;
  const table = readCsv(text, file);
  const project: ImportedProject = { folders: [], stepGroups: [], cases: [] };
  if (table.rows.length === 0) {
    report.note(`${file} holds no TestRail case: nothing to import from it`);
    return project;
  }
  const layout = layoutOf(table.headers, context);
  const { cols } = layout;
  if (cols.title === -1) {
    throw importError(file, 1, `the header has no Title column (it has ${table.headers.map((h) => `"${h}"`).join(', ')})`, 'export with the Title column, or name it with --map (title: YOUR HEADER)');
  }
  const described = new Set<string>();
  for (const group of groupRows(table.rows, cols, file)) {
    const c = readCase(group, layout, context);
    project.cases.push(c);
    const description = cell(group.first, cols.sectionDescription).trim();
    const key = c.folder.join('\u0000');
    if (description !== '' && !described.has(key)) {
      described.add(key);
      report.record('dropped', 'Section Description', 'a folder has no description in the case model', description, c.at);
    }
  }
  if (project.cases.some((c) => c.steps)) {
    report.note("TestRail's CSV export writes shared steps into each case as plain steps: they are imported as the case's own steps (the XML export, testrail-xml, keeps them as step groups)");
  }
  return project;
}

export const testrailCsvReader: ImportReader = {
  name: 'testrail-csv',
  tool: 'testrail',
  about: "TestRail's CSV export: the columns you chose, steps as numbered lists in one cell or one row per step",
  detect,
  read,
};
