import { TmsyncError } from '../../errors.js';
import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import type { ImportReport } from '../report.js';

/**
 * testomat.io's classical Markdown (the "Export to markdown" download, one file per suite, parent
 * suites as directories): a `<!-- suite … -->` metadata block before the suite's `#` heading, a
 * `<!-- test … -->` block before each test's `#`/`##` heading, the test's description below it
 * with its steps under a `Steps` heading (a list; `*Expected*:` lines give the expected result)
 * and an optional `<!-- example -->` table. Metadata lines are `key: value`; a block may also be
 * written on one line (`<!-- test id: @T1a2b3c4d priority: high -->`).
 */

/** The metadata keys testomat.io writes, to split a one-line block into `key: value` pairs. */
const KEYS = ['id', 'type', 'priority', 'assignee', 'creator', 'shared', 'tags', 'labels', 'emoji'];
const BLOCK = /^\s*<!--\s*(suite|test|example)\b(.*)$/i;
const HEADING = /^\s*(#{1,6})\s+(.*?)\s*#*\s*$/;
const TITLE_TAG = /(^|\s)@([\w=\-().:&]+)/g;
const TEST_ID = /^T[0-9a-f]{8}$/i;

interface Block {
  kind: 'suite' | 'test' | 'example';
  meta: Map<string, string>;
  /** 0-based index of the block's first line */
  start: number;
  /** 0-based index of the line after the block */
  end: number;
}

function blockError(file: string, line: number, message: string, hint: string): TmsyncError {
  return new TmsyncError('invalid_import', `${file}:${line}: ${message}`, { hint, details: { file, line } });
}

/** The metadata block starting at `lines[start]` (which matches BLOCK). */
function readBlock(lines: readonly string[], start: number, file: string): Block {
  const m = BLOCK.exec(lines[start])!;
  const kind = m[1].toLowerCase() as Block['kind'];
  const body: string[] = [];
  let end = start;
  let rest = m[2];
  for (;;) {
    const close = rest.indexOf('-->');
    if (close !== -1) {
      body.push(rest.slice(0, close));
      break;
    }
    body.push(rest);
    end++;
    if (end >= lines.length) {
      throw blockError(file, start + 1, `the <!-- ${kind} metadata block is never closed with -->`, 'the file is truncated, or the block lacks its closing `-->`: export the tests again or close the block');
    }
    rest = lines[end];
  }
  const meta = new Map<string, string>();
  const split = new RegExp(`(?:^|\\s)(${KEYS.join('|')})\\s*:`, 'gi');
  for (const line of body) {
    // the one-line form holds several pairs: split before each known key; a block of lines holds
    // one pair a line, whose value may name a key (`labels: Type: smoke`)
    const text = body.length === 1 ? line.replace(split, (all: string, key: string) => `\n${key}:`) : line;
    for (const part of text.split('\n')) {
      const pair = /^\s*([^:]+?)\s*:\s*(.*?)\s*$/.exec(part);
      if (pair && pair[1] !== '') meta.set(pair[1].toLowerCase(), pair[2]);
    }
  }
  return { kind, meta, start, end: end + 1 };
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((v) => v.trim().replace(/^@/, '')).filter((v) => v !== '');
}

/** A step's expected line: `*Expected*: …`, `**Expected Result**: …`, `Expected: …`, in a list item or not. */
const EXPECTED = /^(?:[*+-]\s+)?(?:(\*\*|\*|_)expected(?:\s+results?)?\s*:?\s*\1|expected(?:\s+results?)?\s*:)\s*:?\s*(.*)$/i;
const ITEM = /^(\s*)(?:[*+-]|\d+[.)])\s+(.*)$/;

/** The list under a Steps heading → steps; text that is no list stays in the description. */
export function parseStepList(lines: readonly string[]): { steps: ImportedActionStep[]; rest: string[] } {
  const steps: ImportedActionStep[] = [];
  const rest: string[] = [];
  let base: number | undefined;
  let current: ImportedActionStep | undefined;
  let inExpected = false;
  for (const line of lines) {
    if (line.trim() === '') continue;
    const item = ITEM.exec(line);
    const expected = EXPECTED.exec(line.trim());
    if (item && !expected && (base === undefined || item[1].length <= base + 1)) {
      base ??= item[1].length;
      current = { action: item[2].trim() };
      steps.push(current);
      inExpected = false;
    } else if (current && expected) {
      current.expected = current.expected ? `${current.expected}\n${expected[2].trim()}` : expected[2].trim();
      inExpected = true;
    } else if (current) {
      const more = line.trim();
      if (inExpected) current.expected = `${current.expected}\n${more}`;
      else current.action = `${current.action}\n${more}`;
    } else rest.push(line);
  }
  for (const s of steps) if (s.expected === '') delete s.expected;
  return { steps, rest };
}

