import { describe, expect, it } from 'vitest';
import { summaryLine } from '../../src/plan/index.js';
import {
  actualState,
  desiredCase,
  desiredFolder,
  desiredState,
  findOp,
  opList,
  remoteCase,
  remoteFolder,
  remoteGroup,
  remoteSteps,
} from './builders.js';
import { cleanPlan, plan } from './helpers.js';

const actual = actualState({
  folders: [remoteFolder('f-auth', 'Auth'), remoteFolder('f-old', 'Old'), remoteFolder('f-older', 'Older', 'f-old')],
  cases: [remoteCase('SHOP-1', 'Kept', 'f-auth'), remoteCase('SHOP-2', 'Stale', 'f-auth'), remoteCase('SHOP-3', 'Deep', 'f-older')],
  stepGroups: [remoteGroup('SHOP-SG-1', 'Unused')],
});
const desired = desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth' })], cases: [desiredCase('Auth', 'Kept', {}, { id: 'SHOP-1' })] });

describe('buildPlan: unmanaged items and --prune', () => {
  it('reports remote items the repository does not describe without deleting them', () => {
    const p = cleanPlan(desired, actual);
    expect(p.operations).toEqual([]);
    expect(p.unmanaged.map((u) => `${u.itemType} ${u.humanId ?? u.path.join('/')} ${u.pruned}`)).toEqual([
      'case SHOP-2 false',
      'case SHOP-3 false',
      'step_group SHOP-SG-1 false',
      'folder Old false',
      'folder Old/Older false',
    ]);
  });

  it('deletes them with prune: cases first, then step groups, then folders children-first after their contents', () => {
    const p = cleanPlan(desired, actual, { prune: true });
    expect(opList(p)).toEqual([
      'delete_case delete_case:SHOP-2',
      'delete_case delete_case:SHOP-3',
      'delete_step_group delete_step_group:SHOP-SG-1',
      'delete_folder delete_folder:f-older',
      'delete_folder delete_folder:f-old',
    ]);
    expect(findOp(p, 'delete_folder', 'f-older').dependsOn).toEqual(['delete_case:SHOP-3']);
    expect(p.operations.at(-1)!.dependsOn).toEqual(['delete_folder:f-older']);
    expect(p.unmanaged.every((u) => u.pruned)).toBe(true);
    expect(summaryLine(p)).toBe('Plan: 0 to create, 0 to update, 0 to move, 5 to delete.');
    expect(p.prune).toBe(true);
  });

  it('deletes a folder only after the case the repository keeps has moved out of it', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth' })], cases: [desiredCase('Auth', 'Deep', {}, { id: 'SHOP-3' })] }),
      actualState({ folders: [remoteFolder('f-auth', 'Auth'), remoteFolder('f-old', 'Old')], cases: [remoteCase('SHOP-3', 'Deep', 'f-old')] }),
      { prune: true },
    );
    expect(opList(p)).toEqual(['move_case move_case:cases/Auth/deep.yaml', 'delete_folder delete_folder:f-old']);
    expect(findOp(p, 'delete_folder').dependsOn).toEqual(['move_case:cases/Auth/deep.yaml']);
  });

  it('refuses what looks like a renamed case that lost its id, unless recreating is allowed', () => {
    const d = desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth' })], cases: [desiredCase('Auth', 'Sign in works')] });
    const a = actualState({ folders: [remoteFolder('f-auth', 'Auth')], cases: [remoteCase('SHOP-1', 'Valid login', 'f-auth')] });
    const r = plan(d, a, { prune: true });
    expect(r.problems).toMatchObject([{ code: 'possible_rename', file: 'cases/Auth/sign-in-works.yaml', line: 2 }]);
    expect(r.problems[0].hint).toBe('add `id: SHOP-1` to the file to keep the case, or pass --allow-recreate');
    const allowed = cleanPlan(d, a, { prune: true, allowRecreate: true });
    expect(opList(allowed)).toEqual(['create_case create_case:cases/Auth/sign-in-works.yaml', 'delete_case delete_case:SHOP-1']);
    // without prune nothing is deleted, so nothing is lost
    expect(plan(d, a).problems).toEqual([]);
  });

  it('keeps a step group that a remaining case still uses, with a warning', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth' })], cases: [desiredCase('Auth', 'Kept', {}, { id: 'SHOP-1' })] }),
      actualState({
        folders: [remoteFolder('f-auth', 'Auth')],
        cases: [remoteCase('SHOP-1', 'Kept', 'f-auth', { individualSteps: remoteSteps([['a', 'b', 'group-SHOP-SG-1']]) })],
        stepGroups: [remoteGroup('SHOP-SG-1', 'Used by a kept case')],
      }),
      { prune: true },
    );
    expect(p.operations.filter((o) => o.kind === 'delete_step_group')).toEqual([]);
    expect(p.warnings.map((w) => w.code)).toEqual(['step_group_in_use']);
    expect(p.unmanaged.filter((u) => u.itemType === 'step_group').map((u) => u.pruned)).toEqual([false]);
  });

  it('leaves step groups the repository does not describe alone under a scope, used or not, even with --prune', () => {
    // fetchState reads only the scoped cases, so cases of other folders that use a group are unseen
    const p = cleanPlan(
      desiredState({ scope: ['Auth'], folders: [desiredFolder('Auth', { id: 'f-auth' })], cases: [desiredCase('Auth', 'Kept', {}, { id: 'SHOP-1' })] }),
      actualState({
        folders: [remoteFolder('f-auth', 'Auth')],
        cases: [remoteCase('SHOP-1', 'Kept', 'f-auth')],
        stepGroups: [remoteGroup('SHOP-SG-2', 'Used by another team outside the scope')],
      }),
      { prune: true },
    );
    expect(p.operations.filter((o) => o.kind === 'delete_step_group')).toEqual([]);
    expect(p.unmanaged.filter((u) => u.itemType === 'step_group')).toEqual([]);
  });

  it('deletes a step group once the cases that used it are deleted or no longer use it', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth' })], cases: [desiredCase('Auth', 'Kept', { steps: [] }, { id: 'SHOP-1' })] }),
      actualState({
        folders: [remoteFolder('f-auth', 'Auth')],
        cases: [
          remoteCase('SHOP-1', 'Kept', 'f-auth', { individualSteps: remoteSteps([['a', 'b', 'group-SHOP-SG-1']]) }),
          remoteCase('SHOP-2', 'Gone', 'f-auth', { individualSteps: remoteSteps([['a', 'b', 'group-SHOP-SG-1']]) }),
        ],
        stepGroups: [remoteGroup('SHOP-SG-1', 'Old group')],
      }),
      { prune: true, allowRecreate: true },
    );
    expect(opList(p)).toEqual([
      'update_case update_case:cases/Auth/kept.yaml',
      'delete_case delete_case:SHOP-2',
      'delete_step_group delete_step_group:SHOP-SG-1',
    ]);
    expect(findOp(p, 'delete_step_group').dependsOn).toEqual(['update_case:cases/Auth/kept.yaml', 'delete_case:SHOP-2']);
  });
});

