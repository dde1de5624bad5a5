import { describe, expect, it } from 'vitest';
import { recheck, threeWay } from '../../src/apply/recheck.js';
import { recordSynced } from '../../src/apply/sync-record.js';
import { WriteGuard, WRITES_PER_PAGE } from '../../src/apply/write-guard.js';
import type { ApplyConflict } from '../../src/apply/executor.js';
import type { SyncRecords } from '../../src/plan/sync.js';
import { fieldHash, SyncBase } from '../../src/base/base.js';
import type { ApplyClient } from '../../src/apply/finders.js';
import type { RemoteCase } from '../../src/model.js';
import type { CaseBody, MoveCaseOp, MoveFolderOp, UpdateCaseOp, UpdateFolderOp, UpdateStepGroupOp } from '../../src/plan/operations.js';
import { remoteCase, remoteFolder, remoteGroup, remoteSteps } from '../plan/builders.js';

/**
 * The write guard's re-classification (issue 24, item 1): an item the service changed since the
 * plan read it, compared three ways with the plan's read as the base.
 */

const before = remoteCase('DEMO-1', 'Pay by card', 'folder-a', { description: 'Old text', preconditions: 'Logged in', updatedAt: 200 });

/** What the plan sends: the file's description over the case as read. */
function update(body: Partial<CaseBody> = {}): UpdateCaseOp {
  return {
    kind: 'update_case',
    key: 'update_case:cases/A/pay.yaml',
    dependsOn: [],
    id: before.id,
    humanId: before.humanId,
    path: ['A'],
    body: { title: 'Pay by card', folder: { id: 'folder-a' }, description: 'New text', preconditions: 'Logged in', typeId: 'type-functional', ...body },
    changes: [{ field: 'description', from: 'Old text', to: 'New text' }],
  };
}

const changed = (partial: Partial<RemoteCase>) => ({ ...before, updatedAt: 250, ...partial });

