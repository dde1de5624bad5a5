import { describe, expect, it } from 'vitest';
import { parseJunit } from '../../src/emulator/service-junit.js';

/** The emulator reads pushed reports with the library's JUnit reader (`src/results/junit.ts`). */
describe("the emulator's JUnit import reader", () => {
  it('reads every testcase of nested suites with its test_case property, an error as a failure', () => {
    const xml = `<?xml version="1.0"?>
<testsuites>
  <testsuite name="outer">
    <testsuite name="inner">
      <testcase name="DEMO-1 logs in" classname="auth"><properties><property name="test_case" value="DEMO-1"/></properties></testcase>
      <testcase name="breaks" classname="auth"><error message="boom"/></testcase>
    </testsuite>
    <testcase name="fails &amp; says why" classname="pay"><failure message="no"/></testcase>
    <testcase name="later" classname="pay"><skipped/></testcase>
  </testsuite>
</testsuites>`;
    expect(parseJunit(xml)).toEqual([
      { name: 'DEMO-1 logs in', classname: 'auth', outcome: 'passed', testCase: 'DEMO-1' },
      { name: 'breaks', classname: 'auth', outcome: 'failed' },
      { name: 'fails & says why', classname: 'pay', outcome: 'failed' },
      { name: 'later', classname: 'pay', outcome: 'skipped' },
    ]);
  });

  it('counts only testcases: a failure of a suite itself is not one', () => {
    const xml = '<testsuite name="s"><failure message="set-up failed"/><testcase name="a" classname="c"/></testsuite>';
    expect(parseJunit(xml)).toEqual([{ name: 'a', classname: 'c', outcome: 'passed' }]);
  });

  it('gives no testcase for well-formed XML under another root, and undefined for XML that is not well-formed', () => {
    expect(parseJunit('<report><item/></report>')).toEqual([]);
    expect(parseJunit('<testsuite><oops')).toBeUndefined();
    expect(parseJunit('')).toBeUndefined();
  });
});
