import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** JUnit XML in and out: reading reports pushed into runs, writing the report of a finished run. */

export type JunitOutcome = 'passed' | 'failed' | 'skipped';

export interface JunitCase {
  name: string;
  classname: string;
  outcome: JunitOutcome;
  /** the `test_case` property, when the report names the case explicitly */
  testCase?: string;
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** Every `<testcase>` of a report (nested suites included); undefined when the XML is not well-formed. */
export function parseJunit(xml: string): JunitCase[] | undefined {
  if (XMLValidator.validate(xml) !== true) return undefined;
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', processEntities: true }).parse(xml) as Record<string, unknown>;
  const out: JunitCase[] = [];
  const walkSuite = (suite: Record<string, unknown>) => {
    for (const s of asArray(suite.testsuite as Record<string, unknown> | Record<string, unknown>[])) walkSuite(s);
    for (const tc of asArray(suite.testcase as Record<string, unknown> | Record<string, unknown>[])) {
      if (typeof tc !== 'object' || tc === null) continue;
      const props = asArray((tc.properties as Record<string, unknown> | undefined)?.property as Record<string, unknown>[]);
      const prop = props.find((p) => p?.['@_name'] === 'test_case');
      out.push({
        name: String(tc['@_name'] ?? ''),
        classname: String(tc['@_classname'] ?? ''),
        outcome: 'failure' in tc || 'error' in tc ? 'failed' : 'skipped' in tc ? 'skipped' : 'passed',
        testCase: prop ? String(prop['@_value'] ?? '') : undefined,
      });
    }
  };
  // a root <testsuite> is walked as doc.testsuite; a root <testsuites> holds the suites
  walkSuite(doc);
  for (const s of asArray(doc.testsuites as Record<string, unknown> | Record<string, unknown>[])) {
    if (typeof s === 'object' && s) walkSuite(s);
  }
  return out;
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

export interface ReportCase {
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