describe('recheck: a case update', () => {
  it('sends as planned when nothing the update sends changed on the service', () => {
    const op = update();
    const r = recheck(op, before, changed({ reviewerId: 'user-bo' }), undefined);
    expect(r).toEqual({ send: op, merged: [], conflicts: [] });
  });

  it('compares the fields even when updated_at did not move (whole seconds)', () => {
    const r = recheck(update(), before, { ...before, preconditions: 'Logged out' }, undefined);
    expect(r.merged).toEqual(['preconditions']);
  });

  it('merges a field changed only on the service: the service\'s value is sent, the update\'s own change too', () => {
    const r = recheck(update(), before, changed({ preconditions: 'Logged out' }), undefined);
    expect(r.merged).toEqual(['preconditions']);
    expect(r.conflicts).toEqual([]);
    const body = (r.send as UpdateCaseOp).body;
    expect(body.preconditions).toBe('Logged out');
    expect(body.description).toBe('New text');
    expect(r.record).toBeUndefined();
  });

  it('a field changed on both sides to different values is a conflict: not sent unless --prefer settles it', () => {
    const now = changed({ description: 'Fixed in the UI' });
    const open = recheck(update(), before, now, undefined);
    expect(open.send).toBeUndefined();
    expect(open.settled).toBeUndefined();
    expect(open.conflicts).toEqual([{ field: 'description', local: 'New text', remote: 'Fixed in the UI' }]);

    const local = recheck(update(), before, now, 'local');
    expect(local.settled).toBe('local');
    expect((local.send as UpdateCaseOp).body.description).toBe('New text');
    expect(local.record).toBeUndefined();

    const remote = recheck(update(), before, now, 'remote');
    expect(remote.settled).toBe('remote');
    expect((remote.send as UpdateCaseOp).body.description).toBe('Fixed in the UI');
    // the base keeps what the plan read: the next plan finds the conflict again
    expect(remote.record).toEqual({ description: 'Old text' });
  });

  it('a field changed on both sides to the same value is no conflict', () => {
    const r = recheck(update(), before, changed({ description: 'New text' }), undefined);
    expect(r.conflicts).toEqual([]);
    expect(r.merged).toEqual([]);
    expect(r.send).toBeDefined();
  });

  it('fields the file does not manage are neither compared nor sent', () => {
    const op = update();
    delete op.body.preconditions;
    const r = recheck(op, before, changed({ preconditions: 'Logged out' }), undefined);
    expect(r).toEqual({ send: op, merged: [], conflicts: [] });
  });

  it('steps: a change of the steps on the service is merged when the update does not change them, a conflict when it does', () => {
    const steps = remoteSteps([['Open', 'Shown']]);
    const was = { ...before, individualSteps: steps };
    const now = { ...was, updatedAt: 260, individualSteps: remoteSteps([['Open the page', 'Shown']]) };
    const same = update({ individualSteps: [{ description: 'Open', expected: 'Shown', stepGroup: null }] });
    const merged = recheck(same, was, now, undefined);
    expect(merged.merged).toEqual(['steps']);
    expect((merged.send as UpdateCaseOp).body.individualSteps).toEqual([{ description: 'Open the page', expected: 'Shown', stepGroup: null }]);
    const other = update({ individualSteps: [{ description: 'Open it', expected: 'Shown', stepGroup: null }] });
    expect(recheck(other, was, now, undefined).conflicts.map((c) => c.field)).toEqual(['steps']);
  });

  it('a case moved on the service is merged into an update that does not move it, a conflict for one that does', () => {
    const now = changed({ folderId: 'folder-c' });
    const r = recheck(update(), before, now, undefined);
    expect(r.merged).toEqual(['folder']);
    expect((r.send as UpdateCaseOp).body.folder).toEqual({ id: 'folder-c' });
    const move: MoveCaseOp = { kind: 'move_case', key: 'move_case:cases/B/pay.yaml', dependsOn: [], id: before.id, humanId: 'DEMO-1', title: 'Pay by card', fromPath: ['A'], path: ['B'], folder: { id: 'folder-b' } };
    const moved = recheck(move, before, now, undefined);
    expect(moved.send).toBeUndefined();
    expect(moved.conflicts).toEqual([{ field: 'folder', local: 'folder-b', remote: 'folder-c' }]);
    // a folder this apply created: its id is what the run produced
    const intoNew = recheck({ ...move, folder: { op: 'create_folder:B' } }, before, before, undefined, (ref) => ('id' in ref ? ref.id : 'folder-new'));
    expect(intoNew.send).toBeDefined();
  });

  it('a case deleted on the service is a conflict (nothing to update)', () => {
    expect(recheck(update(), before, undefined, 'local')).toEqual({ merged: [], conflicts: [{ field: 'deleted', local: 'changed in the repository', remote: 'deleted on the service' }] });
  });
});

