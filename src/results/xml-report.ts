import { TmsyncError } from '../errors.js';
import { decodeJunit, lineCol, scanXml, type XmlHandler } from './junit.js';
import type { ReportFormat } from './report-formats.js';

/**
 * What the XML readers other than JUnit's (TRX, NUnit, xUnit.net) share: the JUnit reader's
 * decoding and well-formedness-checking scanner, with their errors told as `invalid_report` (the
 * JUnit reader keeps `invalid_junit`), and the small conversions every one of them needs.
 */

export type { XmlHandler } from './junit.js';

/** The report's text: a byte order mark, else the declared encoding, else UTF-8 (see decodeJunit). */
export function decodeXmlReport(bytes: Uint8Array, report: string): string {
  return asReportError(() => decodeJunit(bytes, report));
}

/**
 * Scans `text` calling `handler`; a malformed or truncated file is an `invalid_report` naming
 * `report:line:col` and what was left open, an empty one says so. Returns the root element's name.
 */
export function scanXmlReport(text: string, report: string, handler: XmlHandler & { root: string | undefined }): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  asReportError(() => scanXml(body, report, handler));
  if (handler.root === undefined) {
    const { line, col } = lineCol(body, body.length);
    throw new TmsyncError('invalid_report', `${report}:${line}:${col} is not well-formed XML: ${body.trim() === '' ? 'the file is empty' : 'the file holds no XML element'}`, {
      hint: 'check that the test runner finished writing the report (a crashed run leaves it empty or truncated)',
      details: { file: report, line, col },
    });
  }
  return handler.root;
}

/** The error for a document of another kind than `format` reads. */
export function wrongRoot(report: string, root: string, format: ReportFormat, what: string, roots: readonly string[], hint: string): TmsyncError {
  return new TmsyncError('invalid_report', `${report} is not ${what}: the root element is <${root}>, not ${roots.map((r) => `<${r}>`).join(' or ')}`, {
    hint,
    details: { file: report, format, root },
  });
}

function asReportError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TmsyncError && err.code === 'invalid_junit') {
      throw new TmsyncError('invalid_report', err.message, { ...(err.hint !== undefined ? { hint: err.hint } : {}), ...(err.details !== undefined ? { details: err.details } : {}) });
    }
    throw err;
  }
}

/** An element's name without its namespace prefix (`t:TestRun` → `TestRun`). */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The first non-empty line of a message, capped as the JUnit reader caps it. */
export function firstLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  for (const l of text.split(/\r?\n/, 200)) {
    const t = l.trim();
    if (t !== '') return t.length > 500 ? `${t.slice(0, 497)}...` : t;
  }
  return undefined;
}

/** A duration in (fractional) seconds, as NUnit and xUnit.net write it, in milliseconds. */
export function secondsToMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim().replace(/,/g, ''));
  return value.trim() !== '' && Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : undefined;
}

/** The last part of a path written with `/` or `\` (an assembly's file name). */
export function baseName(path: string): string {
  const m = /[^/\\]*$/.exec(path);
  return m && m[0] !== '' ? m[0] : path;
}

/** `name` without a leading `classname.` (xUnit.net, NUnit 2 and some TRX writers put the class in the test's name). */
export function withoutClass(name: string, classname: string): string {
  return classname !== '' && name.length > classname.length + 1 && name.startsWith(`${classname}.`) ? name.slice(classname.length + 1) : name;
}

/** Shared by the records without properties (most of them): a million empty objects add up. */
export const NO_PROPERTIES: Record<string, string> = Object.freeze({});

/** Adds a property; a second value of the same name is appended, comma-separated (a `test_case` property may name several cases). */
export function addProperty(properties: Record<string, string>, key: string, value: string): Record<string, string> {
  const out = properties === NO_PROPERTIES ? {} : properties;
  out[key] = out[key] !== undefined && out[key] !== value ? `${out[key]}, ${value}` : value;
  return out;
}
