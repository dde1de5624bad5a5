import { TmsyncError } from '../errors.js';
import type { XmlHandler } from '../xml-scan.js';
import type { Outcome, RecordAttachment, TestRecord } from './record.js';
import { filesInLog, firstLine, millis, scanRootedReport } from './xml-report.js';

/**
 * TestNG's `testng-results.xml` (XMLReporter): `<suite>` → `<test>` → `<class>` → `<test-method>`.
 *
 * - A test method is one record: `classname` the class, `name` the method, with a data provider's
 *   row values in brackets (`login[alice, 3]`) so that each row is its own record; `suites` the
 *   suite and the `<test>`; groups (the suite's `<groups>` section, or the method's `groups`
 *   attribute) are its tags.
 * - Retries: the attempts of one method with the same parameters in one class count once. An
 *   attempt marked `retried="true"` (TestNG 7) is superseded by the next; otherwise the last attempt
 *   counts (a failure then a pass is a pass, as a JUnit `<flakyFailure>`), except that a last
 *   attempt written `SKIP` after a `FAIL` (how older TestNG wrote a retry analyzer giving up) is failed.
 * - A configuration method (`is-config="true"`: `@BeforeClass`, `@BeforeMethod`, `@AfterClass`, …)
 *   is not a test; when it failed, its class gets a suite-level entry (record.ts) that fails every
 *   case the class's methods map to — the methods themselves are written `SKIP`.
 * - `<reporter-output><line>`: `[[ATTACHMENT|path]]`, `file://` links, `<img src>`/`<a href>` and
 *   screenshot paths are the record's attachments; a configuration method's (an `@AfterMethod`
 *   taking a screenshot) go to the test method before it.
 */

/** TestNG status → outcome; any other status is an error naming it. */
export const TESTNG_STATUS_OUTCOMES: Readonly<Record<string, Outcome>> = {
  PASS: 'passed',
  FAIL: 'failed',
  SKIP: 'skipped',
  // failed, but within the method's successPercentage: TestNG does not fail the run for it
  SUCCESS_PERCENTAGE_FAILURE: 'passed',
};

interface Attempt {
  record: TestRecord;
  status: string;
  retried: boolean;
}

interface ClassFrame {
  name: string;
  attempts: Attempt[];
  configFailures: string[];
  /** attachments of failed configuration methods before any test method */
  configFiles: RecordAttachment[];
}

interface MethodFrame {
  attrs: Record<string, string>;
  config: boolean;
  message?: string;
  params: string[];
  lines: string[];
}

/** Parses one `testng-results.xml`; `invalid_report` with `file:line:col` when it is not one. */
export function parseTestng(xml: string, report: string): TestRecord[] {
  const builder = new TestngBuilder(report);
  scanRootedReport(xml, report, builder, 'testng-results', {
    format: 'TestNG',
    hint: 'pass the testng-results.xml TestNG writes in its output directory (test-output/, target/surefire-reports/, build/test-results/)',
  });
  const fragment = builder.fragments[0];
  if (fragment !== undefined) {
    throw new TmsyncError('invalid_report', `${report}: the results of suite "${fragment.name}" are in another file (url="${fragment.url}"), which tmsync does not read`, {
      hint: 'write testng-results.xml unfragmented (XMLReporter fileFragmentationLevel 1, the default)',
      details: { file: report, suite: fragment.name, url: fragment.url },
    });
  }
  return builder.out;
}

class TestngBuilder implements XmlHandler {
  readonly out: TestRecord[] = [];
  /** suites written to files of their own (`<suite url>`: fileFragmentationLevel 2 or 3) */
  readonly fragments: { name: string; url: string }[] = [];
  root: string | undefined;
  private readonly path: string[] = [];
  private suite = '';
  private test = '';
  private groups = new Map<string, string[]>();
  private group: string | undefined;
  private cls: ClassFrame | undefined;
  private method: MethodFrame | undefined;
  /** the text being collected: a `<message>`, a param `<value>` or a reporter `<line>` */
  private collecting: 'message' | 'value' | 'line' | undefined;
  private buffer = '';

  constructor(private readonly report: string) {}

  wantsText(): boolean {
    return this.collecting !== undefined;
  }

  text(value: string): void {
    this.buffer += value;
  }

  open(name: string, attrs: Record<string, string>): void {
    const parent = this.path[this.path.length - 1];
    this.path.push(name);
    if (parent === undefined) {
      this.root = name;
      return;
    }
    if (this.root !== 'testng-results') return;
    switch (name) {
      case 'suite':
        if (parent === 'testng-results') {
          this.suite = attrs.name ?? '';
          this.groups = new Map();
          if (attrs.url !== undefined && attrs.url !== '') this.fragments.push({ name: this.suite, url: attrs.url });
        }
        return;
      case 'group':
        if (parent === 'groups') this.group = attrs.name;
        return;
      case 'method':
        if (parent === 'group' && this.group !== undefined) this.addGroup(`${attrs.class ?? ''}#${attrs.name ?? ''}`, [this.group]);
        return;
      case 'test':
        if (parent === 'suite') this.test = attrs.name ?? '';
        return;
      case 'class':
        if (parent === 'test') this.cls = { name: attrs.name ?? '', attempts: [], configFailures: [], configFiles: [] };
        return;
      case 'test-method':
        if (parent === 'class' && this.cls) this.method = { attrs, config: attrs['is-config'] === 'true', params: [], lines: [] };
        return;
      default:
        this.openDetail(name, parent, attrs);
    }
  }

  private openDetail(name: string, parent: string, attrs: Record<string, string>): void {
    if (this.method === undefined) return;
    if (name === 'message' && parent === 'exception' && this.method.message === undefined) this.collect('message');
    else if (name === 'value' && parent === 'param') {
      if (attrs['is-null'] === 'true') this.method.params.push('null');
      else this.collect('value');
    } else if (name === 'line' && parent === 'reporter-output') this.collect('line');
  }

