import { TmsyncError } from '../errors.js';
import { parseJsonText } from './cucumber-json.js';
import type { Outcome, RecordAttachment, TestRecord } from './record.js';
import { firstLine } from './xml-report.js';

/**
 * CTRF JSON (Common Test Report Format: `{"results": {"tool", "summary", "tests": [...]}}`),
 * written by the ctrf reporters of jest, playwright, cypress, vitest, pytest and others.
 *
 * - A test is one record: `name`; `suites` its `suite` (an array, or a string as one suite);
 *   `classname` the suites joined by ` > `; `file` its `filePath`; `tags` its tags.
 * - `status` is the test's final outcome (table below): a test that failed and then passed is
 *   `passed` with `flaky: true` and `retries` > 0, and counts as passed (as JUnit's flaky rule).
 *   `retries`, `flaky`, `rawStatus`, `type`, `browser`, `device` and the `parameters` (a
 *   data-driven row's values) become properties.
 * - `attachments` (`{name, contentType, path}`) are the record's attachments; a `screenshot` (base64) is a body.
 */

/** CTRF status → outcome. */
export const CTRF_STATUS_OUTCOMES: Readonly<Record<string, Outcome>> = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  // not implemented yet (it.todo, test.fixme): it did not run
  pending: 'skipped',
  // the tool's own status that CTRF has no word for (rawStatus says which): not a pass
  other: 'error',
};

type Json = Record<string, unknown>;

/** Parses the text of a CTRF report (`report` names it in errors). */
export function parseCtrf(text: string, report: string): TestRecord[] {
  const data = parseJsonText(text, report);
  const results = isObject(data) ? data.results : undefined;
  const tests = isObject(results) ? results.tests : undefined;
  if (!Array.isArray(tests)) {
    throw invalid(report, `is not a CTRF report: it has no results.tests array`, 'pass the ctrf-report.json a CTRF reporter wrote (ctrf/ directory by default)');
  }
  const out: TestRecord[] = [];
  tests.forEach((test, i) => {
    if (!isObject(test)) throw invalid(report, `results.tests[${i}] is not a test object`);
    out.push(readTest(test, i, report));
  });
  return out;
}

function readTest(test: Json, i: number, report: string): TestRecord {
  const name = str(test.name);
  if (name === undefined) throw invalid(report, `results.tests[${i}] has no name`);
  const status = str(test.status)?.toLowerCase() ?? '';
  const suites = Array.isArray(test.suite) ? test.suite.filter((s): s is string => typeof s === 'string') : typeof test.suite === 'string' && test.suite !== '' ? [test.suite] : [];
  const record: TestRecord = { name, classname: suites.join(' > '), outcome: CTRF_STATUS_OUTCOMES[status] ?? 'error', properties: {}, suites, report };
  const message = firstLine(str(test.message));
  if (message !== undefined) record.message = message;
  else if (!(status in CTRF_STATUS_OUTCOMES)) record.message = `CTRF status "${String(test.status)}"`;
  const file = str(test.filePath);
  if (file !== undefined && file !== '') record.file = file;
  if (typeof test.duration === 'number' && test.duration >= 0) record.durationMs = Math.round(test.duration);
  for (const key of ['retries', 'flaky', 'rawStatus', 'type', 'browser', 'device']) {
    const v = test[key];
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') record.properties[key] = String(v);
  }
  if (isObject(test.parameters)) {
    for (const [k, v] of Object.entries(test.parameters)) record.properties[`parameter.${k}`] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  if (Array.isArray(test.tags)) {
    const tags = test.tags.filter((t): t is string => typeof t === 'string' && t !== '');
    if (tags.length > 0) record.tags = tags;
  }
  const attachments = readAttachments(test);
  if (attachments.length > 0) record.attachments = attachments;
  return record;
}

function readAttachments(test: Json): RecordAttachment[] {
  const out: RecordAttachment[] = [];
  if (Array.isArray(test.attachments)) {
    for (const a of test.attachments) {
      if (!isObject(a)) continue;
      const path = str(a.path);
      if (path === undefined || path === '') continue;
      const att: RecordAttachment = { path };
      const mediaType = str(a.contentType);
      if (mediaType) att.mediaType = mediaType;
      const name = str(a.name);
      if (name) att.fileName = name;
      out.push(att);
    }
  }
  const shot = str(test.screenshot);
  if (shot !== undefined && shot !== '') {
    const data = /^data:([\w.+/-]+);base64,(.*)$/s.exec(shot);
    out.push({ body: data ? data[2] : shot, encoding: 'base64', mediaType: data ? data[1] : 'image/png', fileName: 'screenshot.png' });
  }
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(report: string, what: string, hint = 'pass the report file as the CTRF reporter wrote it'): TmsyncError {
  return new TmsyncError('invalid_report', `${report} ${what}`, { hint, details: { file: report } });
}
