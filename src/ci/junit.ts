import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { TmsyncError } from '../errors.js';

/** What a JUnit testcase ended as. `error` is an unexpected exception, `failed` an assertion. */
export type JunitOutcome = 'passed' | 'failed' | 'error' | 'skipped';

export const JUNIT_OUTCOMES: readonly JunitOutcome[] = ['passed', 'failed', 'error', 'skipped'];

/** One `<testcase>` of a JUnit report, dialect differences smoothed out. */
export interface JunitTestcase {
  name: string;
  /** `classname` attribute; empty when the reporter wrote none */
  classname: string;
  /** source file: the `file` attribute (pytest, some jest-junit setups), the suite's `file`, or a classname that is a path (playwright) */
  file?: string;
  outcome: JunitOutcome;
  /** first line of the failure/error/skip message */
  message?: string;
  durationMs?: number;
  /** `<properties><property name value/>` of the testcase (not of its suites) */
  properties: Record<string, string>;
  /** names of the enclosing `<testsuite>` elements, outermost first */
  suites: string[];
  /** the report file this testcase came from (as given to the loader) */
  report: string;
}

/** Tags that may repeat; forced to arrays so one and many look the same. */
const ARRAY_TAGS = new Set(['testsuites', 'testsuite', 'testcase', 'properties', 'property', 'failure', 'error', 'skipped']);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseAttributeValue: false,
  parseTagValue: false,
  htmlEntities: true,
  trimValues: true,
  isArray: (name) => ARRAY_TAGS.has(name),
});

type XmlNode = Record<string, unknown>;

/**
 * Parses one JUnit XML document. Handles a `<testsuites>` root and a bare `<testsuite>` root,
 * suites nested in suites, and the attributes of the common dialects (surefire, pytest, jest-junit,
 * playwright). Never throws anything but a TmsyncError `invalid_junit` naming `report` and, for
 * malformed XML, the line and column.
 */
export function parseJunit(xml: string, report: string): JunitTestcase[] {
  const text = xml.replace(/^\uFEFF/, '');
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { line, col, msg } = valid.err;
    throw new TmsyncError('invalid_junit', `${report}:${line}:${col} is not well-formed XML: ${msg}`, {
      hint: 'check that the test runner finished writing the report (a crashed run leaves it truncated)',
      details: { file: report, line, col },
    });
  }
  let doc: XmlNode;
  try {
    doc = parser.parse(text) as XmlNode;
  } catch (err) {
    throw new TmsyncError('invalid_junit', `${report} could not be read as XML: ${(err as Error).message}`, {
      details: { file: report },
    });
  }
  const roots = [...asArray(doc.testsuites), ...asArray(doc.testsuite)];
  if (roots.length === 0) {
    const root = Object.keys(doc).find((k) => !k.startsWith('?')) ?? '(none)';
    throw new TmsyncError('invalid_junit', `${report} is not a JUnit report: the root element is <${root}>, not <testsuites> or <testsuite>`, {
      hint: 'pass the JUnit XML file your test runner wrote (e.g. target/surefire-reports/TEST-*.xml, pytest --junitxml, jest-junit, playwright --reporter=junit)',
      details: { file: report, root },
    });
  }
  const out: JunitTestcase[] = [];
  for (const root of asArray(doc.testsuites)) walkSuite(root, [], undefined, report, out, true);
  for (const root of asArray(doc.testsuite)) walkSuite(root, [], undefined, report, out, false);
  return out;
}

