import type { XmlHandler } from '../xml-scan.js';
import type { Outcome, RecordAttachment, TestRecord } from './record.js';
import { filesInLog, firstLine, millis, scanRootedReport } from './xml-report.js';

/**
 * Robot Framework's `output.xml`, versions 3 to 7: `<robot>` → nested `<suite>`s → `<test>`.
 *
 * - A test is one record: `name` the test's name, `classname` its suite path joined by dots (Robot's
 *   long name is `classname.name`: `Shop.Checkout.Pay by card`), `suites` that path, `file` the
 *   `source` of its suite, tags (`<tag>`, RF 3's inside `<tags>`) its tags.
 * - The test's own `<status>` says its outcome (table below) and its text the message.
 * - A failed suite set-up or tear-down (`<kw type="setup">` in RF 3, `type="SETUP"` in RF 4 to 7,
 *   a `<setup>`/`<teardown>` element) is a suite-level entry (record.ts) failing every case the
 *   suite's tests map to; Robot already marks those tests FAIL ("Parent suite setup failed").
 * - Screenshots: `<img src>` and `<a href>` in HTML messages (`html="yes"` in RF 3, `"true"` after;
 *   SeleniumLibrary's and Browser's screenshots), anywhere below the test, are its attachments; an
 *   embedded `data:image/png;base64,…` screenshot is a body. Those of a suite set-up or tear-down
 *   belong to its suite-level entry.
 * - Timing: `starttime`/`endtime` (`20240110 12:00:00.123`) before RF 7, `start`/`elapsed` (seconds) in RF 7.
 */

/** Robot status → outcome; any other status is an error naming it. */
export const ROBOT_STATUS_OUTCOMES: Readonly<Record<string, Outcome>> = {
  PASS: 'passed',
  FAIL: 'failed',
  // RF 4 and later
  SKIP: 'skipped',
  // a test that did not run: dry run, --exitonfailure, a test after a fatal error
  'NOT RUN': 'skipped',
};

interface SuiteFrame {
  kind: 'suite';
  name: string;
  path: string[];
  source: string | undefined;
  first: number;
  failures: string[];
  files: RecordAttachment[];
}

interface TestFrame {
  kind: 'test';
  record: TestRecord;
  tags: string[];
  files: RecordAttachment[];
  /** false until its own `<status>` is read */
  hasStatus: boolean;
}

/** A suite's set-up or tear-down keyword while it is open. */
interface FixtureFrame {
  kind: 'fixture';
  suite: SuiteFrame;
  what: 'setup' | 'teardown';
  /** the last `<msg level="FAIL">` below it: before RF 7 a keyword's `<status>` has no text */
  failMessage?: string;
}

type Frame = SuiteFrame | TestFrame | FixtureFrame | { kind: 'other' };

const FIXTURE_TYPES: Record<string, 'setup' | 'teardown'> = { setup: 'setup', teardown: 'teardown' };

/** Parses one Robot Framework `output.xml`; `invalid_report` with `file:line:col` when it is not one. */
export function parseRobot(xml: string, report: string): TestRecord[] {
  const builder = new RobotBuilder(report);
  scanRootedReport(xml, report, builder, 'robot', {
    format: 'Robot Framework',
    hint: 'pass the output.xml robot writes (--output), not log.html, report.html or the xUnit file',
  });
  return builder.out;
}

class RobotBuilder implements XmlHandler {
  readonly out: TestRecord[] = [];
  root: string | undefined;
  private readonly frames: Frame[] = [];
  private readonly names: string[] = [];
  private test: TestFrame | undefined;
  private fixture: FixtureFrame | undefined;
  private collecting: 'tag' | 'status' | 'msg' | 'fail' | undefined;
  /** the `<status>` being read: whose it is and its attributes */
  private status: { owner: TestFrame | FixtureFrame; attrs: Record<string, string> } | undefined;
  private buffer = '';

  constructor(private readonly report: string) {}

  wantsText(): boolean {
    return this.collecting !== undefined;
  }

  text(value: string): void {
    this.buffer += value;
  }

  open(name: string, attrs: Record<string, string>): void {
    const parentName = this.names[this.names.length - 1];
    const parent = this.frames[this.frames.length - 1];
    this.names.push(name);
    if (parentName === undefined) this.root = name;
    if (this.root !== 'robot') {
      this.frames.push({ kind: 'other' });
      return;
    }
    if (name === 'suite' && (parentName === 'robot' || parent?.kind === 'suite')) {
      const above = parent?.kind === 'suite' ? parent : undefined;
      const suiteName = attrs.name ?? '';
      this.frames.push({ kind: 'suite', name: suiteName, path: [...(above?.path ?? []), suiteName], source: attrs.source ?? above?.source, first: this.out.length, failures: [], files: [] });
      return;
    }
    if (name === 'test' && parent?.kind === 'suite') {
      this.test = this.startTest(attrs, parent);
      this.frames.push(this.test);
      return;
    }
    const fixture = parent?.kind === 'suite' ? (name === 'kw' ? FIXTURE_TYPES[(attrs.type ?? '').toLowerCase()] : FIXTURE_TYPES[name]) : undefined;
    if (fixture !== undefined && parent?.kind === 'suite') {
      this.fixture = { kind: 'fixture', suite: parent, what: fixture };
      this.frames.push(this.fixture);
      return;
    }
    this.frames.push({ kind: 'other' });
    this.openText(name, parentName, parent, attrs);
  }

