import { attachmentsInOutput } from './output-attachments.js';
import type { Outcome, RecordAttachment, TestRecord } from './record.js';
import { addProperty, firstLine, localName, NO_PROPERTIES, withoutClass, type XmlHandler, xmlReportReader } from './xml-report.js';

/**
 * A TRX report's outcomes (vstst.xsd `TestOutcome`) as record outcomes. A test that ran to a pass
 * passed, even when the run was aborted after it or it left warnings; one that did not finish or
 * could not run as written is an error; one that was not run or gave no verdict is skipped.
 * docs/results.md shows this table.
 */
export const TRX_OUTCOMES: Readonly<Record<string, Outcome>> = {
  Passed: 'passed',
  PassedButRunAborted: 'passed',
  Completed: 'passed',
  Warning: 'passed',
  Failed: 'failed',
  Error: 'error',
  Timeout: 'error',
  Aborted: 'error',
  Disconnected: 'error',
  NotRunnable: 'error',
  InProgress: 'error',
  Pending: 'error',
  NotExecuted: 'skipped',
  Inconclusive: 'skipped',
};

const OUTCOME_BY_LOWER = new Map(Object.entries(TRX_OUTCOMES).map(([k, v]) => [k.toLowerCase(), { word: k, outcome: v }]));

/** Outcomes whose word says more than the record's outcome does: kept at the head of the message. */
const PLAIN = new Set(['Passed', 'Failed', 'Error']);

/** Run-level outcomes (`RunInfo`, `ResultSummary`) that mean the run itself went wrong. */
const RUN_FAILED = new Set(['error', 'failed', 'aborted', 'timeout', 'disconnected']);

/** A test's definition (`<TestDefinitions><UnitTest>`): what the results join to by `testId`. */
interface Definition {
  name: string | undefined;
  className: string;
  tags: string[] | undefined;
  properties: Record<string, string>;
}

interface ResultFrame {
  rec: TestRecord;
  testId: string | undefined;
  raw: string | undefined;
  /** `relativeResultsDirectory`, else `executionId`: the result's directory under `In/` */
  dir: string | undefined;
  files: string[];
  output: string;
  errorMessage: string | undefined;
  textMessage: string | undefined;
  dataRow: string | undefined;
  inner: number;
  innerFailing: boolean;
}

type Capture = { into: 'output' | 'error' | 'text' | 'key' | 'value' | 'runinfo'; text: string };

const reader = xmlReportReader({
  format: 'trx',
  what: 'a TRX report',
  roots: ['TestRun'],
  hint: 'pass the .trx file `dotnet test --logger trx` (or vstest.console /logger:trx) wrote, usually under TestResults/',
  handler: (report) => new TrxBuilder(report),
  records: (b) => b.finish(),
});

/**
 * Parses one TRX document (`dotnet test --logger trx`, vstest.console, MSTest): each
 * `<UnitTestResult>` (and the other result kinds) joined to its `<TestDefinitions>` entry by
 * `testId` for its class, categories (→ tags) and properties. A data-driven test's rows
 * (`<InnerResults>`) are one record each; the parent is kept only when it failed and no row did.
 * `<ResultFiles>` and data-collector files become attachments with paths relative to the report's
 * directory (see {@link resultFilePath}); `[[ATTACHMENT|…]]` lines of the output too. A run-level
 * error (`<RunInfo outcome="Error">`, or a failed run without results) becomes one suite-level
 * entry that names no case, so the push lists it instead of passing over it.
 *
 * One pass over the text and no document tree (the JUnit reader's scanner); never throws anything
 * but a TmsyncError `invalid_report` naming the file and, for malformed XML, the line and column.
 */
export const parseTrx: (xml: string, report: string) => TestRecord[] = reader.parse;

/** The same for a report too large for one text (see readXmlReportInPieces); `pieceBytes` is for tests. */
export const readTrxInPieces: (bytes: Uint8Array, report: string, pieceBytes?: number) => TestRecord[] = reader.readInPieces;

class TrxBuilder implements XmlHandler {
  root: string | undefined;
  private readonly names: string[] = [];
  private readonly out: TestRecord[] = [];
  /** the testId of each record of `out`, to join with its definition at the end */
  private readonly testIds: (string | undefined)[] = [];
  private readonly files = new Map<TestRecord, { dir: string | undefined; files: string[] }>();
  private readonly results: ResultFrame[] = [];
  private readonly definitions = new Map<string, Definition>();
  private definition: Definition | undefined;
  private property: { key: string; value: string } | undefined;
  private capture: Capture | undefined;
  private deploymentRoot: string | undefined;
  private runName: string | undefined;
  private summaryOutcome: string | undefined;
  private runInfo: { outcome: string; text: string } | undefined;
  private readonly runErrors: string[] = [];

