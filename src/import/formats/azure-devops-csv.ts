import { TmsyncError } from '../../errors.js';
import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject, ImportedStep, ImportedStepGroup } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import { cell, columnIndex, headerKey, readCsv } from '../csv-table.js';
import type { CsvRow, CsvTable } from '../csv-table.js';
import { htmlToMarkdown } from '../text/html-markdown.js';

/**
 * Azure Test Plans' test case export (Test Plans → a suite → Export test cases to CSV): a row per
 * work item (`ID`, `Work Item Type` "Test Case" or "Shared Steps", `Title`, the columns chosen in
 * Column options) and a row per step (`Test Step`, `Step Action`, `Step Expected`, the item's
 * columns empty). Step texts are HTML. A test case step that calls shared steps names their work
 * item (`Shared Steps 123`, `Shared steps: #123 Title`); the Shared Steps items of the file become
 * step groups. `Area Path` (`Project\A\B`) gives the folders, below the project's own level.
 */

const COLUMNS = {
  id: ['ID', 'Work Item ID', 'Test Case ID'],
  type: ['Work Item Type'],
  title: ['Title'],
  step: ['Test Step', 'Step', 'Step Number'],
  action: ['Step Action', 'Action'],
  expected: ['Step Expected', 'Expected Result', 'Step Expected Result'],
  area: ['Area Path', 'Area'],
  description: ['Description', 'Summary'],
  tags: ['Tags'],
  priority: ['Priority'],
  state: ['State'],
  automation: ['Automation status', 'Automation Status'],
  assigned: ['Assigned To'],
} as const;

type Columns = Record<keyof typeof COLUMNS, number>;

