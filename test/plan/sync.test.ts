import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordSynced } from '../../src/apply/sync-record.js';
import type { ActualState, RemoteCase } from '../../src/model.js';
import { openConflicts, renderPlanJson, renderPlanMarkdown, renderPlanText, parsePlanFile } from '../../src/plan/index.js';
import { SyncBase, fieldHash } from '../../src/base/base.js';
import { caseFieldValues, classifyItem, folderFieldValues, stepGroupFieldValues, withHumanId } from '../../src/base/field-values.js';
import { mergeEqual, newSyncState } from '../../src/plan/sync.js';
import { actualState, desiredCase, desiredFolder, desiredGroup, desiredState, findOp, opList, remoteCase, remoteFolder, remoteGroup, step } from './builders.js';
import { cleanPlan, plan } from './helpers.js';

/** The base a sync of `actual` would have written: every item as the service held it. */
function baseOf(actual: ActualState): SyncBase {
  const base = new SyncBase(actual.project.id);
  for (const f of actual.folders) base.record('folder', f.id, undefined, folderFieldValues(f));
  for (const g of actual.stepGroups) base.record('step_group', g.id, g.updatedAt, withHumanId(stepGroupFieldValues(g), g.humanId));
  for (const c of actual.cases) base.record('case', c.id, c.updatedAt, withHumanId(caseFieldValues(c), c.humanId));
  return base;
}

const folders = [remoteFolder('f-auth', 'Auth')];
const repoFolders = [desiredFolder('Auth', { id: 'f-auth' })];
const synced = remoteCase('SHOP-1', 'Valid login', 'f-auth', { description: 'Opens the page', preconditions: 'Logged out' });
const fileCase = (fields: Parameters<typeof desiredCase>[2] = {}, title = 'Valid login') =>
  desiredCase('Auth', title, { description: 'Opens the page', preconditions: 'Logged out', ...fields }, { id: 'SHOP-1' });
const onService = (partial: Partial<RemoteCase>) => ({ ...synced, ...partial, updatedAt: 999 });

