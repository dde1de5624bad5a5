import { TmsyncError } from '../../errors.js';
import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import { cell, columnIndex, headerKey, readCsv } from '../csv-table.js';
import type { CsvRow, CsvTable } from '../csv-table.js';
import { QASE_FIELDS, QASE_LOOKUPS, qaseField, qaseTags, qaseValue, reportMarkdownAttachments } from './qase-common.js';

/**
 * Qase's CSV export (and import template): one row per suite (no case id; `suite_id`,
 * `suite_parent_id`, `suite`) and one row per case (`v2.id` or `id`, title, …, `suite_id`). The
 * steps are numbered lists in `steps_actions`, `steps_result` and `steps_data`: `1. text` (V1) or
 * `1. "text with \n escapes"` (V2, each item a JSON string), matched by number. A row with no id
 * and no suite that carries steps continues the case above it (one row per step).
 */

/** The columns the reader knows; every other non-empty column becomes a field of its name. */
const COLUMNS = {
  id: ['v2.id', 'id'],
  title: ['title'],
  description: ['description'],
  preconditions: ['preconditions'],
  tags: ['tags'],
  actions: ['steps_actions', 'steps_action'],
  results: ['steps_result', 'steps_results', 'steps_expected_result'],
  data: ['steps_data'],
  stepsType: ['steps_type'],
  suiteId: ['suite_id'],
  suiteParent: ['suite_parent_id'],
  suite: ['suite'],
  suiteWithoutCases: ['suite_without_cases'],
  milestoneId: ['milestone_id'],
  parameters: ['parameters', 'params'],
} as const;

type Columns = Record<keyof typeof COLUMNS, number>;

/** An item of a numbered list cell: V2 items are JSON strings, V1 items plain text. */
function itemText(raw: string): string {
  const t = raw.trim();
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      return (JSON.parse(t) as string).trim();
    } catch {
      return t.slice(1, -1).trim();
    }
  }
  return t;
}

/** `1. a\n2. b` → Map(1 → 'a', 2 → 'b'); a line that starts no number continues the item above. */
export function numberedItems(cellText: string): Map<number, string> {
  const items = new Map<number, string>();
  let current: number | undefined;
  for (const line of cellText.replace(/\r\n?/g, '\n').split('\n')) {
    // `1. text`: a number with a dot and a space (`3.5 kg` on a line of its own continues the item)
    const m = /^\s*(\d+)[.)](?:\s+(.*))?$/.exec(line);
    if (m) {
      current = Number(m[1]);
      items.set(current, m[2] ?? '');
    } else if (current !== undefined) items.set(current, `${items.get(current)}\n${line}`);
    else if (line.trim() !== '') items.set((current = 1), line);
  }
  for (const [n, raw] of items) items.set(n, itemText(raw.replace(/\n+$/, '')));
  return items;
}

function stepsOf(row: CsvRow, cols: Columns): ImportedActionStep[] {
  const actions = numberedItems(cell(row, cols.actions));
  const results = numberedItems(cell(row, cols.results));
  const data = numberedItems(cell(row, cols.data));
  const numbers = [...new Set([...actions.keys(), ...results.keys(), ...data.keys()])].sort((a, b) => a - b);
  const steps: ImportedActionStep[] = [];
  for (const n of numbers) {
    const step: ImportedActionStep = { action: actions.get(n) ?? '' };
    const expected = results.get(n) ?? '';
    const value = data.get(n) ?? '';
    if (expected !== '') step.expected = expected;
    if (value !== '') step.data = value;
    if (step.action !== '' || expected !== '' || value !== '') steps.push(step);
  }
  return steps;
}

interface Suite {
  title: string;
  parent: string;
}

function folderOf(suiteId: string, suites: Map<string, Suite>, fallback: string): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  for (let id = suiteId; id !== '' && suites.has(id) && !seen.has(id); id = suites.get(id)!.parent) {
    seen.add(id);
    path.unshift(suites.get(id)!.title);
  }
  if (path.length === 0 && fallback !== '') path.push(fallback);
  return path;
}

function columnsOf(table: CsvTable, file: string): Columns {
  const cols = Object.fromEntries(Object.entries(COLUMNS).map(([key, aliases]) => [key, columnIndex(table.headers, aliases)])) as Columns;
  if (cols.title === -1 || (cols.id === -1 && cols.suiteId === -1)) {
    throw new TmsyncError('invalid_import', `${file}:1: not a Qase CSV export: the header has no "title" and "v2.id" (or "id") columns`, {
      hint: 'export the repository from Qase with Export → CSV, or choose the format that matches the file',
      details: { file, line: 1, headers: table.headers },
    });
  }
  return cols;
}

/** Where each kind of column is, found once per file. */
interface Layout {
  cols: Columns;
  lookups: [keyof ImportedLookups, number][];
  fields: [string, number][];
  /** the columns with no meaning to the reader (custom fields): fields by header name */
  extra: number[];
}

