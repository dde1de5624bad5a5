import { describe, expect, it } from 'vitest';
import { parseJunit } from '../../src/results/junit.js';

/** A Playwright-style JUnit report: attachments named in system-out/err and in properties. */
const REPORT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="playwright">
  <testsuite name="checkout.spec.ts">
    <testcase name="SHOP-1 pays by card" classname="checkout.spec.ts">
      <failure message="expected 200">stack</failure>
      <system-out>
navigating…
[[ATTACHMENT|test-results/pays/screenshot.png]]
[[ATTACHMENT|test-results/pays/trace.zip]]
</system-out>
      <system-err><![CDATA[see file:///tmp/pays/video.webm for the recording]]></system-err>
    </testcase>
    <testcase name="SHOP-2 shows totals" classname="checkout.spec.ts">
      <properties>
        <property name="attachment" value="shots/totals.png"/>
        <property name="attachment">
          shots/totals-1.png
          shots/totals-2.png
        </property>
        <property name="attachment_1" value="bitrise.jpg"/>
        <property name="owner" value="ana"/>
      </properties>
      <system-out>plain output that names no file, with &lt;markup&gt;</system-out>
    </testcase>
    <testcase name="SHOP-3 logs only" classname="checkout.spec.ts">
      <system-out>[[ATTACHMENT|same.png]] and again [[ATTACHMENT|same.png]]</system-out>
    </testcase>
    <testcase name="SHOP-4 no output" classname="checkout.spec.ts"/>
    <system-out>[[ATTACHMENT|suite-level.png]]</system-out>
  </testsuite>
</testsuites>`;

describe('JUnit attachments', () => {
  const records = parseJunit(REPORT, 'reports/junit.xml');
  const byName = (prefix: string) => records.find((r) => r.name.startsWith(prefix))!;

  it('reads [[ATTACHMENT|path]] lines and file:// links of a testcase\'s system-out and system-err, as written', () => {
    expect(byName('SHOP-1').attachments).toEqual([
      { path: 'test-results/pays/screenshot.png' },
      { path: 'test-results/pays/trace.zip' },
      { path: 'file:///tmp/pays/video.webm' },
    ]);
  });

  it('reads attachment properties: the value attribute, the text form one path a line, and the numbered form', () => {
    expect(byName('SHOP-2').attachments).toEqual([
      { path: 'shots/totals.png' },
      { path: 'shots/totals-1.png' },
      { path: 'shots/totals-2.png' },
      { path: 'bitrise.jpg' },
    ]);
    // the other properties are still properties
    expect(byName('SHOP-2').properties.owner).toBe('ana');
  });

  it('names each file once, leaves a testcase without files without attachments, and ignores a suite\'s own output', () => {
    expect(byName('SHOP-3').attachments).toEqual([{ path: 'same.png' }]);
    expect(byName('SHOP-4').attachments).toBeUndefined();
    expect(records.flatMap((r) => r.attachments ?? []).some((a) => a.path === 'suite-level.png')).toBe(false);
  });

  it('keeps no console text: the outcome and message come from the failure as before', () => {
    const r = byName('SHOP-1');
    expect(r.outcome).toBe('failed');
    expect(r.message).toBe('expected 200');
    expect(JSON.stringify(r)).not.toContain('navigating');
  });
});