describe('buildPlan with a sync base: cases', () => {
  const base = baseOf(actualState({ folders, cases: [synced] }));

  it('plans a change made only in the repository as an update, as without a base', () => {
    const p = cleanPlan(desiredState({ folders: repoFolders, cases: [fileCase({ description: 'Opens the login page' })] }), actualState({ folders, cases: [synced] }), { base });
    expect(findOp(p, 'update_case').changes).toEqual([{ field: 'description', from: 'Opens the page', to: 'Opens the login page' }]);
    expect(p.sync).toBeUndefined();
  });

  it('keeps a change made only on the service: no update, listed with the old and new value', () => {
    const p = cleanPlan(desiredState({ folders: repoFolders, cases: [fileCase()] }), actualState({ folders, cases: [onService({ description: 'UI text' })] }), { base });
    expect(p.operations).toEqual([]);
    expect(p.sync?.remoteChanges).toEqual([
      { itemType: 'case', id: 'case-SHOP-1', humanId: 'SHOP-1', path: ['Auth'], title: 'Valid login', file: 'cases/Auth/valid-login.yaml', field: 'description', from: 'Opens the page', to: 'UI text' },
    ]);
    expect(p.sync?.conflicts).toEqual([]);
    const text = renderPlanText(p, { color: false });
    expect(text).toContain('Changed on the service since the last sync');
    expect(text).toContain('`tmsync pull` takes them into the files');
    expect(text).toContain('description: "Opens the page" → "UI text"');
  });

  it('merges changes to different fields: the update sends the service value of the field changed there', () => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [fileCase({ preconditions: 'Logged out, cookies cleared' })] }),
      actualState({ folders, cases: [onService({ description: 'UI text' })] }),
      { base },
    );
    const op = findOp(p, 'update_case');
    expect(op.changes).toEqual([{ field: 'preconditions', from: 'Logged out', to: 'Logged out, cookies cleared' }]);
    expect(op.body.description).toBe('UI text');
    expect(op.body.preconditions).toBe('Logged out, cookies cleared');
    expect(p.sync?.remoteChanges.map((c) => c.field)).toEqual(['description']);
  });

  it('finds a conflict when both sides changed a field to different values, and the plan cannot be applied', () => {
    const result = plan(desiredState({ folders: repoFolders, cases: [fileCase({ description: 'file text' })] }), actualState({ folders, cases: [onService({ description: 'UI text' })] }), { base });
    const p = result.plan;
    expect(p.sync?.conflicts).toEqual([expect.objectContaining({ field: 'description', local: 'file text', remote: 'UI text' })]);
    expect(openConflicts(p)).toBe(1);
    // nothing of the conflicting field is sent
    expect(p.operations).toEqual([]);
    const text = renderPlanText(p, { color: false });
    expect(text).toContain('repository: "file text"');
    expect(text).toContain('service:    "UI text"');
    expect(text).toContain('--prefer local');
    expect(text).toContain('--prefer remote');
    const md = renderPlanMarkdown(p);
    // the pull-request comment shows the conflicts first: a banner, then the first section
    expect(md).toContain('> **1 conflict with the service**');
    expect(md.match(/<summary>([^<]*)<\/summary>/)?.[1]).toBe('Conflicts: changed in the repository and on the service since the last sync (1)');
    expect(md).toContain('- repository: file text');
    // the saved plan keeps the conflicts
    expect(openConflicts(parsePlanFile(renderPlanJson(p)))).toBe(1);
  });

  it('settles a conflict with --prefer local (the file is sent) and --prefer remote (the service is kept)', () => {
    const desired = desiredState({ folders: repoFolders, cases: [fileCase({ description: 'file text' })] });
    const actual = actualState({ folders, cases: [onService({ description: 'UI text' })] });
    const local = cleanPlan(desired, actual, { base, prefer: 'local' });
    expect(findOp(local, 'update_case').changes).toEqual([{ field: 'description', from: 'UI text', to: 'file text' }]);
    expect(openConflicts(local)).toBe(0);
    expect(local.sync?.prefer).toBe('local');
    const remote = cleanPlan(desired, actual, { base, prefer: 'remote' });
    expect(remote.operations).toEqual([]);
    expect(openConflicts(remote)).toBe(0);
    expect(renderPlanText(remote, { color: false })).toContain("settled by --prefer remote: the service's values are kept");
  });

  it('shows a conflict on the steps as two blocks, one line per step line', () => {
    const withSteps = { ...synced, individualSteps: [{ description: 'Open', expected: 'Form', order: 1, stepGroupId: null }] };
    const b = baseOf(actualState({ folders, cases: [withSteps] }));
    const p = plan(
      desiredState({ folders: repoFolders, cases: [fileCase({ steps: [step('Open the page', 'Form')] })] }),
      actualState({ folders, cases: [{ ...withSteps, individualSteps: [{ description: 'Open (UI)', expected: 'Form', order: 1, stepGroupId: null }], updatedAt: 999 }] }),
      { base: b },
    ).plan;
    const text = renderPlanText(p, { color: false });
    expect(text).toContain(['        repository:', '          | 1. Open the page', '          |    expect: Form', '        service:', '          | 1. Open (UI)'].join('\n'));
  });

  it('treats both sides changing a field to the same value as nothing to do', () => {
    const p = cleanPlan(desiredState({ folders: repoFolders, cases: [fileCase({ description: 'same' })] }), actualState({ folders, cases: [onService({ description: 'same' })] }), { base });
    expect(p.operations).toEqual([]);
    expect(p.sync).toBeUndefined();
  });

  it('compares items without a base two ways (the repository wins) and counts them in one line', () => {
    const p = cleanPlan(desiredState({ folders: repoFolders, cases: [fileCase({ description: 'file text' })] }), actualState({ folders, cases: [onService({ description: 'UI text' })] }), {
      base: new SyncBase('project-1'),
    });
    expect(findOp(p, 'update_case').changes).toEqual([{ field: 'description', from: 'UI text', to: 'file text' }]);
    expect(p.sync).toEqual({ remoteChanges: [], conflicts: [], withoutBase: 2 });
    const lines = renderPlanText(p, { color: false }).split('\n').filter((l) => l.includes('no sync base'));
    expect(lines).toEqual(['Note: 2 items have no sync base yet (tmsync.base): compared two ways, the repository wins; the next apply records them.']);
  });

  it('plans exactly as without a base when none is given (library callers, older repositories)', () => {
    const desired = desiredState({ folders: repoFolders, cases: [fileCase({ description: 'file text' })] });
    const actual = actualState({ folders, cases: [onService({ description: 'UI text' })] });
    const r = plan(desired, actual);
    expect(r.plan.sync).toBeUndefined();
    expect(r.synced).toBeUndefined();
    expect(findOp(r.plan, 'update_case').changes).toEqual([{ field: 'description', from: 'UI text', to: 'file text' }]);
  });

  it('a case deleted on the service and unchanged in the repository is a change on the service (nothing planned, no problem)', () => {
    const p = cleanPlan(desiredState({ folders: repoFolders, cases: [fileCase()] }), actualState({ folders }), { base });
    expect(p.operations).toEqual([]);
    expect(p.sync?.remoteChanges).toEqual([expect.objectContaining({ field: 'deleted', to: 'deleted on the service', humanId: 'SHOP-1' })]);
  });

  it('a case deleted on the service but changed in the repository is a conflict; --prefer local creates it again', () => {
    const desired = desiredState({ folders: repoFolders, cases: [fileCase({ description: 'file text' })] });
    const p = cleanPlan(desired, actualState({ folders }), { base });
    expect(p.sync?.conflicts).toEqual([expect.objectContaining({ field: 'deleted', local: 'changed in the repository: description', remote: 'deleted on the service' })]);
    expect(p.operations).toEqual([]);
    const again = cleanPlan(desired, actualState({ folders }), { base, prefer: 'local' });
    expect(opList(again)).toEqual(['create_case create_case:cases/Auth/valid-login.yaml']);
  });

  it('a case deleted from the repository (--prune) but changed on the service is a conflict and is kept unless --prefer local', () => {
    const desired = desiredState({ folders: repoFolders, cases: [] });
    const actual = actualState({ folders, cases: [onService({ description: 'UI text' })] });
    const p = cleanPlan(desired, actual, { base, prune: true });
    expect(p.operations).toEqual([]);
    expect(p.sync?.conflicts).toEqual([expect.objectContaining({ field: 'deleted', local: 'deleted from the repository', remote: 'changed on the service: description' })]);
    expect(p.unmanaged).toEqual([expect.objectContaining({ id: 'case-SHOP-1', pruned: false })]);
    expect(opList(cleanPlan(desired, actual, { base, prune: true, prefer: 'local' }))).toEqual(['delete_case delete_case:SHOP-1']);
    // unchanged on the service: deleted as without a base
    expect(opList(cleanPlan(desired, actualState({ folders, cases: [synced] }), { base, prune: true }))).toEqual(['delete_case delete_case:SHOP-1']);
  });
});