  constructor(private readonly report: string) {}

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
    if (parent === undefined) {
      this.root = name;
      this.runName = attrs.name;
      return;
    }
    if (this.root !== 'TestRun') return;
    if (parent === 'Results' || parent === 'InnerResults') this.openResult(attrs);
    else if (parent === 'TestDefinitions') {
      this.definition = { name: attrs.name, className: '', tags: undefined, properties: NO_PROPERTIES };
      if (attrs.id !== undefined) this.definitions.set(attrs.id, this.definition);
    } else if (this.definition) this.openInDefinition(name, attrs);
    else if (this.results.length > 0) this.openInResult(name, parent, attrs);
    else this.openInRun(name, parent, attrs);
  }

  private openResult(attrs: Record<string, string>): void {
    const outer = this.results[this.results.length - 1];
    const rec: TestRecord = { name: attrs.testName ?? outer?.rec.name ?? '', classname: '', outcome: 'error', properties: NO_PROPERTIES, suites: [], report: this.report };
    const ms = timeSpanMs(attrs.duration);
    if (ms !== undefined) rec.durationMs = ms;
    this.results.push({
      rec,
      testId: attrs.testId ?? outer?.testId,
      raw: attrs.outcome,
      dir: attrs.relativeResultsDirectory ?? attrs.executionId,
      files: [],
      output: '',
      errorMessage: undefined,
      textMessage: undefined,
      dataRow: attrs.dataRowInfo,
      inner: 0,
      innerFailing: false,
    });
  }

  private openInDefinition(name: string, attrs: Record<string, string>): void {
    const def = this.definition!;
    if (name === 'TestMethod') def.className = assemblyQualifiedClass(attrs.className ?? '');
    else if (name === 'TestCategoryItem' && attrs.TestCategory !== undefined) (def.tags ??= []).push(attrs.TestCategory);
    else if (name === 'Property') this.property = { key: '', value: '' };
    else if (this.property && (name === 'Key' || name === 'Value')) this.capture = { into: name === 'Key' ? 'key' : 'value', text: '' };
  }

  private openInResult(name: string, parent: string, attrs: Record<string, string>): void {
    const frame = this.results[this.results.length - 1];
    if ((name === 'StdOut' || name === 'StdErr') && parent === 'Output') this.capture = { into: 'output', text: '' };
    else if (name === 'Message' && parent === 'ErrorInfo') this.capture = { into: 'error', text: '' };
    else if (name === 'Message' && parent === 'TextMessages' && frame.textMessage === undefined) this.capture = { into: 'text', text: '' };
    else if (name === 'ResultFile' && attrs.path !== undefined) frame.files.push(attrs.path);
    // a data collector's files of this result (a screen recording, say): <UriAttachment><A href>
    else if (name === 'A' && parent === 'UriAttachment' && attrs.href !== undefined) frame.files.push(attrs.href);
  }

  private openInRun(name: string, parent: string, attrs: Record<string, string>): void {
    if (name === 'Deployment') this.deploymentRoot = attrs.runDeploymentRoot;
    else if (name === 'ResultSummary') this.summaryOutcome = attrs.outcome;
    else if (name === 'RunInfo') this.runInfo = { outcome: attrs.outcome ?? '', text: '' };
    else if (name === 'Text' && parent === 'RunInfo') this.capture = { into: 'runinfo', text: '' };
  }

  close(): void {
    const name = this.names.pop();
    const parent = this.names[this.names.length - 1];
    if (this.capture) this.endCapture(this.capture);
    if (this.root !== 'TestRun' || name === undefined) return;
    if (parent === 'Results' || parent === 'InnerResults') this.closeResult();
    else if (parent === 'TestDefinitions') this.definition = undefined;
    else if (name === 'Property' && this.property && this.definition) {
      if (this.property.key !== '') this.definition.properties = addProperty(this.definition.properties, this.property.key, this.property.value);
      this.property = undefined;
    } else if (name === 'RunInfo' && this.runInfo) {
      if (RUN_FAILED.has(this.runInfo.outcome.toLowerCase())) this.runErrors.push(firstLine(this.runInfo.text) ?? `a RunInfo with outcome ${this.runInfo.outcome}`);
      this.runInfo = undefined;
    }
  }

  private endCapture(c: Capture): void {
    this.capture = undefined;
    const frame = this.results[this.results.length - 1];
    switch (c.into) {
      case 'output':
        if (frame) frame.output += `${c.text}\n`;
        break;
      case 'error':
        if (frame) frame.errorMessage = c.text;
        break;
      case 'text':
        if (frame) frame.textMessage = c.text;
        break;
      case 'key':
        if (this.property) this.property.key = c.text.trim();
        break;
      case 'value':
        if (this.property) this.property.value = c.text.trim();
        break;
      case 'runinfo':
        if (this.runInfo) this.runInfo.text += c.text;
        break;
    }
  }

  private closeResult(): void {
    const frame = this.results.pop()!;
    const { rec } = frame;
    const known = frame.raw !== undefined ? OUTCOME_BY_LOWER.get(frame.raw.trim().toLowerCase()) : undefined;
    rec.outcome = known?.outcome ?? 'error';
    const word = known?.word ?? (frame.raw === undefined ? 'no outcome' : `unknown TRX outcome "${frame.raw}"`);
    let message = firstLine(frame.errorMessage) ?? (word === 'Passed' ? undefined : firstLine(frame.textMessage));
    if (!PLAIN.has(word)) message = message !== undefined ? `${word}: ${message}` : word;
    if (frame.dataRow !== undefined && message !== undefined) message = `data row ${frame.dataRow}: ${message}`;
    if (message !== undefined) rec.message = message;
    const outer = this.results[this.results.length - 1];
    if (outer) {
      outer.inner++;
      if (rec.outcome === 'failed' || rec.outcome === 'error') outer.innerFailing = true;
    }
    // a data-driven (or ordered) test's parent sums its rows up: kept only for a failure no row shows
    if (frame.inner > 0 && (frame.innerFailing || (rec.outcome !== 'failed' && rec.outcome !== 'error'))) return;
    const fromOutput = frame.output.includes('[[ATTACHMENT|') || frame.output.includes('file://') ? attachmentsInOutput(frame.output) : [];
    if (frame.files.length > 0) this.files.set(rec, { dir: frame.dir, files: frame.files });
    if (fromOutput.length > 0) rec.attachments = fromOutput;
    this.out.push(rec);
    this.testIds.push(frame.testId);
  }

  /** Joins each result to its definition, places its result files, adds the run-level entry. */
  finish(): TestRecord[] {
    for (let k = 0; k < this.out.length; k++) {
      const rec = this.out[k];
      const id = this.testIds[k];
      const def = id !== undefined ? this.definitions.get(id) : undefined;
      if (def) {
        rec.classname = def.className;
        if (rec.name === '' && def.name !== undefined) rec.name = def.name;
        rec.name = withoutClass(rec.name, def.className);
        if (def.tags) rec.tags = def.tags;
        rec.properties = def.properties;
      }
      const placed = this.files.get(rec);
      if (placed) {
        const attachments: RecordAttachment[] = placed.files.map((f) => ({ path: resultFilePath(f, placed.dir, this.deploymentRoot) }));
        for (const a of rec.attachments ?? []) if (!attachments.some((b) => b.path === a.path)) attachments.push(a);
        rec.attachments = attachments;
      }
    }
    const summaryFailed = this.summaryOutcome !== undefined && RUN_FAILED.has(this.summaryOutcome.toLowerCase());
    if (this.runErrors.length > 0 || (summaryFailed && this.out.length === 0)) {
      const first = this.runErrors[0] ?? `the run ended ${this.summaryOutcome} without a result`;
      const n = this.runErrors.length;
      this.out.push({
        name: this.runName ?? 'test run',
        classname: '',
        outcome: 'error',
        message: `${n > 1 ? `${n} run-level errors, the first: ` : 'run-level error: '}${first}`,
        properties: {},
        suites: [],
        report: this.report,
        suiteLevel: { members: [] },
      });
    }
    return this.out;
  }
}

