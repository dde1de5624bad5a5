import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadReports } from '../../src/results/load-reports.js';
import { pushResults } from '../../src/results/push-results.js';
import { createClient } from '../../src/remote/index.js';
import { caseBody } from '../support/cases.js';
import { runCli } from '../support/cli.js';
import { KEY, runStatuses, startProxy } from '../support/ci-helpers.js';
import { reportPushFixture } from '../support/report-push.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/cucumber/', import.meta.url));

// DEMO-1 … DEMO-21, titled "Checkout case N", in the folder "Checkout"
const f = reportPushFixture(FIXTURES, 21, 'cucumber-push');
const tmsync = f.tmsync;

describe('tmsync results push with Cucumber reports', () => {
  it('pushes a cucumber-js JSON report into a new run where every scenario maps: by id tag, outline rows to one case, and by feature path and name', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'Cucumber nightly', 'reports/cucumber-js.json', '--json']);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as { formats: string[]; unmatched: unknown[]; unknown_cases: unknown[]; testcases: number; run: { id: string; created: boolean }; rows: { human_id: string; testcases: number; description: string }[] };
    expect(out.formats).toEqual(['cucumber-json']);
    expect(out.testcases).toBe(9);
    expect(out.unmatched).toEqual([]);
    expect(out.unknown_cases).toEqual([]);
    expect(out.run.created).toBe(true);
    // the two rows of the outline report to DEMO-6; "Checkout case 8" has no id tag and is found by its feature and name
    expect(out.rows.map((row) => [row.human_id, row.testcases])).toEqual([
      ['DEMO-1', 1],
      ['DEMO-2', 1],
      ['DEMO-3', 1],
      ['DEMO-4', 1],
      ['DEMO-5', 1],
      ['DEMO-6', 2],
      ['DEMO-7', 1],
      ['DEMO-8', 1],
    ]);
    expect(out.rows.find((row) => row.human_id === 'DEMO-7')?.description).toBe('failed: Checkout › Receipt — After hook (features/support/hooks.js:12) — Error: could not close the browser');
    expect(await runStatuses(f.setup, f.projectId, out.run.id)).toEqual({
      'DEMO-1': 'PASSED',
      'DEMO-2': 'FAILED',
      'DEMO-3': 'SKIPPED',
      'DEMO-4': 'FAILED',
      'DEMO-5': 'FAILED',
      'DEMO-6': 'FAILED',
      'DEMO-7': 'FAILED',
      'DEMO-8': 'PASSED',
    });
  });

  it('pushes a messages NDJSON report into an existing run, the format told from the content', async () => {
    const ids = f.caseIds.slice(16, 21);
    const run = (
      await f.setup.call('createTestRun', {
        params: { project_id: f.projectId },
        body: { title: 'Messages', selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: ids }] },
      })
    ).data.test_run as { id: string; human_id: string };
    const r = await tmsync(['results', 'push', '--test-run', run.human_id, 'reports/messages.ndjson']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`Pushed 5 of 5 results from 5 testcases into ${run.human_id} "Messages": 4 Passed, 1 Failed.`);
    expect(await runStatuses(f.setup, f.projectId, run.id)).toEqual({ 'DEMO-17': 'PASSED', 'DEMO-18': 'PASSED', 'DEMO-19': 'PASSED', 'DEMO-20': 'FAILED', 'DEMO-21': 'PASSED' });
  });

  it('reads an id tag prefix and a forced format, and lists the scenarios that map to nothing', async () => {
    const r = await tmsync(['results', 'push', '--new-run', 'JVM', '--format', 'cucumber-json', '--id-tag-prefix', 'tc:', 'reports/cucumber-jvm.json', '--dry-run']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim().split('\n')).toEqual([expect.stringMatching(/^Passed\s+DEMO-12 Checkout case 12 {2}\(1 testcase\)$/)]);
    expect(r.err).toContain('5 testcases named no test case');
    expect(r.err).toContain('reports/cucumber-jvm.json: Cart › Add a book');
    // the same prefix from `gherkin.id_tag_prefix` of tmsync.yaml, the one apply writes id tags with
    const configured = await mkdtemp(join(tmpdir(), 'tmsync-cucumber-prefix-'));
    try {
      await cp(join(f.cwd, 'reports'), join(configured, 'reports'), { recursive: true });
      await writeFile(join(configured, 'tmsync.yaml'), 'gherkin:\n  id_tag_prefix: "tc:"\n');
      const env = { TMSYNC_BASE_URL: f.emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' };
      const c = await runCli(['results', 'push', '--new-run', 'JVM', 'reports/cucumber-jvm.json', '--dry-run'], { cwd: configured, env });
      expect(c.code, c.err).toBe(0);
      expect(c.out).toBe(r.out);
    } finally {
      await rm(configured, { recursive: true, force: true });
    }
    const bad = await tmsync(['results', 'push', '--new-run', 'X', '--format', 'mstest-v1', 'reports/cucumber-jvm.json']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--format.*mstest-v1/);
  });

  it('reads the project\'s folders and cases only when a scenario has no id tag', async () => {
    const proxy = await startProxy(f.emu.appUrl);
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000 });
    try {
      const lists = () => proxy.seen.filter((r) => r.method === 'GET' && /\/(folders|test_cases)(\?|$)/.test(r.url)).length;
      const tagged = await loadReports(['reports/messages.ndjson'], f.cwd);
      const a = await pushResults({ client, project: f.project, testcases: tagged.records, newRun: 'Tagged', dryRun: true });
      expect(a.rows).toHaveLength(5);
      expect(lists()).toBe(0);
      const untagged = await loadReports(['reports/cucumber-js.json'], f.cwd);
      const b = await pushResults({ client, project: f.project, testcases: untagged.records, newRun: 'Untagged', dryRun: true });
      expect(b.rows.map((r) => r.humanId)).toContain('DEMO-8');
      expect(lists()).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('lists a scenario without an id tag whose feature path and name fit two cases equally, naming both, and sends it to neither', async () => {
    // a second "Checkout case 3", in Archive/Checkout: as good a fit for features/checkout.feature as DEMO-3 in Checkout
    const p = { project_id: f.projectId };
    const one = async <T>(it: AsyncIterable<T>): Promise<T> => {
      for await (const x of it) return x;
      throw new Error('empty list');
    };
    const [types, statuses, priorities, automation] = await Promise.all([
      one(f.setup.paginate('listCaseTypes')),
      one(f.setup.paginate('listCaseStatuses')),
      one(f.setup.paginate('listPriorities')),
      one(f.setup.paginate('listAutomationTypes')),
    ]);
    const user = (await f.setup.call('listUsers')).data[0].id;
    const archive = (await f.setup.call('createFolder', { params: p, body: { name: 'Archive' } })).data.folder;
    const nested = (await f.setup.call('createFolder', { params: p, body: { name: 'Checkout' } })).data.folder;
    await f.setup.call('moveFolder', { params: { ...p, folder_id: nested.id }, body: { parent_folder_id: archive.id } });
    const refs = { lookups: { types: types.id, statuses: statuses.id, priorities: priorities.id, automation_types: automation.id }, user };
    const twin = (await f.setup.call('createTestCase', { params: p, body: caseBody(refs, { title: 'Checkout case 3', folder_id: nested.id }) })).data.test_case;
    const report = [{ uri: 'features/checkout.feature', name: 'Checkout', keyword: 'Feature', tags: [], elements: [
      { type: 'scenario', keyword: 'Scenario', name: 'Checkout case 3', steps: [{ keyword: 'Given ', name: 'a step', result: { status: 'passed' } }] },
      { type: 'scenario', keyword: 'Scenario', name: 'Checkout case 4', steps: [{ keyword: 'Given ', name: 'a step', result: { status: 'failed' } }] },
    ] }];
    await writeFile(join(f.cwd, 'twins.json'), JSON.stringify(report));
    const r = await tmsync(['results', 'push', '--new-run', 'Twins', 'twins.json', '--json']);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as { rows: { human_id: string }[]; unmatched: { name: string; ambiguous?: string[] }[] };
    expect(out.rows.map((row) => row.human_id)).toEqual(['DEMO-4']);
    expect(out.unmatched).toEqual([expect.objectContaining({ name: 'Checkout case 3', ambiguous: ['DEMO-3', twin.human_id] })]);
    expect(r.err).toContain(`twins.json: Checkout case 3 (its feature path and name fit DEMO-3, ${twin.human_id}: add the id tag)`);
  });

  it('names the formats and the id tag rule in --help', async () => {
    const h = (await tmsync(['results', 'push', '--help'])).out.replace(/\s+/g, ' ');
    expect(h).toMatch(/--format <format> .*\(choices: "auto", "junit", "cucumber-json", "cucumber-messages", (?:"[a-z0-9-]+", )*default: "auto"\)/);
    expect(h).toMatch(/--id-tag-prefix <prefix> Cucumber: what an id tag holds between @ and the human id \(tc: for @tc:SHOP-12; default: gherkin\.id_tag_prefix of tmsync\.yaml\) --/);
    expect(h).toMatch(/a scenario's id tag \(@SHOP-12; an Examples' tag first\)/);
  });
});
