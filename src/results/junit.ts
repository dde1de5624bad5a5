import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { bomOf, decodeWindows1252 } from '../byte-encodings.js';
import { TmsyncError } from '../errors.js';
import { lineCol, malformed, scanXml, type XmlHandler } from '../xml-scan.js';
import { attachmentsInOutput } from './output-attachments.js';
import type { Outcome, RecordAttachment, TestRecord } from './record.js';

export { countTestcases, OUTCOMES as JUNIT_OUTCOMES } from './record.js';

/** What a JUnit testcase ended as: the outcomes of every report (record.ts). */
export type JunitOutcome = Outcome;

/** One `<testcase>` of a JUnit report, dialect differences smoothed out: the common record (record.ts). */
export type JunitTestcase = TestRecord;

/**
 * `status`/`result` values of a `<testcase>` that mean it did not run (googletest `status="notrun"`
 * `result="suppressed"`, xunit-style `status="disabled"`): such a testcase is skipped, not passed.
 */
const NOT_RUN = new Set(['disabled', 'notrun', 'not_run', 'not-run', 'suppressed', 'skipped', 'skip', 'ignored', 'pending']);

/**
 * Parses one JUnit XML document. Handles a `<testsuites>` root and a bare `<testsuite>` root,
 * suites nested in suites, and the attributes of the common dialects (surefire, pytest, jest-junit,
 * playwright, googletest). A `<failure>`/`<error>` of a suite itself becomes a suite-level entry
 * (see {@link JunitTestcase.suiteLevel}). Never throws anything but a TmsyncError `invalid_junit`
 * naming `report` and, for malformed XML, the line and column.
 *
 * The reader is a single pass over the text that keeps only what it returns (no document tree), so
 * a report of a million testcases costs about the memory of its results.
 */
export function parseJunit(xml: string, report: string): JunitTestcase[] {
  const text = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  const builder = new JunitBuilder(report);
  scanXml(text, report, builder);
  if (builder.root === undefined) {
    throw malformed(report, text, text.length, text.trim() === '' ? 'the file is empty' : 'the file holds no XML element');
  }
  if (builder.root !== 'testsuites' && builder.root !== 'testsuite') {
    throw new TmsyncError('invalid_junit', `${report} is not a JUnit report: the root element is <${builder.root}>, not <testsuites> or <testsuite>`, {
      hint: 'pass the JUnit XML file your test runner wrote (e.g. target/surefire-reports/TEST-*.xml, pytest --junitxml, jest-junit, playwright --reporter=junit)',
      details: { file: report, root: builder.root },
    });
  }
  return builder.out;
}

