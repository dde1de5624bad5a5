import { attachmentsInOutput } from './output-attachments.js';
import type { Outcome, TestRecord } from './record.js';
import { addProperty, baseName, firstLine, localName, NO_PROPERTIES, secondsToMs, withoutClass, type XmlHandler, xmlReportReader } from './xml-report.js';

/** xUnit.net's `result` of a `<test>` as record outcomes, case-insensitive; docs/results.md shows this table. */
export const XUNIT_RESULTS: Readonly<Record<string, Outcome>> = {
  pass: 'passed',
  fail: 'failed',
  skip: 'skipped',
  notrun: 'skipped',
};

/** The trait whose values are a test's categories (`[Trait("Category", "SHOP-12")]`): its tags. */
const CATEGORY_TRAIT = 'category';

/** What a test is known by to an `<error>` of its assembly: the error's `name` names one of these, by the error's `type`. */
interface Member {
  rec: TestRecord;
  collection: string;
  method: string;
  fullName: string;
}

interface TestFrame {
  rec: TestRecord;
  result: string | undefined;
  method: string;
  fullName: string;
  failure: string | undefined;
  reason: string | undefined;
  output: string;
}

type Capture = { into: 'failure' | 'reason' | 'output' | 'error'; text: string };

const reader = xmlReportReader({
  format: 'xunit',
  what: 'an xUnit.net report',
  roots: ['assemblies', 'assembly'],
  hint: 'pass the file the xUnit.net runner wrote with -xml (or --logger xunit); for TRX or NUnit output, let --format tell by itself',
  handler: (report) => new XunitBuilder(report),
  records: (b) => b.out,
});

/**
 * Parses one xUnit.net XML report (`<assemblies>`, the v2 format the console and MSBuild runners
 * write with `-xml`; a bare `<assembly>` and the v1 `<class>` grouping are read too). Each `<test>`
 * is a record: its class is `type`, its name the `name` without the class in front, its traits
 * its properties and its `Category` traits its tags; a theory's rows are one record each. An
 * `<error>` of an assembly (a fixture's or class's clean-up that threw, a catastrophic failure)
 * is a suite-level entry over the tests it concerns. `[[ATTACHMENT|…]]` lines of `<output>` are
 * attachments.
 *
 * One pass, no document tree; errors are TmsyncError `invalid_report` naming the file (and the
 * line and column of malformed XML).
 */
export const parseXunit: (xml: string, report: string) => TestRecord[] = reader.parse;

/** The same for a report too large for one text (see readXmlReportInPieces); `pieceBytes` is for tests. */
export const readXunitInPieces: (bytes: Uint8Array, report: string, pieceBytes?: number) => TestRecord[] = reader.readInPieces;

class XunitBuilder implements XmlHandler {
  root: string | undefined;
  readonly out: TestRecord[] = [];
  private readonly names: string[] = [];
  private assembly: string[] = [];
  private collection: { name: string; path: string[] } | undefined;
  private members: Member[] = [];
  private errors: { type: string; name: string; message: string | undefined }[] = [];
  private error: { type: string; name: string; message: string | undefined } | undefined;
  private test: TestFrame | undefined;
  private capture: Capture | undefined;

  constructor(private readonly report: string) {}

  private get reading(): boolean {
    return this.root === 'assemblies' || this.root === 'assembly';
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
    if (name === 'assembly') {
      this.assembly = attrs.name !== undefined && attrs.name !== '' ? [baseName(attrs.name)] : [];
      this.members = [];
      this.errors = [];
    } else if ((name === 'collection' || name === 'class') && !this.test) {
      const n = attrs.name ?? '';
      this.collection = { name: n, path: n !== '' ? [...this.assembly, n] : this.assembly };
    } else if (name === 'test') this.openTest(attrs);
    else if (this.test) this.openInTest(name, parent, attrs);
    else if (name === 'error' && parent === 'errors') this.error = { type: attrs.type ?? '', name: attrs.name ?? '', message: undefined };
    else if (name === 'message' && parent === 'failure' && this.error) this.capture = { into: 'error', text: '' };
  }

  private openTest(attrs: Record<string, string>): void {
    const classname = attrs.type ?? '';
    const fullName = attrs.name ?? '';
    const rec: TestRecord = {
      name: withoutClass(fullName, classname),
      classname,
      outcome: 'error',
      properties: NO_PROPERTIES,
      suites: this.collection?.path ?? this.assembly,
      report: this.report,
    };
    const ms = secondsToMs(attrs.time);
    if (ms !== undefined) rec.durationMs = ms;
    this.test = { rec, result: attrs.result, method: attrs.method ?? '', fullName, failure: undefined, reason: undefined, output: '' };
  }

