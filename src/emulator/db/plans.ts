import { randomUUID } from 'node:crypto';
import { nextNumber, pageOf, parseJsonArray, type DbContext, type Page, type PageRequest } from './statements.js';

export interface PlanRow {
  id: string;
  /** the plan's stable integer id on the execution interface (its insertion number; an emulator extension) */
  execution_id: number;
  human_id: string;
  title: string;
  description: string;
  status: string;
  start_date: number | null;
  end_date: number | null;
  label_ids: string[];
  completed_at: number | null;
  project_id: string;
  created_at: number;
  updated_at: number;
}

export interface PlanFields {
  title: string;
  description: string;
  start_date: number | null;
  end_date: number | null;
  label_ids: string[];
}

const COLS = 'id, seq AS execution_id, human_id, title, description, status, start_date, end_date, label_ids, completed_at, project_id, created_at, updated_at';
type Raw = Omit<PlanRow, 'label_ids'> & { label_ids: string };
const toRow = (r: Raw): PlanRow => ({ ...r, label_ids: parseJsonArray(r.label_ids) });

interface PlanFilter {
  nameNeq?: string;
  titleContains?: string;
}

export function listPlans(ctx: DbContext, projectId: string, f: PlanFilter, page: PageRequest): Page<PlanRow> {
  const where = `WHERE project_id = @project AND (@neq IS NULL OR title <> @neq)
    AND (@contains IS NULL OR instr(lower(title), lower(@contains)) > 0)`;
  const params = { project: projectId, neq: f.nameNeq ?? null, contains: f.titleContains ?? null };
  const p = pageOf<Raw>(ctx, { cols: COLS, from: 'plans', where, key: 'seq' }, params, page);
  return { ...p, items: p.items.map(toRow) };
}

export function findPlan(ctx: DbContext, projectId: string, idOrHuman: string): PlanRow | undefined {
  const r = (ctx.stmt(`SELECT ${COLS} FROM plans WHERE id = ? AND project_id = ?`).get(idOrHuman, projectId) ??
    ctx.stmt(`SELECT ${COLS} FROM plans WHERE human_id = ? AND project_id = ?`).get(idOrHuman, projectId)) as Raw | undefined;
  return r && toRow(r);
}

/**
 * Any project: the execution interface names a plan without its project, by its integer
 * `execution_id` (a number or a numeric string), its uuid or its human id.
 */
export function findPlanAnywhere(ctx: DbContext, ref: string | number): PlanRow | undefined {
  const text = String(ref).trim();
  const r = (/^[0-9]+$/.test(text)
    ? ctx.stmt(`SELECT ${COLS} FROM plans WHERE seq = ?`).get(Number(text))
    : ctx.stmt(`SELECT ${COLS} FROM plans WHERE id = ? OR human_id = ? LIMIT 1`).get(text, text)) as Raw | undefined;
  return r && toRow(r);
}

export function insertPlan(ctx: DbContext, projectId: string, prefix: string, f: PlanFields): PlanRow {
  return ctx.tx(() => {
    const id = randomUUID();
    const t = ctx.nowSec();
    const humanId = `${prefix}-P-${nextNumber(ctx, projectId, 'plan')}`;
    ctx
      .stmt(
        `INSERT INTO plans (id, project_id, human_id, title, description, status, start_date, end_date, label_ids, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'ACTIVE', ?, ?, ?, ?, ?)`,
      )
      .run(id, projectId, humanId, f.title, f.description, f.start_date, f.end_date, JSON.stringify(f.label_ids), t, t);
    return findPlan(ctx, projectId, id)!;
  });
}

export function updatePlan(ctx: DbContext, current: PlanRow, patch: Partial<PlanFields>): PlanRow {
  const n = { ...current, ...patch };
  ctx
    .stmt('UPDATE plans SET title = ?, description = ?, start_date = ?, end_date = ?, label_ids = ?, updated_at = ? WHERE id = ?')
    .run(n.title, n.description, n.start_date, n.end_date, JSON.stringify(n.label_ids), ctx.nowSec(), current.id);
  return findPlan(ctx, current.project_id, current.id)!;
}

/** Completing twice keeps the first completion time. */
export function completePlan(ctx: DbContext, current: PlanRow): PlanRow {
  const t = ctx.nowSec();
  ctx
    .stmt(`UPDATE plans SET status = 'COMPLETED', completed_at = coalesce(completed_at, ?), updated_at = ? WHERE id = ?`)
    .run(t, t, current.id);
  return findPlan(ctx, current.project_id, current.id)!;
}

export function deletePlan(ctx: DbContext, id: string): void {
  ctx.stmt('DELETE FROM plans WHERE id = ?').run(id);
}
