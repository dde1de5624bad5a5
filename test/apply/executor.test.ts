import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executePlan } from '../../src/apply/executor.js';
import { Journal, readJournal } from '../../src/apply/journal.js';
import type { ApplyClient } from '../../src/apply/finders.js';
import { PLAN_FORMAT_VERSION, type Operation, type Plan } from '../../src/plan/operations.js';

/** A scripted in-memory service: records calls, can fail chosen requests. */
function fakeClient(opts: { fail?: (endpoint: string, body: any, attempt: number) => Error | undefined; delayMs?: number } = {}) {
  const calls: { endpoint: string; params: any; body: any }[] = [];
  const folders: any[] = [];
  const cases: any[] = [];
  let n = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const client: ApplyClient & { calls: typeof calls; folders: any[]; cases: any[]; maxInFlight: () => number } = {
    calls,
    folders,
    cases,
    maxInFlight: () => maxInFlight,
    async call(endpoint, o = {}) {
      try {
        return await once(endpoint, o, 1);
      } catch (err) {
        // like the real client: an ambiguous create asks the caller before sending again
        if (!(err as { ambiguous?: boolean }).ambiguous || !o.reconcile) throw err;
        const found = await o.reconcile();
        return found ?? (await once(endpoint, o, 2));
      }
    },
    async *paginate(endpoint) {
      if (endpoint === 'listFolders') yield* folders;
      if (endpoint === 'listTestCases') yield* cases;
    },
  };
  async function once(endpoint: string, o: any, attempt: number): Promise<any> {
      calls.push({ endpoint, params: o.params, body: o.body });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        await new Promise((r) => setTimeout(r, opts.delayMs ?? 1));
        const err = opts.fail?.(endpoint, o.body, attempt);
        if (err) throw err;
        switch (endpoint) {
          case 'createFolder': {
            const f = { id: `f${++n}`, name: (o.body).name, parent_folder_id: '', order: 0 };
            folders.push(f);
            return { data: { folder: f } };
          }
          case 'moveFolder': {
            const f = folders.find((x) => x.id === o.params!.folder_id);
            f.parent_folder_id = (o.body).parent_folder_id;
            return { data: { folder: f } };
          }
          case 'createTestCase': {
            const c = { id: `c${++n}`, human_id: `DEMO-${n}`, ...(o.body) };
            cases.push(c);
            return { data: { test_case: c } };
          }
          default:
            return { data: {} };
        }
      } finally {
        inFlight--;
      }
  }
  return client;
}

const plan = (operations: Operation[]): Plan => ({
  format_version: PLAN_FORMAT_VERSION,
  project: { id: 'p1', name: 'Demo', humanIdPrefix: 'DEMO' },
  prune: false,
  operations,
  unmanaged: [],
  warnings: [],
  summary: { create: 0, update: 0, move: 0, delete: 0, adopt: 0 },
  contentHash: 'x',
  remoteVersions: {},
});

const folderOp = (path: string[], parentKey?: string): Operation => ({
  kind: 'create_folder',
  key: `folder:${path.join('/')}`,
  dependsOn: parentKey ? [parentKey] : [],
  path,
  name: path[path.length - 1],
  parent: parentKey ? { op: parentKey } : null,
  writeBack: { file: `cases/${path.join('/')}/_folder.yaml` },
});
const caseOp = (file: string, folderKey: string, title = file): Operation => ({
  kind: 'create_case',
  key: `case:${file}`,
  dependsOn: [folderKey],
  path: [],
  body: { title, folder: { op: folderKey } },
  writeBack: { file },
});

function recorder() {
  const written: Record<string, string> = {};
  return { written, writeBack: async (file: string, id: string) => void (written[file] = id) };
}

