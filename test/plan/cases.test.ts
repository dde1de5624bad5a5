import { describe, expect, it } from 'vitest';
import type { DesiredCaseFields, RemoteCase } from '../../src/model.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildPlan, parsePlanFile, renderPlanJson, renderPlanText, summaryLine } from '../../src/plan/index.js';
import { changesOf } from '../../src/plan/operation-kinds.js';
import { SyncBase } from '../../src/base/base.js';
import { desiredCaseFieldValues } from '../../src/base/field-values.js';
import {
  actualState,
  desiredCase,
  desiredFolder,
  desiredFolders,
  desiredGroup,
  desiredState,
  findOp,
  opList,
  remoteCase,
  remoteFolder,
  remoteSteps,
  step,
  use,
} from './builders.js';
import { cleanPlan, plan } from './helpers.js';

const folders = [remoteFolder('f-auth', 'Auth'), remoteFolder('f-checkout', 'Checkout')];
const repoFolders = [desiredFolder('Auth', { id: 'f-auth' }), desiredFolder('Checkout', { id: 'f-checkout' })];

describe('buildPlan: test cases', () => {
  it('creates a new case with the defaults resolved to ids, after the folder it lands in', () => {
    const p = cleanPlan(desiredState({ folders: desiredFolders('Auth'), cases: [desiredCase('Auth', 'Valid login')] }), actualState());
    const op = findOp(p, 'create_case');
    expect(op.dependsOn).toEqual(['create_folder:Auth']);
    expect(op.body).toEqual({
      title: 'Valid login',
      folder: { op: 'create_folder:Auth' },
      typeId: 'type-functional',
      statusId: 'status-draft',
      priorityId: 'priority-medium',
      automationTypeId: 'automation-no',
      ownerId: 'user-ana',
    });
    expect(op.writeBack).toEqual({ file: 'cases/Auth/valid-login.yaml' });
    expect(summaryLine(p)).toBe('Plan: 2 to create, 0 to update, 0 to move, 0 to delete.');
  });

  it('updates the title of a case that keeps its id, never planning a create plus a delete', () => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Sign in works', {}, { id: 'SHOP-1' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Valid login', 'f-auth')] }),
      { prune: true },
    );
    expect(opList(p)).toEqual(['update_case update_case:cases/Auth/sign-in-works.yaml']);
    expect(findOp(p, 'update_case').changes).toEqual([{ field: 'title', from: 'Valid login', to: 'Sign in works' }]);
    expect(p.remoteVersions).toEqual({ 'case:case-SHOP-1': '200' });
  });

  it('moves a case whose file moved to another directory, keeping its id', () => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Checkout', 'Valid login', {}, { id: 'SHOP-1' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Valid login', 'f-auth')] }),
    );
    expect(opList(p)).toEqual(['move_case move_case:cases/Checkout/valid-login.yaml']);
    expect(findOp(p, 'move_case')).toMatchObject({ fromPath: ['Auth'], path: ['Checkout'], folder: { id: 'f-checkout' }, humanId: 'SHOP-1' });
    expect(summaryLine(p)).toBe('Plan: 0 to create, 0 to update, 1 to move, 0 to delete.');
  });

  it('plans a case moved and edited at once as one update that carries the new folder', () => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Checkout', 'Valid login', { status: 'Ready' }, { id: 'SHOP-1' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Valid login', 'f-auth')] }),
    );
    expect(opList(p)).toEqual(['update_case update_case:cases/Checkout/valid-login.yaml']);
    const op = findOp(p, 'update_case');
    expect(op.fromPath).toEqual(['Auth']);
    expect(op.body.folder).toEqual({ id: 'f-checkout' });
    expect(op.changes).toEqual([{ field: 'status', from: 'Draft', to: 'Ready' }]);
  });

  it('moves a case into a folder created in the same plan, after that create', () => {
    const p = cleanPlan(
      desiredState({ folders: [...repoFolders, desiredFolder('Checkout/Cards')], cases: [desiredCase('Checkout/Cards', 'Pay', {}, { id: 'SHOP-1' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Pay', 'f-checkout')] }),
    );
    expect(findOp(p, 'move_case')).toMatchObject({ folder: { op: 'create_folder:Checkout/Cards' }, dependsOn: ['create_folder:Checkout/Cards'] });
  });

  it('adopts a case matched by folder and title, and shows a matched case with edits as an update that writes its id back', () => {
    const actual = actualState({ folders, cases: [remoteCase('SHOP-1', 'Valid login', 'f-auth'), remoteCase('SHOP-2', 'Locked', 'f-auth')] });
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', '  Valid login '), desiredCase('Auth', 'Locked', { priority: 'High' })] }),
      actual,
    );
    expect(opList(p)).toEqual(['adopt adopt_case:cases/Auth/valid-login.yaml', 'update_case update_case:cases/Auth/locked.yaml']);
    expect(findOp(p, 'adopt').writeBack).toEqual({ file: 'cases/Auth/valid-login.yaml', id: 'SHOP-1' });
    expect(findOp(p, 'update_case').writeBack).toEqual({ file: 'cases/Auth/locked.yaml', id: 'SHOP-2' });
    expect(p.summary).toEqual({ create: 0, update: 1, move: 0, delete: 0, adopt: 2 });
  });

  it('matches titles case-sensitively: a title differing only in case is a new case', () => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'valid login')] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Valid login', 'f-auth')] }),
    );
    expect(opList(p)).toEqual(['create_case create_case:cases/Auth/valid-login.yaml']);
    expect(p.unmanaged.map((u) => u.humanId)).toEqual(['SHOP-1']);
  });

  it('accepts a case id given as a uuid as well as a human id in any case', () => {
    const actual = actualState({ folders, cases: [remoteCase('SHOP-1', 'A', 'f-auth'), remoteCase('SHOP-2', 'B', 'f-auth')] });
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'A', {}, { id: 'case-SHOP-1' }), desiredCase('Auth', 'B', {}, { id: 'shop-2' })] }),
      actual,
    );
    expect(p.operations).toEqual([]);
  });

  const unchanged: { name: string; fields: DesiredCaseFields; remote: Partial<RemoteCase> }[] = [
    { name: 'a field the file leaves out', fields: {}, remote: { description: 'set on the service', reviewerId: 'user-ben', labelIds: ['label-smoke'] } },
    { name: 'CRLF line endings and trailing blanks', fields: { description: 'line one  \r\nline two\r\n\r\n' }, remote: { description: 'line one\nline two' } },
    { name: 'a lookup given by alias', fields: { type: 'FUNC' }, remote: {} },
    { name: 'a lookup given by id', fields: { status: 'status-draft' }, remote: {} },
    { name: 'a lookup name in another case', fields: { priority: 'medium', automationType: 'not automated' }, remote: {} },
    { name: 'a user given by email in another case', fields: { owner: 'ANA@example.com', reviewer: 'user-ben' }, remote: { reviewerId: 'user-ben' } },
    { name: 'labels by name and id in any order', fields: { labels: ['payments', 'label-smoke'] }, remote: { labelIds: ['label-smoke', 'label-payments'] } },
    {
      name: 'free-text steps (TCD)',
      fields: { stepsText: 'Open\r\nPay\n', expectedResults: 'Paid  ' },
      remote: { templateType: 'TCD', steps: 'Open\nPay', expectedResults: 'Paid' },
    },
    {
      name: 'individual steps with trailing newlines',
      fields: { steps: [step('Open the page\n', 'It shows\n'), step('Press pay')] },
      remote: { individualSteps: remoteSteps([['Open the page', 'It shows'], ['Press pay', '']]) },
    },
    {
      name: 'individual steps the service lists out of order',
      fields: { steps: [step('Open'), step('Pay'), step('Check')] },
      remote: { individualSteps: remoteSteps([['Open', ''], ['Pay', ''], ['Check', '']]).reverse() },
    },
  ];
  it.each(unchanged)('shows no change for $name', ({ fields, remote }) => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Case', fields, { id: 'SHOP-1' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Case', 'f-auth', remote)] }),
    );
    expect(p.operations).toEqual([]);
  });

  const changed: { name: string; fields: DesiredCaseFields; remote: Partial<RemoteCase>; change: { field: string; from: string; to: string } }[] = [
    { name: 'description', fields: { description: 'new' }, remote: { description: 'old' }, change: { field: 'description', from: 'old', to: 'new' } },
    { name: 'preconditions', fields: { preconditions: 'logged in' }, remote: {}, change: { field: 'preconditions', from: '', to: 'logged in' } },
    { name: 'type', fields: { type: 'Regression' }, remote: {}, change: { field: 'type', from: 'Functional', to: 'Regression' } },
    { name: 'automation type', fields: { automationType: 'Automated' }, remote: {}, change: { field: 'automation_type', from: 'Not Automated', to: 'Automated' } },
    { name: 'owner', fields: { owner: 'ben@example.com' }, remote: {}, change: { field: 'owner', from: 'ana@example.com', to: 'ben@example.com' } },
    { name: 'reviewer', fields: { reviewer: 'ben@example.com' }, remote: {}, change: { field: 'reviewer', from: '', to: 'ben@example.com' } },
    { name: 'labels', fields: { labels: ['smoke'] }, remote: { labelIds: ['label-payments'] }, change: { field: 'labels', from: 'payments', to: 'smoke' } },
    { name: 'template', fields: { template: 'TCD' }, remote: {}, change: { field: 'template', from: 'STEPS', to: 'TCD' } },
    {
      name: 'steps',
      fields: { steps: [step('Open', 'Shows')] },
      remote: { individualSteps: remoteSteps([['Open', 'Hidden']]) },
      change: { field: 'steps', from: '1. Open\n   expect: Hidden', to: '1. Open\n   expect: Shows' },
    },
  ];
  it.each(changed)('shows a change of $name with display values', ({ fields, remote, change }) => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Case', fields, { id: 'SHOP-1' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Case', 'f-auth', remote)] }),
    );
    expect(findOp(p, 'update_case').changes).toEqual([change]);
  });

  it('sends every field the file gives on update, and none it leaves out (not even defaults)', () => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Case', { description: 'new', status: 'Ready' }, { id: 'SHOP-1' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Case', 'f-auth', { description: 'old' })] }),
    );
    expect(findOp(p, 'update_case').body).toEqual({ title: 'Case', folder: { id: 'f-auth' }, description: 'new', statusId: 'status-ready' });
  });

  it('does not compare labels the service cannot report, sends them with an update and warns once', () => {
    const p = cleanPlan(
      desiredState({
        folders: repoFolders,
        cases: [desiredCase('Auth', 'A', { labels: ['smoke'] }, { id: 'SHOP-1' }), desiredCase('Auth', 'B', { labels: ['smoke'], status: 'Ready' }, { id: 'SHOP-2' })],
      }),
      actualState({
        labelsReadable: false,
        folders,
        cases: [remoteCase('SHOP-1', 'A', 'f-auth', { labelIds: undefined }), remoteCase('SHOP-2', 'B', 'f-auth', { labelIds: undefined })],
      }),
    );
    expect(opList(p)).toEqual(['update_case update_case:cases/Auth/b.yaml']);
    expect(findOp(p, 'update_case').body.labelIds).toEqual(['label-smoke']);
    expect(findOp(p, 'update_case').changes.map((c) => c.field)).toEqual(['status']);
    expect(p.warnings.map((w) => w.code)).toEqual(['labels_not_comparable']);
  });

  it('reports a case id the service does not have, naming the file, instead of creating it', () => {
    const r = plan(desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Gone', {}, { id: 'SHOP-99' })] }), actualState({ folders }));
    expect(r.problems).toEqual([
      {
        code: 'unknown_id',
        file: 'cases/Auth/gone.yaml',
        line: 1,
        col: 1,
        severity: 'error',
        message: 'test case "Gone" has id SHOP-99, which the service does not have',
        hint: 'remove the `id:` line to create it anew, or restore the item on the service',
      },
    ]);
    expect(r.plan.operations.filter((o) => o.kind === 'create_case')).toEqual([]);
  });

  it('never tells to remove an id the service has outside the scope (found by id after the lists), and plans nothing for it', () => {
    const r = plan(desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Moved', {}, { id: 'shop-98' })] }), actualState({ folders, elsewhere: ['SHOP-98'] }));
    expect(r.problems).toEqual([
      {
        code: 'id_outside_scope',
        file: 'cases/Auth/moved.yaml',
        line: 1,
        col: 1,
        severity: 'error',
        message: 'test case "Moved" has id shop-98, which the service has outside the scope of tmsync.yaml',
        hint: 'move the file to the folder the item is in on the service, or widen `scope` in tmsync.yaml',
      },
    ]);
    expect(r.plan.operations.filter((o) => o.kind === 'create_case')).toEqual([]);
  });

  it('reports two files with the same id, naming both', () => {
    const r = plan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'A', {}, { id: 'SHOP-1' }), desiredCase('Checkout', 'B', {}, { id: 'SHOP-1' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'A', 'f-auth')] }),
    );
    expect(r.problems.map((p) => p.code)).toEqual(['duplicate_claim']);
    expect(r.problems[0].message).toContain('cases/Auth/a.yaml');
    expect(r.problems[0].message).toContain('cases/Checkout/b.yaml');
  });

  it('reports two files whose titles match the same remote case, naming both files', () => {
    const r = plan(
      desiredState({
        folders: repoFolders,
        cases: [desiredCase('Auth', 'Same', {}, { file: 'cases/Auth/one.yaml' }), desiredCase('Auth', 'Same', {}, { file: 'cases/Auth/two.yaml' })],
      }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Same', 'f-auth')] }),
    );
    expect(r.problems.map((p) => p.code)).toEqual(['duplicate_claim']);
    expect(r.problems[0].message).toContain('cases/Auth/one.yaml');
    expect(r.problems[0].message).toContain('cases/Auth/two.yaml');
    expect(r.problems[0].hint).toContain('SHOP-1');
  });

  it('reports a title that matches two remote cases in the folder, naming both human ids', () => {
    const r = plan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Same')] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Same', 'f-auth'), remoteCase('SHOP-2', 'Same', 'f-auth')] }),
    );
    expect(r.problems.map((p) => p.code)).toEqual(['ambiguous_match']);
    expect(r.problems[0].message).toContain('SHOP-1');
    expect(r.problems[0].message).toContain('SHOP-2');
    expect(r.problems[0].line).toBe(2);
  });

  it('matches a duplicate remote title to the file that keeps the id and the other by title', () => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Same', {}, { id: 'SHOP-2', file: 'cases/Auth/a.yaml' }), desiredCase('Auth', 'Same', {}, { file: 'cases/Auth/b.yaml' })] }),
      actualState({ folders, cases: [remoteCase('SHOP-1', 'Same', 'f-auth'), remoteCase('SHOP-2', 'Same', 'f-auth')] }),
    );
    expect(opList(p)).toEqual(['adopt adopt_case:cases/Auth/b.yaml']);
    expect(findOp(p, 'adopt').writeBack.id).toBe('SHOP-1');
  });

  const unknown: { name: string; fields: DesiredCaseFields; code: string; line: number; valid: string }[] = [
    { name: 'status', fields: { status: 'Redy' }, code: 'unknown_status', line: 6, valid: 'Draft, Ready, Outdated' },
    { name: 'type', fields: { type: 'Smoke' }, code: 'unknown_type', line: 5, valid: 'Functional, Regression' },
    { name: 'priority', fields: { priority: 'Urgent' }, code: 'unknown_priority', line: 7, valid: 'High, Medium, Low' },
    { name: 'automation type', fields: { automationType: 'Maybe' }, code: 'unknown_automation_type', line: 8, valid: 'Automated, Not Automated' },
    { name: 'owner', fields: { owner: 'nobody@example.com' }, code: 'unknown_user', line: 9, valid: 'ana@example.com, ben@example.com' },
    { name: 'reviewer', fields: { reviewer: 'nobody@example.com' }, code: 'unknown_user', line: 10, valid: 'ana@example.com, ben@example.com' },
    { name: 'label', fields: { labels: ['smoke', 'nightly'] }, code: 'unknown_label', line: 11, valid: 'smoke, payments' },
  ];
  it.each(unknown)('reports an unknown $name at its line with the list of valid names', ({ fields, code, line, valid }) => {
    const r = plan(desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Case', fields)] }), actualState({ folders }));
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ code, line, file: 'cases/Auth/case.yaml' });
    expect(r.problems[0].message).toContain(`valid: ${valid}`);
  });

  it('suggests the closest name for a mistyped lookup', () => {
    const r = plan(desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Case', { status: 'Redy' })] }), actualState({ folders }));
    expect(r.problems[0].hint).toBe('did you mean "Ready"?');
  });

  it('reports a new case that lacks a required field when tmsync.yaml has no default for it', () => {
    const r = plan(
      desiredState({ defaults: { type: 'Functional', status: 'Draft', priority: 'Medium', automationType: 'Automated' }, folders: repoFolders, cases: [desiredCase('Auth', 'Case')] }),
      actualState({ folders }),
    );
    expect(r.problems).toMatchObject([{ code: 'missing_required_field', file: 'cases/Auth/case.yaml', line: 2 }]);
    expect(r.problems[0].message).toContain('owner');
  });

  it('reports a case placed directly in the cases directory', () => {
    const r = plan(desiredState({ cases: [desiredCase('', 'Loose', {}, { file: 'cases/loose.yaml' })] }), actualState());
    expect(r.problems).toMatchObject([{ code: 'case_outside_folder', file: 'cases/loose.yaml' }]);
  });
});

