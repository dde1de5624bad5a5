import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPlan } from '../../src/apply/engine.js';
import { executePlan } from '../../src/apply/executor.js';
import type { ApplyClient } from '../../src/apply/finders.js';
import { PLAN_FORMAT_VERSION, type Operation, type Plan } from '../../src/plan/operations.js';

/** A client that answers plans and runs, records every call, and fails the calls `fail` names. */
function client(options: { fail?: (endpoint: string) => Error | undefined; planStatus?: string } = {}) {
  const calls: { endpoint: string; body?: unknown }[] = [];
  let n = 0;
  const c = {
    calls,
    call: async (endpoint: string, req: { body?: unknown } = {}) => {
      calls.push({ endpoint, body: req.body });
      const err = options.fail?.(endpoint);
      if (err) throw err;
      if (endpoint === 'createTestRun') return { data: { test_run: { id: `run-${++n}` } } };
      if (endpoint === 'createTestPlan') return { data: { test_plan: { id: `plan-${++n}` } } };
      if (endpoint === 'createTestCase') return { data: { test_case: { id: `case-${++n}` } } };
      if (endpoint === 'getTestPlan') return { data: { test_plan: { id: 'p', status: options.planStatus ?? 'ACTIVE' } } };
      return { data: {} };
    },
    paginate: async function* () {},
  };
  return c as typeof c & ApplyClient;
}

const plan = (operations: Operation[]): Plan => ({
  format_version: PLAN_FORMAT_VERSION,
  project: { id: 'proj', name: 'P', humanIdPrefix: 'P' },
  prune: false,
  operations,
  unmanaged: [],
  warnings: [],
  summary: { create: 0, update: 0, move: 0, delete: 0, adopt: 0 },
  contentHash: '',
  remoteVersions: {},
});

const closedRun: Operation = {
  kind: 'create_test_run',
  key: 'run:r',
  dependsOn: [],
  title: 'Smoke',
  description: '',
  cases: [{ id: 'c1' }],
  plan: null,
  startDate: null,
  endDate: null,
  assigneeId: null,
  labelNames: [],
  results: [{ case: { id: 'c1' }, statusId: 'passed' }],
  batchSize: 200,
  close: true,
};
const writeBack = async () => undefined;

describe('the write engine on the kinds a restore adds', () => {
  it('reopens a closed run before its results only when an earlier run created it', async () => {
    const fresh = client();
    expect((await executePlan(plan([closedRun]), { client: fresh, writeBack })).created).toBe(1);
    expect(fresh.calls.map((c) => c.endpoint)).toEqual(['createTestRun', 'updateRunCases', 'updateTestRun']);

    const resumed = client();
    const result = await executePlan(plan([closedRun]), { client: resumed, writeBack, resumeIds: new Map([['run:r', { id: 'run-0' }]]) });
    expect(result.failed).toEqual([]);
    expect(resumed.calls.map((c) => [c.endpoint, c.body])).toEqual([
      ['updateTestRun', { status: 'ACTIVE' }],
      ['updateRunCases', { test_run_cases: [{ test_case_id: 'c1', test_run_status_id: 'passed' }] }],
      ['updateTestRun', { status: 'CLOSED' }],
    ]);
  });

  it('counts a plan completion whose answer was lost as done when the plan reads completed, and as failed when it does not', async () => {
    const complete: Operation = { kind: 'complete_test_plan', key: 'complete_plan:p', dependsOn: [], plan: { id: 'p' }, title: 'Release' };
    const lost = () => Object.assign(new Error('socket hang up'), { code: 'network_error' });
    const done = client({ fail: (e) => (e === 'completeTestPlan' ? lost() : undefined), planStatus: 'COMPLETED' });
    const ok = await executePlan(plan([complete]), { client: done, writeBack });
    expect(ok).toMatchObject({ failed: [], updated: 1 });
    expect(done.calls.map((c) => c.endpoint)).toEqual(['completeTestPlan', 'getTestPlan']);

    const notDone = client({ fail: (e) => (e === 'completeTestPlan' ? lost() : undefined) });
    const bad = await executePlan(plan([complete]), { client: notDone, writeBack });
    expect(bad.failed).toEqual([{ key: 'complete_plan:p', kind: 'complete_test_plan', message: 'socket hang up', stage: 'request' }]);
  });
  it('keeps a journal file of its own after a run that finished when asked, names it, and reports each operation as it ends', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-engine-file-'));
    const file = join(root, '.tmsync', 'restore-x.jsonl');
    const ended: [string, boolean][] = [];
    const create: Operation = { kind: 'create_test_plan', key: 'plan:p', dependsOn: [], title: 'Release', description: '', startDate: null, endDate: null };
    const result = await applyPlan(plan([create, closedRun]), {
      root,
      client: client(),
      journalFile: { file, label: 'restore journal', keep: true },
      onOperationDone: (key, ok) => ended.push([key, ok]),
    });
    expect(result.journal).toBe(file);
    expect(ended.sort()).toEqual([
      ['plan:p', true],
      ['run:r', true],
    ]);
    expect((await readFile(file, 'utf8')).split('\n').filter((l) => l.includes('"done"'))).toHaveLength(2);
    expect(existsSync(`${file}.prev`)).toBe(false);
    expect(existsSync(join(root, '.tmsync', 'journal.jsonl'))).toBe(false);
  });
  it('does not read a created case again for its human id when the operation writes no file back', async () => {
    const c = client();
    const op: Operation = { kind: 'create_case', key: 'case:x', dependsOn: [], path: [], body: { title: 'X', folder: { id: 'f' } }, writeBack: { file: '' } };
    expect((await executePlan(plan([op]), { client: c, writeBack })).created).toBe(1);
    expect(c.calls.map((x) => x.endpoint)).toEqual(['createTestCase']);
  });
});
