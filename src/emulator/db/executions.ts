import { randomUUID } from 'node:crypto';
import type { DbContext, Page, PageRequest } from './statements.js';

/** Runs started through the execution interface, and JUnit imports into test runs. */

export interface ExecutionRow {
  id: number;
  execution_id: string;
  plan_id: string;
  project_id: string;
  run_id: string | null;
  environment_id: string | null;
  build_no: string;
  runtime_data: string;
  started_ms: number;
  result: string;
  total: number;
  failed: number;
  settled: number;
}

export function insertExecution(ctx: DbContext, e: Omit<ExecutionRow, 'id' | 'settled'>): number {
  const r = ctx
    .stmt(
      `INSERT INTO executions (execution_id, plan_id, project_id, run_id, environment_id, build_no, runtime_data, started_ms, result, total, failed)
       VALUES (@execution_id, @plan_id, @project_id, @run_id, @environment_id, @build_no, @runtime_data, @started_ms, @result, @total, @failed)`,
    )
    .run(e);
  return Number(r.lastInsertRowid);
}

export function findExecution(ctx: DbContext, id: number): ExecutionRow | undefined {
  return ctx.stmt('SELECT * FROM executions WHERE id = ?').get(id) as ExecutionRow | undefined;
}

export function markSettled(ctx: DbContext, id: number): boolean {
  return ctx.stmt('UPDATE executions SET settled = 1 WHERE id = ? AND settled = 0').run(id).changes === 1;
}

interface ImportRow {
  id: string;
  project_id: string;
  run_id: string;
  status: string;
  summary: string;
  created_at: number;
}

export function insertImport(ctx: DbContext, projectId: string, runId: string, status: string, summary: unknown): ImportRow {
  const row: ImportRow = {
    id: randomUUID(),
    project_id: projectId,
    run_id: runId,
    status,
    summary: JSON.stringify(summary),
    created_at: ctx.nowSec(),
  };
  ctx
    .stmt('INSERT INTO junit_imports (id, project_id, run_id, status, summary, created_at) VALUES (@id, @project_id, @run_id, @status, @summary, @created_at)')
    .run(row);
  return row;
}

export function findImport(ctx: DbContext, projectId: string, id: string): ImportRow | undefined {
  return ctx.stmt('SELECT * FROM junit_imports WHERE project_id = ? AND id = ?').get(projectId, id) as ImportRow | undefined;
}

/** Runs started through the execution interface, newest first (the web UI). */
export function listExecutions(ctx: DbContext, page: PageRequest): Page<ExecutionRow> {
  const total = (ctx.stmt('SELECT count(*) AS n FROM executions').get() as { n: number }).n;
  const items = ctx.stmt('SELECT * FROM executions ORDER BY id DESC LIMIT ? OFFSET ?').all(page.limit, page.offset) as ExecutionRow[];
  return { items, total };
}

/** The execution runs whose results are not yet written into their test runs. */
export function unsettledExecutions(ctx: DbContext): ExecutionRow[] {
  return ctx.stmt('SELECT * FROM executions WHERE settled = 0 ORDER BY id').all() as ExecutionRow[];
}