/** Reads and parses JUnit files (paths relative to `cwd`), in the order given. */
export async function loadJunitFiles(files: readonly string[], cwd: string): Promise<JunitTestcase[]> {
  const out: JunitTestcase[] = [];
  for (const file of files) {
    let bytes: Buffer | undefined;
    try {
      bytes = await readFile(resolve(cwd, file));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new TmsyncError('junit_not_found', `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`, {
        hint: 'check the path of the JUnit report (shell globs that match nothing are passed through literally)',
        details: { file },
      });
    }
    const text = decodeJunit(bytes, file);
    bytes = undefined; // the bytes can go while the text is read
    // one at a time: spreading a million testcases into push() overflows the call stack
    for (const tc of parseJunit(text, file)) out.push(tc);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Encodings

/** The encodings a report may declare, by lower-cased label, as TextDecoder labels. */
const ENCODINGS: Record<string, string> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'us-ascii': 'utf-8',
  ascii: 'utf-8',
  'iso-8859-1': 'windows-1252',
  'iso8859-1': 'windows-1252',
  'iso_8859-1': 'windows-1252',
  latin1: 'windows-1252',
  'latin-1': 'windows-1252',
  l1: 'windows-1252',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  'iso-8859-15': 'iso-8859-15',
  latin9: 'iso-8859-15',
  'utf-16': 'utf-16le',
  'utf-16le': 'utf-16le',
  'utf-16be': 'utf-16be',
};

/**
 * The text of a report's bytes: a byte order mark wins (UTF-8, UTF-16 LE/BE), then the
 * `encoding` of the XML declaration, else UTF-8. Invalid UTF-8 and an unknown declared encoding
 * are `invalid_junit` errors (the first naming its line and column), never U+FFFD in a mapping key.
 */
export function decodeJunit(bytes: Uint8Array, report: string): string {
  let label: string;
  let start = 0;
  const bom = bomOf(bytes);
  if (bom) {
    label = bom.encoding;
    start = bom.length;
  } else if (bytes[0] === 0x3c && bytes[1] === 0x00) {
    label = 'utf-16le'; // `<` in UTF-16 without a mark
  } else if (bytes[0] === 0x00 && bytes[1] === 0x3c) {
    label = 'utf-16be';
  } else {
    const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
    const declared = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
    if (declared === undefined) label = 'utf-8';
    else {
      const known = ENCODINGS[declared.toLowerCase()];
      if (known === undefined) {
        throw new TmsyncError('invalid_junit', `${report} declares encoding "${declared}", which tmsync cannot read`, {
          hint: 'write the report as UTF-8 (most runners have an option), or as UTF-16, ISO-8859-1 or Windows-1252',
          details: { file: report, encoding: declared },
        });
      }
      // a declaration read in single bytes cannot be UTF-16: a tool re-encoded the file and kept it
      label = known.startsWith('utf-16') ? 'utf-8' : known;
    }
  }
  const body = bytes.subarray(start);
  if (label === 'windows-1252') return decodeWindows1252(body);
  try {
    return new TextDecoder(label, { fatal: true }).decode(body);
  } catch {
    const lenient = new TextDecoder(label).decode(body);
    const at = Math.max(0, lenient.indexOf('\uFFFD'));
    const { line, col } = lineCol(lenient, at);
    throw new TmsyncError('invalid_junit', `${report}:${line}:${col} is not valid ${label === 'utf-8' ? 'UTF-8' : label.toUpperCase()}`, {
      hint: 'declare the encoding the file is written in (<?xml version="1.0" encoding="ISO-8859-1"?>), or write the report as UTF-8',
      details: { file: report, line, col, encoding: label },
    });
  }
}

// ---------------------------------------------------------------------------------------------
// JUnit elements → testcases

type Detail = { outcome: Exclude<JunitOutcome, 'passed'>; message?: string; text: string };

interface SuiteFrame {
  kind: 'suite';
  /** a `<testsuites>` element: its name is not part of the suite path */
  collection: boolean;
  name: string | undefined;
  path: string[];
  file: string | undefined;
  /** index in `out` where the suite's testcases start */
  first: number;
  failures: Detail[];
}

interface CaseFrame {
  kind: 'case';
  tc: JunitTestcase;
  status: string | undefined;
  failure?: Detail;
  error?: Detail;
  skipped?: Detail;
}

type Frame =
  | SuiteFrame
  | CaseFrame
  | { kind: 'detail'; detail: Detail; collect: boolean }
  | { kind: 'property'; owner: CaseFrame; key: string | undefined; value: string | undefined; text: string }
  /** a testcase's `<system-out>`/`<system-err>`: read for attachments only, its text never kept */
  | { kind: 'output'; owner: CaseFrame }
  | { kind: 'other' };

/** Shared by the testcases without properties (most of them): a million empty objects add up. */
const NO_PROPERTIES: Record<string, string> = Object.freeze({});

const DETAIL: Record<string, Detail['outcome']> = { failure: 'failed', error: 'error', skipped: 'skipped' };

class JunitBuilder implements XmlHandler {
  readonly out: JunitTestcase[] = [];
  root: string | undefined;
  private readonly frames: Frame[] = [];
  constructor(private readonly report: string) {}

  wantsText(): boolean {
    const top = this.frames[this.frames.length - 1];
    return top !== undefined && ((top.kind === 'detail' && top.collect) || (top.kind === 'property' && top.value === undefined) || top.kind === 'output');
  }

  /** console output that names no file is not decoded (a marker written as character references is not read) */
  passesOver(raw: string): boolean {
    const top = this.frames[this.frames.length - 1];
    return top?.kind === 'output' && !mayNameFiles(raw);
  }

  text(value: string): void {
    const top = this.frames[this.frames.length - 1];
    if (top?.kind === 'detail') top.detail.text += value;
    else if (top?.kind === 'property') top.text += value;
    // each call is a whole text run or CDATA section: a line naming a file is never split over two
    else if (top?.kind === 'output' && mayNameFiles(value)) addAttachments(top.owner.tc, attachmentsInOutput(value));
  }

  open(name: string, attrs: Record<string, string>): void {
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined) this.root = name;
    if (this.root !== 'testsuites' && this.root !== 'testsuite') {
      this.frames.push({ kind: 'other' });
      return;
    }
    const inSuite = parent === undefined || parent.kind === 'suite';
    if ((name === 'testsuite' || name === 'testsuites') && inSuite) {
      const collection = name === 'testsuites';
      const suiteName = attrs.name;
      const base = parent?.kind === 'suite' ? parent : undefined;
      // `<testsuites>` carries a generic name ("jest tests", "pytest", ""): it is not part of a suite path
      const path = !collection && suiteName !== undefined && suiteName !== '' ? [...(base?.path ?? []), suiteName] : (base?.path ?? []);
      this.frames.push({ kind: 'suite', collection, name: suiteName, path, file: attrs.file ?? base?.file, first: this.out.length, failures: [] });
      return;
    }
    if (name === 'testcase' && inSuite) {
      const suite = parent?.kind === 'suite' ? parent : undefined;
      this.frames.push(this.startCase(attrs, suite));
      return;
    }
    if (name in DETAIL && parent !== undefined && (parent.kind === 'case' || (parent.kind === 'suite' && name !== 'skipped'))) {
      const detail: Detail = { outcome: DETAIL[name], message: attrs.message, text: '' };
      let collect = attrs.message === undefined;
      if (parent.kind === 'case') {
        const slot = name as 'failure' | 'error' | 'skipped';
        if (parent[slot] === undefined) parent[slot] = detail;
        else collect = false; // only the first of each kind is read
      } else parent.failures.push(detail);
      this.frames.push({ kind: 'detail', detail, collect });
      return;
    }
    if ((name === 'system-out' || name === 'system-err') && parent?.kind === 'case') {
      this.frames.push({ kind: 'output', owner: parent });
      return;
    }
    if (name === 'property') {
      // `<property>` normally sits in `<properties>`; a few reporters put it straight in `<testcase>`
      const owner = parent?.kind === 'case' ? parent : parent?.kind === 'other' ? this.caseAbove() : undefined;
      if (owner) {
        this.frames.push({ kind: 'property', owner, key: attrs.name, value: attrs.value, text: '' });
        return;
      }
    }
    this.frames.push({ kind: 'other' });
  }

  close(): void {
    const frame = this.frames.pop();
    if (frame === undefined) return;
    if (frame.kind === 'case') this.finishCase(frame);
    else if (frame.kind === 'property') {
      // some reporters write the value as text instead of an attribute
      const value = frame.value ?? frame.text.trim();
      if (frame.key !== undefined && (frame.value !== undefined || frame.text !== '')) {
        const { tc } = frame.owner;
        if (tc.properties === NO_PROPERTIES) tc.properties = {};
        tc.properties[frame.key] = value;
        if (ATTACHMENT_PROPERTY.test(frame.key)) addAttachments(tc, attachmentProperty(value));
      }
    } else if (frame.kind === 'suite' && frame.failures.length > 0) this.finishSuite(frame);
  }

  /** The testcase a `<properties>` element belongs to (the frame under the `other` on top). */
  private caseAbove(): CaseFrame | undefined {
    const below = this.frames[this.frames.length - 2];
    return below?.kind === 'case' ? below : undefined;
  }

  private startCase(attrs: Record<string, string>, suite: SuiteFrame | undefined): CaseFrame {
    const name = attrs.name ?? '';
    const classname = attrs.classname ?? attrs.class ?? '';
    const file = attrs.file ?? suite?.file ?? (looksLikePath(classname) ? classname : undefined);
    const tc: JunitTestcase = { name, classname, outcome: 'passed', properties: NO_PROPERTIES, suites: suite?.path ?? [], report: this.report };
    if (file !== undefined && file !== '') tc.file = file;
    const durationMs = parseSeconds(attrs.time);
    if (durationMs !== undefined) tc.durationMs = durationMs;
    const status = [attrs.status, attrs.result].map((s) => s?.trim().toLowerCase()).find((s) => s !== undefined && NOT_RUN.has(s));
    return { kind: 'case', tc, status };
  }

  private finishCase(frame: CaseFrame): void {
    const { tc } = frame;
    const detail = frame.failure ?? frame.error ?? frame.skipped;
    if (detail) {
      tc.outcome = detail.outcome;
      const message = detailMessage(detail);
      if (message !== undefined) tc.message = message;
    } else if (frame.status !== undefined) {
      // googletest's status="notrun", result="suppressed"; status="disabled": the test did not run
      tc.outcome = 'skipped';
      tc.message = `not run (${frame.status})`;
    }
    this.out.push(tc);
  }

  /** A suite's own `<failure>`/`<error>`: one suite-level entry standing for all of them. */
  private finishSuite(frame: SuiteFrame): void {
    const members: JunitTestcase[] = [];
    for (let k = frame.first; k < this.out.length; k++) if (!this.out[k].suiteLevel) members.push(this.out[k]);
    const worst = frame.failures.find((f) => f.outcome === 'failed') ?? frame.failures[0];
    const entry: JunitTestcase = {
      name: frame.name ?? '',
      classname: '',
      outcome: worst.outcome,
      properties: {},
      suites: frame.path,
      report: this.report,
      suiteLevel: { members },
    };
    if (frame.file !== undefined && frame.file !== '') entry.file = frame.file;
    const message = detailMessage(worst);
    entry.message = `${frame.failures.length > 1 ? `${frame.failures.length} suite-level failures, the first: ` : 'suite-level failure: '}${message ?? worst.outcome}`;
    this.out.push(entry);
  }
}

