import { attachmentsInOutput } from './output-attachments.js';
import type { Outcome, RecordAttachment, TestRecord } from './record.js';
import { addProperty, baseName, firstLine, localName, NO_PROPERTIES, secondsToMs, withoutClass, type XmlHandler, xmlReportReader } from './xml-report.js';

/**
 * NUnit's results as record outcomes, by the `result` attribute (NUnit 3 `Passed`, `Failed`,
 * `Skipped`, `Inconclusive`, `Warning`; NUnit 2 `Success`, `Failure`, `Error`, `Ignored`,
 * `NotRunnable`, `Inconclusive`, `Skipped`, `Cancelled`), case-insensitive. NUnit 3's `Failed`
 * is an error when its `label` says the test did not get to its assertions ({@link ERROR_LABELS}).
 * docs/results.md shows this table.
 */
export const NUNIT_RESULTS: Readonly<Record<string, Outcome>> = {
  passed: 'passed',
  success: 'passed',
  warning: 'passed',
  failed: 'failed',
  failure: 'failed',
  error: 'error',
  notrunnable: 'error',
  cancelled: 'error',
  skipped: 'skipped',
  ignored: 'skipped',
  inconclusive: 'skipped',
};

/** NUnit 3 labels of a `Failed` result that make it an error: an exception, a test that cannot run as written, a cancelled run. */
const ERROR_LABELS = new Set(['error', 'invalid', 'cancelled']);

/** The message NUnit gives a suite whose failure is only its children's. */
const CHILD_FAILURE = /^(?:one or more )?child tests? (?:had errors|failed|had warnings)/i;

/** NUnit 2 suite types whose names make up a test's class name (a parameterized method or fixture does not). */
const CLASS_PATH_TYPES = new Set(['namespace', 'testfixture', 'genericfixture', 'setupfixture']);

/** The suites that stand for one parameterized test method (NUnit 3, NUnit 2): their rows are its test-cases. */
const PARAMETERIZED = /^(?:ParameterizedMethod|ParameterizedTest|Theory)$/i;

interface SuiteFrame {
  name: string;
  /** NUnit 3's `fullname`; for NUnit 2 the namespaces and fixture joined with dots */
  fullname: string;
  classname: string | undefined;
  type: string;
  path: string[];
  result: string | undefined;
  label: string | undefined;
  site: string | undefined;
  executed: string | undefined;
  success: string | undefined;
  /** index in `out` where the suite's records start */
  first: number;
  failure: string | undefined;
  reason: string | undefined;
  /** an enclosing suite failed on its own: this one's `site="Parent"` failure is that one */
  parentFailed: boolean;
  /** a parameterized method's categories, which are its rows' (NUnit writes them on the method's suite) */
  tags: string[] | undefined;
}

interface CaseFrame {
  rec: TestRecord;
  attrs: Record<string, string>;
  failure: string | undefined;
  reason: string | undefined;
  output: string;
  files: string[];
}

type Capture = { into: 'failure' | 'reason' | 'output' | 'file'; text: string };

const reader = xmlReportReader({
  format: 'nunit',
  what: 'an NUnit report',
  roots: ['test-run', 'test-results'],
  hint: 'pass the TestResult.xml NUnit wrote (nunit3-console --result, dotnet test --logger nunit)',
  handler: (report) => new NunitBuilder(report),
  records: (b) => b.out,
});

/**
 * Parses one NUnit report: NUnit 3's `<test-run>` and NUnit 2's `<test-results>` (also written
 * by NUnit 3's `--result=file;format=nunit2`, Pester and others). Each `<test-case>` is a record
 * whose suites are its enclosing `<test-suite>` names and whose class is its `classname` (NUnit 2:
 * the enclosing namespaces and fixture); `Category` properties (NUnit 2 `<categories>`) are its
 * tags, its other properties its properties; a parameterized test's rows are one record each. A
 * suite that failed on its own (a OneTimeSetUp or OneTimeTearDown, an invalid fixture: `site`
 * `SetUp`, `TearDown`, `Parent` or none, never `Child`) adds a suite-level entry as a JUnit suite's
 * `<failure>` does. `<attachments>` and `[[ATTACHMENT|…]]` lines of `<output>` are attachments.
 *
 * One pass, no document tree; errors are TmsyncError `invalid_report` naming the file (and the
 * line and column of malformed XML).
 */
export const parseNunit: (xml: string, report: string) => TestRecord[] = reader.parse;

/** The same for a report too large for one text (see readXmlReportInPieces); `pieceBytes` is for tests. */
export const readNunitInPieces: (bytes: Uint8Array, report: string, pieceBytes?: number) => TestRecord[] = reader.readInPieces;