describe('recheck: step groups and folders', () => {
  const group = remoteGroup('DEMO-G1', 'Log in', [
    ['Open /login', 'The form shows'],
    ['Submit', 'Signed in'],
  ]);
  const groupUpdate: UpdateStepGroupOp = {
    kind: 'update_step_group',
    key: 'update_step_group:login',
    dependsOn: [],
    id: group.id,
    humanId: group.humanId,
    localKey: 'login',
    body: { title: 'Log in', steps: [{ description: 'Open the login page', expected: 'The form shows' }, { description: 'Submit', expected: 'Signed in' }] },
    changes: [],
  };

  it('a step edited on the service is merged into an update of another step; the same step is a conflict', () => {
    const now = { ...group, updatedAt: 400, steps: [group.steps[0], { ...group.steps[1], description: 'Press Submit' }] };
    const r = recheck(groupUpdate, group, now, undefined);
    expect(r.merged).toEqual(['step 2']);
    expect((r.send as UpdateStepGroupOp).body.steps.map((s) => s.description)).toEqual(['Open the login page', 'Press Submit']);
    const same = { ...group, updatedAt: 400, steps: [{ ...group.steps[0], description: 'Go to /login' }, group.steps[1]] };
    expect(recheck(groupUpdate, group, same, undefined).conflicts.map((c) => c.field)).toEqual(['step 1']);
  });

  it('a folder renamed on the service while the apply renames it is a conflict; --prefer remote sends nothing', () => {
    const folder = remoteFolder('folder-a', 'Payments');
    const rename: UpdateFolderOp = { kind: 'update_folder', key: 'update_folder:Payments', dependsOn: [], id: folder.id, path: ['Pay'], name: 'Pay', changes: [] };
    const now = { ...folder, name: 'Payments (UI)' };
    expect(recheck(rename, folder, now, undefined).conflicts).toEqual([{ field: 'name', local: 'Pay', remote: 'Payments (UI)' }]);
    const kept = recheck(rename, folder, now, 'remote');
    expect(kept.send).toBeUndefined();
    expect(kept.settled).toBe('remote');
    expect(kept.record).toEqual({ name: 'Payments' });
    // reordered on the service: not compared (a position among siblings)
    expect(recheck(rename, folder, { ...folder, order: 3 }, undefined).send).toBe(rename);
    const move: MoveFolderOp = { kind: 'move_folder', key: 'move_folder:Pay', dependsOn: [], id: folder.id, fromPath: ['Payments'], path: ['Top', 'Pay'], parent: { id: 'folder-top' } };
    expect(recheck(move, folder, { ...folder, parentId: 'folder-x' }, undefined).conflicts.map((c) => c.field)).toEqual(['parent']);
  });

  it('threeWay leaves out a field a side does not report (labels the service did not send)', () => {
    expect(threeWay({ labels: ['l1'] }, {}, { labels: ['l2'] })).toEqual({ merged: [], conflicts: [] });
  });
});

describe('WriteGuard: one read per folder, right before its writes', () => {
  /** A client answering the case lists of two folders and recording each read in order. */
  function fakeClient(cases: RemoteCase[], log: string[]): ApplyClient {
    const wire = (c: RemoteCase) => ({ id: c.id, human_id: c.humanId, title: c.title, folder_id: c.folderId, description: c.description, preconditions: c.preconditions, updated_at: c.updatedAt, created_at: c.createdAt });
    return {
      call: async () => {
        throw new Error('no call expected');
      },
      paginate: (async function* (_name: string, req: { query?: { folder_id?: string } }) {
        log.push(`read ${req.query?.folder_id}`);
        for (const c of cases) if (c.folderId === req.query?.folder_id) yield wire(c);
      }) as unknown as ApplyClient['paginate'],
    };
  }

  it('updates of a folder share one read; the next folder is read once their writes are done', async () => {
    const cases = [remoteCase('A-1', 'a1', 'fa'), remoteCase('A-2', 'a2', 'fa'), remoteCase('B-1', 'b1', 'fb')];
    const log: string[] = [];
    const guard = new WriteGuard(fakeClient(cases, log), 'p', { before: { cases, stepGroups: [], folders: [] } });
    const op = (c: RemoteCase): MoveCaseOp => ({ kind: 'move_case', key: `move:${c.id}`, dependsOn: [], id: c.id, humanId: c.humanId, title: c.title, fromPath: [], path: [], folder: { id: 'fz' } });
    const checks = cases.map((c) =>
      guard.check(op(c)).then((check) => {
        log.push(`checked ${c.humanId}`);
        return check!;
      }),
    );
    const [a1, a2] = await Promise.all(checks.slice(0, 2));
    expect(a1.now?.id).toBe(a1.before.id);
    // folder fb waits for the writes checked by the read of fa
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['read fa', 'checked A-1', 'checked A-2']);
    a1.release();
    a2.release();
    const b1 = await checks[2];
    expect(log).toEqual(['read fa', 'checked A-1', 'checked A-2', 'read fb', 'checked B-1']);
    b1.release();
    expect(guard.reads).toBe(2);
  });

  it('one read checks at most WRITES_PER_PAGE writes per page of its folder: the later writes of a large folder get a read of their own', async () => {
    const cases = Array.from({ length: WRITES_PER_PAGE + 5 }, (_, i) => remoteCase(`A-${i}`, `a${i}`, 'fa'));
    const log: string[] = [];
    const guard = new WriteGuard(fakeClient(cases, log), 'p', { before: { cases, stepGroups: [], folders: [] } });
    const op = (c: RemoteCase): MoveCaseOp => ({ kind: 'move_case', key: `move:${c.id}`, dependsOn: [], id: c.id, humanId: c.humanId, title: c.title, fromPath: [], path: [], folder: { id: 'fz' } });
    const checks = cases.map((c) => guard.check(op(c)));
    const first = await Promise.all(checks.slice(0, WRITES_PER_PAGE));
    expect(log).toEqual(['read fa']);
    for (const c of first) c!.release();
    const rest = await Promise.all(checks.slice(WRITES_PER_PAGE));
    expect(log).toEqual(['read fa', 'read fa']);
    for (const c of rest) c!.release();
  });
});