describe('buildPlan with a sync base: step groups and folders', () => {
  const group = remoteGroup('SHOP-SG-1', 'Sign in', [
    ['Open', 'Form'],
    ['Type', 'Typed'],
  ]);
  const groupFile = (steps: [string, string][], extra = {}) => desiredGroup('sign-in', 'Sign in', steps, { id: 'SHOP-SG-1', ...extra });
  const base = baseOf(actualState({ stepGroups: [group], folders: [remoteFolder('f-a', 'Auth', null, 0), remoteFolder('f-b', 'Billing', null, 1)] }));

  it('merges a step changed on the service with another changed in the repository, step by step', () => {
    const onService = { ...group, steps: [{ description: 'Open', expected: 'Form', order: 1 }, { description: 'Type (UI)', expected: 'Typed', order: 2 }] };
    const p = cleanPlan(
      desiredState({ stepGroups: [groupFile([['Open the page', 'Form'], ['Type', 'Typed']])] }),
      actualState({ stepGroups: [onService] }),
      { base },
    );
    const op = findOp(p, 'update_step_group');
    expect(op.body.steps).toEqual([
      { description: 'Open the page', expected: 'Form' },
      { description: 'Type (UI)', expected: 'Typed' },
    ]);
    expect(p.sync?.remoteChanges).toEqual([expect.objectContaining({ itemType: 'step_group', field: 'step 2', from: 'Type\nexpect: Typed', to: 'Type (UI)\nexpect: Typed' })]);
  });

  it('keeps a step group title changed only on the service, and finds a conflict on a description changed on both sides', () => {
    const onService = { ...group, title: 'Log in', description: 'UI' };
    const p = plan(desiredState({ stepGroups: [groupFile([['Open', 'Form'], ['Type', 'Typed']], { description: 'file' })] }), actualState({ stepGroups: [onService] }), { base }).plan;
    expect(p.sync?.remoteChanges.map((c) => c.field)).toEqual(['title']);
    expect(p.sync?.conflicts.map((c) => [c.field, c.local, c.remote])).toEqual([['description', 'file', 'UI']]);
  });

  it('a step group deleted on the service: listed when unchanged in the repository, a conflict when changed; --prefer local creates it again', () => {
    const unchanged = plan(desiredState({ stepGroups: [groupFile([['Open', 'Form'], ['Type', 'Typed']])] }), actualState(), { base });
    expect(unchanged.problems).toEqual([]);
    expect(unchanged.plan.operations).toEqual([]);
    expect(unchanged.plan.sync?.remoteChanges).toEqual([expect.objectContaining({ itemType: 'step_group', field: 'deleted', to: 'deleted on the service' })]);
    const changedFile = desiredState({ stepGroups: [groupFile([['Open', 'Form'], ['Type', 'Typed differently']])] });
    const conflict = plan(changedFile, actualState(), { base }).plan;
    expect(conflict.sync?.conflicts).toEqual([expect.objectContaining({ itemType: 'step_group', field: 'deleted', local: 'changed in the repository: step 2' })]);
    expect(opList(cleanPlan(changedFile, actualState(), { base, prefer: 'local' }))).toEqual(['create_step_group create_step_group:sign-in']);
    // a case using a group deleted on the service (and not created again) cannot be planned: a problem says why
    const used = plan(
      desiredState({ folders: repoFolders, stepGroups: [groupFile([['Open', 'Form'], ['Type', 'Typed']])], cases: [desiredCase('Auth', 'Uses it', { steps: [{ kind: 'use', use: 'sign-in' }] })] }),
      actualState({ folders }),
      { base },
    );
    expect(used.problems.map((p) => p.code)).toEqual(['step_group_deleted']);
  });

  it('keeps a folder renamed and reordered on the service, and sends a rename made in the repository', () => {
    const actual = actualState({ folders: [remoteFolder('f-a', 'Auth (UI)', null, 0), remoteFolder('f-b', 'Billing', null, 1)] });
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Auth', { id: 'f-a' }), desiredFolder('Payments', { id: 'f-b' })] }),
      actual,
      { base },
    );
    expect(p.operations.map((o) => [o.kind, 'changes' in o ? o.changes : undefined])).toEqual([['update_folder', [{ field: 'name', from: 'Billing', to: 'Payments' }]]]);
    expect(p.sync?.remoteChanges).toEqual([expect.objectContaining({ itemType: 'folder', field: 'name', from: 'Auth', to: 'Auth (UI)' })]);
  });
});