interface Body {
  description: string;
  steps: ImportedActionStep[];
}

/** A test's lines below its heading → description (with the example table) and steps. */
function readBody(lines: readonly string[], report: ImportReport, at: ImportAt): Body {
  const description: string[] = [];
  const stepLines: string[] = [];
  /** the level of the Steps heading while its section lasts */
  let stepsLevel: number | undefined;
  let examples: string[] | undefined;
  for (const line of lines) {
    if (examples) {
      if (!/^\s*-->\s*$/.test(line)) examples.push(line);
      continue;
    }
    if (BLOCK.exec(line)?.[1].toLowerCase() === 'example') {
      examples = [];
      const after = line.slice(line.indexOf('-->') + 3);
      if (line.includes('-->') && after.trim() !== '') examples.push(after);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading && /^steps\s*:?$/i.test(heading[2])) {
      stepsLevel = heading[1].length;
      continue;
    }
    if (stepsLevel !== undefined && heading && heading[1].length <= stepsLevel) stepsLevel = undefined;
    if (stepsLevel !== undefined) stepLines.push(line);
    else description.push(line);
  }
  const parsed = parseStepList(stepLines);
  if (parsed.rest.length > 0) description.push('', ...parsed.rest);
  let text = description.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  const table = (examples ?? []).join('\n').trim();
  if (table !== '') {
    text = `${text}${text === '' ? '' : '\n\n'}Examples:\n\n${table}`;
    report.record('folded', 'example', "kept in the description under 'Examples:'", table, at);
  }
  return { description: text, steps: parsed.steps };
}

