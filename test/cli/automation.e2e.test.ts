import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { resolveProject, type TmsClient } from '../../src/remote/index.js';
import { outputSchemas } from '../../src/cli/output-schemas.js';
import { runCli } from '../support/cli.js';
import { runStatuses } from '../support/ci-helpers.js';
import { API_KEY, client, emptyProject, emulator } from '../support/transfer-helpers.js';

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

const CASES: Record<string, string> = {
  'pay-by-card.yaml':
    'title: Pay by card\nautomation_type: Automated\n# the tests that prove it\nautomation:\n  tests:\n    - com.shop.CheckoutTest.paysWithCard\n    - "checkout.spec.ts > pays with card"\n',
  'refund.yaml': 'title: Refund\nautomation_type: Automated\nautomation:\n  tests: ["com.shop.RefundTest.*"]\n',
  'gift-card.yaml': 'title: Pay by gift card\nautomation_type: Automated\n',
  'manual.yaml': 'title: Look at the receipt\n',
};

/** Test names with no id in them: only `automation:` maps them. */
const JUNIT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="com.shop.CheckoutTest" tests="1">
    <testcase classname="com.shop.CheckoutTest" name="paysWithCard" time="0.1"/>
  </testsuite>
  <testsuite name="com.shop.RefundTest" tests="2">
    <testcase classname="com.shop.RefundTest" name="refundsFully"><failure message="expected 10, got 0"/></testcase>
    <testcase classname="com.shop.RefundTest" name="refundsPartly"/>
  </testsuite>
  <testsuite name="com.shop.LaterTest" tests="1">
    <testcase classname="com.shop.LaterTest" name="works"/>
  </testsuite>
  <testsuite name="com.shop.Stray" tests="1">
    <testcase classname="com.shop.Stray" name="unknown"/>
  </testsuite>
