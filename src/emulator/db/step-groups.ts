import { randomUUID } from 'node:crypto';
import { nextNumber, pageOf, parseJsonArray, type DbContext, type Page, type PageRequest } from './statements.js';

export interface StepGroupRow {
  id: string;
  title: string;
  description: string;
  human_id: string;
  label_ids: string[];
  project_id: string;
  created_at: number;
  updated_at: number;
}

interface StepGroupStepRow {
  id: string;
  step_description: string;
  expected_results: string;
  order: number;
  step_group_id: string;
  created_at: number;
  updated_at: number;
}

export interface GroupStepInput {
  step_description: string;
  expected_results: string;
}

const COLS = 'id, title, description, human_id, label_ids, project_id, created_at, updated_at';
type Raw = Omit<StepGroupRow, 'label_ids'> & { label_ids: string };
const toRow = (r: Raw): StepGroupRow => ({ ...r, label_ids: parseJsonArray(r.label_ids) });

export function listStepGroups(ctx: DbContext, projectId: string, page: PageRequest): Page<StepGroupRow> {
  const p = pageOf<Raw>(ctx, { cols: COLS, from: 'step_groups', where: 'WHERE project_id = @project', key: 'seq' }, { project: projectId }, page);
  return { ...p, items: p.items.map(toRow) };
}

/** By id or human id (`<PREFIX>-SG-<n>`). */
export function findStepGroup(ctx: DbContext, projectId: string, idOrHuman: string): StepGroupRow | undefined {
  const r = (ctx.stmt(`SELECT ${COLS} FROM step_groups WHERE id = ? AND project_id = ?`).get(idOrHuman, projectId) ??
    ctx.stmt(`SELECT ${COLS} FROM step_groups WHERE project_id = ? AND human_id = ?`).get(projectId, idOrHuman)) as Raw | undefined;
  return r && toRow(r);
}

export function groupSteps(ctx: DbContext, groupId: string): StepGroupStepRow[] {
  return ctx
    .stmt(
      `SELECT id, step_description, expected_results, ord AS "order", step_group_id, created_at, updated_at
       FROM step_group_steps WHERE step_group_id = ? ORDER BY ord`,
    )
    .all(groupId) as StepGroupStepRow[];
}

function writeSteps(ctx: DbContext, groupId: string, steps: GroupStepInput[], t: number): void {
  ctx.stmt('DELETE FROM step_group_steps WHERE step_group_id = ?').run(groupId);
  const ins = ctx.stmt(
    `INSERT INTO step_group_steps (id, step_group_id, ord, step_description, expected_results, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  steps.forEach((s, i) => ins.run(randomUUID(), groupId, i + 1, s.step_description, s.expected_results, t, t));
}

export function insertStepGroup(
  ctx: DbContext,
  projectId: string,
  prefix: string,
  g: { title: string; description: string; label_ids: string[] },
  steps: GroupStepInput[],
): StepGroupRow {
  return ctx.tx(() => {
    const id = randomUUID();
    const t = ctx.nowSec();
    const humanId = `${prefix}-SG-${nextNumber(ctx, projectId, 'sg')}`;
    ctx
      .stmt(
        `INSERT INTO step_groups (id, project_id, human_id, title, description, label_ids, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, projectId, humanId, g.title, g.description, JSON.stringify(g.label_ids), t, t);
    writeSteps(ctx, id, steps, t);
    return findStepGroup(ctx, projectId, id)!;
  });
}

export function updateStepGroup(
  ctx: DbContext,
  current: StepGroupRow,
  patch: { title?: string; description?: string; label_ids?: string[] },
  steps: GroupStepInput[] | undefined,
): StepGroupRow {
  return ctx.tx(() => {
    const t = ctx.nowSec();
    const next = { ...current, ...patch };
    ctx
      .stmt('UPDATE step_groups SET title = ?, description = ?, label_ids = ?, updated_at = ? WHERE id = ?')
      .run(next.title, next.description, JSON.stringify(next.label_ids), t, current.id);
    if (steps) writeSteps(ctx, current.id, steps, t);
    return findStepGroup(ctx, current.project_id, current.id)!;
  });
}

/** Steps of cases that came from this group keep their text; their `step_group_id` becomes null. */
export function deleteStepGroup(ctx: DbContext, id: string): void {
  ctx.stmt('DELETE FROM step_groups WHERE id = ?').run(id);
}
