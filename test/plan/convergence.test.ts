import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActualState, DesiredFolder, DesiredState } from '../../src/model.js';
import { buildPlan, type Operation } from '../../src/plan/index.js';
import { applyWriteBacksInMemory, counterIdFactory, simulatePlan } from '../support/simulate.js';
import { scopeRelation, type ScopeRelation } from '../../src/scope.js';
import { buildActual, buildDesired, desiredWorld, keepPossibleOrders, remoteWorld } from './worlds.js';

/**
 * The convergence property: for any repository and service, applying the plan (in memory, ids
 * written back into the repository) and planning again gives an empty plan.
 */

/** A random order of the operations in which every operation still follows its dependencies. */
function randomTopologicalOrder(ops: Operation[], seed: number): Operation[] {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  const done = new Set<string>();
  const left = [...ops];
  const out: Operation[] = [];
  while (left.length > 0) {
    const ready = left.filter((op) => op.dependsOn.every((d) => done.has(d)));
    const pick = ready[Math.floor(next() * ready.length)];
    out.push(pick);
    done.add(pick.key);
    left.splice(left.indexOf(pick), 1);
  }
  return out;
}

/** Where a remote folder stands to `scope`, by its path on the service. */
function relationOf(actual: ActualState, id: string, scope: readonly string[]): ScopeRelation {
  const byId = new Map(actual.folders.map((f) => [f.id, f]));
  const path: string[] = [];
  for (let f = byId.get(id); f; f = f.parentId !== null ? byId.get(f.parentId) : undefined) path.unshift(f.name);
  return scopeRelation(path, scope);
}

/**
 * The repository limited to `scope` (A, or the path A/B): it holds nothing else, and its ids claim
 * nothing outside (an id claims its item wherever it is, which is not what this property is about).
 */
function limitToScope(desired: DesiredState, actual: ActualState, scope: string[]): DesiredState {
  const inside = (id: string) => relationOf(actual, id, scope) === 'inside';
  const folderIdFits = (f: DesiredFolder) =>
    f.id === undefined ||
    (scopeRelation(f.path, scope) === 'inside'
      ? inside(f.id)
      : // a container: only the service's folder at that very path
        relationOf(actual, f.id, scope) === 'ancestor' && actual.folders.find((x) => x.id === f.id)!.name === f.path.at(-1) && actual.folders.find((x) => x.id === f.id)!.parentId === null);
  return {
    ...desired,
    scope,
    folders: keepPossibleOrders(
      desired.folders
        .filter((f) => scopeRelation(f.path, scope) !== 'outside')
        .map((f) => (folderIdFits(f) ? { ...f } : { ...f, id: undefined })),
    ),
    cases: desired.cases
      .filter((c) => scopeRelation(c.folderPath, scope) === 'inside')
      .map((c) => {
        const remote = c.id === undefined ? undefined : actual.cases.find((x) => x.humanId === c.id);
        return remote && !inside(remote.folderId) ? { ...c, id: undefined } : c;
      })
      // and, as in buildDesired, no two files without id share a folder and a title
      .filter((c, i, all) => c.id !== undefined || !all.slice(0, i).some((o) => o.id === undefined && o.title === c.title && o.folderPath.join('/') === c.folderPath.join('/'))),
  };
}

describe('buildPlan: convergence', () => {
  it('plans nothing after its own plan has been applied, for generated repositories and services', () => {
    fc.assert(
      fc.property(remoteWorld, desiredWorld, fc.boolean(), fc.boolean(), fc.constantFrom(undefined, 'A', 'A/B'), fc.integer(), (rw, dw, prune, labelsReadable, scopeEntry, orderSeed) => {
        const actual = buildActual(rw, labelsReadable);
        let desired = buildDesired(dw, actual);
        // a top-level scope or a path scope: the rest of the service is left alone
        const scope = scopeEntry === undefined ? undefined : [scopeEntry];
        if (scope) desired = limitToScope(desired, actual, scope);
        const options = { prune, allowRecreate: true };
        const first = buildPlan(desired, actual, options);
        expect(first.problems).toEqual([]);
        // any order that respects dependsOn must do: that is what lets apply run operations in parallel
        const shuffled = { ...first.plan, operations: randomTopologicalOrder(first.plan.operations, orderSeed) };
        const { actual: after, created } = simulatePlan(actual, shuffled, counterIdFactory());
        const written = applyWriteBacksInMemory(desired, first.plan, created);
        const second = buildPlan(written, after, options);
        expect(second.problems).toEqual([]);
        expect(second.plan.operations).toEqual([]);
        if (prune) expect(second.plan.unmanaged.filter((u) => u.itemType !== 'step_group')).toEqual([]);
        if (scope) {
          // nothing outside the scope was touched, and no container above a path scope is gone
          const outside = (a: ActualState) => a.cases.filter((c) => relationOf(a, c.folderId, scope) !== 'inside').map((c) => `${c.id}:${c.folderId}:${c.updatedAt}`).sort();
          expect(outside(after)).toEqual(outside(actual));
          const before = new Set(actual.folders.filter((f) => relationOf(actual, f.id, scope) !== 'inside').map((f) => f.id));
          const kept = (a: ActualState) => a.folders.filter((f) => before.has(f.id)).map((f) => `${f.id}:${f.name}:${f.parentId}`).sort();
          expect(kept(after)).toEqual(kept(actual));
        }
      }),
      { numRuns: 400, seed: 20261123 },
    );
  });
});
