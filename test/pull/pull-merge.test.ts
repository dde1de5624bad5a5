import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ActualState } from '../../src/model.js';
import { fieldHash, SyncBase, type BaseKind, type FieldStanding } from '../../src/base/base.js';
import { pullIntoRepository } from '../../src/pull/pull.js';
import { describeConflict, mergeList, PullMerge, yamlKeyOf, type Prefer } from '../../src/pull/pull-merge.js';
import { F, fixtureState } from '../support/transfer-fixtures.js';

const config = { casesDir: 'cases', stepGroupsDir: 'step_groups' };
const CASE = 'cases/Authentication/valid-login-2.yaml';
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A repository as a plain pull of the fixture project writes it. */
async function pulledRepository(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tmsync-merge-'));
  dirs.push(root);
  await pullIntoRepository(fixtureState(), { root, config });
  return root;
}

/** The fixture project as the service holds it later: `edit` changes it. */
function later(edit: (a: ActualState) => void): ActualState {
  const a = fixtureState();
  a.lookups.priorities.push({ id: 'p-high', name: 'High' });
  edit(a);
  return a;
}

/** A base with an entry for each item named (its hashes do not matter: standings are given). */
function baseFor(...items: [BaseKind, string, Record<string, unknown>?][]): SyncBase {
  const base = new SyncBase('p-1');
  for (const [kind, id, fields] of items) base.record(kind, id, 1, fields ?? { title: 'x' });
  return base;
}

function merge(base: SyncBase, standings: Record<string, Record<string, FieldStanding>>, actual: ActualState, prefer?: Prefer): PullMerge {
  return new PullMerge({
    base,
    ...(prefer ? { prefer } : {}),
    standings: (kind, id) => {
      const s = standings[`${kind} ${id}`];
      return s ? new Map(Object.entries(s)) : undefined;
    },
    remote: (kind, id) => {
      const c = actual.cases.find((x) => x.id === id);
      return kind === 'case' && c ? { updatedAt: c.updatedAt, fields: { title: c.title, description: c.description, reviewer: c.reviewerId, priority: c.priorityId } } : undefined;
    },
    remotePlace: () => 'Checkout',
  });
}

const HAND_EDITED = `# yaml-language-server: $schema=../../.tmsync-schemas/test-case.schema.json

# Owned by the auth team.
id: SHOP-2
title: 'Valid login'   # the title people search for
priority: Medium
type: Functional
status: Draft
description: Checks the login with the repository's wording
automation_type: Not Automated
owner: ana@example.com
reviewer: ben@example.com   # asked for by Ana
steps: []
`;

const STANDINGS: Record<string, FieldStanding> = {
  title: 'unchanged',
  priority: 'remote',
  description: 'local',
  reviewer: 'conflict',
  type: 'unchanged',
  status: 'unchanged',
  automationType: 'unchanged',
  owner: 'unchanged',
  steps: 'unchanged',
};