describe('the base after a run the write guard changed', () => {
  const records = (): SyncRecords => ({
    records: [
      { kind: 'case', ref: { id: 'c1' }, humanId: 'DEMO-1', ops: ['u1'], updatedAt: 200, values: { title: 'One', description: 'One from the file' }, keep: [] },
      { kind: 'case', ref: { id: 'c2' }, humanId: 'DEMO-2', ops: ['u2'], updatedAt: 200, values: { title: 'Two', description: 'Two from the file' }, keep: [] },
    ],
    forgets: [],
    standings: new Map(),
  });
  const conflict: ApplyConflict = { key: 'u2', kind: 'update_case', itemType: 'case', id: 'c2', field: 'description', local: 'Two from the file', remote: 'Two from the UI' };
  const result = {
    failed: [],
    skipped: [],
    ids: {},
    updatedAt: { u1: '300' },
    conflicts: [conflict],
    // u1: a conflict settled for the service; u2: a conflict that kept the update from being sent
    recordValues: { u1: { description: 'One as read' } },
    baselines: { u2: { updatedAt: 200, values: { title: 'Two', description: 'Two as read' } } },
  };

  it('a conflict settled for the service keeps the value the plan read; an item not sent is recorded as the plan read it when the base lacked it', () => {
    const base = new SyncBase('p');
    recordSynced({ base, records: records() }, result);
    expect(base.get('case', 'c1')!.fields.get('description')).toBe(fieldHash('One as read'));
    expect(base.get('case', 'c1')!.updatedAt).toBe('300');
    expect(base.get('case', 'c2')!.fields.get('description')).toBe(fieldHash('Two as read'));
    expect(base.get('case', 'c2')!.updatedAt).toBe('200');
  });

  it('an item not sent keeps the entry the base held', () => {
    const base = SyncBase.of('p', [{ kind: 'case', id: 'c2', updatedAt: '100', fields: new Map([['description', fieldHash('Two at the last sync')]]) }]);
    recordSynced({ base, records: records() }, result);
    expect(base.get('case', 'c2')!.fields.get('description')).toBe(fieldHash('Two at the last sync'));
    expect(base.get('case', 'c2')!.updatedAt).toBe('100');
  });

  it('a conflict settled by --prefer does not hold the record back', () => {
    const base = new SyncBase('p');
    recordSynced({ base, records: records() }, { ...result, conflicts: [{ ...conflict, settled: 'local' as const }], updatedAt: { u1: '300', u2: '301' } });
    expect(base.get('case', 'c2')!.fields.get('description')).toBe(fieldHash('Two from the file'));
  });
});