class NunitBuilder implements XmlHandler {
  root: string | undefined;
  readonly out: TestRecord[] = [];
  private readonly names: string[] = [];
  private readonly suites: SuiteFrame[] = [];
  private test: CaseFrame | undefined;
  private capture: Capture | undefined;

  constructor(private readonly report: string) {}

  private get reading(): boolean {
    return this.root === 'test-run' || this.root === 'test-results';
  }

  wantsText(): boolean {
    return this.capture !== undefined;
  }

  text(value: string): void {
    if (this.capture) this.capture.text += value;
  }

  open(rawName: string, attrs: Record<string, string>): void {
    const name = localName(rawName);
    const parent = this.names[this.names.length - 1];
    this.names.push(name);
    if (parent === undefined) this.root = name;
    if (!this.reading) return;
    if (name === 'test-suite') this.openSuite(attrs);
    else if (name === 'test-case') this.openCase(attrs);
    else if (this.test) this.openInCase(name, parent, attrs);
    else if (this.suites.length > 0) this.openInSuite(this.suites[this.suites.length - 1], name, parent, attrs);
  }

  private openInSuite(s: SuiteFrame, name: string, parent: string | undefined, attrs: Record<string, string>): void {
    if (name === 'message' && (parent === 'failure' || parent === 'reason')) this.capture = { into: parent, text: '' };
    else if (!PARAMETERIZED.test(s.type)) return;
    else if (name === 'property' && parent === 'properties' && attrs.name === 'Category') (s.tags ??= []).push(attrs.value ?? '');
    else if (name === 'category' && parent === 'categories' && attrs.name !== undefined) (s.tags ??= []).push(attrs.name);
  }

  private openSuite(attrs: Record<string, string>): void {
    const outer = this.suites[this.suites.length - 1];
    const type = attrs.type ?? '';
    const name = attrs.name ?? '';
    const shown = type.toLowerCase() === 'assembly' ? baseName(name) : name;
    let fullname = attrs.fullname;
    if (fullname === undefined) {
      // NUnit 2: a fixture's class is the namespaces above it and its own name
      const above = outer?.type !== undefined && CLASS_PATH_TYPES.has(outer.type.toLowerCase()) ? outer.fullname : '';
      fullname = CLASS_PATH_TYPES.has(type.toLowerCase()) ? (above !== '' ? `${above}.${name}` : name) : above;
    }
    this.suites.push({
      name: shown,
      fullname,
      classname: attrs.classname,
      type,
      path: shown !== '' ? [...(outer?.path ?? []), shown] : (outer?.path ?? []),
      result: attrs.result,
      label: attrs.label,
      site: attrs.site,
      executed: attrs.executed,
      success: attrs.success,
      first: this.out.length,
      failure: undefined,
      reason: undefined,
      parentFailed: outer !== undefined && (outer.parentFailed || failedOnItsOwn(outer, false)),
      tags: undefined,
    });
  }

  private openCase(attrs: Record<string, string>): void {
    const suite = this.suites[this.suites.length - 1];
    const fixture = [...this.suites].reverse().find((s) => s.classname !== undefined || /fixture$/i.test(s.type));
    const classname = attrs.classname ?? fixture?.classname ?? fixture?.fullname ?? '';
    const rec: TestRecord = {
      name: withoutClass(attrs.name ?? attrs.fullname ?? '', classname),
      classname,
      outcome: 'error',
      properties: NO_PROPERTIES,
      suites: suite?.path ?? [],
      report: this.report,
    };
    if (suite?.tags && PARAMETERIZED.test(suite.type)) rec.tags = [...suite.tags];
    const ms = secondsToMs(attrs.duration ?? attrs.time);
    if (ms !== undefined) rec.durationMs = ms;
    this.test = { rec, attrs, failure: undefined, reason: undefined, output: '', files: [] };
  }

  private openInCase(name: string, parent: string | undefined, attrs: Record<string, string>): void {
    const t = this.test!;
    if (name === 'message' && (parent === 'failure' || parent === 'reason')) this.capture = { into: parent, text: '' };
    else if (name === 'output' && parent === 'test-case') this.capture = { into: 'output', text: '' };
    else if (name === 'filePath' && parent === 'attachment') this.capture = { into: 'file', text: '' };
    else if (name === 'property' && parent === 'properties' && attrs.name !== undefined) {
      if (attrs.name === 'Category') (t.rec.tags ??= []).push(attrs.value ?? '');
      else t.rec.properties = addProperty(t.rec.properties, attrs.name, attrs.value ?? '');
    } else if (name === 'category' && parent === 'categories' && attrs.name !== undefined) (t.rec.tags ??= []).push(attrs.name);
  }