describe("pull's merge writer", () => {
  it('writes only the key the service alone changed, keeping comments, key order, quoting and the repository changes', async () => {
    const root = await pulledRepository();
    await writeFile(join(root, CASE), HAND_EDITED);
    const actual = later((a) => {
      const c = a.cases.find((x) => x.id === 'c-2')!;
      c.priorityId = 'p-high';
      c.reviewerId = 'u-ana';
    });
    const m = merge(baseFor(['case', 'c-2']), { 'case c-2': STANDINGS }, actual);
    const result = await pullIntoRepository(actual, { root, config, merge: m });
    expect(await readFile(join(root, CASE), 'utf8')).toBe(HAND_EDITED.replace('priority: Medium', 'priority: High'));
    expect(result.updated).toEqual([CASE]);
    const summary = m.summarize(result);
    expect(summary.conflicts).toEqual([{ kind: 'case', id: 'c-2', file: CASE, field: 'reviewer', local: 'ben@example.com', remote: 'ana@example.com' }]);
    expect(summary.unsettled).toBe(1);
    expect(summary.keptLocal).toBe(1);
    expect(summary.withoutBase).toBe(result.items.length - result.created.length - 1);
    expect(describeConflict(summary.conflicts[0])).toBe(`  ${CASE}: reviewer\n    repository: "ben@example.com"\n    service:    "ana@example.com"`);
  });

  it("writes the service's value of a conflict under --prefer remote, and keeps the file's under --prefer local", async () => {
    const actual = later((a) => {
      const c = a.cases.find((x) => x.id === 'c-2')!;
      c.priorityId = 'p-high';
      c.reviewerId = 'u-ana';
    });
    for (const prefer of ['remote', 'local'] as const) {
      const root = await pulledRepository();
      await writeFile(join(root, CASE), HAND_EDITED);
      const m = merge(baseFor(['case', 'c-2']), { 'case c-2': STANDINGS }, actual, prefer);
      const result = await pullIntoRepository(actual, { root, config, merge: m });
      // a key pull sets is written in the library's layout (one space before its comment)
      const reviewer = prefer === 'remote' ? 'reviewer: ana@example.com # asked for by Ana' : 'reviewer: ben@example.com   # asked for by Ana';
      expect(await readFile(join(root, CASE), 'utf8')).toBe(HAND_EDITED.replace('priority: Medium', 'priority: High').replace('reviewer: ben@example.com   # asked for by Ana', reviewer));
      const summary = m.summarize(result);
      expect(summary.conflicts.map((c) => [c.field, c.settled])).toEqual([['reviewer', prefer]]);
      expect(summary.unsettled).toBe(0);
    }
  });

  it('pulls an item without a base entry as before: every key the service holds is written', async () => {
    const root = await pulledRepository();
    await writeFile(join(root, CASE), HAND_EDITED);
    const actual = later((a) => {
      a.cases.find((x) => x.id === 'c-2')!.priorityId = 'p-high';
    });
    const m = merge(baseFor(['case', 'c-1']), { 'case c-2': STANDINGS }, actual);
    const result = await pullIntoRepository(actual, { root, config, merge: m });
    const text = await readFile(join(root, CASE), 'utf8');
    expect(text).toContain('priority: High');
    expect(text).not.toContain('description:');
    expect(text).not.toContain('reviewer:');
    expect(text).toContain('# Owned by the auth team.');
    // every item with a file but c-1, which has an entry
    expect(m.summarize(result).withoutBase).toBe(result.items.length - result.created.length - 1);
  });

  it('leaves the file of an item the base knows but the plan could not compare as it is, and keeps its base entry', async () => {
    const root = await pulledRepository();
    await writeFile(join(root, CASE), HAND_EDITED);
    const actual = later((a) => {
      a.cases.find((x) => x.id === 'c-2')!.priorityId = 'p-high';
    });
    const base = baseFor(['case', 'c-2', { title: 'Valid login', priority: 'p-med' }]);
    const m = merge(base, {}, actual);
    const result = await pullIntoRepository(actual, { root, config, merge: m });
    expect(await readFile(join(root, CASE), 'utf8')).toBe(HAND_EDITED);
    expect(m.summarize(result).uncompared).toEqual([CASE]);
    expect(m.buildBase(result).get('case', 'c-2')).toEqual(base.get('case', 'c-2'));
  });

  it("merges a step group's steps element by element: the file's edit of one step and the service's of another", async () => {
    const root = await pulledRepository();
    const file = join(root, 'step_groups/log-in-as-admin.yaml');
    const text = await readFile(file, 'utf8');
    const edited = text.replace('expected: The form shows', 'expected: The form shows, empty   # our wording');
    await writeFile(file, edited);
    const actual = later((a) => {
      a.stepGroups.find((g) => g.id === 'g-login')!.steps[1].expected = 'The dashboard shows the name';
    });
    const m = merge(baseFor(['step_group', 'g-login']), { 'step_group g-login': { title: 'unchanged', description: 'unchanged', labels: 'unchanged', 'step.0': 'local', 'step.1': 'remote' } }, actual);
    await pullIntoRepository(actual, { root, config, merge: m });
    const out = await readFile(file, 'utf8');
    expect(out).toContain('expected: The form shows, empty');
    expect(out).toContain('expected: The dashboard shows the name');
    expect(out.startsWith(text.slice(0, text.indexOf('steps:')))).toBe(true);
  });

  it('keeps a folder the repository moved where it is, and moves one the service alone moved, as pull always did', async () => {
    for (const standing of ['local', 'remote'] as const) {
      const root = await pulledRepository();
      await rename(join(root, 'cases/Checkout/Payments'), join(root, 'cases/Authentication/Payments'));
      const actual = later(() => undefined);
      const m = merge(baseFor(['folder', F['f-pay']]), { [`folder ${F['f-pay']}`]: { name: 'unchanged', parent: standing, order: 'unchanged' } }, actual);
      const result = await pullIntoRepository(actual, { root, config, merge: m });
      const where = result.items.find((i) => i.id === F['f-pay'])!.path;
      expect(where).toBe(standing === 'local' ? 'cases/Authentication/Payments/_folder.yaml' : 'cases/Checkout/Payments/_folder.yaml');
      expect(result.items.find((i) => i.id === 'c-3')!.path.startsWith(standing === 'local' ? 'cases/Authentication/Payments/' : 'cases/Checkout/Payments/')).toBe(true);
    }
  });

  it("lists a folder moved on both sides as a conflict, kept in the repository's place unless --prefer remote", async () => {
    for (const prefer of [undefined, 'remote'] as const) {
      const root = await pulledRepository();
      await rename(join(root, 'cases/Checkout/Payments'), join(root, 'cases/Authentication/Payments'));
      const actual = later((a) => {
        a.folders.find((f) => f.id === F['f-pay'])!.parentId = F['f-case1']!;
      });
      const m = merge(baseFor(['folder', F['f-pay']]), { [`folder ${F['f-pay']}`]: { name: 'unchanged', parent: 'conflict', order: 'unchanged' } }, actual, prefer);
      const result = await pullIntoRepository(actual, { root, config, merge: m });
      const summary = m.summarize(result);
      const expected = prefer === 'remote' ? 'cases/Mixed/Payments/_folder.yaml' : 'cases/Authentication/Payments/_folder.yaml';
      expect(summary.conflicts).toEqual([
        { kind: 'folder', id: F['f-pay'], file: expected, field: 'folder', local: expected.slice(0, expected.lastIndexOf('/')), remote: 'Checkout', ...(prefer ? { settled: prefer } : {}) },
      ]);
      expect(summary.unsettled).toBe(prefer ? 0 : 1);
    }
  });
});

