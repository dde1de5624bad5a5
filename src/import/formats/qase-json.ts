import { TmsyncError } from '../../errors.js';
import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject, ImportedStep, ImportedStepGroup } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import type { ImportReport } from '../report.js';
import { QASE_FIELDS, QASE_LOOKUPS, qaseField, qaseTags, qaseValue, reportMarkdownAttachments } from './qase-common.js';

/**
 * Qase's project export in JSON: `{ suites: [{ id, title, description, suites: […], cases: […] }],
 * cases?: […], shared_steps?: […] }`. A case: id, title, description, preconditions,
 * postconditions, the lookups (priority, type, status, automation), attributes with no slot
 * (severity, behavior, layer, is_flaky, milestone), tags, custom_fields, params, attachments and
 * `steps` ({ position, action, expected_result, data, steps: nested, shared_step_hash }). Qase's
 * texts are Markdown already. A step with a `shared_step_hash` calls the shared step of that hash.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string {
  return qaseValue(value);
}

/**
 * Where JSON text first breaks (Node 20's JSON.parse names no position for most errors): a
 * recursive-descent scan, run only after JSON.parse failed. `source.length` for text cut short.
 */
export function jsonErrorOffset(source: string): number {
  let i = 0;
  /** thrown to unwind the scan at the first offending character */
  class Broken extends Error {}
  const ws = () => {
    while (i < source.length && ' \t\r\n'.includes(source[i])) i++;
  };
  const fail = (): never => {
    throw new Broken();
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (source[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++;
    while (i < source.length && source[i] !== '"') {
      if (source[i] === '\\') i++;
      else if (source.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= source.length) fail();
    i++;
  };
  const value = (): void => {
    ws();
    const ch = source[i];
    if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      i++;
      ws();
      if (source[i] === close) return void i++;
      for (;;) {
        if (ch === '{') {
          ws();
          if (source[i] !== '"') fail();
          string();
          ws();
          if (source[i] !== ':') fail();
          i++;
        }
        value();
        ws();
        if (source[i] === ',') i++;
        else if (source[i] === close) return void i++;
        else fail();
      }
    }
    if (ch === '"') return string();
    if (ch === 't' || ch === 'f' || ch === 'n') return literal(ch === 't' ? 'true' : ch === 'f' ? 'false' : 'null');
    const number = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(source.slice(i, i + 64));
    if (!number) fail();
    i += number![0].length;
  };
  try {
    value();
    ws();
    return i < source.length ? i : source.length;
  } catch (err) {
    if (!(err instanceof Broken)) throw err;
    return Math.min(i, source.length);
  }
}

function lineAt(source: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < source.length; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

export function parseJsonExport(source: string, file: string, what: string): unknown {
  try {
    return JSON.parse(source) as unknown;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    const offset = jsonErrorOffset(source);
    const line = lineAt(source, offset);
    const truncated = offset >= source.length || source.slice(offset).trim() === '';
    const near = JSON.stringify(source.slice(offset, offset + 12));
    throw new TmsyncError('invalid_import', `${file}:${line}: ${truncated ? 'the JSON ends too early: the file is truncated' : `not valid JSON: unexpected ${near}`}`, {
      hint: `export the ${what} again; a file cut short by a download or a copy cannot be read`,
      details: { file, line },
    });
  }
}

/**
 * Lines of the cases: JSON.parse keeps none. The `"title": "…"` pairs of the text are listed once,
 * in order; the walk follows the text's order, so each case's title is the next matching pair
 * (compared decoded: an export may escape `é` as `\u00e9`). A few pairs are skipped at most (the
 * titles of custom fields and tags); no match leaves the line out rather than scan the file again.
 */
class LineFinder {
  private readonly titles: number[] = [];
  private next = 0;
  private readonly starts: number[] = [0];
  constructor(private readonly source: string) {
    for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) this.starts.push(i + 1);
    for (const m of source.matchAll(/"title"\s*:\s*"/g)) this.titles.push(m.index + m[0].length - 1);
  }

  private stringAt(at: number): string | undefined {
    let end = at + 1;
    while (end < this.source.length && this.source[end] !== '"') end += this.source[end] === '\\' ? 2 : 1;
    try {
      return JSON.parse(this.source.slice(at, end + 1)) as string;
    } catch {
      return undefined;
    }
  }

  /** The line of the next `"title": "<title>"`; `inner` title pairs inside its object (custom fields, tags) are passed over. */
  lineOf(title: string, inner = 0): number | undefined {
    for (let j = this.next; j < Math.min(this.titles.length, this.next + 64); j++) {
      if (this.stringAt(this.titles[j])?.trim() !== title) continue;
      this.next = j + 1 + inner;
      const at = this.titles[j];
      let lo = 0;
      let hi = this.starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (this.starts[mid] <= at) lo = mid;
        else hi = mid - 1;
      }
      return lo + 1;
    }
    return undefined;
  }
}

/** How many `"title": "…"` pairs an object holds below its own (custom fields, tags as objects). */
function innerTitles(value: unknown): number {
  let count = 0;
  for (const v of Array.isArray(value) ? value : isObject(value) ? Object.values(value) : []) {
    if (isObject(v) && typeof v.title === 'string') count++;
    if (typeof v === 'object' && v !== null) count += innerTitles(v);
  }
  return count;
}

interface Walk {
  file: string;
  report: ImportReport;
  lines: LineFinder;
  project: ImportedProject;
  /** shared step hashes the export defines */
  shared: Set<string>;
}

/** A Markdown link list of a case's or step's attachments (`{ url, filename }` or plain URLs). */
function attachmentLinks(value: unknown, walk: Walk, at: ImportAt): string {
  const links: string[] = [];
  for (const item of list(value)) {
    const url = typeof item === 'string' ? item : isObject(item) ? text(item.url) : '';
    if (url === '') continue;
    const name = isObject(item) ? text(item.filename) || text(item.name) || url : url;
    links.push(`[${name}](${url})`);
    walk.report.attachment(url, at);
  }
  return links.join('\n');
}

/** Steps in order, nested ones right after their parent (the case model has one level). */
function readSteps(value: unknown, walk: Walk, at: ImportAt, out: ImportedStep[], depth = 0): void {
  const steps = list(value).filter(isObject);
  steps.sort((a, b) => (Number(a.position) || 0) - (Number(b.position) || 0));
  for (const step of steps) {
    const hash = text(step.shared_step_hash);
    if (hash !== '') {
      if (walk.shared.has(hash)) out.push({ use: hash });
      else {
        out.push({ action: `Shared step ${hash} (not in this export)` });
        walk.report.record('folded', 'shared_step_hash', 'the shared step is not in the export: kept as a step naming it', hash, at);
      }
      continue;
    }
    let action = text(step.action);
    const links = attachmentLinks(step.attachments, walk, at);
    if (links !== '') action = action === '' ? links : `${action}\n\n${links}`;
    if (depth > 0) walk.report.record('folded', 'nested step', 'flattened: listed right after its parent step', action, at);
    const item: ImportedActionStep = { action };
    const expected = text(step.expected_result);
    const data = text(step.data);
    if (expected !== '') item.expected = expected;
    if (data !== '') item.data = data;
    if (action !== '' || expected !== '' || data !== '') out.push(item);
    readSteps(step.steps, walk, at, out, depth + 1);
  }
}

/** `custom_fields`: a list of `{ id | title | name, value }`, or an object by name. */
function customFields(value: unknown, fields: ImportedField[]): void {
  if (isObject(value)) {
    for (const [name, v] of Object.entries(value)) if (text(v) !== '') fields.push({ name, value: text(v) });
    return;
  }
  for (const item of list(value).filter(isObject)) {
    const v = text(item.value);
    if (v === '') continue;
    const name = text(item.title) || text(item.name) || `Custom field ${text(item.id)}`;
    fields.push({ name, value: v });
  }
}

/** `params`: `{ name: [values] }` or `[{ title, values }]` → one field line per parameter. */
function params(value: unknown, fields: ImportedField[]): void {
  const entries: [string, unknown][] = isObject(value) ? Object.entries(value) : list(value).filter(isObject).map((p) => [text(p.title) || text(p.name), p.values ?? p.value]);
  for (const [name, values] of entries) {
    const joined = Array.isArray(values) ? values.map(text).join(', ') : text(values);
    if (name !== '' && joined !== '') fields.push({ name: `Parameter ${name}`, value: joined });
  }
}

const KNOWN_CASE_KEYS = new Set([
  'id', 'title', 'description', 'preconditions', 'steps', 'steps_type', 'tags', 'custom_fields', 'params', 'parameters', 'attachments', 'suite_id',
  'created_at', 'updated_at', 'created', 'updated', 'author_id', 'member_id', 'project_id', 'position', 'deleted', 'links', 'external_issues',
  ...Object.keys(QASE_LOOKUPS),
  ...Object.keys(QASE_FIELDS),
]);

function readCase(raw: Json, folder: string[], walk: Walk): ImportedCase {
  const title = text(raw.title);
  const at: ImportAt = { file: walk.file, line: walk.lines.lineOf(title, innerTitles(raw)) };
  const id = text(raw.id);
  if (id === '') {
    throw new TmsyncError('invalid_import', `${walk.file}:${at.line ?? 1}: the case "${title}" has no id`, {
      hint: 'export the project from Qase again: every case of an export carries its id',
      details: { file: walk.file, line: at.line },
    });
  }
  const item: ImportedCase = { sourceId: id, folder, title, at };
  let description = text(raw.description);
  reportMarkdownAttachments(description, walk.report, at);
  const links = attachmentLinks(raw.attachments, walk, at);
  if (links !== '') description = description === '' ? `Attachments:\n\n${links}` : `${description}\n\nAttachments:\n\n${links}`;
  if (description !== '') item.description = description;
  const preconditions = text(raw.preconditions);
  if (preconditions !== '') item.preconditions = preconditions;
  reportMarkdownAttachments(preconditions, walk.report, at);
  const lookups: ImportedLookups = {};
  for (const [key, slot] of Object.entries(QASE_LOOKUPS)) if (text(raw[key]) !== '') lookups[slot] = text(raw[key]);
  if (Object.keys(lookups).length > 0) item.lookups = lookups;
  const labels = qaseTags(raw.tags);
  if (labels.length > 0) item.labels = labels;
  const fields: ImportedField[] = [];
  for (const key of Object.keys(QASE_FIELDS)) qaseField(key, isObject(raw[key]) ? raw[key].title : raw[key], fields);
  customFields(raw.custom_fields, fields);
  params(raw.params ?? raw.parameters, fields);
  for (const [key, value] of Object.entries(raw)) if (!KNOWN_CASE_KEYS.has(key) && text(value) !== '' && typeof value !== 'object') fields.push({ name: key, value: text(value) });
  if (fields.length > 0) item.fields = fields;
  const steps: ImportedStep[] = [];
  readSteps(raw.steps, walk, at, steps);
  if (steps.length > 0) item.steps = steps;
  return item;
}

function readSuite(raw: Json, parent: string[], walk: Walk): void {
  const title = text(raw.title) || text(raw.name);
  const folder = [...parent, title];
  walk.project.folders.push(folder);
  // the suite's own title pair is passed in any case, so that a case named like it finds its own
  const line = walk.lines.lineOf(title);
  const description = text(raw.description);
  if (description !== '') walk.report.record('dropped', 'suite description', 'folders have no description', description, { file: walk.file, line });
  // the keys in the text's order, so that the lines of the cases are found in turn
  for (const key of Object.keys(raw)) {
    if (key === 'cases') for (const c of list(raw.cases).filter(isObject)) walk.project.cases.push(readCase(c, folder, walk));
    if (key === 'suites') for (const s of list(raw.suites).filter(isObject)) readSuite(s, folder, walk);
  }
}

function readSharedSteps(value: unknown, walk: Walk): void {
  for (const raw of list(value).filter(isObject)) {
    const hash = text(raw.hash) || text(raw.id);
    const title = text(raw.title) || hash;
    const at: ImportAt = { file: walk.file, line: walk.lines.lineOf(title) };
    const steps: ImportedStep[] = [];
    // a shared step is one step (action/expected_result/data) or a list of them
    if (Array.isArray(raw.steps) && raw.steps.length > 0) readSteps(raw.steps, walk, at, steps);
    else readSteps([raw], walk, at, steps);
    const group: ImportedStepGroup = { sourceId: hash, title, steps: steps.filter((s): s is ImportedActionStep => 'action' in s), at };
    walk.project.stepGroups.push(group);
  }
}

function read(source: string, context: ReadImportContext): ImportedProject {
  const body = source.replace(/^\uFEFF/, '');
  const project: ImportedProject = { folders: [], stepGroups: [], cases: [] };
  if (body.trim() === '') {
    context.report.note(`${context.file} is empty: nothing to import`);
    return project;
  }
  const root = parseJsonExport(body, context.file, 'project from Qase (Export → JSON)');
  if (!isObject(root) || (!('suites' in root) && !('cases' in root))) {
    throw new TmsyncError('invalid_import', `${context.file}:1: not a Qase JSON export: expected an object with "suites" (and "cases", "shared_steps")`, {
      hint: 'export the repository from Qase with Export → JSON, or choose the format that matches the file',
      details: { file: context.file, line: 1 },
    });
  }
  const walk: Walk = { file: context.file, report: context.report, lines: new LineFinder(body), project, shared: new Set() };
  for (const s of list(root.shared_steps).filter(isObject)) walk.shared.add(text(s.hash) || text(s.id));
  for (const key of Object.keys(root)) {
    if (key === 'shared_steps') readSharedSteps(root.shared_steps, walk);
    if (key === 'suites') for (const s of list(root.suites).filter(isObject)) readSuite(s, [], walk);
    if (key === 'cases') for (const c of list(root.cases).filter(isObject)) project.cases.push(readCase(c, [], walk));
  }
  if (project.cases.length === 0 && project.folders.length === 0) context.report.note(`${context.file} holds no suite and no case: nothing to import`);
  return project;
}

export const qaseJsonReader: ImportReader = {
  name: 'qase-json',
  tool: 'qase',
  about: "Qase's project export in JSON (suites tree, cases, steps with data, shared steps)",
  detect(head, file) {
    const start = head.replace(/^\uFEFF/, '').trimStart();
    if (start.startsWith('{') && /"steps_type"\s*:|"shared_step_hash"\s*:|"expected_result"\s*:/.test(head) && /"suites"\s*:/.test(head)) return 3;
    if (start.startsWith('{') && /"suites"\s*:\s*\[/.test(head) && /"cases"\s*:/.test(head)) return 2;
    return /qase[^/\\]*\.json$/i.test(file) ? 1 : 0;
  },
  read,
};