</testsuites>
`;

describe('automation: in case files, results push through it, and tmsync coverage', () => {
  let emu: RunningEmulator;
  let root: string;
  let setup: TmsClient;
  let projectId: string;
  const ids: Record<string, string> = {};
  let runRef = '';
  let runId = '';

  beforeAll(async () => {
    emu = await emulator();
    emptyProject(emu, 'AUT');
    setup = client(emu.baseUrl);
    projectId = (await resolveProject(setup, 'AUT')).id;
    root = await mkdtemp(join(tmpdir(), 'tmsync-automation-'));
    await writeFile(
      join(root, 'tmsync.yaml'),
      `project: AUT\nbase_url: ${emu.baseUrl}\ndefaults:\n  type: Functional\n  status: Draft\n  priority: Medium\n  automation_type: Not Automated\n  owner: ana@example.com\n`,
    );
    await mkdir(join(root, 'cases/Checkout'), { recursive: true });
    for (const [f, text] of Object.entries(CASES)) await writeFile(join(root, 'cases/Checkout', f), text);
    await mkdir(join(root, 'reports'));
    await writeFile(join(root, 'reports/junit.xml'), JUNIT);
  });
  afterAll(async () => {
    await setup?.close();
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('validates, plans and applies the cases without sending the key, and keeps it in the files', async () => {
    const validate = await tmsync(root, 'validate');
    expect(validate.err).toContain('Valid: 4 test cases');
    expect(validate.code).toBe(0);
    const planned = await tmsync(root, 'plan', '--format', 'json');
    expect(planned.code).toBe(0);
    expect(JSON.parse(planned.out).operations.filter((op: { kind: string }) => op.kind === 'create_case')).toHaveLength(4);
    expect(planned.out).not.toContain('com.shop');
    expect(planned.out).not.toContain('automation"');

    const applied = await tmsync(root, 'apply', '--auto-approve');
    expect(applied.code).toBe(0);
    for (const f of Object.keys(CASES)) {
      const text = await readFile(join(root, 'cases/Checkout', f), 'utf8');
      ids[f] = (parse(text) as { id: string }).id;
      expect(ids[f]).toMatch(/^AUT-\d+$/);
    }
    // the comment and the key are where they were
    expect(await readFile(join(root, 'cases/Checkout/pay-by-card.yaml'), 'utf8')).toContain('# the tests that prove it\nautomation:\n  tests:\n    - com.shop.CheckoutTest.paysWithCard\n');
    const remote = await setup.call('getTestCase', { params: { project_id: projectId, test_case_id: ids['pay-by-card.yaml'] } });
    expect(JSON.stringify(remote)).not.toContain('com.shop');

    // once applied, a plan has nothing to do: the key is never part of the diff
    const again = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(again.code).toBe(0);
  });

  it('results push maps test names without ids through automation:, and says which case is not applied yet', async () => {
    await writeFile(join(root, 'cases/Checkout/later.yaml'), 'title: Later\nautomation:\n  tests: [com.shop.LaterTest.works]\n');
    const caseIds = [];
    for (const f of Object.keys(CASES)) caseIds.push((await setup.call('getTestCase', { params: { project_id: projectId, test_case_id: ids[f] } })).data.test_case.id);
    const run = (
      await setup.call('createTestRun', {
        params: { project_id: projectId },
        body: { title: 'Nightly', selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: caseIds }] },
      })
    ).data.test_run as { id: string; human_id: string };
    runRef = run.human_id;
    runId = run.id;

    await writeFile(join(root, 'cases/Checkout/broken.yaml'), 'title: Broken\nautomation:\n  tests: com.shop.Broken.test\n');
    const r = await tmsync(root, 'results', 'push', '--test-run', runRef, 'reports/junit.xml');
    await rm(join(root, 'cases/Checkout/broken.yaml'));
    expect(r.err).toContain('Warning: 1 case file with problems was left out of the `automation:` mapping (cases/Checkout/broken.yaml); run `tmsync validate`.');
    expect(r.err).toContain('Pushed 2 of 2 results from 5 testcases');
    expect(r.code).toBe(0);
    expect(r.err).toContain('2 testcases named no test case');
    expect(r.err).toContain('com.shop.LaterTest › works (named by the `automation:` of cases/Checkout/later.yaml, a case not applied yet: run `tmsync apply` first)');
    expect(r.err).toMatch(/com\.shop\.Stray › unknown$/m);
    const statuses = await runStatuses(setup, projectId, runId);
    expect(statuses[ids['pay-by-card.yaml']]).toBe('PASSED');
    // the worst of the two tests the pattern names
    expect(statuses[ids['refund.yaml']]).toBe('FAILED');
    expect(statuses[ids['gift-card.yaml']]).toBe('UNTESTED');
  });

  it('coverage lists each kind of finding and exits 1 only for the kinds --fail-on names', async () => {
    const plain = await tmsync(root, 'coverage', 'reports/junit.xml');
    expect(plain.code).toBe(0);
    expect(plain.out).toContain('cases/Checkout/gift-card.yaml:3');
    expect(plain.out).toContain('Coverage: 3 of 5 cases automated, 5 tests in the reports; 1 unproven-cases, 2 unmapped-tests, 1 missing-tests.');

    const gate = await tmsync(root, 'coverage', 'reports/junit.xml', '--fail-on', 'unproven-cases,missing-tests');
    expect(gate.code).toBe(1);
    expect(gate.err).toContain('coverage check failed (--fail-on): 1 unproven-cases, 1 missing-tests.');
    const passing = await tmsync(root, 'coverage', 'reports/junit.xml', '--fail-on', 'unexecuted-cases', '--test-run', runRef);
    expect(passing.code).toBe(1);
    const notAsked = await tmsync(root, 'coverage', '--fail-on', 'missing-tests');
    expect(notAsked.code).toBe(1);
    expect(notAsked.err).toContain('--fail-on missing-tests needs report files');
  });

  it('coverage --format json follows its schema and names the findings', async () => {
    const r = await tmsync(root, 'coverage', 'reports/junit.xml', '--test-run', runRef, '--format', 'json', '--fail-on', 'unmapped-tests');
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out);
    expect(outputSchemas.coverage.safeParse(doc).success).toBe(true);
    expect(doc.unproven_cases.map((c: { file: string }) => c.file)).toEqual(['cases/Checkout/gift-card.yaml']);
    expect(doc.missing_tests).toEqual([expect.objectContaining({ file: 'cases/Checkout/pay-by-card.yaml', line: 5, test: 'checkout.spec.ts > pays with card' })]);
    expect(doc.unmapped_tests).toEqual([
      { test: 'com.shop.LaterTest.works', report: 'reports/junit.xml', not_applied: ['cases/Checkout/later.yaml'] },
      { test: 'com.shop.Stray.unknown', report: 'reports/junit.xml' },
    ]);
    expect(doc.unexecuted_cases.map((c: { file: string }) => c.file).sort()).toEqual(['cases/Checkout/gift-card.yaml', 'cases/Checkout/manual.yaml']);
    expect(doc.fail_on).toEqual(['unmapped-tests']);
    expect(doc.ok).toBe(false);
  });

  it('coverage writes GitHub annotations on the case files, a GitLab Code Quality report and a markdown comment', async () => {
    const gh = await tmsync(root, 'coverage', 'reports/junit.xml', '--format', 'github', '--fail-on', 'unproven-cases');
    expect(gh.code).toBe(1);
    const lines = gh.out.trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines).toContainEqual(expect.stringMatching(/^::error file=cases\/Checkout\/gift-card\.yaml,line=3,col=1,title=tmsync unproven_case::AUT-\d+ "Pay by gift card" is automated/));
    expect(lines).toContainEqual(expect.stringMatching(/^::warning file=cases\/Checkout\/pay-by-card\.yaml,line=5,col=1,title=tmsync missing_test::/));
    expect(lines).toContainEqual(expect.stringMatching(/^::warning file=reports\/junit\.xml,line=1,col=1,title=tmsync unmapped_test::test `com\.shop\.Stray\.unknown` maps to no case/));

    const gl = await tmsync(root, 'coverage', 'reports/junit.xml', '--format', 'gitlab', '--out', 'gl-code-quality.json');
    expect(gl.code).toBe(0);
    expect(gl.out).toBe('');
    const report = JSON.parse(await readFile(join(root, 'gl-code-quality.json'), 'utf8')) as { check_name: string; fingerprint: string; severity: string; location: { path: string; lines: { begin: number } } }[];
    expect(report.map((i) => `${i.check_name} ${i.location.path}:${i.location.lines.begin} ${i.severity}`).sort()).toEqual([
      'missing_test cases/Checkout/pay-by-card.yaml:5 minor',
      'unmapped_test reports/junit.xml:1 minor',
      'unmapped_test reports/junit.xml:1 minor',
      'unproven_case cases/Checkout/gift-card.yaml:3 minor',
    ]);
    expect(new Set(report.map((i) => i.fingerprint)).size).toBe(4);

    const md = await tmsync(root, 'coverage', 'reports/junit.xml', '--format', 'markdown', '--fail-on', 'missing-tests');
    expect(md.code).toBe(1);
    expect(md.out).toContain('### tmsync coverage');
    expect(md.out).toContain('| missing-tests | 1 | failed |');
    expect(md.out).toContain('| unproven-cases | 1 | – |');
  });

  it('pull keeps the automation: key of a case file it rewrites', async () => {
    await setup.call('updateTestCase', { params: { project_id: projectId, test_case_id: ids['refund.yaml'] }, body: { title: 'Refund a payment' } });
    const pulled = await tmsync(root, 'pull');
    expect(pulled.code).toBe(0);
    const text = await readFile(join(root, 'cases/Checkout/refund.yaml'), 'utf8');
    expect(text).toContain('title: Refund a payment');
    expect(text).toContain('automation:\n  tests: ["com.shop.RefundTest.*"]\n');
  });
});