describe('buildPlan: what a create operation holds (issue 15)', () => {
  const withCreates = () =>
    plan(
      desiredState({
        folders: desiredFolders('Auth'),
        stepGroups: [desiredGroup('login', 'Log in', [['Open /login', 'The form shows']])],
        cases: [desiredCase('Auth', 'Valid login', { description: 'Signs in', labels: [], steps: [use('login'), step('Submit', 'Signed in')] })],
      }),
      actualState(),
      { base: new SyncBase('p1') },
    );

  it("holds a new case as plain data, and shows, saves and prints the values it sets through the plan's display", () => {
    const { plan: p, display } = withCreates();
    const op = findOp(p, 'create_case');
    const expected = [
      { field: 'title', from: '', to: 'Valid login' },
      { field: 'description', from: '', to: 'Signs in' },
      { field: 'template', from: '', to: 'STEPS' },
      { field: 'type', from: '', to: 'Functional' },
      { field: 'status', from: '', to: 'Draft' },
      { field: 'priority', from: '', to: 'Medium' },
      { field: 'automation_type', from: '', to: 'Not Automated' },
      { field: 'owner', from: '', to: 'ana@example.com' },
      { field: 'steps', from: '', to: '1. Open /login\n   expect: The form shows\n   from step group login\n2. Submit\n   expect: Signed in' },
    ];
    // plain data: no accessor, no key JSON or a clone would leave out, the same after a round trip
    expect(Object.keys(op)).toEqual(['kind', 'key', 'dependsOn', 'path', 'body', 'writeBack']);
    expect(Reflect.ownKeys(op)).toEqual(Object.keys(op));
    expect(Object.values(Object.getOwnPropertyDescriptors(op)).every((d) => 'value' in d)).toBe(true);
    expect(JSON.parse(JSON.stringify(op))).toEqual(op);
    expect(structuredClone(op)).toEqual(op);
    // the display values, computed by the renderers from the plan and its display
    expect(changesOf(op, display)).toEqual(expected);
    expect(findOp(parsePlanFile(renderPlanJson(p, display)), 'create_case').changes).toEqual(expected);
    expect(renderPlanText(p, { color: false, display })).toContain('steps:');
    // a plan read back holds them: it needs no display
    const saved = findOp(parsePlanFile(renderPlanJson(p, display)), 'create_case');
    expect(changesOf(saved, undefined)).toEqual(expected);
  });

  it('records a new case in the sync base with the values of the body it sends, computed when recorded', () => {
    const { plan: p, synced } = withCreates();
    const op = findOp(p, 'create_case');
    const record = synced!.records.find((r) => 'op' in r.ref && r.ref.op === op.key)!;
    expect(record).toMatchObject({ kind: 'case', ops: [op.key], keep: [] });
    expect(record.values).toEqual(desiredCaseFieldValues(op.body));
    expect(record.values).not.toBe(record.values);
  });

  it("does not keep the repository's state alive through the plan and its sync records", async () => {
    let desired: ReturnType<typeof desiredState> | undefined = desiredState({
      folders: desiredFolders('Auth'),
      cases: [desiredCase('Auth', 'Valid login', { description: 'Signs in' })],
    });
    const ref = new WeakRef(desired);
    const built = buildPlan(desired, actualState(), { base: new SyncBase('p1') });
    desired = undefined;
    // a WeakRef's target is kept until the current job ends
    await new Promise((r) => setTimeout(r, 0));
    fullCollection();
    expect(ref.deref()).toBeUndefined();
    expect(changesOf(findOp(built.plan, 'create_case'), built.display)[0]).toEqual({ field: 'title', from: '', to: 'Valid login' });
    expect(built.synced!.records.length).toBeGreaterThan(0);
  });
});

function fullCollection(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