function layoutOf(table: CsvTable, cols: Columns): Layout {
  const lookups = Object.entries(QASE_LOOKUPS).map(([key, slot]): [keyof ImportedLookups, number] => [slot, columnIndex(table.headers, [key])]);
  const fields = Object.keys(QASE_FIELDS).map((key): [string, number] => [key, columnIndex(table.headers, [key])]);
  const used = new Set<number>([...Object.values(cols), ...lookups.map(([, i]) => i), ...fields.map(([, i]) => i)]);
  const extra = table.headers.map((h, i) => (used.has(i) ? -1 : i)).filter((i) => i !== -1);
  return { cols, lookups, fields, extra };
}

function readCase(row: CsvRow, table: CsvTable, layout: Layout, folder: string[], context: ReadImportContext): ImportedCase {
  const cols = layout.cols;
  const at: ImportAt = { file: context.file, line: row.line };
  const item: ImportedCase = { sourceId: cell(row, cols.id).trim(), folder, title: cell(row, cols.title).trim(), at };
  const description = cell(row, cols.description).trim();
  const preconditions = cell(row, cols.preconditions).trim();
  if (description !== '') item.description = description;
  if (preconditions !== '') item.preconditions = preconditions;
  reportMarkdownAttachments(description, context.report, at);
  reportMarkdownAttachments(preconditions, context.report, at);
  const lookups: ImportedLookups = {};
  const fields: ImportedField[] = [];
  for (const [slot, index] of layout.lookups) {
    const value = qaseValue(cell(row, index));
    if (value !== '') lookups[slot] = value;
  }
  for (const [key, index] of layout.fields) qaseField(key, cell(row, index), fields);
  const parameters = cell(row, cols.parameters).trim();
  if (parameters !== '') fields.push({ name: 'Parameters', value: parameters });
  for (const i of layout.extra) {
    const value = qaseValue(cell(row, i));
    if (value !== '') fields.push({ name: table.headers[i], value });
  }
  if (Object.keys(lookups).length > 0) item.lookups = lookups;
  if (fields.length > 0) item.fields = fields;
  const labels = qaseTags(cell(row, cols.tags));
  if (labels.length > 0) item.labels = labels;
  const steps = stepsOf(row, cols);
  for (const step of steps) reportMarkdownAttachments(step.action, context.report, at);
  if (steps.length > 0) item.steps = steps;
  return item;
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const project: ImportedProject = { folders: [], stepGroups: [], cases: [] };
  const table = readCsv(text, context.file);
  if (table.headers.length === 0 || table.rows.length === 0) {
    context.report.note(`${context.file} holds no suite and no case: nothing to import`);
    return project;
  }
  const cols = columnsOf(table, context.file);
  const layout = layoutOf(table, cols);
  // suites first: a case may come before the row of its suite
  const suites = new Map<string, Suite>();
  const suiteRows = new Set(table.rows.filter((r) => cell(r, cols.id).trim() === '' && cell(r, cols.title).trim() === '' && cell(r, cols.suiteId).trim() !== ''));
  for (const r of suiteRows) suites.set(cell(r, cols.suiteId).trim(), { title: cell(r, cols.suite).trim(), parent: cell(r, cols.suiteParent).trim() });
  for (const r of suiteRows) project.folders.push(folderOf(cell(r, cols.suiteId).trim(), suites, ''));
  let last: ImportedCase | undefined;
  for (const row of table.rows) {
    if (suiteRows.has(row)) continue;
    const id = cell(row, cols.id).trim();
    const title = cell(row, cols.title).trim();
    if (id === '' && title === '') {
      // one row per step: the steps continue the case above
      const more = stepsOf(row, cols);
      if (more.length > 0 && last) last.steps = [...(last.steps ?? []), ...more];
      else if (more.length > 0) throw new TmsyncError('invalid_import', `${context.file}:${row.line}: steps with no case above them`, { hint: 'give the row a v2.id and a title, or move it under its case', details: { file: context.file, line: row.line } });
      continue;
    }
    if (id === '') {
      throw new TmsyncError('invalid_import', `${context.file}:${row.line}: the case "${title}" has no id (column ${table.headers[cols.id] ?? 'v2.id'})`, {
        hint: 'export the repository from Qase again: the export gives every case its id, which keeps a re-import on the same files',
        details: { file: context.file, line: row.line },
      });
    }
    const folder = folderOf(cell(row, cols.suiteId).trim(), suites, cell(row, cols.suite).trim());
    last = readCase(row, table, layout, folder, context);
    project.cases.push(last);
  }
  if (project.cases.length === 0) context.report.note(`${context.file} holds no case`);
  return project;
}

export const qaseCsvReader: ImportReader = {
  name: 'qase-csv',
  tool: 'qase',
  about: "Qase's CSV export (V1 and V2: suites by suite_id/suite_parent_id, steps as numbered lists)",
  detect(head, file) {
    const header = headerKey(head.slice(0, Math.max(0, head.indexOf('\n')) || head.length));
    if (/\bsteps actions\b/.test(header) && /\bsuite parent id\b/.test(header)) return 3;
    if (/\bv2\.id\b/.test(header) && /\bsteps type\b/.test(header)) return 3;
    if (/\bsteps actions\b/.test(header)) return 2;
    return /qase[^/\\]*\.csv$/i.test(file) ? 1 : 0;
  },
  read,
};