describe('buildPlan with a sync base: a folder deleted on the service', () => {
  const base = baseOf(actualState({ folders, cases: [synced] }));

  it('unchanged in the repository: listed with the cases deleted with it, nothing planned, no problem', () => {
    const r = plan(desiredState({ folders: repoFolders, cases: [fileCase()] }), actualState(), { base });
    expect(r.problems).toEqual([]);
    expect(r.plan.operations).toEqual([]);
    expect(r.plan.sync?.remoteChanges.map((c) => [c.itemType, c.field, c.to])).toEqual([
      ['folder', 'deleted', 'deleted on the service'],
      ['case', 'deleted', 'deleted on the service'],
    ]);
  });

  it('its _folder.yaml changed: a conflict; --prefer local creates it again, and a case changed in it too', () => {
    const desired = desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth', name: 'Authentication' })], cases: [fileCase({ description: 'file text' })] });
    const conflict = plan(desired, actualState(), { base });
    expect(conflict.problems).toEqual([]);
    expect(conflict.plan.sync?.conflicts.map((c) => [c.itemType, c.local])).toEqual([
      ['folder', 'changed in the repository: name'],
      ['case', 'changed in the repository: description'],
    ]);
    expect(openConflicts(conflict.plan)).toBe(2);
    const recreated = cleanPlan(desired, actualState(), { base, prefer: 'local' });
    expect(opList(recreated)).toEqual(['create_folder create_folder:Auth', 'create_case create_case:cases/Auth/valid-login.yaml']);
  });

  it('a new case file in it cannot be planned: a problem says what to do', () => {
    const r = plan(desiredState({ folders: repoFolders, cases: [fileCase(), desiredCase('Auth', 'Added later')] }), actualState(), { base });
    expect(r.problems.map((p) => [p.code, p.file])).toEqual([['folder_deleted', 'cases/Auth/added-later.yaml']]);
  });
});

