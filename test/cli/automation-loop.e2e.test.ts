import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { TmsClient } from '../../src/remote/index.js';
import { KEY, runStatuses, seedCases, setupClient, type Emulator } from '../support/ci-helpers.js';
import { seededEmulator } from '../support/emulator.js';
import { demoConfigYaml } from '../support/demo-config.js';
import { caseYaml } from '../support/cases.js';

/**
 * The automation loop (docs/automation.md) end to end against the emulator, in both dialects: the
 * service selects, `run cases` tells the runner, the runner's report goes back through `results push`.
 */

let emu: Emulator;
let setup: TmsClient;
let projectId: string;
let caseIds: string[];
let cwd: string;

function env(): NodeJS.ProcessEnv {
  return { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' };
}

async function tmsync(args: string[], dir = cwd) {
  return runCli(args, { cwd: dir, env: env() });
}

/** A JUnit report of these testcases: name → outcome. */
function junit(tests: readonly { classname: string; name: string; outcome: 'passed' | 'failed' }[]): string {
  const body = tests
    .map((t) => `  <testcase classname="${t.classname}" name="${t.name}" time="0.1">${t.outcome === 'failed' ? '<failure message="boom"/>' : ''}</testcase>`)
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="suite" tests="${tests.length}">\n${body}\n</testsuite>\n`;
}

beforeAll(async () => {
  emu = await seededEmulator(KEY);
  setup = setupClient(emu);
  const seeded = await seedCases(setup, 12);
  projectId = seeded.project.id;
  caseIds = seeded.caseIds;
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-loop-'));
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

describe('run cases → runner → results push', () => {
  it('a plan with a DYNAMIC run: the grep filter selects exactly its cases (DEMO-1, never DEMO-12), and push maps every result of the filtered report', async () => {
    const plan = (await setup.call('createTestPlan', { params: { project_id: projectId }, body: { title: 'Release 3' } })).data.test_plan;
    // every case of the project but DEMO-2 and DEMO-12: DEMO-1 is selected, DEMO-12 (which a substring DEMO-1 would hit) is not
    const excluded = [caseIds[1], caseIds[11]];
    const run = (
      await setup.call('createTestRun', {
        params: { project_id: projectId },
        body: { title: 'Dynamic', selection_type: 'DYNAMIC', dynamic_selection_filters: [], dynamic_selection_excluded_test_case_ids: excluded, test_plan_id: plan.id },
      })
    ).data.test_run as { id: string; human_id: string };

    const listed = await tmsync(['run', 'cases', '--test-plan', plan.human_id!, '--format', 'list']);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out.split('\n').sort()).toEqual(['DEMO-1', 'DEMO-10', 'DEMO-11', 'DEMO-3', 'DEMO-4', 'DEMO-5', 'DEMO-6', 'DEMO-7', 'DEMO-8', 'DEMO-9']);
    expect(listed.err).toContain(`10 cases of test plan ${plan.human_id} (1 run).`);

    const grep = await tmsync(['run', 'cases', '--test-plan', plan.human_id!, '--format', 'grep']);
    expect(grep.code, grep.err).toBe(0);
    const filter = new RegExp(grep.out.trim());
    // the suite of a runner: every case has a test, in the spellings runners allow
    const suite = Array.from({ length: 12 }, (_, i) => ({
      classname: 'com.shop.CheckoutTest',
      name: i % 2 === 0 ? `DEMO-${i + 1} checks step ${i + 1}` : `test_DEMO_${i + 1}_checks`,
      outcome: i === 2 ? ('failed' as const) : ('passed' as const),
    }));
    const ran = suite.filter((t) => filter.test(`${t.classname} ${t.name}`));
    expect(ran.map((t) => t.name)).not.toContain('DEMO-12 checks step 12');
    expect(ran).toHaveLength(10);
    await writeFile(join(cwd, 'dynamic.xml'), junit(ran));

    const pushed = await tmsync(['results', 'push', '--test-run', run.human_id, 'dynamic.xml', '--json']);
    expect(pushed.code, pushed.err).toBe(0);
    const result = JSON.parse(pushed.out);
    expect(result).toMatchObject({ unmatched: [], unknown_cases: [], not_in_run: [], ok: true });
    expect(result.sent_case_ids).toHaveLength(10);
    const statuses = await runStatuses(setup, projectId, run.id);
    expect(statuses['DEMO-3']).toBe('FAILED');
    expect(statuses['DEMO-1']).toBe('PASSED');

    // re-run only what failed: --status narrows through the run statuses lookup
    const failed = await tmsync(['run', 'cases', '--test-run', run.human_id, '--status', 'failed', '--format', 'pytest']);
    expect(failed.code, failed.err).toBe(0);
    expect(failed.out.trim()).toBe('DEMO_3');
    expect(failed.err).toContain(`1 case of test run ${run.human_id} with status Failed.`);
  });

  it('prints a filter matching nothing for an empty selection and says so; an unknown status names the choices', async () => {
    const run = (
      await setup.call('createTestRun', {
        params: { project_id: projectId },
        body: { title: 'Static', selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: [caseIds[0]] }] },
      })
    ).data.test_run as { id: string; human_id: string };
    const none = await tmsync(['run', 'cases', '--test-run', run.human_id, '--status', 'passed', '--format', 'playwright']);
    expect(none.code).toBe(0);
    expect(none.out.trim()).toBe('/(?!)/');
    expect(none.err).toContain('The selection is empty');
    const bad = await tmsync(['run', 'cases', '--test-run', run.human_id, '--status', 'flaky']);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('no run status "flaky"');
    expect(bad.err).toContain('Passed');
    const json = await tmsync(['run', 'cases', '--test-run', run.human_id, '--format', 'testplan-json', '--json']);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.out);
    expect(doc.cases).toMatchObject([{ id: caseIds[0], human_id: 'DEMO-1' }]);
    expect(JSON.parse(doc.output)).toEqual({ version: '1.0', tests: [{ id: 'DEMO-1' }] });
  });
});

describe('test report → import junit → plan → apply', () => {
  it('writes cases for the tests no case covers, plan shows exactly those creates, apply sends them, a second import writes nothing', async () => {
    const repo = join(cwd, 'repo');
    await mkdir(join(repo, 'cases'), { recursive: true });
    await writeFile(join(repo, 'tmsync.yaml'), demoConfigYaml(emu.baseUrl));
    await writeFile(
      join(repo, 'shipping.xml'),
      junit([
        { classname: 'com.shop.ShippingTest', name: 'quotesExpress', outcome: 'passed' },
        { classname: 'com.shop.ShippingTest', name: 'quotesStandard', outcome: 'failed' },
        { classname: 'com.shop.ShippingTest', name: 'DEMO-1 pays', outcome: 'passed' },
      ]),
    );
    const imported = await tmsync(['import', 'junit', 'shipping.xml', '--folder', 'Automated/Shipping'], repo);
    expect(imported.code, imported.err).toBe(0);
    expect(imported.err).toContain('Wrote 2 new cases for the tests of 1 report that no case covers (automation_type Automated); 1 test already map');
    expect(imported.err).toContain('Next: tmsync plan');
    const file = join(repo, 'cases/Automated/Shipping/quotesexpress.yaml');
    expect(await readFile(file, 'utf8')).toContain('automation:\n  tests:\n    - com.shop.ShippingTest.quotesExpress\n');

    const plan = await tmsync(['plan', '--json'], repo);
    expect(plan.code, plan.err).toBe(0);
    const ops = (JSON.parse(plan.out) as { operations: { kind: string; path?: string; body?: { title?: string } }[] }).operations;
    expect(ops.filter((o) => o.kind === 'create_case').map((o) => o.body?.title).sort()).toEqual(['quotesExpress', 'quotesStandard']);
    expect(ops.filter((o) => o.kind !== 'create_case' && o.kind !== 'create_folder')).toEqual([]);

    const applied = await tmsync(['apply', '--auto-approve'], repo);
    expect(applied.code, applied.err).toBe(0);
    const written = await readFile(file, 'utf8');
    expect(written).toMatch(/^id: DEMO-\d+$/m);
    // the local key stays beside the id apply wrote back, and is not sent: the next plan has nothing to do
    expect(written).toContain('    - com.shop.ShippingTest.quotesExpress');
    const again = await tmsync(['plan', '--detailed-exitcode'], repo);
    expect(again.code, again.out + again.err).toBe(0);

    // a pull keeps the local key; a run of these cases tells Allure their tests by name
    expect((await tmsync(['pull'], repo)).code).toBe(0);
    expect(await readFile(file, 'utf8')).toContain('    - com.shop.ShippingTest.quotesExpress');
    const id = /^id: (\S+)$/m.exec(written)![1];
    const caseId = (await setup.call('getTestCase', { params: { project_id: projectId, test_case_id: id } })).data.test_case.id;
    const run = (
      await setup.call('createTestRun', {
        params: { project_id: projectId },
        body: { title: 'Shipping', selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: [caseId] }] },
      })
    ).data.test_run as { human_id: string };
    const plan2 = await tmsync(['run', 'cases', '--test-run', run.human_id, '--format', 'testplan-json'], repo);
    expect(plan2.code, plan2.err).toBe(0);
    expect(JSON.parse(plan2.out)).toEqual({ version: '1.0', tests: [{ id, selector: 'com.shop.ShippingTest.quotesExpress' }] });

    const second = await tmsync(['import', 'junit', 'shipping.xml', '--folder', 'Automated/Shipping'], repo);
    expect(second.code).toBe(0);
    expect(second.err).toContain('Wrote 0 new cases');
    expect(second.err).toContain('2 named by a case\'s automation.tests');
    // apply wrote the folder's id into _folder.yaml; no case file was added
    expect((await readdir(join(repo, 'cases/Automated/Shipping'))).filter((n) => !n.startsWith('_')).sort()).toEqual(['quotesexpress.yaml', 'quotesstandard.yaml']);

    // the loop closes: the same report pushed maps the new tests (no id in their names) through `automation:`
    const standard = /^id: (\S+)$/m.exec(await readFile(join(repo, 'cases/Automated/Shipping/quotesstandard.yaml'), 'utf8'))![1];
    const pushed = await tmsync(['results', 'push', '--new-run', 'Shipping nightly', '--json', 'shipping.xml'], repo);
    expect(pushed.code, pushed.err).toBe(0);
    const result = JSON.parse(pushed.out) as { rows: { human_id: string; status: string }[]; unmatched: unknown[] };
    expect(result.unmatched).toEqual([]);
    expect(result.rows.map((r) => [r.human_id, r.status]).sort()).toEqual([['DEMO-1', 'Passed'], [id, 'Passed'], [standard, 'Failed']].sort());
  });
});

describe('results push --mark-automated', () => {
  it('edits automation_type in the pushed cases\' files only; plan shows the update, apply sends it; results.mark_automated does the same', async () => {
    const repo = join(cwd, 'mark');
    await mkdir(join(repo, 'cases', 'Payments'), { recursive: true });
    await writeFile(join(repo, 'tmsync.yaml'), demoConfigYaml(emu.baseUrl));
    await writeFile(join(repo, 'cases/Payments/card.yaml'), caseYaml({ title: 'Card payment' }));
    await writeFile(join(repo, 'cases/Payments/cash.yaml'), caseYaml({ title: 'Cash payment' }));
    expect((await tmsync(['apply', '--auto-approve'], repo)).code).toBe(0);
    const idOf = async (f: string) => /^id: (\S+)$/m.exec(await readFile(join(repo, 'cases/Payments', f), 'utf8'))![1];
    const card = await idOf('card.yaml');
    const cash = await idOf('cash.yaml');
    await writeFile(join(repo, 'card.xml'), junit([{ classname: 'com.shop.PayTest', name: `${card} pays by card`, outcome: 'passed' }]));

    // the tmsync.yaml setting, in a dry run: listed, not written
    await writeFile(join(repo, 'tmsync.yaml'), `${demoConfigYaml(emu.baseUrl)}results:\n  mark_automated: true\n`);
    const dry = await tmsync(['results', 'push', '--new-run', 'Marking (dry)', '--dry-run', 'card.xml'], repo);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.err).toContain('Would set automation_type Automated in 1 case file (nothing sent to the service):');
    expect(await readFile(join(repo, 'cases/Payments/card.yaml'), 'utf8')).toContain('automation_type: Not Automated');

    await writeFile(join(repo, 'tmsync.yaml'), demoConfigYaml(emu.baseUrl));
    const pushed = await tmsync(['results', 'push', '--new-run', 'Marking', '--mark-automated', 'card.xml', '--json'], repo);
    expect(pushed.code, pushed.err).toBe(0);
    expect(JSON.parse(pushed.out).mark_automated).toEqual({ automated_type: 'Automated', edited: [{ path: 'cases/Payments/card.yaml', ref: card, from: 'Not Automated' }], already: 0, not_in_repository: [] });
    expect(pushed.err).toContain('Next: review with git diff, then tmsync plan (shows 1 update) and tmsync apply.');
    expect(await readFile(join(repo, 'cases/Payments/card.yaml'), 'utf8')).toContain('automation_type: Automated');
    expect(await readFile(join(repo, 'cases/Payments/cash.yaml'), 'utf8')).toContain('automation_type: Not Automated');
    // nothing was sent to the service for the case itself: it still says Not Automated there
    const remote = async (id: string) => (await setup.call('getTestCase', { params: { project_id: projectId, test_case_id: id } })).data.test_case;
    const types = new Map<string, string>();
    for await (const t of setup.paginate('listAutomationTypes')) types.set(t.id, t.name);
    expect(types.get((await remote(card)).automation_type_id as string)).toBe('Not Automated');

    const plan = await tmsync(['plan', '--json'], repo);
    const ops = (JSON.parse(plan.out) as { operations: { kind: string; human_id?: string; changes?: { field: string }[] }[] }).operations;
    expect(ops.map((o) => [o.kind, o.human_id, o.changes?.map((c) => c.field)])).toEqual([['update_case', card, ['automation_type']]]);
    expect((await tmsync(['apply', '--auto-approve'], repo)).code).toBe(0);
    expect(types.get((await remote(card)).automation_type_id as string)).toBe('Automated');
    expect(types.get((await remote(cash)).automation_type_id as string)).toBe('Not Automated');

    const again = await tmsync(['results', 'push', '--new-run', 'Marking again', '--mark-automated', 'card.xml'], repo);
    expect(again.err).toContain('Every pushed case held in the repository is already Automated (1); no case file changed.');
  });

  it('refuses --mark-automated outside a tests repository before sending anything', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'No repo', '--mark-automated', 'dynamic.xml']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('--mark-automated edits case files: no tmsync.yaml was found, so nothing was sent');
  });
});
