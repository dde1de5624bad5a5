import { TmsyncError } from '../../errors.js';
import { folderPath, splitList } from './jira-common.js';
import { buildXrayProject, issueKind } from './xray-model.js';
import type { ImportAt, ImportedField, ImportedProject } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import type { ImportReport } from '../report.js';
import type { XrayIssue, XrayStep } from './xray-model.js';

/**
 * Xray's Test Case Importer JSON (the body of `POST /api/v1/import/test/bulk` too): an array of
 * tests, preconditions and test sets. Jira fields sit in `fields` or beside the Xray ones
 * (`testtype`, `steps`, `gherkin_def`, `unstructured_def`, `xray_test_repository_folder`,
 * `xray_test_sets`, `xray_preconditions`, `xray_id`, `update_key`), with or without the `xray_`
 * prefix.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = Record<string, Json>;

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The 1-based line of a text offset. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The line each element of the top-level array starts on (JSON.parse gives no positions). */
function elementLines(text: string): number[] {
  const lines: number[] = [];
  let depth = 0;
  let line = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\n') line++;
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') {
      inString = true;
      if (depth === 1) lines.push(line);
    } else if (ch === '{' || ch === '[') {
      if (depth === 1) lines.push(line);
      depth++;
    } else if (ch === '}' || ch === ']') depth--;
    else if (depth === 1 && /[-0-9tfn]/.test(ch) && !/[-0-9a-z.+]/i.test(text[i - 1] ?? '')) lines.push(line);
  }
  return lines;
}

function parse(text: string, file: string): Json {
  try {
    return JSON.parse(text) as Json;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const position = /position (\d+)/.exec(message)?.[1];
    const line = position !== undefined ? lineAt(text, Number(position)) : lineAt(text, text.length);
    throw new TmsyncError('invalid_import', `${file}:${line}: the JSON is malformed or truncated (${message})`, {
      hint: 'export the file again, or fix the JSON on that line',
      details: { file, line },
    });
  }
}

/** A Jira value as text: a string, a number, `{ name }`, `{ value }`, `{ key }`, a user, or a list of them. */
function textOf(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(textOf).filter((v) => v !== '').join(', ');
  if (value.type === 'doc' && Array.isArray(value.content)) return adfText(value);
  for (const k of ['name', 'value', 'key', 'emailAddress', 'displayName', 'accountId', 'id']) {
    const v = value[k];
    if (typeof v === 'string' || typeof v === 'number') return String(v);
  }
  return JSON.stringify(value);
}

/** Atlassian document format (Jira Cloud's rich text) → plain text, a paragraph per block. */
function adfText(node: Json): string {
  if (!isObject(node)) return '';
  if (node.type === 'text') return typeof node.text === 'string' ? node.text : '';
  if (node.type === 'hardBreak') return '\n';
  const inner = Array.isArray(node.content) ? node.content.map(adfText) : [];
  const block = ['doc', 'bulletList', 'orderedList', 'table', 'tableRow'].includes(String(node.type));
  return inner.join(block ? '\n\n' : '').trim();
}

function listOf(value: Json | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.map(textOf).filter((v) => v !== '');
  return splitList(textOf(value));
}

/** Keys the reader understands, beside and in `fields`. */
const KNOWN = new Set([
  'testtype', 'steps', 'gherkin_def', 'unstructured_def', 'test_repository_folder', 'test_sets', 'preconditions', 'precondition_def',
  'id', 'issue_type', 'update_key', 'summary', 'description', 'priority', 'labels', 'components', 'assignee', 'status', 'project', 'issuetype', 'update', 'key',
]);

const STEP_KEYS: Record<string, 'action' | 'data' | 'result' | 'call'> = {
  action: 'action',
  step: 'action',
  data: 'data',
  result: 'result',
  expected: 'result',
  expectedresult: 'result',
  calltestissuekey: 'call',
  calltestkey: 'call',
  calltestissueid: 'call',
  calltest: 'call',
};

/** A step's values, beside each other or in a `fields` object; keys of custom step fields become data lines. */
function stepsOf(value: Json | undefined, at: ImportAt, report: ImportReport): XrayStep[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((raw) => {
    for (const file of Array.isArray(raw.attachments) ? raw.attachments : []) {
      const name = isObject(file) ? textOf(file.filename ?? file.name) : textOf(file);
      report.record('dropped', 'step attachment', 'a file inside the JSON is not imported: attach it on the service', name, at);
    }
    const step = { action: '', data: '', result: '', call: '' };
    const extra: ImportedField[] = [];
    const entries = [...Object.entries(raw), ...(isObject(raw.fields) ? Object.entries(raw.fields) : [])];
    for (const [name, v] of entries) {
      const slot = STEP_KEYS[name.toLowerCase().replace(/[\s_-]+/g, '')];
      if (slot !== undefined) {
        if (step[slot] === '') step[slot] = textOf(v);
      } else if (!['fields', 'id', 'index', 'attachments'].includes(name) && textOf(v) !== '') extra.push({ name, value: textOf(v) });
    }
    const { call, ...texts } = step;
    return { ...texts, ...(call !== '' ? { call } : {}), ...(extra.length > 0 ? { extra } : {}), at };
  });
}