describe('what an apply records in the base', () => {
  it('records updated, unchanged and created items as synced, keeps the old hash of a field kept from the service, and skips failed operations', () => {
    const synced2 = remoteCase('SHOP-2', 'Other', 'f-auth');
    const base = baseOf(actualState({ folders, cases: [synced, synced2] }));
    const desired = desiredState({
      folders: repoFolders,
      cases: [
        fileCase({ preconditions: 'changed' }),
        desiredCase('Auth', 'Other', { description: 'new text' }, { id: 'SHOP-2' }),
        desiredCase('Auth', 'Brand new'),
      ],
    });
    const actual = actualState({ folders, cases: [onService({ description: 'UI text' }), synced2] });
    const r = plan(desired, actual, { base });
    const upd1 = 'update_case:cases/Auth/valid-login.yaml';
    const upd2 = 'update_case:cases/Auth/other.yaml';
    const create = 'create_case:cases/Auth/brand-new.yaml';
    expect(opList(r.plan)).toEqual([`update_case ${upd1}`, `update_case ${upd2}`, `create_case ${create}`]);
    recordSynced(
      { base, records: r.synced! },
      { failed: [{ key: upd2, kind: 'update_case', stage: 'request', message: 'boom' }], skipped: [], ids: { [upd1]: { id: 'case-SHOP-1' }, [create]: { id: 'case-new', humanId: 'SHOP-3' } }, updatedAt: { [upd1]: '1000' } },
    );
    const one = base.get('case', 'case-SHOP-1')!;
    expect(one.updatedAt).toBe('1000');
    expect(one.fields.get('preconditions')).toBe(fieldHash('changed'));
    // the service's description was kept, not taken in: its base stays, so the next plan lists it again
    expect(one.fields.get('description')).toBe(fieldHash('Opens the page'));
    expect(base.get('case', 'case-SHOP-2')!.fields.get('description')).toBe(fieldHash(''));
    expect(base.get('case', 'case-new')!.fields.get('title')).toBe(fieldHash('Brand new'));
    expect(base.get('folder', 'f-auth')).toBeDefined();
  });

  it('forgets an item once its delete succeeded', () => {
    const base = baseOf(actualState({ folders, cases: [synced] }));
    const r = plan(desiredState({ folders: repoFolders }), actualState({ folders, cases: [synced] }), { base, prune: true });
    recordSynced({ base, records: r.synced! }, { failed: [], skipped: [], ids: {} });
    expect(base.get('case', 'case-SHOP-1')).toBeUndefined();
  });
});