  private collect(what: 'message' | 'value' | 'line'): void {
    this.collecting = what;
    this.buffer = '';
  }

  close(name: string): void {
    this.path.pop();
    if (this.root !== 'testng-results') return;
    if (this.collecting !== undefined && (name === 'message' || name === 'value' || name === 'line')) {
      const m = this.method;
      if (m) {
        if (this.collecting === 'message') m.message = this.buffer;
        else if (this.collecting === 'value') m.params.push(this.buffer.trim());
        else m.lines.push(this.buffer);
      }
      this.collecting = undefined;
      this.buffer = '';
      return;
    }
    if (name === 'group') this.group = undefined;
    else if (name === 'test-method' && this.method) {
      this.finishMethod(this.method);
      this.method = undefined;
    } else if (name === 'class' && this.cls && this.path[this.path.length - 1] === 'test') {
      this.finishClass(this.cls);
      this.cls = undefined;
    }
  }

  private addGroup(key: string, names: string[]): void {
    const list = this.groups.get(key);
    if (list) list.push(...names.filter((g) => !list.includes(g)));
    else this.groups.set(key, [...names]);
  }

  private finishMethod(m: MethodFrame): void {
    const cls = this.cls;
    if (cls === undefined) return;
    const status = (m.attrs.status ?? '').trim().toUpperCase();
    const files = m.lines.length > 0 ? filesInLog(m.lines.join('\n')) : [];
    if (m.config) {
      if (status === 'FAIL') cls.configFailures.push(`${m.attrs.name ?? 'configuration method'} failed${m.message ? `: ${firstLine(m.message)}` : ''}`);
      // an @AfterMethod's screenshot belongs to the test method it ran after
      const before = cls.attempts[cls.attempts.length - 1]?.record;
      if (files.length > 0) {
        if (before) before.attachments = filesInLog('', [...(before.attachments ?? []), ...files]);
        else cls.configFiles.push(...files);
      }
      return;
    }
    const method = m.attrs.name ?? '';
    const name = m.params.length > 0 ? `${method}[${m.params.join(', ')}]` : method;
    const instance = m.attrs['test-instance-name'];
    const record: TestRecord = {
      name: instance !== undefined && instance !== '' && instance !== method ? `${instance} ${name}` : name,
      classname: cls.name,
      outcome: TESTNG_STATUS_OUTCOMES[status] ?? 'error',
      properties: {},
      suites: [this.suite, this.test].filter((s) => s !== ''),
      report: this.report,
    };
    if (!(status in TESTNG_STATUS_OUTCOMES)) record.message = `TestNG status "${m.attrs.status ?? ''}"`;
    else if (status === 'SUCCESS_PERCENTAGE_FAILURE') record.message = 'failed within the success percentage';
    const message = firstLine(m.message);
    if (message !== undefined) record.message = message;
    const durationMs = millis(m.attrs['duration-ms']);
    if (durationMs !== undefined) record.durationMs = durationMs;
    if (m.attrs['data-provider']) record.properties['data-provider'] = m.attrs['data-provider'];
    if (m.attrs.description) record.properties.description = m.attrs.description;
    const tags = [...(this.groups.get(`${cls.name}#${method}`) ?? [])];
    for (const g of (m.attrs.groups ?? '').split(/[\s,]+/)) if (g !== '' && !tags.includes(g)) tags.push(g);
    if (tags.length > 0) record.tags = tags;
    if (files.length > 0) record.attachments = files;
    cls.attempts.push({ record, status, retried: m.attrs.retried === 'true' });
  }

  /** The class's records, retries folded, then its suite-level entry when a configuration method failed. */
  private finishClass(cls: ClassFrame): void {
    const members = foldAttempts(cls.attempts);
    for (const r of members) this.out.push(r);
    if (cls.configFailures.length === 0) return;
    const n = cls.configFailures.length;
    const entry: TestRecord = {
      name: cls.name,
      classname: '',
      outcome: 'failed',
      message: `${n > 1 ? `${n} suite-level failures, the first: ` : 'suite-level failure: '}${cls.configFailures[0]}`,
      properties: {},
      suites: [this.suite, this.test, cls.name].filter((s) => s !== ''),
      report: this.report,
      suiteLevel: { members },
    };
    if (cls.configFiles.length > 0) entry.attachments = cls.configFiles;
    this.out.push(entry);
  }
}

/** The attempts of each method and parameter row folded into one record (see the module comment). */
function foldAttempts(attempts: readonly Attempt[]): TestRecord[] {
  const byKey = new Map<string, Attempt[]>();
  for (const a of attempts) {
    const key = `${a.record.name}\u0000${a.record.classname}`;
    const list = byKey.get(key);
    if (list) list.push(a);
    else byKey.set(key, [a]);
  }
  const out: TestRecord[] = [];
  for (const list of byKey.values()) {
    if (list.length === 1) {
      out.push(list[0].record);
      continue;
    }
    const kept = list.filter((a, i) => !a.retried || i === list.length - 1);
    const last = kept[kept.length - 1];
    const record = last.record;
    const failure = [...kept].reverse().find((a) => a.status === 'FAIL');
    if (last.status === 'SKIP' && failure !== undefined && failure !== last) {
      record.outcome = 'failed';
      if (failure.record.message !== undefined) record.message = failure.record.message;
    }
    record.properties.attempts = String(list.length);
    const files = list.flatMap((a) => a.record.attachments ?? []);
    if (files.length > 0) record.attachments = filesInLog('', files);
    out.push(record);
  }
  return out;
}
