import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TmsClient } from '../../src/remote/index.js';
import { runCli } from '../support/cli.js';
import { KEY, runStatuses, seedCases, setupClient, type Emulator } from '../support/ci-helpers.js';
import { emulatorRefusingOnce, isRunCaseUpdate, storedAttachments } from '../support/emulator.js';

/**
 * Issue 28 end to end, in both dialects: a TRX, an NUnit 3, a TestNG, a Robot Framework and a
 * JUnit-with-attachments report, from three CI shards, into one run made by `test-run create`, then
 * closed. The run holds every case with the worst outcome over the shards; the emulator holds each
 * failed case's screenshot (named by the TRX's ResultFiles, NUnit's <attachments>, Robot's <img>
 * and JUnit's [[ATTACHMENT|…]]); the first update carrying files is refused once and re-sent with
 * exactly its own files.
 */

let emu: Emulator;
let setup: TmsClient;
let projectId: string;
let caseIds: string[];
let cwd: string;
let refuseNextUpdate: () => void;

/** A file's bytes that say which case it belongs to (the emulator stores any bytes; PNG magic first). */
const shot = (n: number) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from(`screenshot of DEMO-${n}`)]);

// shard "dotnet": a TRX (DEMO-1 passed, DEMO-2 failed with a result file) and an NUnit 3 report
// (DEMO-3 passed, DEMO-4 failed with an attachment)
const TRX = `\uFEFF<?xml version="1.0" encoding="utf-8"?>
<TestRun id="1b2c3d4e-0000-4000-8000-000000000001" name="ci@agent" xmlns="http://microsoft.com/schemas/VisualStudio/TeamTest/2010">
  <TestSettings name="default" id="1b2c3d4e-0000-4000-8000-000000000002"><Deployment runDeploymentRoot="ci_agent" /></TestSettings>
  <Results>
    <UnitTestResult executionId="e0000001-0000-4000-8000-000000000000" testId="a0000001-0000-4000-8000-000000000000" testName="DEMO_1_PaysWithCard" outcome="Passed" relativeResultsDirectory="e0000001-0000-4000-8000-000000000000" />
    <UnitTestResult executionId="e0000002-0000-4000-8000-000000000000" testId="a0000002-0000-4000-8000-000000000000" testName="DEMO_2_DeclinedCard" outcome="Failed" relativeResultsDirectory="e0000002-0000-4000-8000-000000000000">
      <Output><ErrorInfo><Message>Assert.AreEqual failed.</Message></ErrorInfo></Output>
      <ResultFiles><ResultFile path="agent\\declined.png" /></ResultFiles>
    </UnitTestResult>
  </Results>
  <TestDefinitions>
    <UnitTest name="DEMO_1_PaysWithCard" id="a0000001-0000-4000-8000-000000000000"><TestMethod className="Shop.Tests.Checkout" name="DEMO_1_PaysWithCard" /></UnitTest>
    <UnitTest name="DEMO_2_DeclinedCard" id="a0000002-0000-4000-8000-000000000000"><TestMethod className="Shop.Tests.Checkout" name="DEMO_2_DeclinedCard" /></UnitTest>
  </TestDefinitions>
</TestRun>
`.replace(/\n/g, '\r\n');

const NUNIT3 = `<?xml version="1.0" encoding="utf-8"?>
<test-run id="0" testcasecount="2" result="Failed" total="2" passed="1" failed="1">
  <test-suite type="Assembly" name="Shop.Tests.dll" fullname="/build/Shop.Tests.dll" result="Failed">
    <test-suite type="TestFixture" name="Cart" fullname="Shop.Tests.Cart" classname="Shop.Tests.Cart" result="Failed">
      <test-case name="Adds_an_item" fullname="Shop.Tests.Cart.Adds_an_item" classname="Shop.Tests.Cart" result="Passed">
        <properties><property name="Category" value="DEMO-3" /></properties>
      </test-case>
      <test-case name="DEMO_4_Removes_an_item" fullname="Shop.Tests.Cart.DEMO_4_Removes_an_item" classname="Shop.Tests.Cart" result="Failed">
        <failure><message><![CDATA[Expected 0 items, found 1]]></message></failure>
        <attachments><attachment><filePath>shots/cart-4.png</filePath><description>the cart</description></attachment></attachments>
      </test-case>
    </test-suite>
  </test-suite>
</test-run>
`;