describe("pull's merge of a folder's name", () => {
  it('lists a folder renamed on both sides with its directory name, and writes name: only under --prefer remote', async () => {
    for (const prefer of [undefined, 'remote'] as const) {
      const root = await pulledRepository();
      await rename(join(root, 'cases/Checkout/Payments'), join(root, 'cases/Checkout/Billing'));
      const actual = later((a) => {
        a.folders.find((f) => f.id === F['f-pay'])!.name = 'Zahlungen';
      });
      const m = merge(baseFor(['folder', F['f-pay']]), { [`folder ${F['f-pay']}`]: { name: 'conflict', parent: 'unchanged', order: 'unchanged' } }, actual, prefer);
      const result = await pullIntoRepository(actual, { root, config, merge: m });
      const file = 'cases/Checkout/Billing/_folder.yaml';
      expect(m.summarize(result).conflicts).toEqual([{ kind: 'folder', id: F['f-pay'], file, field: 'name', local: 'Billing', remote: 'Zahlungen', ...(prefer ? { settled: prefer } : {}) }]);
      const text = await readFile(join(root, file), 'utf8');
      if (prefer) expect(text).toContain('name: Zahlungen');
      else expect(text).not.toContain('name:');
    }
  });
});

describe('the base pull records', () => {
  it("records the service's values, keeps the old hash of fields the repository alone changed or left in conflict, and keeps entries of items not pulled", async () => {
    const root = await pulledRepository();
    const actual = later((a) => {
      const c = a.cases.find((x) => x.id === 'c-2')!;
      c.priorityId = 'p-high';
      c.reviewerId = 'u-ana';
    });
    const old = { title: 'Valid login', description: 'old text', reviewer: 'u-ben', priority: 'p-med' };
    const base = baseFor(['case', 'c-2', old], ['case', 'gone-1', { title: 'Gone' }]);
    const standings = { 'case c-2': { title: 'unchanged', description: 'local', reviewer: 'conflict', priority: 'remote' } as Record<string, FieldStanding> };
    for (const prefer of [undefined, 'local', 'remote'] as const) {
      const m = merge(base, standings, actual, prefer);
      const result = await pullIntoRepository(actual, { root, config, merge: m });
      const next = m.buildBase(result);
      const fields = next.get('case', 'c-2')!.fields;
      expect(fields.get('title')).toBe(fieldHash('Valid login'));
      expect(fields.get('priority')).toBe(fieldHash('p-high'));
      expect(fields.get('description')).toBe(fieldHash('old text'));
      // --prefer local leaves the conflict for the next plan (apply --prefer local settles it)
      expect(fields.get('reviewer')).toBe(fieldHash(prefer === 'remote' ? 'u-ana' : 'u-ben'));
      expect(next.get('case', 'gone-1')).toEqual(base.get('case', 'gone-1'));
      expect([...fields.keys()]).toEqual([...fields.keys()].sort());
    }
  });
});

describe('merge helpers', () => {
  it('maps compare-form fields to the YAML keys they are written under', () => {
    expect(yamlKeyOf('case', 'stepsText')).toBe('steps');
    expect(yamlKeyOf('case', 'automationType')).toBe('automation_type');
    expect(yamlKeyOf('case', 'title')).toBe('title');
    expect(yamlKeyOf('step_group', 'step.3')).toBe('steps');
    expect(yamlKeyOf('folder', 'parent')).toBe('folder');
    expect(yamlKeyOf('folder', 'order')).toBe('order');
  });

  it("takes the service's elements where it alone changed them, dropping the ones it removed", () => {
    expect(mergeList(['a', 'B', 'c'], ['a', 'b', 'C', 'd'], new Set([2, 3]))).toEqual(['a', 'B', 'C', 'd']);
    expect(mergeList(['A', 'b', 'c'], ['a', 'b'], new Set([2]))).toEqual(['A', 'b']);
  });
});
