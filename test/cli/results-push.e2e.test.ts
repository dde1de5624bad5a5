import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { TEST_DIALECT } from '../dialect.js';
import type { TmsClient } from '../../src/remote/index.js';
import { KEY, runStatuses, seedCases, setupClient, startProxy, type Emulator } from '../support/ci-helpers.js';
import { seededEmulator } from '../support/emulator.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/junit/', import.meta.url));

let emu: Emulator;
let setup: TmsClient;
let projectId: string;
let caseIds: string[];
let cwd: string;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO', ...extra };
}

async function tmsync(args: string[], e: NodeJS.ProcessEnv = env()) {
  return runCli(args, { cwd, env: e });
}

async function createRun(title: string, ids = caseIds): Promise<{ id: string; human_id: string }> {
  const res = await setup.call('createTestRun', {
    params: { project_id: projectId },
    body: { title, selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: ids }] },
  });
  return res.data.test_run as { id: string; human_id: string };
}

beforeAll(async () => {
  emu = await seededEmulator(KEY);
  setup = setupClient(emu);
  const seeded = await seedCases(setup, 11);
  projectId = seeded.project.id;
  caseIds = seeded.caseIds;
  cwd = await mkdtemp(join(tmpdir(), 'tmsync-push-'));
  await cp(FIXTURES, join(cwd, 'reports'), { recursive: true });
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

const ALL = ['reports/surefire.xml', 'reports/pytest.xml', 'reports/jest.xml', 'reports/playwright.xml'];

describe('tmsync results push', () => {
  it('pushes four reports into a run, exits 0 and reports unmatched testcases and unknown cases', async () => {
    const run = await createRun('CLI push');
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, ...ALL]);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`Pushed 11 of 11 results from 21 testcases into ${run.human_id} "CLI push": 3 Passed, 4 Failed, 4 Skipped.`);
    expect(r.err).toContain('3 testcases named no test case');
    expect(r.err).toContain('reports/surefire.xml: com.example.shop.CheckoutTest › totalIncludesTax()');
    expect(r.err).toContain('reports/jest.xml: Cart drawer updates the total');
    expect(r.err).toContain('1 case named in the reports does not exist in the project: DEMO-99');
    const statuses = await runStatuses(setup, projectId, run.id);
    expect(statuses['DEMO-7']).toBe('FAILED');
    expect(statuses['DEMO-5']).toBe('SKIPPED');
  });

  it('sends the encoding results.encoding names in tmsync.yaml: json is taken by the document dialect and refused by the live one with a hint naming --multipart, which wins over it', async () => {
    const config = join(cwd, 'json-encoding.yaml');
    await writeFile(config, 'project: DEMO\nresults: { encoding: json }\n');
    const run = await createRun('CLI encoding json');
    const r = await tmsync(['--config', config, 'results', 'push', '--test-run', run.human_id, 'reports/surefire.xml']);
    if (TEST_DIALECT === 'live') {
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/NOT sent \(invalid_request\): PUT \/projects\/[^ ]+\/test_runs\/[^ ]+\/test_cases failed \(invalid_request 415\).*\[x-request-id [0-9a-f-]{36}\]/);
      expect(r.err).toContain('Hint:');
      expect(r.err).toContain('--multipart');
      expect(r.err).toContain('results.encoding');
      const forced = await tmsync(['--config', config, 'results', 'push', '--multipart', '--test-run', run.human_id, 'reports/surefire.xml']);
      expect(forced.code).toBe(0);
    } else {
      expect(r.code).toBe(0);
    }
    expect(Object.values(await runStatuses(setup, projectId, run.id))).toContain('PASSED');
  });

  it('with --multipart and --status-map, sends multipart bodies and uses the mapped status', async () => {
    const run = await createRun('CLI multipart');
    const proxy = await startProxy(emu.appUrl);
    try {
      const r = await tmsync(
        ['results', 'push', '--test-run', run.id, '--multipart', '--status-map', 'skipped=Blocked', '--status-map', 'error=Skipped', '--batch-size', '5', ...ALL],
        env({ TMSYNC_BASE_URL: `${proxy.origin}/api/v1` }),
      );
      expect(r.code).toBe(0);
      const puts = proxy.seen.filter((s) => s.method === 'PUT');
      expect(puts).toHaveLength(3);
      for (const p of puts) expect(p.contentType).toMatch(/^multipart\/form-data/);
      const statuses = await runStatuses(setup, projectId, run.id);
      expect(statuses).toMatchObject({ 'DEMO-3': 'SKIPPED', 'DEMO-7': 'SKIPPED', 'DEMO-4': 'BLOCKED', 'DEMO-2': 'FAILED', 'DEMO-1': 'PASSED' });
    } finally {
      await proxy.close();
    }
  });

  it('prints a run title from the service on its line, escaped, in the log and in the job summary (as the plan\'s markdown escapes it)', async () => {
    const title = 'x\n::error file=tmsync.yaml,line=1::injected\n::add-mask::Plan **bold** <img src=x> | cell \u001b]0;pwned\u0007';
    const run = await createRun(title);
    const summaryFile = join(cwd, 'hostile-summary.md');
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, 'reports/playwright.xml'], env({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile }));
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`into ${run.human_id} "x\\n::error file=tmsync.yaml,line=1::injected\\n::add-mask::Plan **bold** <img src=x> | cell \\x1b]0;pwned\\x07"`);
    const md = await readFile(summaryFile, 'utf8');
    expect(md).toContain(String.raw`x\\n::error file=tmsync.yaml,line=1::injected\\n::add-mask::Plan \*\*bold\*\* \<img src=x\> \| cell \\x1b\]0;pwned\\x07`);
    for (const text of [r.out, r.err, md]) {
      expect(text).not.toMatch(/^\s*::/m);
      // eslint-disable-next-line no-control-regex
      expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
  });

  it('creates a run with --new-run and prints what it created', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'Nightly 2026-11-20', 'reports/playwright.xml', '--json']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.out);
    expect(json.run).toMatchObject({ title: 'Nightly 2026-11-20', created: true });
    expect(json.sent_case_ids).toHaveLength(3);
    expect(json.unknown_cases).toEqual([{ ref: 'DEMO-99', testcases: 1 }]);
    expect(await runStatuses(setup, projectId, json.run.id)).toEqual({ 'DEMO-1': 'PASSED', 'DEMO-2': 'FAILED', 'DEMO-11': 'SKIPPED' });
  });

  it("ends with one line `View run: <link>` to the run's page in the web UI, which shows the run, and gives the link in --json (the live dialect, like the live service, sends none: no line then)", async () => {
    const run = await createRun('Linked run');
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, 'reports/surefire.xml']);
    const json = await tmsync(['results', 'push', '--new-run', 'Linked new run', 'reports/playwright.xml', '--json']);
    expect([r.code, json.code]).toEqual([0, 0]);
    const created = JSON.parse(json.out).run as { human_id: string; url?: string };
    const linkLines = [...r.io.err, ...json.io.err].filter((line) => line.includes('View run'));
    if (TEST_DIALECT === 'live') {
      expect(linkLines).toEqual([]);
      expect(created.url).toBeUndefined();
      expect([...r.io.err, ...json.io.err].filter((line) => line.trim() === '')).toEqual([]);
      return;
    }
    const page = `${emu.appUrl}/ui/projects/DEMO/runs/${run.human_id}`;
    expect(r.io.err.at(-1)).toBe(`View run: ${page}`);
    expect(r.io.err.filter((line) => line.startsWith('View run: '))).toHaveLength(1);
    expect(created.url).toBe(`${emu.appUrl}/ui/projects/DEMO/runs/${created.human_id}`);
    expect(json.io.err.at(-1)).toBe(`View run: ${created.url}`);
    // the link opens the run's page (with the key the UI asks for), not a 404
    for (const [url, title, humanId] of [[page, 'Linked run', run.human_id], [created.url, 'Linked new run', created.human_id]] as const) {
      const res = await fetch(url!, { headers: { cookie: `tmsync_ui_key=${encodeURIComponent(KEY)}` } });
      expect(res.status, url).toBe(200);
      expect(await res.text()).toContain(`<h1>${humanId}: ${title}</h1>`);
      expect((await fetch(url!)).status, 'without the key').toBe(401);
    }
  });

  it('maps testcases through a mapping file, which wins over ids in the names', async () => {
    const run = await createRun('Mapped');
    await writeFile(
      join(cwd, 'mapping.yaml'),
      ['"Cart drawer updates the total": DEMO-11', '"Cart drawer DEMO-8 shows the item count": [DEMO-9, DEMO-10]', ''].join('\n'),
    );
    const r = await tmsync(['results', 'push', '--test-run', run.id, '--mapping', 'mapping.yaml', 'reports/jest.xml']);
    expect(r.code).toBe(0);
    const statuses = await runStatuses(setup, projectId, run.id);
    // DEMO-8 lost its only testcase to the mapping; DEMO-9 is skipped in its own testcase (worse than the mapped pass)
    expect(statuses).toMatchObject({ 'DEMO-8': 'UNTESTED', 'DEMO-9': 'SKIPPED', 'DEMO-10': 'PASSED', 'DEMO-11': 'FAILED' });
  });

  it('with --dry-run lists the rows on stdout, with the mapped statuses, and sends nothing', async () => {
    const run = await createRun('Dry');
    // a --status-map value followed by a file: the file stays a report, not a map entry
    const r = await tmsync(['results', 'push', '--test-run', run.id, '--dry-run', '--status-map', 'skipped=Blocked,error=Skipped', 'reports/surefire.xml']);
    expect(r.code).toBe(0);
    expect(r.io.out).toEqual([
      'Passed     DEMO-1 Checkout case 1  (1 testcase)',
      'Failed     DEMO-2 Checkout case 2  (1 testcase)',
      'Skipped    DEMO-3 Checkout case 3  (1 testcase)',
      'Blocked    DEMO-4 Checkout case 4  (1 testcase)',
    ]);
    expect(r.err).toContain('nothing was sent');
    expect(Object.values(await runStatuses(setup, projectId, run.id)).every((s) => s === 'UNTESTED')).toBe(true);
  });

  it('exits 1 and says which results were not sent when the service refuses an update', async () => {
    const run = await createRun('Refused');
    const proxy = await startProxy(emu.appUrl, (req) =>
      req.method === 'PUT' ? { status: 422, body: JSON.stringify({ message: 'Invalid request body', errors: { code: 422, message: 'refused' } }) } : undefined,
    );
    try {
      const r = await tmsync(['results', 'push', '--test-run', run.id, 'reports/surefire.xml'], env({ TMSYNC_BASE_URL: `${proxy.origin}/api/v1` }));
      expect(r.code).toBe(1);
      expect(r.err).toContain('Pushed 0 of 4 results');
      expect(r.err).toMatch(/Error: 4 results were NOT sent \(invalid_request\)/);
      expect(r.err).toContain('not sent: DEMO-1, DEMO-2, DEMO-3, DEMO-4');
    } finally {
      await proxy.close();
    }
  });

  it('refuses a closed run up front with exit 1, sending nothing', async () => {
    const run = await createRun('Closed');
    await setup.call('updateTestRun', { params: { project_id: projectId, test_run_id: run.id }, body: { status: 'CLOSED' } });
    const r = await tmsync(['results', 'push', '--test-run', run.id, 'reports/surefire.xml']);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`test run ${run.human_id} "Closed" is closed; nothing was sent`);
  });

  it('exits 1 when no testcase matches a case of a DYNAMIC run, lists the cases outside it and says to create the run with them', async () => {
    // a DYNAMIC run made before the cases it lacks (the service's selection is a snapshot of its query)
    const dynamic = (
      await setup.call('createTestRun', {
        params: { project_id: projectId },
        body: { title: 'Dynamic, then more cases', selection_type: 'DYNAMIC', dynamic_selection_filters: [{ field: 'id', operator: 'IN', values: caseIds.slice(10) }] },
      })
    ).data.test_run as { id: string };
    const r = await tmsync(['results', 'push', '--test-run', dynamic.id, 'reports/surefire.xml']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('4 cases are not in the run');
    expect(r.err).toContain('Hint: the run is DYNAMIC');
    expect(r.err).toContain('tmsync test-run create --title T --cases');
    expect(r.err).toContain('nothing was sent');
  });

  it('adds the cases a STATIC run lacks to its selection, keeping the results it holds, and says so', async () => {
    const run = await createRun('Only case 11', caseIds.slice(10));
    await writeFile(join(cwd, 'case-11.xml'), '<testsuite name="s"><testcase classname="s" name="DEMO-11 refunds"><failure message="no"/></testcase></testsuite>');
    expect((await tmsync(['results', 'push', '--test-run', run.id, 'case-11.xml'])).code).toBe(0);
    expect(await runStatuses(setup, projectId, run.id)).toEqual({ 'DEMO-11': 'FAILED' });
    const r = await tmsync(['results', 'push', '--test-run', run.id, 'reports/surefire.xml']);
    expect(r.code).toBe(0);
    expect(r.err).toContain('Added 4 cases the run did not hold to its selection: DEMO-1, DEMO-2, DEMO-3, DEMO-4');
    const after = await runStatuses(setup, projectId, run.id);
    expect(Object.keys(after).sort()).toEqual(['DEMO-1', 'DEMO-11', 'DEMO-2', 'DEMO-3', 'DEMO-4']);
    expect(after['DEMO-11']).toBe('FAILED');
  });

  it('fails the cases of a suite whose set-up failed, pushes not-run tests as Skipped, counts a bare testcase and lists a suite-level failure that maps to no case', async () => {
    const run = await createRun('Suite-level failures', caseIds.slice(0, 3));
    const report = `<?xml version="1.0" encoding="ISO-8859-1"?>
<testsuites name="failsafe">
  <testsuite name="com.shop.CartIT" tests="0" errors="1"><error message="setUpClass: database unreachable"/></testsuite>
  <testsuite name="com.shop.OrphanIT" tests="0" errors="1"><error message="no fixture"/></testsuite>
  <testsuite name="com.shop.Caf\u00e9">
    <testcase classname="com.shop.Caf\u00e9" name="DEMO-3 cr\u00e8me" status="notrun"/>
    <testcase/>
  </testsuite>
</testsuites>
`;
    await writeFile(join(cwd, 'suite-level.xml'), Buffer.from(report, 'latin1'));
    await writeFile(join(cwd, 'suite-mapping.json'), JSON.stringify({ 'com.shop.CartIT.addsItem': 'DEMO-1', 'com.shop.CartIT.removesItem': 'DEMO-2' }));
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, '--mapping', 'suite-mapping.json', 'suite-level.xml']);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/Pushed 3 of 3 results from 2 testcases into .*: (1 Skipped, 2 Failed|2 Failed, 1 Skipped)\./);
    expect(r.err).toContain('1 suite-level failure named no test case');
    expect(r.err).toContain('  suite-level.xml: suite com.shop.OrphanIT error — suite-level failure: no fixture');
    expect(r.err).toContain('1 testcase named no test case');
    expect(r.err).toContain('  suite-level.xml: (unnamed testcase)');
    expect(await runStatuses(setup, projectId, run.id)).toEqual({ 'DEMO-1': 'FAILED', 'DEMO-2': 'FAILED', 'DEMO-3': 'SKIPPED' });
    const json = await tmsync(['results', 'push', '--test-run', run.human_id, '--mapping', 'suite-mapping.json', 'suite-level.xml', '--dry-run', '--json']);
    const out = JSON.parse(json.out);
    expect(out.testcases).toBe(2);
    expect(out.unmatched).toContainEqual({
      name: 'com.shop.OrphanIT',
      classname: '',
      report: 'suite-level.xml',
      outcome: 'error',
      suite_level: true,
      message: 'suite-level failure: no fixture',
    });
    // the Latin-1 name was read as what it says, not as U+FFFD
    expect(out.rows.find((row: { human_id?: string }) => row.human_id === 'DEMO-3').description).toBe('skipped: com.shop.Caf\u00e9 › DEMO-3 cr\u00e8me — not run (notrun)');
  });

  it('exits 1 with invalid_junit for a broken report and with a usage error without --test-run/--new-run', async () => {
    await writeFile(join(cwd, 'broken.xml'), '<testsuite name="x">\n<testcase name="a">\n</testsuite>\n');
    const a = await tmsync(['results', 'push', '--test-run', 'DEMO-R-1', 'broken.xml', '--json']);
    expect(a.code).toBe(1);
    expect(JSON.parse(a.out).error.code).toBe('invalid_junit');
    expect(a.err).toMatch(/broken\.xml:3:\d+ is not well-formed XML/);
    const b = await tmsync(['results', 'push', 'reports/jest.xml']);
    expect(b.code).toBe(1);
    expect(b.err).toContain('give exactly one of --test-run and --new-run');
  });
});