  private openText(name: string, parentName: string | undefined, parent: Frame | undefined, attrs: Record<string, string>): void {
    if (name === 'tag' && this.test && (parent === this.test || (parentName === 'tags' && this.frames[this.frames.length - 3] === this.test))) {
      this.collect('tag');
    } else if (name === 'status' && (parent?.kind === 'test' || parent?.kind === 'fixture')) {
      this.status = { owner: parent, attrs };
      this.collect('status');
    } else if (name === 'msg' && (attrs.html === 'true' || attrs.html === 'yes') && (this.test !== undefined || this.fixture !== undefined)) {
      this.collect('msg');
    } else if (name === 'msg' && attrs.level === 'FAIL' && this.fixture !== undefined) this.collect('fail');
  }

  private collect(what: 'tag' | 'status' | 'msg' | 'fail'): void {
    this.collecting = what;
    this.buffer = '';
  }

  close(name: string): void {
    this.names.pop();
    const frame = this.frames.pop();
    if (this.collecting !== undefined && (name === this.collecting || (name === 'msg' && this.collecting === 'fail'))) {
      this.closeText();
      return;
    }
    if (frame === undefined || frame.kind === 'other') return;
    if (frame.kind === 'test') {
      this.finishTest(frame);
      this.test = undefined;
    } else if (frame.kind === 'fixture') this.fixture = undefined;
    else this.finishSuite(frame);
  }

  private closeText(): void {
    const text = this.buffer;
    const what = this.collecting;
    this.collecting = undefined;
    this.buffer = '';
    if (what === 'tag') this.test?.tags.push(text.trim());
    else if (what === 'fail') {
      if (this.fixture) this.fixture.failMessage = text;
    }
    else if (what === 'msg') {
      const owner = this.test ?? this.fixture?.suite;
      if (owner) owner.files = filesInLog(text, owner.files);
    } else if (what === 'status' && this.status) {
      const { owner, attrs } = this.status;
      this.status = undefined;
      if (owner.kind === 'test') {
        owner.hasStatus = true;
        this.setStatus(owner.record, attrs, text);
      }
      else if ((attrs.status ?? '').toUpperCase() === 'FAIL') {
        const message = firstLine(text) ?? firstLine(owner.failMessage);
        owner.suite.failures.push(`suite ${owner.what === 'setup' ? 'set-up' : 'tear-down'} failed${message ? `: ${message}` : ''}`);
      }
    }
  }

  private startTest(attrs: Record<string, string>, suite: SuiteFrame): TestFrame {
    const record: TestRecord = {
      name: attrs.name ?? '',
      classname: suite.path.join('.'),
      outcome: 'error',
      properties: {},
      suites: suite.path,
      report: this.report,
    };
    if (suite.source !== undefined && suite.source !== '') record.file = suite.source;
    return { kind: 'test', record, tags: [], files: [], hasStatus: false };
  }

  private setStatus(record: TestRecord, attrs: Record<string, string>, text: string): void {
    const status = (attrs.status ?? '').trim().toUpperCase();
    record.outcome = ROBOT_STATUS_OUTCOMES[status] ?? 'error';
    const message = firstLine(text);
    if (message !== undefined) record.message = message;
    else if (!(status in ROBOT_STATUS_OUTCOMES)) record.message = `Robot status "${attrs.status ?? ''}"`;
    const durationMs = attrs.elapsed !== undefined ? millis(attrs.elapsed, 1000) : elapsedBetween(attrs.starttime, attrs.endtime);
    if (durationMs !== undefined) record.durationMs = durationMs;
  }

  private finishTest(frame: TestFrame): void {
    const { record } = frame;
    // a test without a <status> (a report cut short and repaired) did not finish
    if (!frame.hasStatus) record.message = 'the report has no status for this test';
    const tags = [...new Set(frame.tags.filter((t) => t !== ''))];
    if (tags.length > 0) record.tags = tags;
    if (frame.files.length > 0) record.attachments = frame.files;
    this.out.push(record);
  }

  /** A failed suite set-up or tear-down: one suite-level entry standing for it. */
  private finishSuite(frame: SuiteFrame): void {
    if (frame.failures.length === 0) return;
    const members: TestRecord[] = [];
    for (let k = frame.first; k < this.out.length; k++) if (!this.out[k].suiteLevel) members.push(this.out[k]);
    const n = frame.failures.length;
    const entry: TestRecord = {
      name: frame.path.join('.'),
      classname: '',
      outcome: 'failed',
      message: `${n > 1 ? `${n} suite-level failures, the first: ` : 'suite-level failure: '}${frame.failures[0]}`,
      properties: {},
      suites: frame.path,
      report: this.report,
      suiteLevel: { members },
    };
    if (frame.source !== undefined && frame.source !== '') entry.file = frame.source;
    if (frame.files.length > 0) entry.attachments = frame.files;
    this.out.push(entry);
  }
}

/** Milliseconds between two RF 3–6 timestamps (`20240110 12:00:00.123`); undefined when either is missing or `N/A`. */
function elapsedBetween(start: string | undefined, end: string | undefined): number | undefined {
  const a = legacyTime(start);
  const b = legacyTime(end);
  return a !== undefined && b !== undefined && b >= a ? b - a : undefined;
}

function legacyTime(ts: string | undefined): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?$/.exec(ts?.trim() ?? '');
  if (!m) return undefined;
  const ms = m[7] !== undefined ? Math.round(Number(`0.${m[7]}`) * 1000) : 0;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
}
