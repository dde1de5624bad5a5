import { randomUUID } from 'node:crypto';
import { nextNumber, pageOf, parseJsonArray, type DbContext, type Page, type PageRequest } from './statements.js';


export interface RunFields {
  title: string;
  description: string;
  status: string;
  selection_type: string;
  filters: unknown;
  start_date: number | null;
  end_date: number | null;
  assignee_id: string | null;
  labels: string[];
  environment_ids: (string | number)[];
  test_plan_id: string | null;
}

/** A stored run: its writable fields plus what the service assigns and counts. */
export interface RunRow extends RunFields {
  id: string;
  human_id: string;
  project_id: string;
  test_cases_count: number;
  created_at: number;
  updated_at: number;
}

const COLS = `r.id, r.human_id, r.title, r.description, r.status, r.selection_type, r.filters, r.start_date, r.end_date,
  r.assignee_id, r.project_id, r.labels, r.environment_ids, r.test_plan_id, r.created_at, r.updated_at,
  (SELECT count(*) FROM run_cases rc WHERE rc.run_id = r.id) AS test_cases_count`;
type Raw = Omit<RunRow, 'labels' | 'environment_ids' | 'filters'> & { labels: string; environment_ids: string; filters: string };
const toRow = (r: Raw): RunRow => ({
  ...r,
  labels: parseJsonArray(r.labels),
  environment_ids: parseJsonArray(r.environment_ids),
  filters: JSON.parse(r.filters) as unknown,
});

interface RunFilter {
  planId?: string;
  search?: string;
}

export function listRuns(ctx: DbContext, projectId: string, f: RunFilter, page: PageRequest): Page<RunRow> {
  const where = `WHERE r.project_id = @project AND (@plan IS NULL OR r.test_plan_id = @plan)
    AND (@search IS NULL OR instr(lower(r.title), lower(@search)) > 0 OR lower(r.human_id) = lower(@search))`;
  const params = { project: projectId, plan: f.planId ?? null, search: f.search ?? null };
  const p = pageOf<Raw>(ctx, { cols: COLS, from: 'runs r', where, key: 'r.seq' }, params, page);
  return { ...p, items: p.items.map(toRow) };
}

export function findRun(ctx: DbContext, projectId: string, idOrHuman: string): RunRow | undefined {
  const r = (ctx.stmt(`SELECT ${COLS} FROM runs r WHERE r.id = ? AND r.project_id = ?`).get(idOrHuman, projectId) ??
    ctx.stmt(`SELECT ${COLS} FROM runs r WHERE r.project_id = ? AND r.human_id = ?`).get(projectId, idOrHuman)) as Raw | undefined;
  return r && toRow(r);
}