// shard "java": TestNG (DEMO-1 failed, so the case is Failed though the TRX passed it; DEMO-5 passed)
const TESTNG = `<?xml version="1.0" encoding="UTF-8"?>
<testng-results ignored="0" total="2" passed="1" failed="1" skipped="0">
  <suite name="Shop" duration-ms="20">
    <test name="Regression" duration-ms="20">
      <class name="com.shop.CheckoutTest">
        <test-method status="FAIL" signature="DEMO_1_paysByCard()" name="DEMO_1_paysByCard" duration-ms="10" started-at="2026-11-26T10:00:00 UTC" finished-at="2026-11-26T10:00:00 UTC">
          <exception class="java.lang.AssertionError"><message><![CDATA[expected [12] but found [13]]]></message></exception>
        </test-method>
        <test-method status="PASS" signature="DEMO_5_appliesVoucher()" name="DEMO_5_appliesVoucher" duration-ms="10" started-at="2026-11-26T10:00:00 UTC" finished-at="2026-11-26T10:00:00 UTC" />
      </class>
    </test>
  </suite>
</testng-results>
`;

// shard "e2e": Robot Framework 7 (DEMO-2 passed: it stays Failed from the TRX; DEMO-6 failed with a
// screenshot) and Playwright's JUnit (DEMO-7 failed with a screenshot, DEMO-8 passed with one)
const ROBOT = `<?xml version="1.0" encoding="UTF-8"?>
<robot generator="Robot 7.0.1 (Python 3.12.3 on linux)" generated="2026-11-26T10:00:00.000000" rpa="false" schemaversion="5">
<suite id="s1" name="Shop" source="/builds/shop/tests">
<test id="s1-t1" name="DEMO-2 Declined card is told" line="3">
<status status="PASS" start="2026-11-26T10:00:00.100000" elapsed="0.200"/>
</test>
<test id="s1-t2" name="DEMO-6 Checkout shows the total" line="8">
<kw name="Click" owner="Browser">
<msg time="2026-11-26T10:00:01.000000" level="INFO" html="true">&lt;a href="browser/total-6.png"&gt;&lt;img src="browser/total-6.png" width="800px"/&gt;&lt;/a&gt;</msg>
<msg time="2026-11-26T10:00:01.010000" level="FAIL">TimeoutError: locator.click: Timeout 10000ms exceeded.</msg>
<status status="FAIL" start="2026-11-26T10:00:00.900000" elapsed="10.110"/>
</kw>
<status status="FAIL" start="2026-11-26T10:00:00.800000" elapsed="10.300">TimeoutError: locator.click: Timeout 10000ms exceeded.</status>
</test>
<status status="FAIL" start="2026-11-26T10:00:00.000000" elapsed="10.500"/>
</suite>
</robot>
`;

const JUNIT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="playwright">
  <testsuite name="checkout.spec.ts" tests="2" failures="1">
    <testcase name="DEMO-7 pays with a gift card" classname="checkout.spec.ts">
      <failure message="expected the total to be 0">stack</failure>
      <system-out>
[[ATTACHMENT|../test-results/gift-7.png]]
</system-out>
    </testcase>
    <testcase name="DEMO-8 shows the receipt" classname="checkout.spec.ts">
      <system-out>
[[ATTACHMENT|../test-results/receipt-8.png]]
</system-out>
    </testcase>
  </testsuite>