/** How a test case step names the shared steps it calls. */
const SHARED_REF = /^\s*shared\s*steps?\s*(?:id)?\s*[:#-]?\s*#?(\d+)\b/i;

interface Item {
  row: CsvRow;
  kind: 'case' | 'group';
  steps: { row: CsvRow; number: string; action: string; expected: string }[];
}

function columnsOf(table: CsvTable, file: string): Columns {
  const cols = Object.fromEntries(Object.entries(COLUMNS).map(([key, aliases]) => [key, columnIndex(table.headers, aliases)])) as Columns;
  const missing = (['id', 'type', 'title'] as const).filter((k) => cols[k] === -1).map((k) => COLUMNS[k][0]);
  if (missing.length > 0) {
    throw new TmsyncError('invalid_import', `${file}:1: not an Azure Test Plans export: the header lacks ${missing.map((m) => `"${m}"`).join(', ')}`, {
      hint: 'export the suite from Azure Test Plans (Export test cases to CSV); the ID, Work Item Type and Title columns are always there',
      details: { file, line: 1, headers: table.headers },
    });
  }
  return cols;
}

function kindOf(type: string, row: CsvRow, context: ReadImportContext): Item['kind'] | undefined {
  const key = type.trim().toLowerCase();
  if (key === 'test case' || key === '') return 'case';
  if (key === 'shared steps' || key === 'shared step') return 'group';
  context.report.record('dropped', 'Work Item Type', 'only Test Case and Shared Steps work items are imported', type, { file: context.file, line: row.line });
  return undefined;
}

/** Rows → work items with their step rows (the export's first step row may repeat; kept once). */
function group(table: CsvTable, cols: Columns, context: ReadImportContext): Item[] {
  const items: Item[] = [];
  let current: Item | undefined;
  let skipping = false;
  for (const row of table.rows) {
    const starts = cell(row, cols.id).trim() !== '' || cell(row, cols.type).trim() !== '' || cell(row, cols.title).trim() !== '';
    if (starts) {
      const kind = kindOf(cell(row, cols.type), row, context);
      skipping = kind === undefined;
      current = kind ? { row, kind, steps: [] } : undefined;
      if (current) items.push(current);
    }
    const step = { row, number: cell(row, cols.step).trim(), action: cell(row, cols.action), expected: cell(row, cols.expected) };
    if (step.number === '' && step.action.trim() === '' && step.expected.trim() === '') continue;
    if (skipping) continue;
    if (!current) {
      throw new TmsyncError('invalid_import', `${context.file}:${row.line}: a step row with no work item above it`, {
        hint: 'a step row follows the row of its test case (ID, Work Item Type, Title)',
        details: { file: context.file, line: row.line },
      });
    }
    const last = current.steps.at(-1);
    if (last && last.number === step.number && last.action === step.action && last.expected === step.expected) continue;
    current.steps.push(step);
  }
  return items;
}

/**
 * Azure wraps every step in `<DIV><P>…</P></DIV>`: such a fragment of plain words (no attribute,
 * entity or character Markdown would escape) reads as its paragraphs without starting turndown,
 * whose DOM per call makes a large export crawl. Anything else goes through htmlToMarkdown.
 */
const PLAIN_HTML = /^(?:[^<>&\\*_`#~[\]|+=-]|<\/?(?:div|p|span)>|<br\s*\/?>)*$/i;

export function stepHtml(html: string): string {
  if (!html.includes('<') || !PLAIN_HTML.test(html) || /<br\s*\/?>\s*<br/i.test(html) || /^\s*\d+[.)]/m.test(html.replace(/<[^>]*>/g, '\n'))) return htmlToMarkdown(html);
  return html
    .replace(/\s+/g, ' ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(?:div|p)>/gi, '\n\n')
    .replace(/<\/?span>/gi, '')
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function areaParts(area: string): string[] {
  return area.split(/[\\/]+/).map((p) => p.trim()).filter((p) => p !== '');
}

/**
 * How many leading Area Path levels are the project itself: Azure writes every path from the
 * project (`Shop\Checkout`), so one first level shared by all rows is the project and left out;
 * paths that start differently (a file written by hand without the project) are folders throughout.
 */
function projectLevels(areas: readonly string[]): number {
  const firsts = new Set(areas.map((a) => areaParts(a)[0]).filter((p) => p !== undefined));
  return firsts.size <= 1 ? 1 : 0;
}

/** Step texts converted once per distinct text (exports repeat "Log in" and its kin thousands of times). */
type Convert = (html: string) => string;

function memo(): Convert {
  const seen = new Map<string, string>();
  return (html) => {
    let out = seen.get(html);
    if (out === undefined) seen.set(html, (out = stepHtml(html)));
    return out;
  };
}

function actionSteps(item: Item, convert: Convert): ImportedActionStep[] {
  const out: ImportedActionStep[] = [];
  for (const s of item.steps) {
    const step: ImportedActionStep = { action: convert(s.action) };
    const expected = convert(s.expected);
    if (expected !== '') step.expected = expected;
    out.push(step);
  }
  return out;
}

const SLOTTED = ['id', 'type', 'title', 'step', 'action', 'expected', 'area', 'description', 'tags', 'priority', 'state', 'automation', 'assigned'] as const;

function readCase(item: Item, table: CsvTable, cols: Columns, groups: Set<string>, convert: Convert, skip: number, context: ReadImportContext): ImportedCase {
  const row = item.row;
  const at: ImportAt = { file: context.file, line: row.line };
  const title = cell(row, cols.title).trim();
  const folder = areaParts(cell(row, cols.area)).slice(skip);
  const id = cell(row, cols.id).trim();
  const out: ImportedCase = { sourceId: id !== '' ? id : [...folder, title].join('/'), folder, title, at };
  const description = htmlToMarkdown(cell(row, cols.description));
  if (description !== '') out.description = description;
  const lookups: ImportedLookups = {};
  const put = (slot: keyof ImportedLookups, index: number) => {
    const value = cell(row, index).trim();
    if (value !== '') lookups[slot] = value;
  };
  put('priority', cols.priority);
  put('status', cols.state);
  put('automation_type', cols.automation);
  put('owner', cols.assigned);
  if (Object.keys(lookups).length > 0) out.lookups = lookups;
  const labels = cell(row, cols.tags).split(/[;,]/).map((t) => t.trim()).filter((t) => t !== '');
  if (labels.length > 0) out.labels = [...new Set(labels)];
  const slotted = new Set(SLOTTED.map((k) => cols[k]));
  const fields: ImportedField[] = [];
  table.headers.forEach((name, i) => {
    const value = cell(row, i).trim();
    if (!slotted.has(i) && value !== '') fields.push({ name, value: htmlToMarkdown(value) });
  });
  if (fields.length > 0) out.fields = fields;
  const steps: ImportedStep[] = [];
  for (const [n, s] of actionSteps(item, convert).entries()) {
    const ref = SHARED_REF.exec(s.action);
    if (ref && groups.has(ref[1])) steps.push({ use: ref[1] });
    else {
      if (ref) context.report.record('folded', 'shared steps reference', 'the Shared Steps work item is not in the export: kept as a step naming it', s.action, { file: context.file, line: item.steps[n].row.line });
      steps.push(s);
    }
  }
  if (steps.length > 0) out.steps = steps;
  for (const link of `${out.description ?? ''}\n${item.steps.map((s) => `${s.action} ${s.expected}`).join('\n')}`.matchAll(/(?:src|href)="([^"]+)"|\]\((https?:[^)\s]+)\)/g)) {
    context.report.attachment(link[1] ?? link[2], at);
  }
  return out;
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const project: ImportedProject = { folders: [], stepGroups: [], cases: [] };
  const table = readCsv(text, context.file);
  if (table.headers.length === 0 || table.rows.length === 0) {
    context.report.note(`${context.file} holds no work item: nothing to import`);
    return project;
  }
  const cols = columnsOf(table, context.file);
  const items = group(table, cols, context);
  const convert = memo();
  const skip = projectLevels(items.map((i) => cell(i.row, cols.area)));
  const groups = new Set<string>();
  for (const item of items.filter((i) => i.kind === 'group')) {
    const id = cell(item.row, cols.id).trim();
    const title = cell(item.row, cols.title).trim();
    if (id === '') {
      throw new TmsyncError('invalid_import', `${context.file}:${item.row.line}: the Shared Steps "${title}" have no ID`, {
        hint: 'test cases call shared steps by their work item ID: export the shared steps from Azure with their IDs',
        details: { file: context.file, line: item.row.line },
      });
    }
    groups.add(id);
    const stepGroup: ImportedStepGroup = { sourceId: id, title, steps: actionSteps(item, convert), at: { file: context.file, line: item.row.line } };
    project.stepGroups.push(stepGroup);
  }
  for (const item of items.filter((i) => i.kind === 'case')) project.cases.push(readCase(item, table, cols, groups, convert, skip, context));
  if (project.cases.length === 0 && project.stepGroups.length === 0) context.report.note(`${context.file} holds no test case`);
  return project;
}

export const azureDevopsCsvReader: ImportReader = {
  name: 'azure-devops-csv',
  tool: 'azure-devops',
  about: "Azure Test Plans' test case export in CSV (one row per step, Shared Steps work items, Area Path folders)",
  detect(head, file) {
    const end = head.indexOf('\n');
    const header = headerKey(end === -1 ? head : head.slice(0, end));
    const has = (name: string) => header.includes(headerKey(name));
    if (has('Work Item Type') && has('Step Action') && has('Step Expected')) return 3;
    if (has('Work Item Type') && has('Test Step')) return 2;
    return /(^|[^a-z])(azure|ado|devops)([^a-z]|$)/i.test(file.split(/[\\/]/).pop() ?? '') && /\.csv$/i.test(file) ? 1 : 0;
  },
  read,
};