/** `attachment` (Testmo's convention, repeatable), `attachments`, `attachment_1` (Bitrise's numbered form). */
const ATTACHMENT_PROPERTY = /^attachments?(?:_\d+)?$/i;

/** The paths of an attachment property: one per line of its value (the text form may list several). */
function attachmentProperty(value: string): RecordAttachment[] {
  const out: RecordAttachment[] = [];
  for (const line of value.split(/\r?\n/)) {
    const path = line.trim();
    if (path !== '') out.push({ path });
  }
  return out;
}

/** Whether a run of console text could name a file: most output names none and is not scanned. */
function mayNameFiles(text: string): boolean {
  return text.includes('[[ATTACHMENT|') || text.includes('file://');
}

/** Adds files to a testcase's attachments, each path once. */
function addAttachments(tc: JunitTestcase, found: readonly RecordAttachment[]): void {
  if (found.length === 0) return;
  const list = (tc.attachments ??= []);
  for (const a of found) if (a.path === undefined || !list.some((b) => b.path === a.path)) list.push(a);
}

/** The `message` attribute, else the first non-empty line of the element's text (jest-junit). */
function detailMessage(detail: Detail): string | undefined {
  const text = detail.message ?? detail.text;
  let line: string | undefined;
  for (const l of text.split(/\r?\n/, 200)) {
    const t = l.trim();
    if (t !== '') {
      line = t;
      break;
    }
  }
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
