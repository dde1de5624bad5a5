import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildPlan, renderPlanMarkdown, renderPlanText, type Plan, type PlanDisplay } from '../../src/plan/index.js';
import { loadConfig, loadRepository } from '../../src/repository/index.js';
import { byNaturalName } from '../../src/repository/walk.js';
import { makeRepo } from '../repository/helpers.js';
import { actualState, desiredCase, desiredFolders, desiredState, remoteCase, remoteFolder, step } from './builders.js';

/** 61 one-step creates in two folders, one update and one delete: issue 30's plan of 669 lines. */
/** A plan of 65 operations, with what the renderers need beside it. */
function largeBuilt(): { plan: Plan; display: PlanDisplay } {
  const cases = [
    ...Array.from({ length: 40 }, (_, i) => desiredCase('Checkout', `Pay ${i + 1}`, { steps: [step('Open the page', 'It opens')] })),
    ...Array.from({ length: 21 }, (_, i) => desiredCase('Checkout/Cards', `Card ${i + 1}`, { steps: [step('Add a card')] })),
    desiredCase('Checkout', 'Kept', { priority: 'High' }, { id: 'SHOP-1' }),
  ];
  const desired = desiredState({ folders: desiredFolders('Checkout/Cards'), cases });
  const actual = actualState({
    folders: [remoteFolder('f1', 'Checkout')],
    cases: [remoteCase('SHOP-1', 'Kept', 'f1'), remoteCase('SHOP-2', 'Gone', 'f1')],
  });
  const { plan, problems, display } = buildPlan(desired, actual, { prune: true, allowRecreate: true });
  expect(problems).toEqual([]);
  return { plan, display };
}

function largePlan(): Plan {
  return largeBuilt().plan;
}

describe('compact plans (issue 30 item 11)', () => {
  it('shows a plan above 50 operations as a table per folder with counts, details only for updates and deletes', () => {
    const { plan, display } = largeBuilt();
    expect(plan.operations.length).toBeGreaterThan(50);
    const full = renderPlanText(plan, { color: false, compact: false, display });
    const text = renderPlanText(plan, { color: false });
    expect(text).toBe(renderPlanText(plan, { color: false, compact: true }));
    const lines = text.split('\n');
    expect(lines.length).toBeLessThan(30);
    expect(full.split('\n').length).toBeGreaterThan(400);
    // the Checkout folder exists on the service: adopted (its id written back)
    expect(text).toContain('Folder          + create  ~ update  - delete  = adopt\n');
    expect(text).toContain('Checkout              40         1         1        1\n');
    expect(text).toContain('Checkout/Cards        22         0         0        0\n');
    // no create is listed, the update and the delete are, with their fields
    expect(text).not.toContain('Pay 1');
    expect(text).toContain('Updates and deletes in detail:');
    expect(text).toContain('~ case SHOP-1 Checkout › Kept');
    expect(text).toMatch(/priority: ".*" → "High"/);
    expect(text).toContain('- case SHOP-2 Checkout › Gone  (not in the repository; deleted by --prune)');
    expect(lines.at(-2)).toBe('Plan: 62 to create, 1 to update, 0 to move, 1 to delete, 1 to adopt (ids written back).');
  });

  it('shows a small plan in full unless --compact is asked for, and a large one in full with --no-compact', () => {
    const plan = largePlan();
    const small: Plan = { ...plan, operations: plan.operations.slice(0, 5) };
    expect(renderPlanText(small, { color: false })).toContain('+ case Checkout › Pay 1');
    expect(renderPlanText(small, { color: false, compact: true })).not.toContain('Pay 1');
    expect(renderPlanText(plan, { color: false, compact: false })).toContain('+ case Checkout › Pay 1');
  });

  it('renders markdown compact the same way: a table, then the Update and Delete sections only', () => {
    const plan = largePlan();
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('<details><summary>Per folder (65 operations)</summary>');
    expect(md).toContain('| Folder | + create | ~ update | - delete | = adopt |\n|---|---:|---:|---:|---:|\n| Checkout | 40 | 1 | 1 | 1 |\n| Checkout/Cards | 22 | 0 | 0 | 0 |');
    expect(md).not.toContain('Create (');
    expect(md).toContain('<details><summary>~ Update (1)</summary>');
    expect(md).toContain('<details><summary>- Delete (1)</summary>');
    const full = renderPlanMarkdown(plan, { compact: false });
    expect(full).toContain('<details><summary>+ Create (62)</summary>');
    expect(full).not.toContain('Per folder');
  });

  it('words the unmanaged items of a migration for what they are: in the target, not in the source, left alone (item 8)', () => {
    const large = largePlan();
    const plan: Plan = { ...large, operations: large.operations.filter((o) => o.kind !== 'delete_case'), prune: false, unmanaged: [{ itemType: 'case', id: 'c', humanId: 'SHOP-9', path: ['Old'], title: 'Other', pruned: false }] };
    const text = renderPlanText(plan, { color: false, migration: true });
    expect(text).toContain('In the target but not in the source (left as they are):\n  case SHOP-9 Old › Other\n');
    expect(text).not.toContain('--prune');
    expect(renderPlanText(plan, { color: false })).toContain('Not managed by this repository (--prune deletes them):');
  });
});

describe('natural order of files (issue 30 item 11)', () => {
  it('orders numbers by their value, the rest by code unit', () => {
    const names = ['case-10.yaml', 'case-2.yaml', 'case-1.yaml', 'Case-3.yaml', 'case-02.yaml', 'case-b.yaml', 'case.yaml', 'case-1a.yaml'];
    expect([...names].sort(byNaturalName)).toEqual(['Case-3.yaml', 'case-1.yaml', 'case-1a.yaml', 'case-02.yaml', 'case-2.yaml', 'case-10.yaml', 'case-b.yaml', 'case.yaml']);
    expect(byNaturalName('a', 'a')).toBe(0);
  });

  it('loads and plans case-2 before case-10, and folder 2 before folder 10, so the service numbers them in that order', async () => {
    const files: Record<string, string> = { 'tmsync.yaml': 'project: SHOP\n' };
    for (const n of [1, 2, 10, 11]) files[`cases/Suite/case-${n}.yaml`] = `title: Case ${n}\n`;
    for (const n of [2, 10]) files[`cases/Part ${n}/a.yaml`] = `title: In part ${n}\n`;
    const dir = await makeRepo(files);
    const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
    const { state, problems } = await loadRepository(root, config);
    expect(problems.filter((p) => p.severity !== 'warning')).toEqual([]);
    expect(state.cases.map((c) => c.file)).toEqual([
      'cases/Part 2/a.yaml',
      'cases/Part 10/a.yaml',
      'cases/Suite/case-1.yaml',
      'cases/Suite/case-2.yaml',
      'cases/Suite/case-10.yaml',
      'cases/Suite/case-11.yaml',
    ]);
    expect(state.folders.map((f) => f.path.join('/'))).toEqual(['Part 2', 'Part 10', 'Suite']);
    const { plan } = buildPlan(state, actualState());
    const creates = plan.operations.filter((o) => o.kind === 'create_case').map((o) => (o.kind === 'create_case' ? o.body.title : ''));
    expect(creates).toEqual(['In part 2', 'In part 10', 'Case 1', 'Case 2', 'Case 10', 'Case 11']);
  });
});