/** Reads and parses JUnit files (paths relative to `cwd`), in the order given. */
export async function loadJunitFiles(files: readonly string[], cwd: string): Promise<JunitTestcase[]> {
  const out: JunitTestcase[] = [];
  for (const file of files) {
    let xml: string;
    try {
      xml = await readFile(resolve(cwd, file), 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new TmsyncError('junit_not_found', `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`, {
        hint: 'check the path of the JUnit report (shell globs that match nothing are passed through literally)',
        details: { file },
      });
    }
    out.push(...parseJunit(xml, file));
  }
  return out;
}

/** A `<testsuites>` or `<testsuite>` element: its testcases, then nested suites. */
function walkSuite(
  node: unknown,
  suites: string[],
  file: string | undefined,
  report: string,
  out: JunitTestcase[],
  collection: boolean,
): void {
  if (!isNode(node)) return;
  const name = attr(node, 'name');
  // `<testsuites>` carries a generic name ("jest tests", "pytest", ""): it is not part of a suite path
  const path = !collection && name !== undefined && name !== '' ? [...suites, name] : suites;
  const suiteFile = attr(node, 'file') ?? file;
  for (const tc of asArray(node.testcase)) {
    if (isNode(tc)) out.push(readTestcase(tc, path, suiteFile, report));
  }
  for (const child of asArray(node.testsuite)) walkSuite(child, path, suiteFile, report, out, false);
  for (const child of asArray(node.testsuites)) walkSuite(child, path, suiteFile, report, out, true);
}

function readTestcase(tc: XmlNode, suites: string[], suiteFile: string | undefined, report: string): JunitTestcase {
  const name = attr(tc, 'name') ?? '';
  const classname = attr(tc, 'classname') ?? attr(tc, 'class') ?? '';
  const file = attr(tc, 'file') ?? suiteFile ?? (looksLikePath(classname) ? classname : undefined);

  let outcome: JunitOutcome = 'passed';
  let detail: unknown;
  if (tc.failure !== undefined) {
    outcome = 'failed';
    detail = asArray(tc.failure)[0];
  } else if (tc.error !== undefined) {
    outcome = 'error';
    detail = asArray(tc.error)[0];
  } else if (tc.skipped !== undefined) {
    outcome = 'skipped';
    detail = asArray(tc.skipped)[0];
  }

  const properties: Record<string, string> = {};
  // `<property>` normally sits in `<properties>`; a few reporters put it straight in `<testcase>`
  const props = [...asArray(tc.property), ...asArray(tc.properties).flatMap((g) => (isNode(g) ? asArray(g.property) : []))];
  for (const p of props) {
    if (!isNode(p)) continue;
    const key = attr(p, 'name');
    // some reporters write the value as text instead of an attribute
    const value = attr(p, 'value') ?? (typeof p['#text'] === 'string' ? p['#text'] : undefined);
    if (key !== undefined && value !== undefined) properties[key] = value;
  }

  const result: JunitTestcase = { name, classname, outcome, properties, suites, report };
  if (file !== undefined && file !== '') result.file = file;
  const message = detailMessage(detail);
  if (message !== undefined) result.message = message;
  const durationMs = parseSeconds(attr(tc, 'time'));
  if (durationMs !== undefined) result.durationMs = durationMs;
  return result;
}

/** The `message` attribute, else the first non-empty line of the element's text (jest-junit). */
function detailMessage(detail: unknown): string | undefined {
  let text: string | undefined;
  if (typeof detail === 'string') text = detail;
  else if (isNode(detail)) text = attr(detail, 'message') ?? (typeof detail['#text'] === 'string' ? detail['#text'] : undefined);
  if (text === undefined) return undefined;
  const line = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (line === undefined) return undefined;
  return line.length > 500 ? `${line.slice(0, 497)}...` : line;
}

/** `time` is in seconds; some surefire versions write thousands separators ("1,234.5"). */
function parseSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.replace(/,/g, ''));
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : undefined;
}

/** playwright writes the spec file as classname: `checkout.spec.ts`, `tests/auth/login.spec.js` */
function looksLikePath(s: string): boolean {
  return /\.(?:[cm]?[jt]sx?|py|rb|feature)$/i.test(s) && !/\s/.test(s);
}

function attr(node: XmlNode, name: string): string | undefined {
  const v = node[`@_${name}`];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

function asArray(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

function isNode(v: unknown): v is XmlNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
