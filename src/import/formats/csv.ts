import { didYouMean } from '../../did-you-mean.js';
import { TmsyncError } from '../../errors.js';
import { cell, headerKey, readCsv, type CsvRow, type CsvTable } from '../csv-table.js';
import type { ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';

/**
 * The generic CSV (`tmsync import csv`): any spreadsheet with one case per row, or one row per step
 * with continuation rows, its columns found by header name. Each field of the model has built-in
 * aliases; a column map (`--map FILE`, `import.columns` of tmsync.yaml) replaces them field by
 * field. Columns no field claims become the case's `fields`. The csv writer of `tmsync export`
 * writes the first alias of each field as its header, so its files read back here.
 */

/**
 * The fields a column can fill, with their built-in header aliases (compared by `headerKey`: case,
 * spaces, `_` and `-` ignored). The first alias is the header `tmsync export csv` writes. A header
 * is claimed by the first field in this order that names it.
 */
export const CSV_COLUMNS = {
  id: ['ID', 'Source ID', 'Case ID', 'Test Case ID', 'External ID', 'Key'],
  folder: ['Folder', 'Folder Path', 'Path', 'Section', 'Section Hierarchy', 'Suite', 'Directory'],
  title: ['Title', 'Name', 'Test Case', 'Test Case Title', 'Case Title', 'Summary'],
  template: ['Template', 'Template Type'],
  description: ['Description', 'Objective', 'Details'],
  preconditions: ['Preconditions', 'Precondition', 'Pre-conditions', 'Prerequisites'],
  step_number: ['Step #', 'Step No', 'Step Number', 'Step Index'],
  steps: ['Steps', 'Step', 'Action', 'Step Action', 'Test Steps', 'Step Description'],
  expected: ['Expected Result', 'Expected', 'Expected Results', 'Result', 'Step Expected Result'],
  data: ['Data', 'Test Data', 'Step Data'],
  priority: ['Priority'],
  type: ['Type', 'Case Type', 'Test Type'],
  status: ['Status', 'State'],
  automation_type: ['Automation Type', 'Automation', 'Automation Status'],
  owner: ['Owner', 'Assignee', 'Author'],
  reviewer: ['Reviewer', 'Reviewed By'],
  labels: ['Labels', 'Tags', 'Label', 'Tag', 'Keywords'],
  attachments: ['Attachments', 'Attachment', 'Attachment Links'],
} as const satisfies Record<string, readonly string[]>;

export type CsvColumnField = keyof typeof CSV_COLUMNS;
export const CSV_COLUMN_FIELDS = Object.keys(CSV_COLUMNS) as CsvColumnField[];

/** The lookup fields of the model, each read from its own column. */
const LOOKUP_COLUMNS = ['priority', 'type', 'status', 'automation_type', 'owner', 'reviewer'] as const satisfies readonly (CsvColumnField & keyof ImportedLookups)[];

/** `A/B/C` or `A > B > C` (the `>` form wins, so that a name may hold a `/`). */
export function splitFolderPath(text: string): string[] {
  const parts = text.includes('>') ? text.split('>') : text.split('/');
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** Labels separated by commas or semicolons, trimmed, without blanks or repeats. */
export function splitLabels(text: string): string[] {
  return [...new Set(text.split(/[,;]/).map((l) => l.trim()).filter((l) => l !== ''))];
}

/** A cell's text as the model keeps it: line ends as `\n`, outer blank space removed. */
function clean(text: string): string {
  return text.replace(/\r\n?/g, '\n').trim();
}

const ITEM = /^\s*(\d+)[.)]\s+/;

/**
 * A cell holding a numbered list (`1. …` / `1) …`, one item per number, an item going on over the
 * lines up to the next number) → the items; a cell that does not start with `1.` → one item, not
 * `numbered`. A number out of sequence belongs to the item before it (`2024. was a year`).
 */
export function splitNumbered(text: string): { items: string[]; numbered: boolean } {
  const body = clean(text);
  if (body === '') return { items: [], numbered: false };
  const lines = body.split('\n');
  if (Number(ITEM.exec(lines[0])?.[1]) !== 1) return { items: [body], numbered: false };
  const items: string[][] = [];
  for (const line of lines) {
    const m = ITEM.exec(line);
    if (m && Number(m[1]) === items.length + 1) items.push([line.slice(m[0].length)]);
    else items[items.length - 1].push(line);
  }
  return { items: items.map((i) => i.join('\n').trim()), numbered: true };
}

type Columns = Record<CsvColumnField, number>;

/**
 * The column of each field: the map's names where it gives some, else the built-in aliases. The
 * map is shared by every CSV format (`import.columns` of tmsync.yaml), so a key of another format
 * is left aside (a near miss of a field is noted: a typo), and names this file lacks fall back to
 * the built-in ones (noted).
 */
function findColumns(table: CsvTable, context: ReadImportContext): Columns {
  const { file, report, columns: map } = context;
  for (const key of Object.keys(map ?? {})) {
    const near = key in CSV_COLUMNS ? undefined : didYouMean(key, CSV_COLUMN_FIELDS);
    if (near !== undefined) report.note(`${file}: the column map's "${key}" is no field of the generic CSV (did you mean "${near}"?): left aside`);
  }
  const claimed = new Set<number>();
  const columns = {} as Columns;
  const keys = table.headers.map(headerKey);
  const find = (names: readonly string[]) => names.map((n) => keys.findIndex((k, i) => k === headerKey(n) && !claimed.has(i))).find((i) => i !== -1) ?? -1;
  // the map's fields first, so that a header it names is theirs even when a built-in alias of another field matches it
  const mapped = CSV_COLUMN_FIELDS.filter((f) => map?.[f] !== undefined);
  for (const field of [...mapped, ...CSV_COLUMN_FIELDS.filter((f) => !mapped.includes(f))]) {
    const given = map?.[field];
    const names: readonly string[] = given === undefined ? [] : typeof given === 'string' ? [given] : given;
    let index = find(given === undefined ? CSV_COLUMNS[field] : names);
    if (given !== undefined && names.length > 0 && index === -1) {
      index = find(CSV_COLUMNS[field]);
      report.note(`${file}: the column map names ${names.map((n) => `"${n}"`).join(' or ')} for ${field}, which this file lacks: ${index === -1 ? 'no column holds it' : `its built-in name "${table.headers[index]}" was used`}`);
    }
    if (index !== -1) claimed.add(index);
    columns[field] = index;
  }
  return columns;
}

function listHeaders(headers: readonly string[]): string {
  return headers.length === 0 ? '(none)' : headers.map((h) => `"${h}"`).join(', ');
}

function isTcd(value: string): boolean {
  return /^(tcd|text|test case \(text\))$/i.test(value.trim());
}

/** The rows of one case: its first row and its continuation rows (steps). */
interface CaseRows {
  first: CsvRow;
  more: CsvRow[];
}

interface Reading {
  table: CsvTable;
  columns: Columns;
  file: string;
  context: ReadImportContext;
}

/** The columns no field claims, in the file's order: they become `fields`. */
function fieldColumns(reading: Reading): number[] {
  const claimed = new Set(Object.values(reading.columns));
  return reading.table.headers.map((_, i) => i).filter((i) => !claimed.has(i));
}

function hasStep(row: CsvRow, c: Columns): boolean {
  return [c.steps, c.expected, c.data].some((i) => clean(cell(row, i)) !== '');
}

/** Rows → cases (with their continuation rows) and folder-only rows (declared, possibly empty folders). */
function groupRows(reading: Reading): { cases: CaseRows[]; folders: string[][] } {
  const { table, columns: c, file } = reading;
  const cases: CaseRows[] = [];
  const folders: string[][] = [];
  const byId = new Map<string, number>();
  let current: CaseRows | undefined;
  for (const row of table.rows) {
    if (row.values.every((v) => v.trim() === '')) continue;
    const id = clean(cell(row, c.id));
    const title = clean(cell(row, c.title));
    const currentId = current ? clean(cell(current.first, c.id)) : '';
    const repeated = current !== undefined && id !== '' && id === currentId && (title === '' || title === clean(cell(current.first, c.title)));
    if (current && (repeated || (title === '' && id === '' && hasStep(row, c)))) {
      current.more.push(row);
      continue;
    }
    if (title === '' && id === '' && !hasStep(row, c)) {
      const folder = splitFolderPath(cell(row, c.folder));
      if (folder.length > 0) folders.push(folder);
      continue;
    }
    if (title === '') {
      throw new TmsyncError('invalid_import', `${file}:${row.line}: ${id === '' ? 'a step row comes before any case' : `the case "${id}" has no title`}`, {
        hint: id === '' ? 'give the first row of each case a title' : 'fill its title, or leave the id empty on the rows of its steps',
        details: { file, line: row.line },
      });
    }
    if (id !== '') {
      const before = byId.get(id);
      if (before !== undefined) {
        throw new TmsyncError('invalid_import', `${file}:${row.line}: the id "${id}" is already the case on line ${before}`, {
          hint: 'each case needs its own id; rows of one case follow each other',
          details: { file, line: row.line, id, first: before },
        });
      }
      byId.set(id, row.line);
    }
    current = { first: row, more: [] };
    cases.push(current);
  }
  return { cases, folders };
}

/** The steps of one case from its rows: one row per step, or a numbered list in one cell. */
function readSteps(reading: Reading, rows: CaseRows): ImportedActionStep[] {
  const c = reading.columns;
  const all = [rows.first, ...rows.more].filter((r) => hasStep(r, c));
  if (c.step_number !== -1 || rows.more.length > 0) {
    return all.map((r) => step(clean(cell(r, c.steps)), clean(cell(r, c.expected)), clean(cell(r, c.data))));
  }
  const actions = splitNumbered(cell(rows.first, c.steps)).items;
  const count = Math.max(actions.length, 1);
  /** an expected or data list longer than the steps gives the rest to the last step; an unnumbered text of a numbered list's case is the last step's */
  const spread = (index: number): string[] => {
    const { items, numbered } = splitNumbered(cell(rows.first, index));
    const out = Array.from({ length: count }, (_, i) => (i < count - 1 ? items[i] ?? '' : items.slice(i).join('\n')));
    return numbered || items.length === 0 ? out : [...Array<string>(count - 1).fill(''), items[0]];
  };
  const expected = spread(c.expected);
  const data = spread(c.data);
  if (actions.length === 0 && expected.every((e) => e === '') && data.every((d) => d === '')) return [];
  return Array.from({ length: count }, (_, i) => step(actions[i] ?? '', expected[i], data[i]));
}

function step(action: string, expected: string, data: string): ImportedActionStep {
  return { action, ...(expected !== '' ? { expected } : {}), ...(data !== '' ? { data } : {}) };
}

/** Non-empty texts of the given columns over rows, joined by a blank line (continuation rows of a TCD case). */
function joined(rows: CsvRow[], index: number): string {
  return rows
    .map((r) => clean(cell(r, index)))
    .filter((t) => t !== '')
    .join('\n\n');
}

function readCase(reading: Reading, rows: CaseRows, extra: number[]): ImportedCase {
  const { columns: c, file } = reading;
  const row = rows.first;
  const text = (index: number) => clean(cell(row, index));
  const folder = splitFolderPath(cell(row, c.folder));
  const title = text(c.title);
  const id = text(c.id);
  const kase: ImportedCase = { sourceId: id !== '' ? id : [...folder, title].join('/'), folder, title, at: { file, line: row.line } };
  if (text(c.description) !== '') kase.description = text(c.description);
  if (text(c.preconditions) !== '') kase.preconditions = text(c.preconditions);
  if (isTcd(text(c.template))) {
    const all = [row, ...rows.more];
    if (joined(all, c.steps) !== '') kase.stepsText = joined(all, c.steps);
    if (joined(all, c.expected) !== '') kase.expectedResults = joined(all, c.expected);
    const data = joined(all, c.data);
    if (data !== '') (kase.fields ??= []).push({ name: cellName(reading, c.data), value: data });
  } else {
    const steps = readSteps(reading, rows);
    if (steps.length > 0) kase.steps = steps;
  }
  const lookups: ImportedLookups = {};
  for (const key of LOOKUP_COLUMNS) if (text(c[key]) !== '') lookups[key] = text(c[key]);
  if (Object.keys(lookups).length > 0) kase.lookups = lookups;
  const links = text(c.attachments).split(/[\s,;]+/).filter((l) => l !== '');
  if (links.length > 0) {
    // exports hold links only: the link stays in the description, where a reader of the case sees it
    kase.description = [kase.description, links.map((l) => `[${l.replace(/^.*\//, '') || l}](${l})`).join('\n')].filter((t) => t !== undefined).join('\n\n');
    for (const link of links) reading.context.report.attachment(link, kase.at);
  }
  const labels = splitLabels(text(c.labels));
  if (labels.length > 0) kase.labels = labels;
  const fields: ImportedField[] = [...(kase.fields ?? [])];
  for (const r of [row, ...rows.more]) {
    for (const i of extra) if (clean(cell(r, i)) !== '') fields.push({ name: reading.table.headers[i], value: clean(cell(r, i)) });
  }
  if (fields.length > 0) kase.fields = fields;
  else delete kase.fields;
  return kase;
}

function cellName(reading: Reading, index: number): string {
  return reading.table.headers[index] ?? 'Data';
}

/** Cases without an id are known by folder path and title; a second one of the same gets ` #2`. */
function uniqueSourceIds(cases: ImportedCase[], reading: Reading): void {
  const seen = new Map<string, number>();
  for (const kase of cases) {
    const count = (seen.get(kase.sourceId) ?? 0) + 1;
    seen.set(kase.sourceId, count);
    if (count > 1) {
      reading.context.report.note(`${reading.file}: cases without an id are told apart by folder path and title; "${kase.sourceId}" occurs more than once, so the later ones are known as "${kase.sourceId} #2" and so on (their order in the file decides)`);
      kase.sourceId = `${kase.sourceId} #${count}`;
    }
  }
}

function readGenericCsv(text: string, context: ReadImportContext): ImportedProject {
  const file = context.file;
  const table = readCsv(text, file);
  if (table.headers.length === 0 || (table.rows.length === 0 && table.headers.every((h) => h === ''))) {
    context.report.note(`${file}: the file is empty: nothing to import`);
    return { folders: [], stepGroups: [], cases: [] };
  }
  const columns = findColumns(table, context);
  if (columns.title === -1) {
    throw new TmsyncError('invalid_import', `${file}:1: no title column: the headers are ${listHeaders(table.headers)}`, {
      hint: `name the title column in a column map (--map FILE, or import.columns in tmsync.yaml): columns: { title: "<your header>" }; the built-in names are ${CSV_COLUMNS.title.join(', ')}`,
      details: { file, line: 1, headers: table.headers },
    });
  }
  const reading: Reading = { table, columns, file, context };
  const { cases: grouped, folders } = groupRows(reading);
  const extra = fieldColumns(reading);
  const cases = grouped.map((rows) => readCase(reading, rows, extra));
  uniqueSourceIds(cases, reading);
  if (cases.length === 0 && folders.length === 0) context.report.note(`${file}: the file has headers but no rows: nothing to import`);
  return { folders, stepGroups: [], cases };
}

/** The header line of `head`, as header keys. */
function headKeys(head: string): string[] {
  const line = head.replace(/^\uFEFF/, '').split('\n', 1)[0] ?? '';
  return line.split(/[,;\t|]/).map((h) => headerKey(h.replace(/"/g, '')));
}

export const csvReader: ImportReader = {
  name: 'csv',
  tool: 'csv',
  about: 'any CSV, one case per row or one row per step, columns by header name (aliases, or a column map)',
  detect(head, file) {
    // the generic format only ever says "maybe": a tool's own CSV reader (2 for its headers) wins
    const keys = headKeys(head);
    const titled = CSV_COLUMNS.title.some((t) => keys.includes(headerKey(t)));
    return titled || /\.(csv|tsv)$/i.test(file) ? 1 : 0;
  },
  read: readGenericCsv,
};