describe('large plans with a sync base (issue 15)', () => {
  it('classifies a field equal on both sides as classifyItem does, without compare forms: unchanged, or no_base where the base or the service lacks it (property)', () => {
    const names = ['title', 'description', 'preconditions', 'labels', 'steps', 'priority'];
    fc.assert(
      fc.property(
        fc.subarray(names),
        fc.subarray(names),
        fc.subarray(names),
        fc.boolean(),
        (managed, inBase, notReported, hasEntry) => {
          const base = new SyncBase('p');
          if (hasEntry) base.record('case', 'c', 1, Object.fromEntries(inBase.map((n) => [n, `base ${n}`])));
          const local = Object.fromEntries(managed.map((n) => [n, `value of ${n}`]));
          const remote = Object.fromEntries(managed.filter((n) => !notReported.includes(n)).map((n) => [n, `value of ${n}`]));
          const sync = newSyncState(base, undefined);
          mergeEqual(sync, 'case', 'c', managed, (n) => n in remote);
          const entry = base.get('case', 'c');
          if (!entry) {
            expect(sync.withoutBase).toBe(1);
            expect(sync.standings.size).toBe(0);
            return;
          }
          expect(sync.withoutBase).toBe(0);
          const expected = classifyItem(entry, local, remote).map((c) => [c.field, c.standing]);
          expect([...sync.standings.get('case c')!]).toEqual(expected);
        },
      ),
    );
  });

  it('gives the same standings whether a case is equal on both sides or not, and shares one map among cases that stand alike', () => {
    const other = remoteCase('SHOP-2', 'Other', 'f-auth', { description: 'Same' });
    const actual = actualState({ folders, cases: [synced, other] });
    const base = baseOf(actual);
    const desired = desiredState({ folders: repoFolders, cases: [fileCase(), desiredCase('Auth', 'Other', { description: 'Same' }, { id: 'SHOP-2' })] });
    const r = plan(desired, actual, { base });
    expect(r.plan.operations).toEqual([]);
    const one = r.synced!.standings.get('case case-SHOP-1')!;
    expect([...one.values()].every((s) => s === 'unchanged')).toBe(true);
    expect([...one.keys()]).toEqual(['description', 'preconditions', 'title']);
    // the same fields, standing alike: one map
    const two = r.synced!.standings.get('case case-SHOP-2')!;
    expect([...two.keys()]).toEqual(['description', 'title']);
    const changedOnService = plan(desired, actualState({ folders, cases: [onService({ description: 'UI text' }), other] }), { base });
    expect(changedOnService.synced!.standings.get('case case-SHOP-1')!.get('description')).toBe('remote');
    expect(changedOnService.synced!.standings.get('case case-SHOP-1')!.get('title')).toBe('unchanged');
    const twin = { ...synced, id: 'case-SHOP-3', humanId: 'SHOP-3', title: 'Twin' };
    const twins = actualState({ folders, cases: [synced, twin] });
    const twinFile = { ...fileCase({}, 'Twin'), id: 'SHOP-3' };
    const both = plan(desiredState({ folders: repoFolders, cases: [fileCase(), twinFile] }), twins, { base: baseOf(twins) });
    expect(both.synced!.standings.get('case case-SHOP-1')).toBe(both.synced!.standings.get('case case-SHOP-3'));
  });

  it('compares labels three ways when some cases of the project do not report theirs (the two-way compare skips them)', () => {
    const labelled = { ...synced, labelIds: ['label-smoke'] };
    const unreported = remoteCase('SHOP-2', 'Other', 'f-auth', { labelIds: undefined });
    const base = baseOf(actualState({ folders, cases: [labelled, unreported] }));
    const actual = actualState({ folders, cases: [{ ...labelled, labelIds: ['label-regression'], updatedAt: 999 }, unreported], labelsReadable: false });
    const r = plan(desiredState({ folders: repoFolders, cases: [fileCase({ labels: ['smoke'] }), desiredCase('Auth', 'Other', {}, { id: 'SHOP-2' })] }), actual, { base });
    expect(r.synced!.standings.get('case case-SHOP-1')!.get('labels')).toBe('remote');
    expect(r.plan.sync?.remoteChanges.map((c) => c.field)).toEqual(['labels']);
  });

  it('a compared case records the service values with the file managed fields over them, computed when the apply asks', () => {
    const actual = actualState({ folders, cases: [onService({ description: 'UI text' })] });
    const base = baseOf(actualState({ folders, cases: [synced] }));
    const r = plan(desiredState({ folders: repoFolders, cases: [fileCase({ preconditions: 'changed' })] }), actual, { base });
    const record = r.synced!.records.find((x) => x.kind === 'case')!;
    expect(record.ref).toEqual({ id: 'case-SHOP-1' });
    expect(record.humanId).toBe('SHOP-1');
    expect(record.updatedAt).toBe(999);
    expect(record.ops).toEqual(['update_case:cases/Auth/valid-login.yaml']);
    expect(record.keep).toEqual(['description']);
    expect(record.values).toEqual({ ...caseFieldValues(actual.cases[0]), preconditions: 'changed', description: 'UI text' });
  });

  it('leaves out what only an apply records when asked to (the plan command), and plans the same', () => {
    const actual = actualState({ folders, cases: [onService({ description: 'UI text' })] });
    const base = baseOf(actualState({ folders, cases: [synced] }));
    const desired = desiredState({ folders: repoFolders, cases: [fileCase({ preconditions: 'changed' }), desiredCase('Auth', 'Brand new')] });
    const full = plan(desired, actual, { base });
    const shown = plan(desired, actual, { base, collectSynced: false });
    expect(shown.synced).toBeUndefined();
    expect(full.synced?.records.length).toBeGreaterThan(0);
    expect(renderPlanJson(shown.plan)).toBe(renderPlanJson(full.plan));
  });
});
