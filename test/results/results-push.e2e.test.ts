import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadJunitFiles } from '../../src/results/junit.js';
import { pushResults } from '../../src/results/push-results.js';
import { LIVE_PAGE_SIZE_CAP, TEST_DIALECT } from '../dialect.js';
import type { RemoteProject } from '../../src/model.js';
import { createClient, type TmsClient } from '../../src/remote/index.js';
import { KEY, runStatuses, seedCases, setupClient, startProxy, type Emulator } from '../support/ci-helpers.js';
import { seededEmulator } from '../support/emulator.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/junit/', import.meta.url));
const DIALECTS = ['surefire.xml', 'pytest.xml', 'jest.xml', 'playwright.xml'];

/** What the four fixtures say about DEMO-1 … DEMO-11 (worst outcome per case, default status names). */
const EXPECTED: Record<string, string> = {
  'DEMO-1': 'PASSED',
  'DEMO-2': 'FAILED',
  'DEMO-3': 'FAILED', // error
  'DEMO-4': 'SKIPPED',
  'DEMO-5': 'SKIPPED',
  'DEMO-6': 'FAILED',
  'DEMO-7': 'FAILED', // error (underscore spelling in a pytest name)
  'DEMO-8': 'PASSED',
  'DEMO-9': 'SKIPPED',
  'DEMO-10': 'PASSED',
  'DEMO-11': 'SKIPPED',
};

let emu: Emulator;
let setup: TmsClient;
let project: RemoteProject;
let caseIds: string[];

beforeAll(async () => {
  emu = await seededEmulator(KEY);
  setup = setupClient(emu);
  ({ project, caseIds } = await seedCases(setup, 11));
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
});

async function createRun(title: string, ids: string[]): Promise<{ id: string; human_id?: string }> {
  const res = await setup.call('createTestRun', {
    params: { project_id: project.id },
    body: { title, selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: ids }] },
  });
  return res.data.test_run;
}