describe('buildPlan: a path scope', () => {
  // the service: Checkout (with a case of its own) holds Payments (managed) and Other (not)
  const remote = actualState({
    folders: [
      remoteFolder('f-co', 'Checkout', null, 0),
      remoteFolder('f-pay', 'Payments', 'f-co', 0),
      remoteFolder('f-pay-old', 'Old cards', 'f-pay', 0),
      remoteFolder('f-other', 'Other', 'f-co', 1),
      remoteFolder('f-other-sub', 'Deep', 'f-other', 0),
      remoteFolder('f-auth', 'Auth', null, 1),
    ],
    cases: [
      remoteCase('SHOP-1', 'Pay by card', 'f-pay'),
      remoteCase('SHOP-2', 'Stale payment', 'f-pay'),
      remoteCase('SHOP-3', 'Old card', 'f-pay-old'),
      remoteCase('SHOP-4', 'Other thing', 'f-other'),
      remoteCase('SHOP-5', 'Deep other thing', 'f-other-sub'),
      remoteCase('SHOP-6', 'Checkout itself', 'f-co'),
      remoteCase('SHOP-7', 'Sign in', 'f-auth'),
    ],
  });
  const repository = desiredState({
    scope: ['Checkout/Payments'],
    folders: [desiredFolder('Checkout', { id: 'f-co' }), desiredFolder('Checkout/Payments', { id: 'f-pay', order: 0 })],
    cases: [desiredCase('Checkout/Payments', 'Pay by card', {}, { id: 'SHOP-1' })],
  });

  it('reports only the items inside the subtree as unmanaged, not the parent folder, its sibling subtree or their cases', () => {
    const p = cleanPlan(repository, remote);
    expect(p.operations).toEqual([]);
    expect(p.unmanaged.map((u) => `${u.itemType} ${u.humanId ?? u.path.join('/')}`)).toEqual([
      'case SHOP-2',
      'case SHOP-3',
      'folder Checkout/Payments/Old cards',
    ]);
  });

  it('with prune, deletes the subtree’s unmanaged items and never the parent folder, its sibling subtree or their cases', () => {
    const p = cleanPlan(repository, remote, { prune: true });
    expect(opList(p)).toEqual([
      'delete_case delete_case:SHOP-2',
      'delete_case delete_case:SHOP-3',
      'delete_folder delete_folder:f-pay-old',
    ]);
    const touched = JSON.stringify(p.operations);
    for (const id of ['f-co', 'f-other', 'f-other-sub', 'f-auth', 'case-SHOP-4', 'case-SHOP-5', 'case-SHOP-6', 'case-SHOP-7']) expect(touched).not.toContain(`"${id}"`);
  });

  it('never renames the parent folder the scope names, even when the repository gives it another display name', () => {
    const p = cleanPlan(
      { ...repository, folders: [desiredFolder('Checkout', { id: 'f-co', name: 'checkout' }), ...repository.folders.slice(1)] },
      remote,
    );
    expect(p.operations).toEqual([]);
  });

  it('creates the missing parent folder and the subtree under it when the service has neither', () => {
    const p = cleanPlan(
      desiredState({ scope: ['Checkout/Payments'], folders: [], cases: [desiredCase('Checkout/Payments', 'Pay by card')] }),
      actualState({ folders: [remoteFolder('f-auth', 'Auth')] }),
      { prune: true },
    );
    expect(opList(p)).toEqual([
      'create_folder create_folder:Checkout',
      'create_folder create_folder:Checkout/Payments',
      'create_case create_case:cases/Checkout/Payments/pay-by-card.yaml',
    ]);
  });

  it('accepts the orders a pull wrote when the service read left the siblings outside the scope out', () => {
    // what fetchState returns for the scope: Checkout is the third top-level folder and Payments
    // the second in it, but their siblings were not read
    const read = actualState({
      folders: [remoteFolder('f-co', 'Checkout', null, 2), remoteFolder('f-pay', 'Payments', 'f-co', 1)],
      cases: [remoteCase('SHOP-1', 'Pay by card', 'f-pay')],
    });
    const pulled = desiredState({
      scope: ['Checkout/Payments'],
      folders: [desiredFolder('Checkout', { id: 'f-co', order: 2 }), desiredFolder('Checkout/Payments', { id: 'f-pay', order: 1 })],
      cases: [desiredCase('Checkout/Payments', 'Pay by card', {}, { id: 'SHOP-1' })],
    });
    const p = cleanPlan(pulled, read, { prune: true });
    expect(p.operations).toEqual([]);
    expect(p.unmanaged).toEqual([]);
  });

  it('accepts an order that counts the sibling folders outside the scope, which prune keeps', () => {
    // Checkout will still hold Other, so Payments may take position 1 even with prune
    const moved = { ...repository, folders: [repository.folders[0], desiredFolder('Checkout/Payments', { id: 'f-pay', order: 1 })] };
    const p = cleanPlan(moved, remote, { prune: true });
    expect(findOp(p, 'update_folder').changes).toEqual([{ field: 'order', from: '0', to: '1' }]);
  });
});
