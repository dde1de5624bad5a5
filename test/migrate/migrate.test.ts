import { describe, expect, it } from 'vitest';
import type { ActualState, RemoteCase } from '../../src/model.js';
import { pairTwins, planMigration, settlePendingCreates, withoutAdopts } from '../../src/migrate/migrate.js';
import { actualToDesired } from '../../src/migrate/to-desired.js';
import { F, fixtureState } from '../support/transfer-fixtures.js';

/** The fixture as another instance would hold it after a migration: same content, other ids. */
function copiedTarget(): ActualState {
  const s = fixtureState();
  const re = (id: string) => `t-${id}`;
  const folders = s.folders.map((f) => ({ ...f, id: F[`t${f.name}`] ?? `99999999-0000-4000-8000-${f.id.slice(-12)}`, parentId: f.parentId ? `99999999-0000-4000-8000-${f.parentId.slice(-12)}` : null }));
  const folderMap = new Map(s.folders.map((f, i) => [f.id, folders[i].id]));
  return {
    ...s,
    project: { id: 'p-2', name: 'Target', humanIdPrefix: 'TGT' },
    folders,
    stepGroups: s.stepGroups.map((g) => ({ ...g, id: re(g.id), humanId: g.humanId.replace('SHOP', 'TGT') })),
    cases: s.cases.map((c) => ({
      ...c,
      id: re(c.id),
      humanId: c.humanId.replace('SHOP', 'TGT'),
      folderId: folderMap.get(c.folderId)!,
      individualSteps: c.individualSteps.map((st) => ({ ...st, stepGroupId: st.stepGroupId ? re(st.stepGroupId) : null })),
    })),
  };
}

describe('planMigration', () => {
  it('plans every folder, step group and case as a create against an empty target', () => {
    const target: ActualState = { ...fixtureState(), project: { id: 'p-2', name: 'T', humanIdPrefix: 'T' }, folders: [], cases: [], stepGroups: [] };
    const { plan, problems } = planMigration(fixtureState(), target);
    expect(problems).toEqual([]);
    expect(plan.summary).toMatchObject({ create: 7 + 2 + 7, update: 0, delete: 0 });
  });

  it('shows no changes against a target that already holds the same content under other ids, twins included', () => {
    const { plan, problems, warnings } = planMigration(fixtureState(), copiedTarget());
    expect(problems).toEqual([]);
    // the one exception, warned about: steps that no longer match their group travel as plain steps
    expect(warnings.map((w) => w.code)).toEqual(['unfoldable_steps']);
    expect(plan.operations.map((op) => `${op.kind} ${'humanId' in op ? op.humanId : ''}`)).toEqual(['update_case TGT-5']);
  });
});

describe('pairTwins', () => {
  it('pairs twin cases by content before age, so a target whose twins were created out of order needs no change', () => {
    const source = fixtureState();
    const target = copiedTarget();
    // the target created the younger "Valid login" first
    const [older, younger] = target.cases.filter((c) => c.title === 'Valid login');
    const swapped: RemoteCase[] = target.cases.map((c) => (c === older ? { ...c, createdAt: 50 } : c === younger ? { ...c, createdAt: 5 } : c));
    const { state } = actualToDesired(source);
    const paired = pairTwins(state, { ...target, cases: swapped });
    const ids = paired.cases.filter((c) => c.title === 'Valid login').map((c) => c.id);
    expect(ids).toEqual(['TGT-1', 'TGT-2']);
    // step groups with one title are twins too
    expect(paired.stepGroups.map((g) => g.id)).toEqual(['TGT-SG-1', 'TGT-SG-2']);
  });

  it('leaves items without twins to natural keys', () => {
    const { state } = actualToDesired(fixtureState());
    const paired = pairTwins(state, copiedTarget());
    expect(paired.cases.find((c) => c.title === 'Twice')?.id).toBeUndefined();
  });
});

describe('settlePendingCreates and withoutAdopts', () => {
  it('resumes a pending create whose item the target holds unclaimed, and creates the one it does not hold', () => {
    const target = copiedTarget();
    const withoutTwice = { ...target, cases: target.cases.filter((c) => c.title !== 'Twice' && c.title !== 'CON') };
    const { plan, claimedIds } = planMigration(fixtureState(), withoutTwice);
    const creates = plan.operations.filter((op) => op.kind === 'create_case');
    expect(creates.length).toBe(2);
    // pretend the killed run sent both creates and the "Twice" one reached the service
    const twice = target.cases.find((c) => c.title === 'Twice')!;
    const resume = new Map<string, { id: string; humanId?: string }>();
    const still = settlePendingCreates(plan, { ...withoutTwice, cases: [...withoutTwice.cases, twice] }, claimedIds, new Set(creates.map((op) => op.key)), resume);
    expect([...resume.values()].map((r) => r.id)).toEqual([twice.id]);
    expect(still.size).toBe(0);
  });

  it('never resumes into an item another source item already accounts for', () => {
    const target = copiedTarget();
    const { plan, claimedIds } = planMigration(fixtureState(), { ...target, cases: target.cases.filter((c) => c.id !== 't-c-2') });
    const create = plan.operations.find((op) => op.kind === 'create_case')!;
    const resume = new Map<string, { id: string; humanId?: string }>();
    // the only "Valid login" in the target is claimed by the other twin
    settlePendingCreates(plan, target, new Set([...claimedIds, 't-c-1']), new Set([create.key]), resume);
    expect(resume.get(create.key)?.id).not.toBe('t-c-1');
  });

  it('drops adopts and the dependencies on them', () => {
    const plan = {
      ...planMigration(fixtureState(), copiedTarget()).plan,
      operations: [
        { kind: 'adopt', key: 'a', dependsOn: [], itemType: 'folder', id: 'x', path: ['A'], title: 'A', writeBack: { file: 'f' } },
        { kind: 'delete_case', key: 'b', dependsOn: ['a'], id: 'y', humanId: 'Y-1', title: 't', path: ['A'] },
      ],
    } as unknown as Parameters<typeof withoutAdopts>[0];
    const out = withoutAdopts(plan);
    expect(out.operations).toEqual([{ kind: 'delete_case', key: 'b', dependsOn: [], id: 'y', humanId: 'Y-1', title: 't', path: ['A'] }]);
    expect(out.summary.delete).toBe(1);
  });
});
