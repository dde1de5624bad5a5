import { TmsyncError } from '../errors.js';
import { parseJsonText } from './cucumber-json.js';
import type { Outcome, RecordAttachment, TestRecord } from './record.js';
import { firstLine } from './xml-report.js';

/**
 * Playwright's JSON reporter (`--reporter=json`): `{config, suites: [file suite → describe suites →
 * specs → tests (one per project) → results (one per attempt)], errors}`.
 *
 * - Each project's run of a spec is one record (a spec run in chromium and firefox is two):
 *   `name` the spec's title, `classname` and `file` the spec file (as Playwright's JUnit reporter
 *   writes its classname), `suites` the `describe` titles, and the project's name in the
 *   `project` property. Both records map to the same case and the worst outcome wins there.
 * - The outcome is the test's `status` (table below): `flaky` (failed, then passed on a retry)
 *   is passed, as JUnit's flaky rule; the number of retries is the `retries` property.
 * - Annotations (`{type, description}`) are properties (`test.info().annotations.push({type:
 *   'test_case', description: 'SHOP-12'})` names the case, as for JUnit); tags (`tags`, or
 *   `@tag`s in the title before 1.42) are tags, without the `@`.
 * - Attachments of every attempt: a `path` as written, a `body` (base64) as bytes.
 */

/** Playwright test status → outcome. */
export const PLAYWRIGHT_STATUS_OUTCOMES: Readonly<Record<string, Outcome>> = {
  expected: 'passed',
  flaky: 'passed',
  skipped: 'skipped',
  unexpected: 'failed',
};

type Json = Record<string, unknown>;

interface Context {
  report: string;
  file: string;
  describes: string[];
  out: TestRecord[];
}

/** Parses the text of a Playwright JSON report (`report` names it in errors). */
export function parsePlaywrightJson(text: string, report: string): TestRecord[] {
  const data = parseJsonText(text, report);
  if (!isObject(data) || !Array.isArray(data.suites)) {
    throw invalid(report, 'is not a Playwright JSON report: it has no suites array', 'pass the file playwright test --reporter=json writes (PLAYWRIGHT_JSON_OUTPUT_NAME or the reporter\'s outputFile)');
  }
  const out: TestRecord[] = [];
  data.suites.forEach((suite, i) => {
    if (!isObject(suite)) throw invalid(report, `suites[${i}] is not a suite object`);
    readSuite(suite, `suites[${i}]`, { report, file: str(suite.file) ?? str(suite.title) ?? '', describes: [], out }, true);
  });
  return out;
}

function readSuite(suite: Json, path: string, ctx: Context, fileSuite: boolean): void {
  const title = str(suite.title) ?? '';
  // the outer suite of each file is the file itself, not a describe
  const inner: Context = fileSuite || title === '' ? ctx : { ...ctx, describes: [...ctx.describes, title] };
  for (const [k, spec] of arrayOf(suite.specs, `${path}.specs`, ctx.report).entries()) readSpec(spec, `${path}.specs[${k}]`, inner);
  for (const [k, child] of arrayOf(suite.suites, `${path}.suites`, ctx.report).entries()) readSuite(child, `${path}.suites[${k}]`, inner, false);
}

function readSpec(spec: Json, path: string, ctx: Context): void {
  const title = str(spec.title) ?? '';
  const file = str(spec.file) ?? ctx.file;
  const tags = Array.isArray(spec.tags) ? spec.tags.filter((t): t is string => typeof t === 'string') : (title.match(/@[^\s@]+/g) ?? []);
  for (const [k, test] of arrayOf(spec.tests, `${path}.tests`, ctx.report).entries()) {
    const status = str(test.status) ?? '';
    const results = arrayOf(test.results, `${path}.tests[${k}].results`, ctx.report);
    const last = results[results.length - 1];
    let outcome: Outcome = PLAYWRIGHT_STATUS_OUTCOMES[status] ?? 'error';
    // a run stopped (Ctrl-C, --max-failures, global timeout) while the test ran: it did not finish
    if (status === 'unexpected' && last !== undefined && str(last.status) === 'interrupted') outcome = 'error';
    const record: TestRecord = { name: title, classname: file, file, outcome, properties: {}, suites: ctx.describes, report: ctx.report };
    const project = str(test.projectName) ?? str(test.projectId);
    if (project !== undefined && project !== '') record.properties.project = project;
    if (results.length > 1) record.properties.retries = String(results.length - 1);
    readAnnotations(test.annotations, record.properties);
    const message = lastError(results);
    if (message !== undefined && outcome !== 'passed') record.message = message;
    else if (!(status in PLAYWRIGHT_STATUS_OUTCOMES)) record.message = `Playwright status "${status}"`;
    if (last !== undefined && typeof last.duration === 'number' && last.duration >= 0) record.durationMs = Math.round(last.duration);
    const unique = [...new Set(tags.map((t) => t.replace(/^@/, '')).filter((t) => t !== ''))];
    if (unique.length > 0) record.tags = unique;
    const attachments = results.flatMap((r) => readAttachments(r.attachments));
    if (attachments.length > 0) record.attachments = attachments;
    ctx.out.push(record);
  }
}

function readAnnotations(list: unknown, properties: Record<string, string>): void {
  if (!Array.isArray(list)) return;
  for (const a of list) {
    if (!isObject(a)) continue;
    const type = str(a.type);
    if (type === undefined || type === '') continue;
    const description = str(a.description) ?? '';
    properties[type] = properties[type] !== undefined && description !== '' ? `${properties[type]}, ${description}` : description;
  }
}

/** The first line of the last attempt's error, ANSI colours removed. */
function lastError(results: readonly Json[]): string | undefined {
  for (let k = results.length - 1; k >= 0; k--) {
    const r = results[k];
    const error = isObject(r.error) ? r.error : Array.isArray(r.errors) && isObject(r.errors[0]) ? r.errors[0] : undefined;
    const message = error !== undefined ? (str(error.message) ?? str(error.value)) : undefined;
    // eslint-disable-next-line no-control-regex
    if (message !== undefined) return firstLine(message.replace(/\u001b\[[0-9;]*m/g, ''));
  }
  return undefined;
}

function readAttachments(list: unknown): RecordAttachment[] {
  if (!Array.isArray(list)) return [];
  const out: RecordAttachment[] = [];
  for (const a of list) {
    if (!isObject(a)) continue;
    const path = str(a.path);
    const body = str(a.body);
    let att: RecordAttachment;
    if (path !== undefined && path !== '') att = { path };
    else if (body !== undefined && body !== '') att = { body, encoding: 'base64' };
    else continue;
    const mediaType = str(a.contentType);
    if (mediaType) att.mediaType = mediaType;
    const name = str(a.name);
    if (name) att.fileName = name;
    out.push(att);
  }
  return out;
}

function arrayOf(v: unknown, path: string, report: string): Json[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid(report, `${path} is not an array`);
  return v.map((item, i) => {
    if (!isObject(item)) throw invalid(report, `${path}[${i}] is not an object`);
    return item;
  });
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(report: string, what: string, hint = 'pass the report file as Playwright wrote it'): TmsyncError {
  return new TmsyncError('invalid_report', `${report} ${what}`, { hint, details: { file: report } });
}
