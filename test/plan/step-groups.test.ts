import { describe, expect, it } from 'vitest';
import {
  actualState,
  desiredCase,
  desiredFolder,
  desiredGroup,
  desiredState,
  findOp,
  opList,
  remoteCase,
  remoteFolder,
  remoteGroup,
  remoteSteps,
  step,
  use,
} from './builders.js';
import { cleanPlan, plan } from './helpers.js';

const folders = [remoteFolder('f-auth', 'Auth')];
const repoFolders = [desiredFolder('Auth', { id: 'f-auth' })];
const login: [string, string][] = [
  ['Open /login', 'The form shows'],
  ['Sign in as admin', 'The dashboard shows'],
];

describe('buildPlan: step groups', () => {
  it('creates a step group before the case that uses it, expanding `use:` to its steps with a reference to the create', () => {
    const p = cleanPlan(
      desiredState({
        folders: repoFolders,
        stepGroups: [desiredGroup('login-as-admin', 'Log in as admin', login)],
        cases: [desiredCase('Auth', 'Pay', { steps: [use('login-as-admin'), step('Pay', 'Paid')] })],
      }),
      actualState({ folders }),
    );
    expect(opList(p)).toEqual(['create_step_group create_step_group:login-as-admin', 'create_case create_case:cases/Auth/pay.yaml']);
    const c = findOp(p, 'create_case');
    expect(c.dependsOn).toEqual(['create_step_group:login-as-admin']);
    expect(c.body.templateType).toBe('STEPS');
    expect(c.body.individualSteps).toEqual([
      { description: 'Open /login', expected: 'The form shows', stepGroup: { op: 'create_step_group:login-as-admin' } },
      { description: 'Sign in as admin', expected: 'The dashboard shows', stepGroup: { op: 'create_step_group:login-as-admin' } },
      { description: 'Pay', expected: 'Paid', stepGroup: null },
    ]);
    expect(findOp(p, 'create_step_group').body).toEqual({
      title: 'Log in as admin',
      steps: login.map(([description, expected]) => ({ description, expected })),
    });
  });

  it('shows no change when a case already carries the expanded steps of an unchanged group', () => {
    const p = cleanPlan(
      desiredState({
        folders: repoFolders,
        stepGroups: [desiredGroup('login-as-admin', 'Log in as admin', login, { id: 'SHOP-SG-1' })],
        cases: [desiredCase('Auth', 'Pay', { steps: [use('login-as-admin'), step('Pay', 'Paid')] }, { id: 'SHOP-1' })],
      }),
      actualState({
        folders,
        stepGroups: [remoteGroup('SHOP-SG-1', 'Log in as admin', login)],
        cases: [
          remoteCase('SHOP-1', 'Pay', 'f-auth', {
            individualSteps: remoteSteps([
              ['Open /login', 'The form shows', 'group-SHOP-SG-1'],
              ['Sign in as admin', 'The dashboard shows', 'group-SHOP-SG-1'],
              ['Pay', 'Paid'],
            ]),
          }),
        ],
      }),
    );
    expect(p.operations).toEqual([]);
  });

  it('updates a step group edited in the repository and the three cases that use it, each after the group', () => {
    const oldSteps = remoteSteps(login.map(([d, e]) => [d, e, 'group-SHOP-SG-1'] as [string, string, string]));
    const p = cleanPlan(
      desiredState({
        folders: repoFolders,
        stepGroups: [desiredGroup('login', 'Log in as admin', [...login, ['Accept the cookie banner', 'It closes']], { id: 'SHOP-SG-1' })],
        cases: ['A', 'B', 'C'].map((t, i) => desiredCase('Auth', t, { steps: [use('login')] }, { id: `SHOP-${i + 1}` })),
      }),
      actualState({
        folders,
        stepGroups: [remoteGroup('SHOP-SG-1', 'Log in as admin', login)],
        cases: ['A', 'B', 'C'].map((t, i) => remoteCase(`SHOP-${i + 1}`, t, 'f-auth', { individualSteps: oldSteps })),
      }),
    );
    expect(opList(p)).toEqual([
      'update_step_group update_step_group:login',
      'update_case update_case:cases/Auth/a.yaml',
      'update_case update_case:cases/Auth/b.yaml',
      'update_case update_case:cases/Auth/c.yaml',
    ]);
    for (const op of p.operations.slice(1)) {
      expect(op.dependsOn).toEqual(['update_step_group:login']);
      if (op.kind === 'update_case') expect(op.body.individualSteps).toHaveLength(3);
    }
    expect(findOp(p, 'update_step_group').changes.map((c) => c.field)).toEqual(['steps']);
    expect(p.remoteVersions['step_group:group-SHOP-SG-1']).toBe('300');
  });

  it('expands a `use:` of a group that exists only on the service from its remote steps', () => {
    const p = cleanPlan(
      desiredState({ folders: repoFolders, cases: [desiredCase('Auth', 'Pay', { steps: [use('shop-sg-7')] })] }),
      actualState({ folders, stepGroups: [remoteGroup('SHOP-SG-7', 'Remote group', [['Do', 'Done']])] }),
    );
    expect(findOp(p, 'create_case').body.individualSteps).toEqual([{ description: 'Do', expected: 'Done', stepGroup: { id: 'group-SHOP-SG-7' } }]);
    expect(findOp(p, 'create_case').dependsOn).toEqual([]);
    // used by the repository, so not unmanaged
    expect(p.unmanaged).toEqual([]);
  });

  it('resolves a `use:` by the human id a local group file carries to that local group', () => {
    const p = cleanPlan(
      desiredState({
        folders: repoFolders,
        stepGroups: [desiredGroup('login', 'Log in', [['New step', '']], { id: 'SHOP-SG-1' })],
        cases: [desiredCase('Auth', 'Pay', { steps: [use('SHOP-SG-1')] })],
      }),
      actualState({ folders, stepGroups: [remoteGroup('SHOP-SG-1', 'Log in', [['Old step', '']])] }),
    );
    expect(findOp(p, 'create_case').body.individualSteps?.[0]).toMatchObject({ description: 'New step', stepGroup: { id: 'group-SHOP-SG-1' } });
    expect(findOp(p, 'create_case').dependsOn).toEqual(['update_step_group:login']);
  });

  it('adopts a step group matched by title and writes its human id back', () => {
    const p = cleanPlan(
      desiredState({ stepGroups: [desiredGroup('login', 'Log in', login)] }),
      actualState({ stepGroups: [remoteGroup('SHOP-SG-4', 'Log in', login)] }),
    );
    expect(opList(p)).toEqual(['adopt adopt_step_group:login']);
    expect(findOp(p, 'adopt').writeBack).toEqual({ file: 'step_groups/login.yaml', id: 'SHOP-SG-4' });
  });

  it('reports an unknown `use:` with the local keys it could have meant', () => {
    const r = plan(
      desiredState({ folders: repoFolders, stepGroups: [desiredGroup('login', 'Log in', login)], cases: [desiredCase('Auth', 'Pay', { steps: [use('logn')] })] }),
      actualState({ folders }),
    );
    expect(r.problems).toMatchObject([{ code: 'unknown_step_group', file: 'x', line: 20 }]);
    expect(r.problems[0].message).toContain('valid: login');
  });

  it('reports a step group id the service does not have and plans no create for it', () => {
    const r = plan(desiredState({ stepGroups: [desiredGroup('login', 'Log in', login, { id: 'SHOP-SG-9' })] }), actualState());
    expect(r.problems).toMatchObject([{ code: 'unknown_id', file: 'step_groups/login.yaml', line: 1 }]);
    expect(r.plan.operations).toEqual([]);
  });

  it('reports a step group title that matches two groups on the service, naming both', () => {
    const r = plan(
      desiredState({ stepGroups: [desiredGroup('login', 'Log in', login)] }),
      actualState({ stepGroups: [remoteGroup('SHOP-SG-1', 'Log in'), remoteGroup('SHOP-SG-2', 'Log in')] }),
    );
    expect(r.problems.map((p) => p.code)).toEqual(['ambiguous_match']);
    expect(r.problems[0].message).toContain('SHOP-SG-1, SHOP-SG-2');
  });

  it('compares a step group description and labels only when the file gives them', () => {
    const actual = actualState({ stepGroups: [remoteGroup('SHOP-SG-1', 'Log in', login, { description: 'remote', labelIds: ['label-smoke'] })] });
    expect(cleanPlan(desiredState({ stepGroups: [desiredGroup('login', 'Log in', login, { id: 'SHOP-SG-1' })] }), actual).operations).toEqual([]);
    const p = cleanPlan(
      desiredState({ stepGroups: [desiredGroup('login', 'Log in', login, { id: 'SHOP-SG-1', description: 'local', labels: ['payments'] })] }),
      actual,
    );
    expect(findOp(p, 'update_step_group').changes).toEqual([
      { field: 'description', from: 'remote', to: 'local' },
      { field: 'labels', from: 'smoke', to: 'payments' },
    ]);
  });
});