export function insertRun(ctx: DbContext, projectId: string, prefix: string, f: RunFields, caseIds: string[]): RunRow {
  return ctx.tx(() => {
    const id = randomUUID();
    const t = ctx.nowSec();
    const humanId = `${prefix}-R-${nextNumber(ctx, projectId, 'run')}`;
    ctx
      .stmt(
        `INSERT INTO runs (id, project_id, human_id, title, description, status, selection_type, filters, start_date,
           end_date, assignee_id, labels, environment_ids, test_plan_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id, projectId, humanId, f.title, f.description, f.status, f.selection_type, JSON.stringify(f.filters ?? null),
        f.start_date, f.end_date, f.assignee_id, JSON.stringify(f.labels), JSON.stringify(f.environment_ids), f.test_plan_id, t, t,
      );
    setRunCases(ctx, id, caseIds, f.assignee_id);
    return findRun(ctx, projectId, id)!;
  });
}

/** Replaces the run's case list, keeping the status of cases that stay. */
export function setRunCases(ctx: DbContext, runId: string, caseIds: string[], assignee: string | null): void {
  const keep = JSON.stringify(caseIds);
  ctx.stmt('DELETE FROM run_cases WHERE run_id = ? AND case_id NOT IN (SELECT value FROM json_each(?))').run(runId, keep);
  const ins = ctx.stmt(
    'INSERT INTO run_cases (run_id, case_id, status_id, user_id, updated_at) VALUES (?, ?, NULL, ?, ?) ON CONFLICT DO NOTHING',
  );
  const t = ctx.nowSec();
  for (const c of caseIds) ins.run(runId, c, assignee, t);
}

export function updateRun(ctx: DbContext, current: RunRow, patch: Partial<RunFields>, caseIds: string[] | undefined): RunRow {
  return ctx.tx(() => {
    const n = { ...current, ...patch };
    ctx
      .stmt(
        `UPDATE runs SET title = ?, description = ?, status = ?, selection_type = ?, filters = ?, start_date = ?, end_date = ?,
           assignee_id = ?, labels = ?, environment_ids = ?, test_plan_id = ?, updated_at = ? WHERE id = ?`,
      )
      .run(
        n.title, n.description, n.status, n.selection_type, JSON.stringify(n.filters ?? null), n.start_date, n.end_date,
        n.assignee_id, JSON.stringify(n.labels), JSON.stringify(n.environment_ids), n.test_plan_id, ctx.nowSec(), current.id,
      );
    if (caseIds) setRunCases(ctx, current.id, caseIds, n.assignee_id);
    return findRun(ctx, current.project_id, current.id)!;
  });
}

export function deleteRun(ctx: DbContext, id: string): void {
  ctx.stmt('DELETE FROM runs WHERE id = ?').run(id);
}

interface RunCaseRow {
  case_id: string;
  human_id: string;
  title: string;
  status_id: string | null;
  status_name: string | null;
  user_id: string | null;
  description: string;
  updated_at: number;
}

export function runCases(ctx: DbContext, runId: string): RunCaseRow[] {
  return ctx
    .stmt(
      `SELECT rc.case_id, c.human_id, c.title, rc.status_id, l.name AS status_name, rc.user_id, rc.description, rc.updated_at
       FROM run_cases rc JOIN cases c ON c.id = rc.case_id LEFT JOIN lookups l ON l.id = rc.status_id
       WHERE rc.run_id = ? ORDER BY rc.seq`,
    )
    .all(runId) as RunCaseRow[];
}

export function findRunCase(ctx: DbContext, runId: string, caseId: string): RunCaseRow | undefined {
  return ctx
    .stmt(
      `SELECT rc.case_id, c.human_id, c.title, rc.status_id, l.name AS status_name, rc.user_id, rc.description, rc.updated_at
       FROM run_cases rc JOIN cases c ON c.id = rc.case_id LEFT JOIN lookups l ON l.id = rc.status_id
       WHERE rc.run_id = ? AND rc.case_id = ?`,
    )
    .get(runId, caseId) as RunCaseRow | undefined;
}

export function setRunCaseStatus(
  ctx: DbContext,
  runId: string,
  caseId: string,
  statusId: string,
  userId: string | null | undefined,
  description: string | null | undefined,
): number {
  const t = ctx.nowSec();
  ctx
    .stmt(
      `UPDATE run_cases SET status_id = ?, user_id = coalesce(?, user_id), description = coalesce(?, description), updated_at = ?
       WHERE run_id = ? AND case_id = ?`,
    )
    .run(statusId, userId ?? null, description ?? null, t, runId, caseId);
  return t;
}

export function assignRunCase(ctx: DbContext, runId: string, caseId: string, userId: string): number {
  const t = ctx.nowSec();
  ctx.stmt('UPDATE run_cases SET user_id = ?, updated_at = ? WHERE run_id = ? AND case_id = ?').run(userId, t, runId, caseId);
  return t;
}

/** Distinct cases of every run of a plan, in first-seen order. */
export function caseIdsOfPlanRuns(ctx: DbContext, planId: string): string[] {
  return (
    ctx
      .stmt(
        `SELECT rc.case_id FROM run_cases rc JOIN runs r ON r.id = rc.run_id WHERE r.test_plan_id = ?
         GROUP BY rc.case_id ORDER BY min(rc.seq)`,
      )
      .all(planId) as { case_id: string }[]
  ).map((r) => r.case_id);
}

/** One page of a run's cases with their results, in run order (the web UI). */
export function runCasesPage(ctx: DbContext, runId: string, page: PageRequest): Page<RunCaseRow> {
  const total = (ctx.stmt('SELECT count(*) AS n FROM run_cases WHERE run_id = ?').get(runId) as { n: number }).n;
  const items = ctx
    .stmt(
      `SELECT rc.case_id, c.human_id, c.title, rc.status_id, l.name AS status_name, rc.user_id, rc.description, rc.updated_at
       FROM run_cases rc JOIN cases c ON c.id = rc.case_id LEFT JOIN lookups l ON l.id = rc.status_id
       WHERE rc.run_id = ? ORDER BY rc.seq LIMIT ? OFFSET ?`,
    )
    .all(runId, page.limit, page.offset) as RunCaseRow[];
  return { items, total };
}

/** How many of a run's cases have each result; `status_name` null counts the cases without one. */
export function runStatusCounts(ctx: DbContext, runId: string): { status_name: string | null; n: number }[] {
  return ctx
    .stmt(
      `SELECT l.name AS status_name, count(*) AS n FROM run_cases rc LEFT JOIN lookups l ON l.id = rc.status_id
       WHERE rc.run_id = ? GROUP BY rc.status_id ORDER BY rc.status_id IS NULL, min(l.ord), l.name`,
    )
    .all(runId) as { status_name: string | null; n: number }[];
}