/**
 * Where a result file is, relative to the report's directory. vstest copies a result's files to
 * `<runDeploymentRoot>/In/<relativeResultsDirectory>/<machine>/<file>` beside the .trx and writes
 * `<machine>/<file>` (MSTest wrote the file name alone) into `<ResultFile path>`; the directory is
 * the result's `relativeResultsDirectory` (its `executionId` when missing), the root the
 * `<Deployment runDeploymentRoot>` of the run's settings. An absolute path or a URL is kept.
 */
export function resultFilePath(path: string, dir: string | undefined, deploymentRoot: string | undefined): string {
  if (/^(?:[A-Za-z]:[\\/]|[\\/]|[A-Za-z][A-Za-z0-9+.-]+:\/\/)/.test(path)) return path;
  const parts = [deploymentRoot, 'In', dir, path].filter((p): p is string => p !== undefined && p !== '');
  return parts.join('/').replace(/\\/g, '/');
}

/** MSTest v1 wrote `Namespace.Class, Assembly, Version=…`: the class is before the first comma. */
function assemblyQualifiedClass(className: string): string {
  const comma = className.indexOf(',');
  return (comma < 0 ? className : className.slice(0, comma)).trim();
}

/** A TimeSpan (`00:00:01.2345678`, `1.02:03:04.5`) in milliseconds. */
function timeSpanMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*(?:(\d+)\.)?(\d+):(\d+):(\d+(?:\.\d+)?)\s*$/.exec(value);
  if (!m) return undefined;
  const seconds = Number(m[1] ?? 0) * 86400 + Number(m[2]) * 3600 + Number(m[3]) * 60 + Number(m[4]);
  return Math.round(seconds * 1000);
}
