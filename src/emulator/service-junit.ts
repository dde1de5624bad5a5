import { TmsyncError } from '../errors.js';
import { parseJunit as readJunit, type JunitOutcome as ReportOutcome } from '../results/junit.js';

/**
 * JUnit XML in and out: reading reports pushed into runs (with the library's reader, the one
 * `tmsync results push` uses), writing the report of a finished run.
 */

export type JunitOutcome = 'passed' | 'failed' | 'skipped';

interface JunitCase {
  name: string;
  classname: string;
  outcome: JunitOutcome;
  /** the `test_case` property, when the report names the case explicitly */
  testCase?: string;
}

/** The service records an error as a failure. */
const OUTCOME: Record<ReportOutcome, JunitOutcome> = { passed: 'passed', failed: 'failed', error: 'failed', skipped: 'skipped' };

/** Every `<testcase>` of a report (nested suites included); undefined when the XML is not well-formed. */
export function parseJunit(xml: string): JunitCase[] | undefined {
  let entries;
  try {
    entries = readJunit(xml, 'junit_xml');
  } catch (err) {
    if (!(err instanceof TmsyncError) || err.code !== 'invalid_junit') throw err;
    // well-formed XML under another root holds no testcase; anything else is not well-formed
    return err.details?.root !== undefined ? [] : undefined;
  }
  const out: JunitCase[] = [];
  for (const tc of entries) {
    // a failure of a suite itself is no testcase of the report
    if (tc.suiteLevel) continue;
    const testCase = tc.properties['test_case'];
    out.push({ name: tc.name, classname: tc.classname, outcome: OUTCOME[tc.outcome], ...(testCase !== undefined ? { testCase } : {}) });
  }
  return out;
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

interface ReportCase {
  humanId: string;
  title: string;
  passed: boolean;
}

/** The JUnit report of a finished execution-interface run. */
export function renderJunit(suiteName: string, cases: ReportCase[], seconds: number): string {
  const failures = cases.filter((c) => !c.passed).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${esc(suiteName)}" tests="${cases.length}" failures="${failures}" time="${seconds}">`,
    `  <testsuite name="${esc(suiteName)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${seconds}">`,
  ];
  for (const c of cases) {
    const open = `    <testcase name="${esc(`${c.humanId} ${c.title}`)}" classname="${esc(suiteName)}" time="0">`;
    lines.push(open);
    lines.push(`      <properties><property name="test_case" value="${esc(c.humanId)}"/></properties>`);
    if (!c.passed) lines.push(`      <failure message="failed in the emulator run">${esc(c.title)} failed</failure>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}