  private openInTest(name: string, parent: string | undefined, attrs: Record<string, string>): void {
    const t = this.test!;
    if (name === 'trait' && attrs.name !== undefined) {
      if (attrs.name.toLowerCase() === CATEGORY_TRAIT) (t.rec.tags ??= []).push(attrs.value ?? '');
      t.rec.properties = addProperty(t.rec.properties, attrs.name, attrs.value ?? '');
    } else if (name === 'message' && parent === 'failure') this.capture = { into: 'failure', text: '' };
    // v2 writes the skip reason as the text of <reason>, v1 as <reason><message>
    else if (name === 'reason' || (name === 'message' && parent === 'reason')) this.capture = { into: 'reason', text: '' };
    else if (name === 'output' && parent === 'test') this.capture = { into: 'output', text: '' };
  }

  close(): void {
    const name = this.names.pop();
    if (this.capture) this.endCapture(this.capture);
    if (!this.reading) return;
    if (name === 'test' && this.test) this.closeTest(this.test);
    else if (name === 'error' && this.error) {
      this.errors.push(this.error);
      this.error = undefined;
    } else if (name === 'collection' || name === 'class') this.collection = undefined;
    else if (name === 'assembly') this.closeAssembly();
  }

  private endCapture(c: Capture): void {
    this.capture = undefined;
    if (c.into === 'error') {
      if (this.error) this.error.message ??= c.text;
      return;
    }
    const t = this.test;
    if (!t) return;
    if (c.into === 'output') t.output += c.text;
    else if (t[c.into] === undefined || t[c.into]!.trim() === '') t[c.into] = c.text;
  }

  private closeTest(t: TestFrame): void {
    this.test = undefined;
    const { rec } = t;
    const outcome = t.result !== undefined ? XUNIT_RESULTS[t.result.trim().toLowerCase()] : undefined;
    rec.outcome = outcome ?? 'error';
    const message = rec.outcome === 'skipped' ? (firstLine(t.reason) ?? (t.result?.toLowerCase() === 'notrun' ? 'not run' : undefined)) : firstLine(t.failure);
    const unknown = outcome === undefined ? (t.result === undefined ? 'no result' : `unknown xUnit.net result "${t.result}"`) : undefined;
    if (message !== undefined || unknown !== undefined) rec.message = [unknown, message].filter((m) => m !== undefined).join(': ');
    if (t.output.includes('[[ATTACHMENT|') || t.output.includes('file://')) {
      const found = attachmentsInOutput(t.output);
      if (found.length > 0) rec.attachments = found;
    }
    this.out.push(rec);
    this.members.push({ rec, collection: this.collection?.name ?? '', method: `${rec.classname}.${t.method}`, fullName: t.fullName });
  }

  /** The assembly's `<error>`s, now that its tests are known: one suite-level entry each. */
  private closeAssembly(): void {
    for (const e of this.errors) {
      const concerns = ERROR_SCOPE[e.type.toLowerCase()] ?? (() => true);
      const members = this.members.filter((m) => concerns(m, e.name)).map((m) => m.rec);
      this.out.push({
        name: e.name !== '' ? e.name : (this.assembly[0] ?? e.type),
        classname: '',
        outcome: 'error',
        message: `suite-level failure: ${e.type || 'error'}${firstLine(e.message) !== undefined ? `: ${firstLine(e.message)}` : ''}`,
        properties: {},
        suites: this.assembly,
        report: this.report,
        suiteLevel: { members },
      });
    }
    this.members = [];
    this.errors = [];
  }
}

/**
 * The tests an `<error>` concerns, by its `type`: a collection's, class's or method's clean-up
 * names that collection, class or method; a test's clean-up names the test; anything else
 * (`assembly-cleanup`, `fatal`) concerns every test of the assembly.
 */
const ERROR_SCOPE: Readonly<Record<string, (m: Member, name: string) => boolean>> = {
  'test-collection-cleanup': (m, name) => m.collection === name,
  'test-class-cleanup': (m, name) => m.rec.classname === name,
  'test-method-cleanup': (m, name) => m.method === name,
  'test-case-cleanup': (m, name) => m.fullName === name,
  'test-cleanup': (m, name) => m.fullName === name,
};