</testsuites>
`;

beforeAll(async () => {
  ({ emu, refuseNextUpdate } = await emulatorRefusingOnce(KEY));
  setup = setupClient(emu);
  const seeded = await seedCases(setup, 8);
  projectId = seeded.project.id;
  caseIds = seeded.caseIds;
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-every-runner-'));
  const files: Record<string, string | Buffer> = {
    'dotnet/results.trx': TRX,
    // TRX result files live under <runDeploymentRoot>/In/<execution's results directory>/
    'dotnet/ci_agent/In/e0000002-0000-4000-8000-000000000000/agent/declined.png': shot(2),
    'dotnet/TestResult.xml': NUNIT3,
    'dotnet/shots/cart-4.png': shot(4),
    'java/testng-results.xml': TESTNG,
    'e2e/robot/output.xml': ROBOT,
    'e2e/robot/browser/total-6.png': shot(6),
    'e2e/junit/results.xml': JUNIT,
    'e2e/test-results/gift-7.png': shot(7),
    'e2e/test-results/receipt-8.png': shot(8),
  };
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(cwd, path, '..'), { recursive: true });
    await writeFile(join(cwd, path), content);
  }
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

const stored = (runId: string) => storedAttachments(emu, caseIds, runId);

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO', ...extra });

describe('results from every runner, three shards, one run', () => {
  it('fills one created run from TRX, NUnit 3, TestNG, Robot and JUnit reports of three shards with the worst outcome per case, stores every failed case\'s screenshot, re-sends a refused batch\'s own files, and closes', async () => {
    const created = await runCli(['test-run', 'create', '--title', 'Build 812', '--cases', 'all', '--env-file', 'build.env'], { cwd, env: env() });
    expect(created.code, created.err).toBe(0);
    const runId = created.out.trim();
    expect(await readFile(join(cwd, 'build.env'), 'utf8')).toBe(`TMSYNC_TEST_RUN=${runId}\n`);

    // each shard runs in its own directory and names its reports relative to it; the run from the env file
    const push = (shard: string, dir: string, reports: string[]) => runCli(['results', 'push', '--shard', shard, '--json', ...reports], { cwd: join(cwd, dir), env: env({ TMSYNC_TEST_RUN: runId }) });

    emu.clearRequestLog();
    refuseNextUpdate();
    const dotnet = await push('dotnet', 'dotnet', ['results.trx', 'TestResult.xml']);
    expect(dotnet.code, dotnet.err).toBe(0);
    expect(JSON.parse(dotnet.out)).toMatchObject({ formats: ['trx', 'nunit'], attachments: { scope: 'failed', planned: 2, sent: 2, missing: [] } });
    const updates = emu.requestLog().filter((e) => isRunCaseUpdate(e.method, e.path));
    expect(updates[0].fault).toBeTruthy(); // refused once, then sent again
    expect(updates.filter((e) => !e.fault && e.status === 200).length).toBeGreaterThanOrEqual(1);

    const java = await push('java', 'java', ['testng-results.xml']);
    expect(java.code, java.err).toBe(0);
    const e2e = await push('e2e', 'e2e', ['robot/output.xml', 'junit/results.xml']);
    expect(e2e.code, e2e.err).toBe(0);
    expect(JSON.parse(e2e.out)).toMatchObject({ formats: ['robot', 'junit'], attachments: { planned: 2, sent: 2, not_selected: 1 } });

    const closed = await runCli(['test-run', 'close'], { cwd, env: env({ TMSYNC_TEST_RUN: runId }) });
    expect(closed.code, closed.err).toBe(0);
    expect((await setup.call('getTestRun', { params: { project_id: projectId, test_run_id: runId } })).data.test_run.status).toBe('CLOSED');

    expect(await runStatuses(setup, projectId, runId)).toEqual({
      'DEMO-1': 'FAILED', // passed in the TRX, failed in TestNG: the worst over the shards
      'DEMO-2': 'FAILED', // failed in the TRX, passed in Robot
      'DEMO-3': 'PASSED', // an NUnit Category naming the case
      'DEMO-4': 'FAILED',
      'DEMO-5': 'PASSED',
      'DEMO-6': 'FAILED',
      'DEMO-7': 'FAILED',
      'DEMO-8': 'PASSED',
    });

    // each failed case holds exactly its own screenshot, once, though its first batch was sent twice
    const files = stored(runId);
    expect([...files.keys()].sort()).toEqual([2, 4, 6, 7]);
    expect(files.get(2)).toEqual([{ name: 'declined.png', bytes: shot(2) }]);
    expect(files.get(4)).toEqual([{ name: 'cart-4.png', bytes: shot(4) }]);
    expect(files.get(6)).toEqual([{ name: 'total-6.png', bytes: shot(6) }]);
    expect(files.get(7)).toEqual([{ name: 'gift-7.png', bytes: shot(7) }]);
  });
});