describe('pushResults against the emulator', () => {
  it('sends the four dialects into an existing run as JSON and the statuses read back match the reports', async () => {
    const run = await createRun('JSON push', caseIds);
    const proxy = await startProxy(emu.appUrl);
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000 });
    try {
      const result = await pushResults({
        client,
        project,
        testcases: await loadJunitFiles(DIALECTS, FIXTURES),
        testRun: run.human_id!,
        batchSize: 4,
      });
      expect(result.failedBatches).toEqual([]);
      expect(result.sentCaseIds).toHaveLength(11);
      expect(result.unknownCases).toEqual([{ ref: 'DEMO-99', testcases: 1 }]);
      expect(result.unmatched.map((u) => u.name)).toEqual(['totalIncludesTax()', 'test_coupon', 'Cart drawer updates the total']);
      expect(result.counts).toEqual({ Passed: 3, Failed: 4, Skipped: 4 });
      const puts = proxy.seen.filter((r) => r.method === 'PUT').map((r) => r.contentType?.split(';')[0]);
      // 11 rows in batches of 4, as JSON; the live dialect refuses JSON once, and from then on the
      // client sends multipart (the refused request changed nothing: the statuses below prove it)
      const multipart = ['multipart/form-data', 'multipart/form-data', 'multipart/form-data'];
      expect(puts).toEqual(TEST_DIALECT === 'live' ? ['application/json', ...multipart] : ['application/json', 'application/json', 'application/json']);
      expect(await runStatuses(setup, project.id, run.id)).toEqual(EXPECTED);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('sends the updates as multipart/form-data with a data part when asked, with the same statuses read back', async () => {
    const run = await createRun('Multipart push', caseIds);
    const proxy = await startProxy(emu.appUrl);
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000, multipartRunCases: true });
    try {
      const result = await pushResults({ client, project, testcases: await loadJunitFiles(DIALECTS, FIXTURES), testRun: run.id });
      expect(result.failedBatches).toEqual([]);
      const puts = proxy.seen.filter((r) => r.method === 'PUT');
      expect(puts).toHaveLength(1);
      expect(puts[0].contentType).toMatch(/^multipart\/form-data; boundary=/);
      expect(await runStatuses(setup, project.id, run.id)).toEqual(EXPECTED);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it("reads the live service's shape of the run's case list (test_run_cases with an embedded test_case)", async () => {
    const run = await createRun('Live list shape', caseIds.slice(0, 6));
    const doc = await setup.call('listRunCases', { params: { project_id: project.id, test_run_id: run.id } });
    const live = JSON.stringify({
      message: '',
      data: {
        test_run_cases: (doc.data.test_cases as unknown as Array<{ id: string; name: string; human_id: string }>).map((c) => ({
          status_id: null,
          status: 'Untested',
          assignee_id: null,
          test_case: { id: c.id, title: c.name, human_id: c.human_id },
        })),
      },
    });
    const proxy = await startProxy(emu.appUrl, (req) =>
      req.method === 'GET' && req.url?.split('?')[0].endsWith(`/test_runs/${run.id}/test_cases`) ? { status: 200, body: live } : undefined,
    );
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000 });
    try {
      const result = await pushResults({ client, project, testcases: await loadJunitFiles(DIALECTS, FIXTURES), testRun: run.id });
      expect(result.rows.map((r) => r.humanId)).toEqual(['DEMO-1', 'DEMO-2', 'DEMO-3', 'DEMO-4', 'DEMO-5', 'DEMO-6']);
      expect(result.notInRun.map((n) => n.ref)).toEqual(['DEMO-7', 'DEMO-8', 'DEMO-9', 'DEMO-10', 'DEMO-11']);
      // the six cases in the run were named by the list itself: only refs outside it were looked up
      const caseGets = proxy.seen.filter((r) => r.method === 'GET' && /\/test_cases\/[^/?]+$/.test(r.url.split('?')[0]));
      expect(caseGets.map((r) => r.url.split('/').pop()).sort()).toEqual(['DEMO-10', 'DEMO-11', 'DEMO-7', 'DEMO-8', 'DEMO-9', 'DEMO-99']);
      expect(result.sentCaseIds).toHaveLength(6);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('adds the cases a STATIC run lacks to its selection, reports them, and sends every result', async () => {
    const run = await createRun('Partial run', caseIds.slice(0, 4));
    const dry = await pushResults({ client: setup, project, testcases: await loadJunitFiles(DIALECTS, FIXTURES), testRun: run.id, dryRun: true });
    expect(dry.notInRun.map((n) => n.ref)).toEqual(['DEMO-5', 'DEMO-6', 'DEMO-7', 'DEMO-8', 'DEMO-9', 'DEMO-10', 'DEMO-11']);
    expect(dry.notInRunHint).toContain('a dry run adds nothing');
    const result = await pushResults({ client: setup, project, testcases: await loadJunitFiles(DIALECTS, FIXTURES), testRun: run.id });
    expect(result.addedToRun.map((n) => n.ref)).toEqual(['DEMO-5', 'DEMO-6', 'DEMO-7', 'DEMO-8', 'DEMO-9', 'DEMO-10', 'DEMO-11']);
    expect(result.notInRun).toEqual([]);
    expect(result.sentCaseIds).toHaveLength(11);
    const statuses = await runStatuses(setup, project.id, run.id);
    expect(statuses).toMatchObject({ 'DEMO-1': 'PASSED', 'DEMO-2': 'FAILED', 'DEMO-3': 'FAILED', 'DEMO-4': 'SKIPPED' });
    expect(Object.keys(statuses)).toHaveLength(11);
  });

  it('creates a STATIC run holding exactly the matched cases for --new-run, then sets their statuses', async () => {
    const result = await pushResults({
      client: setup,
      project,
      testcases: await loadJunitFiles(['jest.xml'], FIXTURES),
      newRun: 'Nightly web 812',
      statusMap: { skipped: 'Blocked' },
    });
    expect(result.run.created).toBe(true);
    const run = (await setup.call('getTestRun', { params: { project_id: project.id, test_run_id: result.run.id! } })).data.test_run;
    expect(run).toMatchObject({ title: 'Nightly web 812', selection_type: 'STATIC', test_cases_count: 3 });
    expect(await runStatuses(setup, project.id, run.id)).toEqual({ 'DEMO-8': 'PASSED', 'DEMO-9': 'BLOCKED', 'DEMO-10': 'PASSED' });
  });

  it('resolves human ids from the run\'s own case list, looking up only the refs it does not hold', async () => {
    const run = await createRun('Resolved from the run', caseIds);
    const proxy = await startProxy(emu.appUrl);
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000 });
    try {
      const result = await pushResults({ client, project, testcases: await loadJunitFiles(DIALECTS, FIXTURES), testRun: run.id });
      expect(result.sentCaseIds).toHaveLength(11);
      const caseGets = proxy.seen.filter((r) => r.method === 'GET' && /\/test_cases\/[^/?]+$/.test(r.url.split('?')[0]));
      expect(caseGets.map((r) => r.url.split('/').pop())).toEqual(['DEMO-99']);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('reads the whole case list instead of one GET per case when more refs than the threshold need resolving', async () => {
    const proxy = await startProxy(emu.appUrl);
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000 });
    try {
      const result = await pushResults({
        client,
        project,
        testcases: await loadJunitFiles(DIALECTS, FIXTURES),
        newRun: 'Many refs',
        lookupThreshold: 3,
      });
      expect(result.sentCaseIds).toHaveLength(11);
      expect(result.unknownCases.map((u) => u.ref)).toEqual(['DEMO-99']);
      expect(proxy.seen.filter((r) => /\/test_cases\/[^/?]+$/.test(r.url.split('?')[0]))).toEqual([]);
      // one request per page of the list: one page of 11 cases, or 4 under the live runs' page cap
      const pages = Math.ceil(11 / (TEST_DIALECT === 'live' ? LIVE_PAGE_SIZE_CAP : 100));
      expect(proxy.seen.filter((r) => r.method === 'GET' && /\/projects\/[^/]+\/test_cases\?/.test(r.url))).toHaveLength(pages);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('in a dry run, creates and sends nothing but returns the rows it would send', async () => {
    const proxy = await startProxy(emu.appUrl);
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000 });
    try {
      const result = await pushResults({
        client,
        project,
        testcases: await loadJunitFiles(['surefire.xml'], FIXTURES),
        newRun: 'Never created',
        dryRun: true,
      });
      expect(result.rows.map((r) => [r.humanId, r.status])).toEqual([
        ['DEMO-1', 'Passed'],
        ['DEMO-2', 'Failed'],
        ['DEMO-3', 'Failed'],
        ['DEMO-4', 'Skipped'],
      ]);
      expect(result.sentCaseIds).toEqual([]);
      expect(proxy.seen.filter((r) => r.method !== 'GET')).toEqual([]);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('never reports a refused batch as sent: the other batches go through and the refused rows are listed', async () => {
    const run = await createRun('Refusing run', caseIds);
    // the second update request is answered 422 by the scripted proxy
    let puts = 0;
    const proxy = await startProxy(emu.appUrl, (req) =>
      req.method === 'PUT' && ++puts === 2 ? { status: 422, body: JSON.stringify({ message: 'Invalid request body', errors: { code: 422, message: 'bad row' } }) } : undefined,
    );
    // the encoding the service takes, so the one refusal is the proxy's, not the encoding's
    const runCaseEncoding = TEST_DIALECT === 'live' ? 'multipart' : 'json';
    const client = createClient({ baseUrl: `${proxy.origin}/api/v1`, apiKey: KEY, rateLimit: 1000, runCaseEncoding });
    try {
      const result = await pushResults({ client, project, testcases: await loadJunitFiles(DIALECTS, FIXTURES), testRun: run.id, batchSize: 5 });
      expect(result.requests).toBe(3);
      expect(result.failedBatches).toHaveLength(1);
      expect(result.failedBatches[0].caseIds).toHaveLength(5);
      expect(result.failedBatches[0].error.code).toBe('invalid_request');
      expect(result.sentCaseIds).toHaveLength(6);
      const statuses = await runStatuses(setup, project.id, run.id);
      for (const id of result.failedBatches[0].caseIds) {
        const human = result.rows.find((r) => r.caseId === id)!.humanId!;
        expect(statuses[human]).toBe('UNTESTED');
      }
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it('prints nothing itself: the result object carries everything for the command to report', async () => {
    const run = await createRun('Silent', caseIds);
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    try {
      await pushResults({ client: setup, project, testcases: await loadJunitFiles(DIALECTS, FIXTURES), testRun: run.id });
      expect(out).not.toHaveBeenCalled();
      expect(err).not.toHaveBeenCalled();
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });

  it('refuses a run that does not exist with run_not_found', async () => {
    await expect(
      pushResults({ client: setup, project, testcases: await loadJunitFiles(['jest.xml'], FIXTURES), testRun: 'DEMO-R-999' }),
    ).rejects.toMatchObject({ code: 'run_not_found' });
  });
});