describe('executePlan', () => {
  it('creates parents before children, moves new nested folders, and writes every id back', async () => {
    const client = fakeClient();
    const { written, writeBack } = recorder();
    const result = await executePlan(
      plan([folderOp(['A']), folderOp(['A', 'B'], 'folder:A'), caseOp('cases/A/B/x.yaml', 'folder:A/B'), caseOp('cases/A/y.yaml', 'folder:A')]),
      { client, writeBack },
    );
    expect(result).toMatchObject({ created: 4, failed: [], skipped: [], interrupted: false });
    const a = client.folders.find((f) => f.name === 'A');
    const b = client.folders.find((f) => f.name === 'B');
    expect(b.parent_folder_id).toBe(a.id);
    expect(client.cases.find((c) => c.title === 'cases/A/B/x.yaml').folder_id).toBe(b.id);
    expect(written).toEqual({
      'cases/A/_folder.yaml': a.id,
      'cases/A/B/_folder.yaml': b.id,
      'cases/A/B/x.yaml': expect.stringMatching(/^DEMO-\d+$/),
      'cases/A/y.yaml': expect.stringMatching(/^DEMO-\d+$/),
    });
  });

  it('fails only the dependents of a failed operation and carries the service message and file', async () => {
    const client = fakeClient({
      fail: (endpoint, body) => (endpoint === 'createFolder' && body.name === 'Bad' ? Object.assign(new Error('POST /folders failed (invalid_request 400): name taken'), { code: 'invalid_request' }) : undefined),
    });
    const { writeBack } = recorder();
    const result = await executePlan(
      plan([folderOp(['Bad']), folderOp(['Good']), caseOp('cases/Bad/x.yaml', 'folder:Bad'), caseOp('cases/Good/y.yaml', 'folder:Good')]),
      { client, writeBack },
    );
    expect(result.created).toBe(2);
    expect(result.failed).toEqual([
      { key: 'folder:Bad', kind: 'create_folder', file: 'cases/Bad/_folder.yaml', message: expect.stringContaining('name taken'), stage: 'request' },
    ]);
    expect(result.skipped).toEqual([{ key: 'case:cases/Bad/x.yaml', reason: 'depends on folder:Bad, which failed', cause: { kind: 'dependency_failed', dependency: 'folder:Bad' } }]);
    expect(client.cases.map((c) => c.title)).toEqual(['cases/Good/y.yaml']);
  });

  it('starts independent operations concurrently', async () => {
    const client = fakeClient({ delayMs: 5 });
    const ops = [folderOp(['A']), ...Array.from({ length: 20 }, (_, i) => caseOp(`cases/A/${i}.yaml`, 'folder:A'))];
    await executePlan(plan(ops), { client, writeBack: recorder().writeBack });
    expect(client.maxInFlight()).toBeGreaterThan(5);
  });

  it('adopts a case that an earlier killed run created instead of creating it again', async () => {
    const client = fakeClient();
    client.folders.push({ id: 'fa', name: 'A', parent_folder_id: '', order: 0 });
    client.cases.push({ id: 'c-old', human_id: 'DEMO-7', title: 'X', folder_id: 'fa' });
    const { written, writeBack } = recorder();
    const op: Operation = { kind: 'create_case', key: 'case:cases/A/x.yaml', dependsOn: [], path: ['A'], body: { title: 'X', folder: { id: 'fa' } }, writeBack: { file: 'cases/A/x.yaml' } };
    const result = await executePlan(plan([op]), { client, writeBack, pendingCreates: new Set([op.key]) });
    expect(result.created).toBe(1);
    expect(client.calls.filter((c) => c.endpoint === 'createTestCase')).toHaveLength(0);
    expect(written['cases/A/x.yaml']).toBe('DEMO-7');
  });

  it('never adopts, for a pending create, a same-titled case that another file claims with its id', async () => {
    const client = fakeClient();
    client.folders.push({ id: 'fa', name: 'A', parent_folder_id: '', order: 0 });
    // DEMO-7 belongs to an unchanged file with `id: DEMO-7`: it has no operation in the plan
    client.cases.push({ id: 'c-claimed', human_id: 'DEMO-7', title: 'X', folder_id: 'fa' });
    const { written, writeBack } = recorder();
    const op: Operation = { kind: 'create_case', key: 'case:cases/A/twin.yaml', dependsOn: [], path: ['A'], body: { title: 'X', folder: { id: 'fa' } }, writeBack: { file: 'cases/A/twin.yaml' } };
    const result = await executePlan(plan([op]), { client, writeBack, pendingCreates: new Set([op.key]), claimedIds: ['c-claimed'] });
    expect(result.failed).toEqual([]);
    expect(client.calls.filter((c) => c.endpoint === 'createTestCase')).toHaveLength(1);
    expect(written['cases/A/twin.yaml']).not.toBe('DEMO-7');
  });

  it('finishes the move of a nested folder that a killed run created at the top level', async () => {
    const client = fakeClient();
    client.folders.push({ id: 'fa', name: 'A', parent_folder_id: '', order: 0 }, { id: 'orphan', name: 'B', parent_folder_id: '', order: 1 });
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: [], path: ['A', 'B'], name: 'B', parent: { id: 'fa' }, writeBack: { file: 'cases/A/B/_folder.yaml' } };
    const { written, writeBack } = recorder();
    const result = await executePlan(plan([op]), { client, writeBack, pendingCreates: new Set([op.key]) });
    expect(result.failed).toEqual([]);
    expect(client.calls.map((c) => c.endpoint)).toEqual(['moveFolder']);
    expect(client.folders.find((f) => f.id === 'orphan').parent_folder_id).toBe('fa');
    expect(written['cases/A/B/_folder.yaml']).toBe('orphan');
  });

  it('never claims a folder that existed before the run after an ambiguous create failure', async () => {
    const client = fakeClient({
      fail: (e, _b, attempt) => (e === 'createFolder' && attempt === 1 ? Object.assign(new Error('503'), { ambiguous: true }) : undefined),
    });
    client.folders.push({ id: 'existing', name: 'B', parent_folder_id: '', order: 0 });
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: [], path: ['A', 'B'], name: 'B', parent: { id: 'fa' }, writeBack: { file: 'f' } };
    const result = await executePlan(plan([op]), { client, writeBack: recorder().writeBack, existingIds: ['existing'] });
    expect(result.failed).toEqual([]);
    expect(client.calls.map((c) => c.endpoint)).toEqual(['createFolder', 'createFolder', 'moveFolder']);
    expect(client.folders.find((f) => f.id === 'existing').parent_folder_id).toBe('');
  });

  it('adopts the item an ambiguous create made instead of creating it twice', async () => {
    const client = fakeClient();
    const real = client.call.bind(client);
    let first = true;
    client.call = async (endpoint, o = {}) => {
      if (endpoint === 'createTestCase' && first) {
        first = false;
        // the service stores the case, then the answer is lost
        await real(endpoint, { ...o, reconcile: undefined });
        const found = await o.reconcile!();
        // the lookup's answer stands in for the create's (the client's reconcile contract)
        if (found) return found as never;
      }
      return real(endpoint, o);
    };
    const op: Operation = { kind: 'create_case', key: 'create_case:cases/A/x.yaml', dependsOn: [], path: ['A'], body: { title: 'X', folder: { id: 'fa' } }, writeBack: { file: 'cases/A/x.yaml' } };
    const { written, writeBack } = recorder();
    const result = await executePlan(plan([op]), { client, writeBack });
    expect(result).toMatchObject({ created: 1, failed: [] });
    expect(client.cases).toHaveLength(1);
    expect(written['cases/A/x.yaml']).toBe(client.cases[0].human_id);
  });

  it('never lets a resumed create claim a folder that another operation of the plan refers to', async () => {
    const client = fakeClient();
    client.folders.push({ id: 'other', name: 'B', parent_folder_id: '', order: 0 });
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: [], path: ['A', 'B'], name: 'B', parent: { id: 'fa' }, writeBack: { file: 'f' } };
    const rename: Operation = { kind: 'update_folder', key: 'update_folder:C', dependsOn: [], id: 'other', path: ['C'], name: 'C', changes: [] };
    await executePlan(plan([op, rename]), { client, writeBack: recorder().writeBack, pendingCreates: new Set([op.key]) });
    expect(client.calls.filter((c) => c.endpoint === 'createFolder')).toHaveLength(1);
  });

  it('does not send a create again when an earlier run recorded its id, but finishes the operation', async () => {
    const client = fakeClient();
    client.folders.push({ id: 'made', name: 'B', parent_folder_id: '', order: 0 });
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: [], path: ['A', 'B'], name: 'B', parent: { id: 'fa' }, writeBack: { file: 'f' } };
    const result = await executePlan(plan([op]), { client, writeBack: recorder().writeBack, resumeIds: new Map([[op.key, { id: 'made' }]]) });
    expect(result.created).toBe(1);
    expect(client.calls.map((c) => c.endpoint)).toEqual(['moveFolder']);
  });

  it('records the same-named top-level folders that existed before a folder create in its journal begin', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-exec-'));
    const journal = await Journal.open(root, 'p1', { durable: false });
    const client = fakeClient();
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: [], path: ['A', 'B'], name: 'B', parent: { id: 'fa' }, writeBack: { file: 'f' } };
    await executePlan(plan([op]), { client, writeBack: recorder().writeBack, journal, existingTopFolders: [{ id: 'old-b', name: 'B' }, { id: 'c', name: 'C' }] });
    await journal.close();
    expect((await readJournal(root)).find((e) => e.type === 'begin')).toEqual({ type: 'begin', key: 'folder:A/B', kind: 'create_folder', exclude: ['old-b'] });
  });

  it('never lets a resumed create claim a folder its journal begin recorded as existing before', async () => {
    const client = fakeClient();
    client.folders.push({ id: 'old-b', name: 'B', parent_folder_id: '', order: 0 });
    const op: Operation = { kind: 'create_folder', key: 'folder:A/B', dependsOn: [], path: ['A', 'B'], name: 'B', parent: { id: 'fa' }, writeBack: { file: 'f' } };
    await executePlan(plan([op]), {
      client,
      writeBack: recorder().writeBack,
      pendingCreates: new Set([op.key]),
      pendingExclude: new Map([[op.key, ['old-b']]]),
    });
    expect(client.calls.map((c) => c.endpoint)).toEqual(['createFolder', 'moveFolder']);
    expect(client.folders.find((f) => f.id === 'old-b').parent_folder_id).toBe('');
  });

  it('reports a write-back that fails without failing the operation or its dependents', async () => {
    const client = fakeClient();
    const writeBack = async (file: string) => {
      if (file.endsWith('_folder.yaml')) throw new Error('EACCES: permission denied');
    };
    const result = await executePlan(plan([folderOp(['A']), caseOp('cases/A/x.yaml', 'folder:A')]), { client, writeBack });
    expect(result.created).toBe(2);
    expect(result.failed).toEqual([
      expect.objectContaining({ key: 'folder:A', stage: 'write_back', file: 'cases/A/_folder.yaml', message: expect.stringContaining('EACCES') }),
    ]);
  });

  it('journals begin before a create is sent and done with the id after', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-exec-'));
    const journal = await Journal.open(root, 'p1', { durable: false });
    const client = fakeClient();
    await executePlan(plan([folderOp(['A']), folderOp(['A', 'B'], 'folder:A')]), { client, writeBack: recorder().writeBack, journal });
    await journal.close();
    const entries = (await readJournal(root)).map((e) => `${e.type}:${'key' in e ? e.key : ''}`);
    expect(entries).toEqual(['header:', 'begin:folder:A', 'done:folder:A', 'begin:folder:A/B', 'created:folder:A/B', 'done:folder:A/B']);
    const done = (await readJournal(root)).find((e) => e.type === 'done' && e.key === 'folder:A/B');
    expect(done).toMatchObject({ id: expect.any(String), file: 'cases/A/B/_folder.yaml' });
  });

  it('stops starting operations once the signal is aborted and lists the rest as skipped', async () => {
    const client = fakeClient({ delayMs: 5 });
    const controller = new AbortController();
    const ops = [folderOp(['A']), ...Array.from({ length: 50 }, (_, i) => caseOp(`cases/A/${i}.yaml`, 'folder:A'))];
    let seen = 0;
    const result = await executePlan(plan(ops), {
      client,
      writeBack: recorder().writeBack,
      window: 4,
      onProgress: (p) => {
        if (p.done >= 3 && ++seen === 1) controller.abort();
      },
      signal: controller.signal,
    });
    expect(result.interrupted).toBe(true);
    expect(result.created).toBeLessThan(51);
    expect(result.created + result.skipped.length).toBe(51);
    expect(client.cases.length + 1).toBe(result.created);
  });

  it('treats a delete that finds nothing as done', async () => {
    const client = fakeClient({ fail: (e) => (e === 'deleteTestCase' ? Object.assign(new Error('404'), { code: 'not_found' }) : undefined) });
    const result = await executePlan(plan([{ kind: 'delete_case', key: 'del', dependsOn: [], id: 'c1', humanId: 'DEMO-1', title: 'X', path: [] }]), {
      client,
      writeBack: recorder().writeBack,
    });
    expect(result).toMatchObject({ deleted: 1, failed: [] });
  });
});