  close(): void {
    const name = this.names.pop();
    if (this.capture) this.endCapture(this.capture);
    if (!this.reading) return;
    if (name === 'test-case' && this.test) this.closeCase(this.test);
    else if (name === 'test-suite') this.closeSuite(this.suites.pop()!);
  }

  private endCapture(c: Capture): void {
    this.capture = undefined;
    const target = this.test ?? this.suites[this.suites.length - 1];
    switch (c.into) {
      case 'failure':
      case 'reason':
        if (target && target[c.into] === undefined) target[c.into] = c.text;
        break;
      case 'output':
        if (this.test) this.test.output += c.text;
        break;
      case 'file':
        if (this.test && c.text.trim() !== '') this.test.files.push(c.text.trim());
        break;
    }
  }

  private closeCase(t: CaseFrame): void {
    this.test = undefined;
    const { rec } = t;
    rec.outcome = outcomeOf(t.attrs);
    const message = rec.outcome === 'skipped' ? (firstLine(t.reason) ?? firstLine(t.failure)) : (firstLine(t.failure) ?? firstLine(t.reason));
    const unknown = resultWord(t.attrs) !== undefined && !(resultWord(t.attrs)!.toLowerCase() in NUNIT_RESULTS) ? `unknown NUnit result "${resultWord(t.attrs)}"` : undefined;
    if (message !== undefined || unknown !== undefined) rec.message = [unknown, message].filter((m) => m !== undefined).join(': ');
    const attachments: RecordAttachment[] = t.files.map((path) => ({ path }));
    if (t.output.includes('[[ATTACHMENT|') || t.output.includes('file://')) {
      for (const a of attachmentsInOutput(t.output)) if (!attachments.some((b) => b.path === a.path)) attachments.push(a);
    }
    if (attachments.length > 0) rec.attachments = attachments;
    this.out.push(rec);
  }

  /** A suite's own failure: one suite-level entry standing for it (members: its records). */
  private closeSuite(s: SuiteFrame): void {
    if (!failedOnItsOwn(s, s.parentFailed)) return;
    const members: TestRecord[] = [];
    for (let k = s.first; k < this.out.length; k++) if (!this.out[k].suiteLevel) members.push(this.out[k]);
    const detail = firstLine(s.failure) ?? firstLine(s.reason) ?? `the ${s.type || 'suite'} ${resultWord(s) ?? 'failed'}${s.site ? ` in ${s.site}` : ''}`;
    this.out.push({
      name: s.fullname !== '' ? s.fullname : s.name,
      classname: '',
      outcome: outcomeOf(s),
      message: `suite-level failure: ${detail}`,
      properties: {},
      suites: s.path,
      report: this.report,
      suiteLevel: { members },
    });
  }
}

/** The result word: NUnit 3 and 2 `result`; NUnit 2.4 wrote only `executed` and `success`. */
function resultWord(a: { result?: string; executed?: string; success?: string }): string | undefined {
  if (a.result !== undefined) return a.result;
  if (a.executed?.toLowerCase() === 'false') return 'Skipped';
  if (a.success !== undefined) return a.success.toLowerCase() === 'true' ? 'Success' : 'Failure';
  return undefined;
}

function outcomeOf(a: { result?: string; label?: string; executed?: string; success?: string }): Outcome {
  const word = resultWord(a);
  const outcome = word !== undefined ? NUNIT_RESULTS[word.toLowerCase()] : undefined;
  if (outcome === undefined) return 'error';
  if (outcome === 'failed' && a.label !== undefined && ERROR_LABELS.has(a.label.toLowerCase())) return 'error';
  return outcome;
}

/**
 * Whether a suite failed on its own rather than through its children: a failed result whose site
 * is not `Child` (NUnit 3) and whose message is not NUnit's "child tests failed" (NUnit 2 has no
 * site). A `site="Parent"` failure stands for the enclosing suite's, so it counts only when no
 * enclosing suite in the report failed on its own.
 */
function failedOnItsOwn(s: SuiteFrame, parentFailed: boolean): boolean {
  const outcome = outcomeOf(s);
  if (outcome !== 'failed' && outcome !== 'error') return false;
  const site = s.site?.toLowerCase();
  if (site === 'child') return false;
  if (site === 'parent' && parentFailed) return false;
  const message = firstLine(s.failure) ?? firstLine(s.reason);
  return message === undefined ? site !== undefined && site !== 'test' : !CHILD_FAILURE.test(message);
}
