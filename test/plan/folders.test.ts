import { describe, expect, it } from 'vitest';
import { summaryLine } from '../../src/plan/index.js';
import { counterIdFactory, simulatePlan } from '../support/simulate.js';
import {
  actualState,
  desiredCase,
  desiredFolder,
  desiredFolders,
  desiredState,
  findOp,
  opList,
  remoteFolder,
} from './builders.js';
import { cleanPlan, plan } from './helpers.js';

describe('buildPlan: folders', () => {
  it('gives an empty plan when both the repository and the service are empty', () => {
    const p = cleanPlan(desiredState(), actualState());
    expect(p.operations).toEqual([]);
    expect(summaryLine(p)).toBe('No changes. The service matches the repository.');
  });

  it('creates nested folders top-down, each child referring to the operation that creates its parent', () => {
    const p = cleanPlan(desiredState({ folders: desiredFolders('Checkout/Payments') }), actualState());
    expect(opList(p)).toEqual(['create_folder create_folder:Checkout', 'create_folder create_folder:Checkout/Payments']);
    const child = findOp(p, 'create_folder', 'Payments');
    expect(child.parent).toEqual({ op: 'create_folder:Checkout' });
    expect(child.dependsOn).toEqual(['create_folder:Checkout']);
    expect(child.writeBack).toEqual({ file: 'cases/Checkout/Payments/_folder.yaml' });
    expect(findOp(p, 'create_folder', 'Checkout').parent).toBeNull();
  });

  it('adopts a folder matched by parent path and name, writing its id into _folder.yaml', () => {
    const p = cleanPlan(desiredState({ folders: desiredFolders('Auth') }), actualState({ folders: [remoteFolder('f-auth', 'Auth')] }));
    expect(opList(p)).toEqual(['adopt adopt_folder:Auth']);
    expect(findOp(p, 'adopt').writeBack).toEqual({ file: 'cases/Auth/_folder.yaml', id: 'f-auth' });
    expect(p.summary.adopt).toBe(1);
    expect(summaryLine(p)).toBe('Plan: 0 to create, 0 to update, 0 to move, 0 to delete, 1 to adopt (ids written back).');
  });

  it('plans nothing for a folder whose _folder.yaml id, name and parent all match', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth' })] }),
      actualState({ folders: [remoteFolder('f-auth', 'Auth')] }),
    );
    expect(p.operations).toEqual([]);
  });

  it('renames a folder whose directory changed but whose _folder.yaml keeps the id', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Login', { id: 'f-auth' })] }),
      actualState({ folders: [remoteFolder('f-auth', 'Auth')] }),
    );
    expect(opList(p)).toEqual(['update_folder update_folder:Login']);
    const op = findOp(p, 'update_folder');
    expect(op.name).toBe('Login');
    expect(op.order).toBeUndefined();
    expect(op.changes).toEqual([{ field: 'name', from: 'Auth', to: 'Login' }]);
  });

  it('sets a wanted order again after moving a folder, because a move appends it to its new parent', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Shop', { id: 'f-shop' }), desiredFolder('Shop/Pay', { id: 'f-pay', order: 0 })] }),
      actualState({ folders: [remoteFolder('f-shop', 'Shop', null, 0), remoteFolder('f-pay', 'Pay', null, 0)] }),
    );
    const move = findOp(p, 'move_folder');
    const update = findOp(p, 'update_folder');
    expect(update.order).toBe(0);
    expect(update.dependsOn).toEqual([move.key]);
    expect(p.operations.indexOf(update)).toBeGreaterThan(p.operations.indexOf(move));
  });

  it('refuses folder orders that no position can satisfy (gaps past the last sibling, or two siblings on one place)', () => {
    const gaps = plan(
      desiredState({ folders: [desiredFolder('A', { order: 10 }), desiredFolder('B', { order: 20 }), desiredFolder('C', { order: 1 })] }),
      actualState(),
    );
    expect(gaps.problems.map((p) => [p.code, p.file])).toEqual([
      ['invalid_order', 'cases/A/_folder.yaml'],
      ['invalid_order', 'cases/B/_folder.yaml'],
    ]);
    expect(gaps.problems[0].hint).toMatch(/use 0 to 2/);
    const twins = plan(desiredState({ folders: [desiredFolder('A', { order: 0 }), desiredFolder('B', { order: 0 })] }), actualState());
    expect(twins.problems.map((p) => p.code)).toEqual(['duplicate_order']);
  });

  it('reorders a folder only when _folder.yaml gives an order', () => {
    const actual = actualState({ folders: [remoteFolder('f-auth', 'Auth', null, 3)] });
    expect(cleanPlan(desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth' })] }), actual).operations).toEqual([]);
    const p = cleanPlan(desiredState({ folders: [desiredFolder('Auth', { id: 'f-auth', order: 0 })] }), actual);
    expect(findOp(p, 'update_folder').changes).toEqual([{ field: 'order', from: '3', to: '0' }]);
    expect(findOp(p, 'update_folder').order).toBe(0);
  });

  it('plans a folder renamed and moved at once as a move plus a rename of the same id', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Checkout'), desiredFolder('Checkout/Cards', { id: 'f-pay' })] }),
      actualState({ folders: [remoteFolder('f-checkout', 'Checkout'), remoteFolder('f-old', 'Old'), remoteFolder('f-pay', 'Payments', 'f-old')] }),
    );
    const move = findOp(p, 'move_folder');
    expect(move).toMatchObject({ id: 'f-pay', fromPath: ['Old', 'Payments'], path: ['Checkout', 'Cards'], parent: { id: 'f-checkout' } });
    expect(findOp(p, 'update_folder')).toMatchObject({ id: 'f-pay', name: 'Cards' });
  });

  it('swaps a parent and its child without ever putting a folder under its own descendant', () => {
    // service: A/B; repository: B/A
    const actual = actualState({ folders: [remoteFolder('f-a', 'A'), remoteFolder('f-b', 'B', 'f-a')] });
    const p = cleanPlan(desiredState({ folders: [desiredFolder('B', { id: 'f-b' }), desiredFolder('B/A', { id: 'f-a' })] }), actual);
    expect(opList(p)).toEqual(['move_folder move_folder:B', 'move_folder move_folder:B/A']);
    expect(findOp(p, 'move_folder', 'B/A').dependsOn).toEqual(['move_folder:B']);
    // every intermediate tree must stay acyclic: replay one op at a time
    const { actual: after } = simulatePlan(actual, p, counterIdFactory());
    const byId = new Map(after.folders.map((f) => [f.id, f]));
    expect(byId.get('f-b')!.parentId).toBeNull();
    expect(byId.get('f-a')!.parentId).toBe('f-b');
    expect(cleanPlan(desiredState({ folders: [desiredFolder('B', { id: 'f-b' }), desiredFolder('B/A', { id: 'f-a' })] }), after).operations).toEqual([]);
  });

  it('swaps two sibling folders by name as two renames of the ids their _folder.yaml keep', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('A', { id: 'f-b' }), desiredFolder('B', { id: 'f-a' })] }),
      actualState({ folders: [remoteFolder('f-a', 'A'), remoteFolder('f-b', 'B')] }),
    );
    expect(p.operations.map((o) => (o.kind === 'update_folder' ? `${o.id}:${o.name}` : o.kind))).toEqual(['f-b:A', 'f-a:B']);
    expect(p.summary).toMatchObject({ create: 0, update: 2, delete: 0 });
  });

  it('moves a folder under a folder created in the same plan, after that create', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('New'), desiredFolder('New/Old', { id: 'f-old' })] }),
      actualState({ folders: [remoteFolder('f-old', 'Old')] }),
    );
    expect(opList(p)).toEqual(['create_folder create_folder:New', 'move_folder move_folder:New/Old']);
    expect(findOp(p, 'move_folder')).toMatchObject({ parent: { op: 'create_folder:New' }, dependsOn: ['create_folder:New'] });
  });

  it('creates the folders a case implies even when the repository lists no folder for them', () => {
    const p = cleanPlan(desiredState({ cases: [desiredCase('Implicit/Deep', 'A case')] }), actualState());
    expect(opList(p).slice(0, 2)).toEqual(['create_folder create_folder:Implicit', 'create_folder create_folder:Implicit/Deep']);
  });

  it('reports a folder id the service does not have, naming the _folder.yaml', () => {
    const r = plan(desiredState({ folders: [desiredFolder('Auth', { id: 'f-gone' })] }), actualState());
    expect(r.problems).toMatchObject([
      { code: 'unknown_id', file: 'cases/Auth/_folder.yaml', hint: 'remove the `id:` line to create it anew, or restore the item on the service' },
    ]);
    expect(r.problems[0].message).toContain('f-gone');
  });

  it('reports two folders claiming the same id, naming both files', () => {
    const r = plan(
      desiredState({ folders: [desiredFolder('A', { id: 'f-a' }), desiredFolder('B', { id: 'f-a' })] }),
      actualState({ folders: [remoteFolder('f-a', 'A')] }),
    );
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0].code).toBe('duplicate_claim');
    expect(r.problems[0].message).toContain('cases/A/_folder.yaml');
    expect(r.problems[0].message).toContain('cases/B/_folder.yaml');
  });

  it('reports a folder name that matches two folders on the service, naming both', () => {
    const r = plan(
      desiredState({ folders: desiredFolders('Auth') }),
      actualState({ folders: [remoteFolder('f-1', 'Auth'), remoteFolder('f-2', 'Auth')] }),
    );
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ code: 'ambiguous_match', file: 'cases/Auth', hint: 'add `id:` to cases/Auth/_folder.yaml to say which one it is' });
    expect(r.problems[0].message).toContain('f-1');
    expect(r.problems[0].message).toContain('f-2');
  });

  it('ignores service folders outside scope entirely, neither matching nor reporting them', () => {
    const p = cleanPlan(
      desiredState({ scope: ['Auth'], folders: desiredFolders('Auth') }),
      actualState({ folders: [remoteFolder('f-auth', 'Auth'), remoteFolder('f-other', 'Other'), remoteFolder('f-sub', 'Sub', 'f-other')] }),
      { prune: true },
    );
    expect(opList(p)).toEqual(['adopt adopt_folder:Auth']);
    expect(p.unmanaged).toEqual([]);
  });

  it('records a fingerprint of name, parent and order for every folder it touches', () => {
    const p = cleanPlan(
      desiredState({ folders: [desiredFolder('Login', { id: 'f-auth' })] }),
      actualState({ folders: [remoteFolder('f-auth', 'Auth', null, 2)] }),
    );
    expect(p.remoteVersions).toEqual({ 'folder:f-auth': 'Auth||2' });
    expect(p.contentHash).toBe('sha256:test');
  });
});
