import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { executePlan, type ApplyProgress } from '../../src/apply/executor.js';
import { Journal, readJournal, summarizeJournal } from '../../src/apply/journal.js';
import { apiError, createCaseOp, createFolderOp, fakeService, planOf, writeBackRecorder } from './fake-service.js';

const tmp = () => mkdtemp(join(tmpdir(), 'tmsync-resume-'));

describe('resuming the creates a stopped run left open', () => {
  it('answers pending case creates with one list read per folder, in parallel, before any create, and shows the phase', async () => {
    const service = fakeService({ delayMs: 5 });
    for (const f of ['fa', 'fb', 'fc']) service.folders.push({ id: f, name: f.toUpperCase(), parent_folder_id: '', order: 0 });
    const ops = [];
    for (const f of ['fa', 'fb', 'fc']) {
      for (let i = 0; i < 10; i++) {
        const title = `${f} case ${i}`;
        ops.push(createCaseOp(`cases/${f}/c${i}.yaml`, { id: f }, title));
        // the killed run got the first four of each folder through
        if (i < 4) service.cases.push({ id: `old-${f}-${i}`, human_id: `DEMO-${f}${i}`, title, folder_id: f });
      }
    }
    let mostListsAtOnce = 0;
    const paginate = service.paginate.bind(service);
    let listing = 0;
    service.paginate = async function* (endpoint, o) {
      listing++;
      mostListsAtOnce = Math.max(mostListsAtOnce, listing);
      try {
        yield* paginate(endpoint, o);
      } finally {
        listing--;
      }
    };
    const progress: ApplyProgress[] = [];
    const { written, writeBack } = writeBackRecorder();
    const result = await executePlan(planOf(ops), {
      client: service,
      writeBack,
      pendingCreates: new Set(ops.map((o) => o.key)),
      onProgress: (p) => progress.push(p),
    });
    const reads = service.calls.filter((c) => c.endpoint === 'listTestCases');
    expect(reads).toHaveLength(3);
    expect(new Set(reads.map((r) => r.query?.folder_id))).toEqual(new Set(['fa', 'fb', 'fc']));
    const firstCreate = service.calls.findIndex((c) => c.endpoint === 'createTestCase');
    expect(service.calls.slice(firstCreate).some((c) => c.endpoint === 'listTestCases')).toBe(false);
    expect(mostListsAtOnce).toBeGreaterThan(1);
    expect(progress[0].phase).toBe('checking 30 creates a stopped run left open');
    expect(progress.at(-1)?.phase).toBeUndefined();
    // the twelve the killed run made are adopted, the rest created once
    expect(service.cases).toHaveLength(30);
    expect(result.created).toBe(30);
    expect(written['cases/fb/c2.yaml']).toBe('DEMO-fb2');
  });

  it('keeps a pending create ambiguous when its lookup fails, and sends no create of its kind', async () => {
    const root = await tmp();
    const refused = apiError('GET /test_cases failed (rate_limited 429)', { code: 'rate_limited' });
    const service = fakeService({ fault: (call) => (call.endpoint === 'listTestCases' ? { error: refused } : undefined) });
    service.folders.push({ id: 'fa', name: 'A', parent_folder_id: '', order: 0 });
    const pending = createCaseOp('cases/A/left-open.yaml', { id: 'fa' }, 'Left open');
    const other = createCaseOp('cases/A/new.yaml', { id: 'fa' }, 'New');
    const journal = await Journal.open(root, 'p1');
    const { writeBack } = writeBackRecorder();
    const result = await executePlan(planOf([pending, other]), { client: service, journal, writeBack, pendingCreates: new Set([pending.key]) });
    await journal.close();
    expect(service.calls.filter((c) => c.endpoint === 'createTestCase')).toEqual([]);
    expect(result.failed).toEqual([expect.objectContaining({ key: pending.key, message: expect.stringMatching(/may have created it, and looking it up failed \(.*rate_limited/) })]);
    expect(result.skipped).toEqual([
      {
        key: other.key,
        reason: expect.stringMatching(/^not started: case:cases\/A\/left-open.yaml, a create of the same kind, may have been made and could not be looked up/),
        cause: { kind: 'lookup_blocked', blockedBy: 'case:cases/A/left-open.yaml' },
      },
    ]);
    // the next run still treats it as possibly made
    const summary = summarizeJournal(await readJournal(root), 'p1');
    expect([...summary.pendingCreates]).toEqual([pending.key]);
  });

  it('sends no further create of a kind after a create of this run failed ambiguously and could not be looked up', async () => {
    const root = await tmp();
    const lost = apiError('POST /test_cases failed (server_error 502); the item may have been created, and looking it up failed: refused', { ambiguous: true });
    // the first case create is stored but its answer lost, and the client's lookup failed too
    const service = fakeService({ fault: (call) => (call.endpoint === 'createTestCase' && call.body.title === 'First' ? { error: lost, stored: true } : undefined) });
    service.folders.push({ id: 'fa', name: 'A', parent_folder_id: '', order: 0 });
    const first = createCaseOp('cases/A/first.yaml', { id: 'fa' }, 'First');
    const later = { ...createCaseOp('cases/A/later.yaml', { id: 'fa' }, 'Later'), dependsOn: [first.key] };
    const journal = await Journal.open(root, 'p1');
    const { writeBack } = writeBackRecorder();
    const call = service.call.bind(service);
    // like the real client after a failed lookup: the ambiguous error comes back, nothing re-sent
    service.call = (endpoint, o = {}) => call(endpoint, { ...o, reconcile: undefined });
    const result = await executePlan(planOf([first, createCaseOp('cases/A/other.yaml', { id: 'fa' }, 'Other'), later]), {
      client: service,
      journal,
      writeBack,
      window: 1,
    });
    await journal.close();
    expect(service.calls.filter((c) => c.endpoint === 'createTestCase').map((c) => c.body.title)).toEqual(['First']);
    expect(result.skipped.map((s) => s.key).sort()).toEqual(['case:cases/A/later.yaml', 'case:cases/A/other.yaml']);
    expect([...summarizeJournal(await readJournal(root), 'p1').pendingCreates]).toEqual([first.key]);
  });

  it('adopts a pending nested folder found at its parent (the move happened) instead of creating a twin', async () => {
    const service = fakeService();
    service.folders.push({ id: 'fa', name: 'A', parent_folder_id: '', order: 0 }, { id: 'fb', name: 'B', parent_folder_id: 'fa', order: 0 });
    const nested = { ...createFolderOp(['A', 'B']), dependsOn: [], parent: { id: 'fa' } };
    const { written, writeBack } = writeBackRecorder();
    const result = await executePlan(planOf([nested]), { client: service, writeBack, pendingCreates: new Set([nested.key]) });
    expect(service.calls.filter((c) => c.endpoint === 'createFolder')).toEqual([]);
    expect(result.failed).toEqual([]);
    expect(written['cases/A/B/_folder.yaml']).toBe('fb');
    expect(service.folders.filter((f) => f.name === 'B')).toHaveLength(1);
  });

  it('adopts a pending nested folder left at the top level (the move never happened) and moves it', async () => {
    const service = fakeService();
    service.folders.push({ id: 'fa', name: 'A', parent_folder_id: '', order: 0 }, { id: 'orphan', name: 'B', parent_folder_id: '', order: 0 });
    const nested = { ...createFolderOp(['A', 'B']), dependsOn: [], parent: { id: 'fa' } };
    const { writeBack } = writeBackRecorder();
    await executePlan(planOf([nested]), { client: service, writeBack, pendingCreates: new Set([nested.key]) });
    expect(service.calls.filter((c) => c.endpoint === 'createFolder')).toEqual([]);
    expect(service.folders.find((f) => f.id === 'orphan')?.parent_folder_id).toBe('fa');
  });
});