/** `update.issuelinks`: requirement links (`Tests CALC-1`) folded as a field; the rest reported. */
function linksOf(update: Json | undefined, report: ImportReport, at: ImportAt): ImportedField[] {
  if (!isObject(update)) return [];
  const links: string[] = [];
  for (const [name, ops] of Object.entries(update)) {
    if (name !== 'issuelinks' || !Array.isArray(ops)) {
      report.record('dropped', `update.${name}`, 'only issue links of `update` are read', JSON.stringify(ops), at);
      continue;
    }
    for (const op of ops.filter(isObject)) {
      const link = isObject(op.add) ? op.add : op;
      const issue = isObject(link.outwardIssue) ? link.outwardIssue : isObject(link.inwardIssue) ? link.inwardIssue : undefined;
      links.push([textOf(isObject(link.type) ? link.type.name : undefined), textOf(issue?.key)].filter((v) => v !== '').join(' '));
    }
  }
  return links.length > 0 ? [{ name: 'Issue links', value: links.join(', ') }] : [];
}

function issueOf(item: JsonObject, at: ImportAt, report: ImportReport): XrayIssue {
  const fields = isObject(item.fields) ? item.fields : {};
  // Xray's keys with or without their `xray_` prefix; Jira's in `fields` or beside them
  const get = (name: string): Json | undefined => item[`xray_${name}`] ?? item[name] ?? fields[name];
  const others: ImportedField[] = [];
  for (const [name, value] of [...Object.entries(item), ...Object.entries(fields)]) {
    if (name === 'fields' || KNOWN.has(name.replace(/^xray_/, '')) || value === null || textOf(value) === '') continue;
    others.push({ name, value: textOf(value) });
  }
  const project = textOf(get('project'));
  if (project !== '') report.record('dropped', 'project', 'the target is the configured project', project, at);
  return {
    kind: issueKind(textOf(get('issue_type')), at),
    localId: textOf(get('id')),
    key: textOf(get('update_key') ?? get('key')),
    testType: textOf(get('testtype')),
    summary: textOf(get('summary')).trim(),
    description: textOf(get('description')),
    lookups: { priority: textOf(get('priority')), status: textOf(get('status')), owner: textOf(get('assignee')), automation_type: textOf(get('testtype')) },
    labels: listOf(get('labels')),
    folder: folderPath(textOf(get('test_repository_folder'))),
    steps: stepsOf(get('steps'), at, report),
    gherkin: textOf(get('gherkin_def')),
    generic: textOf(get('unstructured_def') ?? get('precondition_def')),
    preconditionRefs: listOf(get('preconditions')),
    preconditionText: '',
    testSets: listOf(get('test_sets')),
    fields: [...(listOf(get('components')).length > 0 ? [{ name: 'Component', value: listOf(get('components')).join(', ') }] : []), ...linksOf(get('update'), report, at), ...others],
    at,
  };
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const body = text.replace(/^\uFEFF/, '');
  const { file, report } = context;
  if (body.trim() === '') {
    report.note(`${file} holds no tests.`);
    return { folders: [], stepGroups: [], cases: [] };
  }
  const root = parse(body, file);
  if (!Array.isArray(root)) {
    throw new TmsyncError('invalid_import', `${file}:1: an Xray JSON export is an array of tests, this file holds ${root === null ? 'null' : typeof root === 'object' ? 'an object' : `a ${typeof root}`}`, {
      hint: 'give the Test Case Importer JSON (`[ { "testtype": …, "fields": { … } } ]`), or choose another FORMAT',
      details: { file, line: 1 },
    });
  }
  if (root.length === 0) report.note(`${file} holds no tests.`);
  const lines = elementLines(body);
  const issues = root.map((item, n) => {
    const at: ImportAt = { file, line: lines[n] ?? 1 };
    if (!isObject(item)) {
      throw new TmsyncError('invalid_import', `${file}:${at.line}: test ${n + 1} of the array is not an object`, { hint: 'each element is one test: `{ "testtype": …, "fields": { … } }`', details: { ...at } });
    }
    return issueOf(item, at, report);
  });
  return buildXrayProject(issues, report);
}

function detect(head: string, file: string): number {
  const text = head.replace(/^\uFEFF/, '').trimStart();
  if (!text.startsWith('[')) return 0;
  if (/"(?:xray_)?testtype"\s*:/.test(text) || /"xray_(?:test_repository_folder|gherkin_def|unstructured_def|steps)"\s*:/.test(text)) return 3;
  if (/"fields"\s*:\s*\{/.test(text) && /"summary"\s*:/.test(text)) return 2;
  return /xray/i.test(file) && /\.json$/i.test(file) ? 1 : 0;
}

export const xrayJsonReader: ImportReader = {
  name: 'xray-json',
  tool: 'xray',
  about: "Xray's Test Case Importer JSON: tests with fields, steps (action, data, result), preconditions and test repository folder",
  detect,
  read,
};
