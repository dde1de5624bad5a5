import { describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import type { Operation, Plan, PlanDisplay } from '../../src/plan/index.js';
import { changesOf } from '../../src/plan/operation-kinds.js';
import {
  PLAN_COMMENT_MARKER,
  buildPlan,
  parsePlanFile,
  planTextChunks,
  renderPlanJson,
  renderPlanMarkdown,
  renderPlanText,
  summarize,
} from '../../src/plan/index.js';
import { actualState, desiredState } from './builders.js';
import { everyKindScenario } from './scenario.js';

const FIXTURES = new URL('../fixtures/plan/', import.meta.url).pathname;

/** The golden scenario's plan, with what the renderers need beside it. */
function scenario(): { plan: Plan; display: PlanDisplay } {
  const { desired, actual } = everyKindScenario();
  const { plan, problems, display } = buildPlan(desired, actual, { prune: true });
  expect(problems).toEqual([]);
  return { plan, display };
}

function scenarioPlan(): Plan {
  return scenario().plan;
}

describe('plan renderers', () => {
  it('covers every operation kind in the golden scenario', () => {
    const kinds = new Set(scenarioPlan().operations.map((o) => o.kind));
    expect([...kinds].sort()).toEqual(
      [
        'adopt',
        'create_case',
        'create_folder',
        'create_step_group',
        'delete_case',
        'delete_folder',
        'delete_step_group',
        'move_case',
        'move_folder',
        'update_case',
        'update_folder',
        'update_step_group',
      ].sort(),
    );
  });

  it('renders text as the golden file, without colour when colour is off', async () => {
    const { plan, display } = scenario();
    const text = renderPlanText(plan, { color: false, display });
    expect(text).not.toContain('\u001b[');
    await expect(text).toMatchFileSnapshot(`${FIXTURES}plan.txt`);
  });

  it('writes the text in pieces of whole lines that together are exactly the rendered text', () => {
    const { plan, display } = scenario();
    for (const color of [false, true]) {
      const whole = renderPlanText(plan, { color, display });
      const pieces = [...planTextChunks(plan, { color, display }, 3)];
      expect(pieces.length).toBeGreaterThan(3);
      expect(pieces.every((p) => p.endsWith('\n') && p.split('\n').length - 1 <= 3)).toBe(true);
      expect(pieces.join('')).toBe(whole);
      expect([...planTextChunks(plan, { color, display })]).toEqual([whole]);
    }
  });

  it('renders coloured text only when asked to', async () => {
    const { plan, display } = scenario();
    const text = renderPlanText(plan, { color: true, display });
    expect(text).toContain('\u001b[32m+\u001b[0m');
    await expect(text).toMatchFileSnapshot(`${FIXTURES}plan.color.txt`);
  });

  it('renders markdown as the golden file, with the marker first, the summary next and a red banner for deletes', async () => {
    const { plan, display } = scenario();
    const md = renderPlanMarkdown(plan, { display });
    const lines = md.split('\n');
    expect(lines[0]).toBe(PLAN_COMMENT_MARKER);
    expect(lines[1]).toMatch(/^\*\*Plan: \d+ to create/);
    expect(md).toContain('> [!CAUTION]');
    expect(md).toContain('🟥');
    await expect(md).toMatchFileSnapshot(`${FIXTURES}plan.md`);
  });

  it('renders JSON as the golden file, format_version first, and reads it back to the same plan', async () => {
    const { plan, display } = scenario();
    const json = renderPlanJson(plan, display);
    expect(json.startsWith('{\n  "format_version": 3,')).toBe(true);
    await expect(json).toMatchFileSnapshot(`${FIXTURES}plan.json`);
    // the plan's data, with the display values of its new cases that the file holds for `show`
    const shown = { ...plan, operations: plan.operations.map((op) => (op.kind === 'create_case' ? { ...op, changes: changesOf(op, display) } : op)) };
    expect(parsePlanFile(json)).toEqual(JSON.parse(JSON.stringify(shown)));
    // read back, it needs no display to be written the same
    expect(renderPlanJson(parsePlanFile(json))).toBe(json);
  });

  it('says "No changes" with no legend when there is nothing to do', () => {
    const { plan } = buildPlan(desiredState(), actualState());
    expect(renderPlanText(plan, { color: false })).toBe('No changes. The service matches the repository.\n');
    expect(renderPlanMarkdown(plan)).not.toContain('CAUTION');
  });

  it('lists only the legend symbols that occur', () => {
    const text = renderPlanText(scenarioPlan(), { color: false });
    const legend = text.split('\n').find((l) => l.startsWith('Legend:'))!;
    expect(legend).toContain('+ create');
    const { plan } = buildPlan(everyKindScenario().desired, everyKindScenario().actual);
    const noDelete = renderPlanText(plan, { color: false }).split('\n').find((l) => l.startsWith('Legend:'))!;
    expect(noDelete).not.toContain('- delete');
  });

  it('keeps a markdown plan of 5,000 changes under the cap, with a note of how many items were cut', () => {
    const operations: Operation[] = Array.from({ length: 5000 }, (_, i) => ({
      kind: 'update_case',
      key: `update_case:cases/F/c${i}.yaml`,
      dependsOn: [],
      id: `id-${i}`,
      humanId: `SHOP-${i}`,
      path: ['Folder', 'Sub'],
      body: { title: `Case ${i}`, folder: { id: 'f' } },
      changes: [
        { field: 'status', from: 'Draft', to: 'Ready' },
        { field: 'description', from: 'line one\nline two', to: 'line one\nline 2' },
      ],
    }));
    const plan: Plan = { ...scenarioPlan(), operations, unmanaged: [], warnings: [], summary: summarize(operations) };
    const md = renderPlanMarkdown(plan);
    expect(md.length).toBeLessThan(65_000);
    const shown = (md.match(/^- `~`/gm) ?? []).length;
    expect(shown).toBeGreaterThan(100);
    expect(md).toContain(`${5000 - shown} items were cut to keep this comment under 65,000 characters`);
    expect(md).toContain('**Plan: 0 to create, 5000 to update, 0 to move, 0 to delete.**');
    // every opened details block is closed
    expect((md.match(/<details>/g) ?? []).length).toBe((md.match(/<\/details>/g) ?? []).length);
  });

  it('refuses a plan file of another format_version (one with the camelCase keys of format 2), saying which version it expected', () => {
    const json = renderPlanJson(scenarioPlan()).replace('"format_version": 3', '"format_version": 2');
    expect(() => parsePlanFile(json)).toThrow(TmsyncError);
    try {
      parsePlanFile(json);
    } catch (err) {
      expect((err as TmsyncError).code).toBe('plan_format_version');
      expect((err as TmsyncError).message).toContain('reads format_version 3');
    }
  });

  it('refuses a plan file with an unknown key or a bad operation', () => {
    const plan = JSON.parse(renderPlanJson(scenarioPlan()));
    expect(() => parsePlanFile(JSON.stringify({ ...plan, extra: true }))).toThrow(/not a valid tmsync plan/);
    plan.operations[0].kind = 'explode';
    expect(() => parsePlanFile(JSON.stringify(plan))).toThrow(/not a valid tmsync plan/);
    expect(() => parsePlanFile('{')).toThrow(/not JSON/);
  });

  it('shows warnings and the unmanaged items --prune keeps, in text and markdown', () => {
    const plan: Plan = {
      ...scenarioPlan(),
      unmanaged: [
        { itemType: 'step_group', id: 'g', humanId: 'SHOP-SG-9', path: [], title: 'Shared', pruned: false },
        { itemType: 'case', id: 'c', humanId: 'SHOP-9', path: ['Old'], title: 'Gone', pruned: true },
      ],
      warnings: [{ code: 'step_group_in_use', message: 'step group SHOP-SG-9 "Shared" is not in the repository but 1 remaining case uses it, so --prune keeps it' }],
    };
    const text = renderPlanText(plan, { color: false });
    expect(text).toContain('Not managed by this repository, kept although --prune is set (still in use):\n  step group SHOP-SG-9 Shared\n');
    expect(text).not.toContain('  case SHOP-9 Old › Gone');
    expect(text).toContain('Warnings:\n  ! step group SHOP-SG-9 "Shared" is not in the repository');
    const md = renderPlanMarkdown(plan);
    expect(md).toContain('<details><summary>Not managed by this repository (1)</summary>');
    expect(md).toContain('- step group `SHOP-SG-9` Shared');
    expect(md).toContain('<details><summary>Warnings (1)</summary>');
  });

  it('escapes markdown in titles so a title cannot break the comment', () => {
    const plan = scenarioPlan();
    const op = plan.operations.find((o) => o.kind === 'create_case')!;
    if (op.kind === 'create_case') op.body.title = '<script>`x`</script> **bold**';
    const md = renderPlanMarkdown(plan);
    expect(md).not.toContain('<script>');
    expect(md).toContain('\\<script\\>');
  });
});

describe('text from the repository and the service, rendered', () => {
  it('escapes control characters and keeps workflow commands off the start of every line, in text and markdown, on both sides of a diff', async () => {
    const { remoteCase, remoteFolder, desiredFolders, desiredCase } = await import('./builders.js');
    const injected = 'x\n::error file=tmsync.yaml,line=1::injected\n::add-mask::Plan\u001b]0;pwned\u0007\u009b2K';
    const before = 'one\n::warning::context line\n##vso[task.complete result=Failed]x\ntwo';
    const after = `one\n::warning::context line\n##vso[task.complete result=Failed]x\n\u001b[2K\rthree ${injected}`;
    const desired = desiredState({
      folders: desiredFolders('A'),
      cases: [
        desiredCase('A', 'Kept', { description: after }, { id: 'DEMO-1' }),
        desiredCase('A', `New ${injected}`, { description: injected }),
      ],
    });
    const actual = actualState({
      folders: [remoteFolder('f1', 'A')],
      cases: [remoteCase('DEMO-1', 'Kept', 'f1', { description: before }), remoteCase('DEMO-2', `Unmanaged ${injected}`, 'f1')],
    });
    const { plan } = buildPlan(desired, actual);
    expect(plan.operations.map((o) => o.kind)).toEqual(expect.arrayContaining(['create_case', 'update_case']));
    // eslint-disable-next-line no-control-regex
    const control = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
    for (const text of [renderPlanText(plan, { color: false }), renderPlanMarkdown(plan)]) {
      expect(text).toContain('::add-mask::Plan\\x1b]0;pwned\\x07\\x9b2K');
      expect(text).toContain('\\x3a:warning::context line');
      expect(text).toContain('\\x23#vso[task.complete');
      expect(text).not.toMatch(/^\s*(::|##vso\[)/m);
      expect(text).not.toMatch(control);
    }
    // colours are tmsync's own escape sequences, and the only ones
    const coloured = renderPlanText(plan, { color: true });
    // eslint-disable-next-line no-control-regex
    expect(coloured.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(control);
  });
});