const ATTACHMENT = /\((https?:\/\/[^)\s]*\/attachments\/[^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)/g;

function reportAttachments(text: string, report: ImportReport, at: ImportAt): void {
  for (const m of text.matchAll(ATTACHMENT)) report.attachment(m[1] ?? m[2], at);
}

/** `labels: Component: Auth, smoke` → a field for a label with a value, a label for one without. */
function labelsInto(value: string | undefined, labels: string[], fields: ImportedField[]): void {
  for (const label of list(value)) {
    const colon = label.indexOf(':');
    if (colon === -1) labels.push(label);
    else fields.push({ name: label.slice(0, colon).trim(), value: label.slice(colon + 1).trim() });
  }
}

interface Suite {
  folder: string[];
  labels: string[];
  /** the suite's labels with a value, given to each of its tests */
  fields: ImportedField[];
  owner?: string;
}

const TEST_KEYS = new Set(['id', 'type', 'priority', 'assignee', 'tags', 'labels']);

function readTest(block: Block, title: string, body: Body, suite: Suite, at: ImportAt, report: ImportReport): ImportedCase {
  const labels = [...suite.labels];
  const fields: ImportedField[] = [...suite.fields];
  let id = (block.meta.get('id') ?? '').replace(/^@/, '');
  const plain = title.replace(TITLE_TAG, (all: string, space: string, tag: string) => {
    if (TEST_ID.test(tag) && id === '') id = tag;
    else if (!TEST_ID.test(tag)) labels.push(tag);
    return space;
  }).replace(/\s+/g, ' ').trim();
  for (const tag of list(block.meta.get('tags'))) labels.push(tag);
  labelsInto(block.meta.get('labels'), labels, fields);
  const lookups: ImportedLookups = {};
  const type = block.meta.get('type');
  const priority = block.meta.get('priority');
  const owner = block.meta.get('assignee') || suite.owner;
  if (type) lookups.automation_type = type;
  if (priority) lookups.priority = priority;
  if (owner) lookups.owner = owner;
  for (const [key, value] of block.meta) {
    if (TEST_KEYS.has(key) || value === '') continue;
    if (key === 'shared' && value.toLowerCase() === 'false') continue;
    fields.push({ name: key.charAt(0).toUpperCase() + key.slice(1), value });
  }
  reportAttachments(body.description, report, at);
  const item: ImportedCase = { sourceId: id !== '' ? id : [...suite.folder, plain].join('/'), folder: suite.folder, title: plain, at };
  if (body.description !== '') item.description = body.description;
  if (body.steps.length > 0) item.steps = body.steps;
  for (const s of body.steps) reportAttachments(`${s.action} ${s.expected ?? ''}`, report, at);
  if (Object.keys(lookups).length > 0) item.lookups = lookups;
  const unique = [...new Set(labels)];
  if (unique.length > 0) item.labels = unique;
  if (fields.length > 0) item.fields = fields;
  return item;
}

/**
 * The folders of the file's directories below `context.root` (the export's top directory). Without
 * a root the directories are not the export's (`../Downloads/x.md`): none is taken.
 */
function directoriesOf(context: ReadImportContext): string[] {
  const root = context.root?.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  if (root === undefined) return [];
  let path = context.file.replace(/\\/g, '/').replace(/^\.\//, '');
  if (root !== '' && root !== '.') {
    if (!path.startsWith(`${root}/`)) return [];
    path = path.slice(root.length + 1);
  }
  return path.split('/').slice(0, -1).filter((p) => p !== '' && p !== '.');
}

/** The heading right after a block (blank lines skipped), or undefined. */
function headingAfter(lines: readonly string[], from: number): { title: string; index: number } | undefined {
  for (let i = from; i < lines.length; i++) {
    if (lines[i].trim() === '') continue;
    const h = HEADING.exec(lines[i]);
    return h ? { title: h[2], index: i } : undefined;
  }
  return undefined;
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const project: ImportedProject = { folders: [], stepGroups: [], cases: [] };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const dirs = directoriesOf(context);
  const fileName = (context.file.replace(/\\/g, '/').split('/').pop() ?? '').replace(/\.(test\.)?md$/i, '');
  let suite: Suite = { folder: [...dirs, fileName], labels: [], fields: [] };
  const starts: number[] = [];
  for (let i = 0; i < lines.length; i++) if (/^(suite|test)$/i.test(BLOCK.exec(lines[i])?.[1] ?? '')) starts.push(i);
  if (starts.length === 0) {
    context.report.note(`${context.file} holds no <!-- suite --> or <!-- test --> block: nothing to import`);
    return project;
  }
  for (let n = 0; n < starts.length; n++) {
    const block = readBlock(lines, starts[n], context.file);
    const next = n + 1 < starts.length ? starts[n + 1] : lines.length;
    const heading = headingAfter(lines, block.end);
    const at: ImportAt = { file: context.file, line: block.start + 1 };
    if (!heading || heading.index >= next) {
      throw blockError(context.file, block.start + 1, `the <!-- ${block.kind} --> block has no # heading with its title after it`, 'put the title as a Markdown heading (`# Title`) right below the block');
    }
    const body = lines.slice(heading.index + 1, next);
    if (block.kind === 'suite') {
      const labels: string[] = list(block.meta.get('tags'));
      const fields: ImportedField[] = [];
      labelsInto(block.meta.get('labels'), labels, fields);
      suite = { folder: [...dirs, heading.title.replace(TITLE_TAG, '$1').trim()], labels, fields, owner: block.meta.get('assignee') || undefined };
      project.folders.push(suite.folder);
      for (const f of fields) context.report.record('labelled', `suite label ${f.name}`, "given to the suite's tests as a field", f.value, at);
      if (labels.length > 0) context.report.record('labelled', 'suite tags', "given to each of the suite's tests as labels", labels.join(', '), at);
      if (block.meta.get('emoji')) context.report.record('dropped', 'suite emoji', 'folders have no emoji', block.meta.get('emoji')!, at);
      const description = body.join('\n').trim();
      if (description !== '') context.report.record('dropped', 'suite description', 'folders have no description', description, at);
      continue;
    }
    project.cases.push(readTest(block, heading.title, readBody(body, context.report, at), suite, at, context.report));
  }
  return project;
}

export const testomatioMdReader: ImportReader = {
  name: 'testomatio-md',
  tool: 'testomatio',
  about: "testomat.io's classical Markdown (<!-- suite --> and <!-- test --> metadata blocks; one file per suite, parent suites as directories)",
  detect(head, file) {
    if (/^\s*<!--\s*(suite|test)\b[^\n]*(\n[^\n]*){0,12}?-->\s*\n\s*#/im.test(head)) return 3;
    if (/^\s*<!--\s*(suite|test)\b/im.test(head)) return 2;
    return /\.md$/i.test(file) ? 1 : 0;
  },
  read,
};
