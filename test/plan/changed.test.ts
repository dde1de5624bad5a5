import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ActualState, DesiredState } from '../../src/model.js';
import {
  changedCaseQueries,
  folderSubtreeFiles,
  planChanged,
  restrictPlan,
  stepGroupsToRead,
  type ChangedFiles,
} from '../../src/plan/changed.js';
import { buildPlan } from '../../src/plan/index.js';
import { simulateCaseQueries } from '../support/simulate.js';
import { actualState, desiredCase, desiredFolders, desiredState, remoteCase, remoteFolder } from './builders.js';
import { buildActual, buildDesired, desiredWorld, remoteWorld } from './worlds.js';

/**
 * `--changed-since`: the plan of the changed files, from a read of only what they name, equals the
 * full plan (from a read of everything) restricted to the same files.
 */

/** What the restricted read returns: the cases the queries name, and step groups with steps only when read. */
function restrictedRead(desired: DesiredState, actual: ActualState, changed: ChangedFiles): ActualState {
  const queries = changedCaseQueries(desired, actual.folders, changed);
  const read = stepGroupsToRead(desired, changed);
  return {
    ...actual,
    cases: simulateCaseQueries(actual, queries),
    stepGroups: actual.stepGroups.map((g) => (read({ id: g.id, human_id: g.humanId, title: g.title }) ? g : { ...g, steps: [] })),
    testPlans: [],
    lookups: { ...actual.lookups, runStatuses: [] },
  };
}

function folderPathOf(actual: ActualState, folderId: string): string[] {
  const byId = new Map(actual.folders.map((f) => [f.id, f]));
  const path: string[] = [];
  for (let f = byId.get(folderId); f; f = f.parentId !== null ? byId.get(f.parentId) : undefined) path.unshift(f.name);
  return path;
}

const changeWorld = fc.record({
  cases: fc.array(fc.nat(20), { maxLength: 4 }),
  groups: fc.array(fc.nat(5), { maxLength: 2 }),
  folders: fc.array(fc.nat(10), { maxLength: 2 }),
  removed: fc.array(fc.tuple(fc.nat(20), fc.boolean(), fc.boolean()), { maxLength: 3 }),
});

describe('planChanged', () => {
  it('equals the full plan restricted to the changed files, for generated repositories, services and changes', () => {
    let withOperations = 0;
    let withUnmanaged = 0;
    fc.assert(
      fc.property(remoteWorld, desiredWorld, changeWorld, fc.boolean(), fc.boolean(), (rw, dw, cw, labelsReadable, allowRecreate) => {
        const actual = buildActual(rw, labelsReadable);
        const desired = buildDesired(dw, actual);
        const present = new Set<string>();
        for (const i of cw.cases) if (desired.cases.length > 0) present.add(desired.cases[i % desired.cases.length].file);
        for (const i of cw.groups) if (desired.stepGroups.length > 0) present.add(desired.stepGroups[i % desired.stepGroups.length].file);
        const folderFiles = desired.folders.filter((f) => f.file !== undefined);
        for (const i of cw.folders) if (folderFiles.length > 0) present.add(folderFiles[i % folderFiles.length].file!);
        // a changed _folder.yaml is a change to its folder: its subtree's files, as `plan --changed-since` takes them
        for (const f of folderSubtreeFiles(desired, [...present].filter((f) => f.endsWith('/_folder.yaml')))) present.add(f);
        const removed: ChangedFiles['removed'] = [];
        for (const [i, withId, renamedTitle] of cw.removed) {
          if (actual.cases.length === 0) break;
          const c = actual.cases[i % actual.cases.length];
          const folderPath = folderPathOf(actual, c.folderId);
          removed.push({
            file: `cases/${folderPath.join('/')}/old-${i}.yaml`,
            folderPath,
            ...(withId ? { id: c.humanId } : {}),
            title: renamedTitle ? `${c.title} (old)` : c.title,
          });
        }
        const changed: ChangedFiles = { present: [...present], removed };

        const partial = restrictedRead(desired, actual, changed);
        const restricted = planChanged(desired, partial, changed, { allowRecreate });
        const full = restrictPlan(
          buildPlan(desired, actual, { prune: false, allowRecreate }),
          desired,
          actual,
          changed,
          new Set(partial.cases.map((c) => c.id)),
        );
        expect(restricted.problems).toEqual(full.problems);
        expect(restricted.plan.operations).toEqual(full.plan.operations);
        expect(restricted.plan.unmanaged).toEqual(full.plan.unmanaged);
        expect(restricted.plan.warnings.filter((w) => w.file !== undefined)).toEqual(full.plan.warnings.filter((w) => w.file !== undefined));
        expect(restricted.plan.summary).toEqual(full.plan.summary);
        expect(restricted.plan.remoteVersions).toEqual(full.plan.remoteVersions);
        // every operation comes from a changed file or is a create one of them waits for
        for (const op of restricted.plan.operations) {
          const file = op.key.slice(op.key.indexOf(':') + 1);
          if (op.kind.endsWith('_case')) expect(present.has(file)).toBe(true);
          for (const dep of op.dependsOn) expect(restricted.plan.operations.some((o) => o.key === dep)).toBe(true);
        }
        if (restricted.plan.operations.length > 0) withOperations++;
        if (restricted.plan.unmanaged.some((u) => u.itemType === 'case')) withUnmanaged++;
      }),
      { numRuns: 400, seed: 20261123 },
    );
    // the property is not vacuous: many generated changes plan something, some list a removed case
    expect(withOperations).toBeGreaterThan(100);
    expect(withUnmanaged).toBeGreaterThan(10);
  });

  it('reads a changed case by its id wherever it is, and a new one by its title in its folder only', () => {
    const actual = actualState({
      folders: [remoteFolder('f1', 'Auth'), remoteFolder('f2', 'Checkout')],
      cases: [remoteCase('SHOP-1', 'Login', 'f1'), remoteCase('SHOP-2', 'Pay', 'f2'), remoteCase('SHOP-3', 'Refund', 'f2')],
    });
    const desired = desiredState({
      folders: desiredFolders('Auth', 'Checkout'),
      cases: [
        desiredCase('Auth', 'Pay', {}, { id: 'SHOP-2' }),
        desiredCase('Checkout', 'Refund'),
        desiredCase('Auth', 'Login', {}, { id: 'SHOP-1' }),
      ],
    });
    const changed: ChangedFiles = { present: ['cases/Auth/pay.yaml', 'cases/Checkout/refund.yaml'], removed: [] };
    expect(changedCaseQueries(desired, actual.folders, changed)).toEqual([
      { by: 'ref', ref: 'SHOP-2' },
      { by: 'title', folderId: 'f2', title: 'Refund' },
    ]);
    const partial = { ...actual, cases: simulateCaseQueries(actual, changedCaseQueries(desired, actual.folders, changed)) };
    const { plan, problems } = planChanged(desired, partial, changed);
    expect(problems).toEqual([]);
    // the move of SHOP-2 and the adoption of Refund; login.yaml is not part of the change
    expect(plan.operations.map((op) => op.key)).toEqual(['move_case:cases/Auth/pay.yaml', 'adopt_case:cases/Checkout/refund.yaml']);
  });
});
