import * as db from '../db/index.js';
import type { ExecutionRow } from '../db/index.js';
import type { HandlerTable, RouteContext } from '../http.js';
import { renderJunit } from '../junit.js';
import { invalidField, notFound, ServiceError } from '../service-error.js';
import { uiPaths } from '../ui/links.js';

/**
 * The execution interface. A trigger creates a test run (`<PREFIX>-R-<n>`) for the plan holding
 * the cases of the plan's earlier runs, or every case of the project when the plan has no runs yet.
 *
 * The run's course is a function of time and of the plan, so tests can predict it:
 * - `STATUS_CREATED` (result `QUEUED`) for the first third of the run duration, then
 *   `STATUS_IN_PROGRESS` (result `QUEUED`), then `STATUS_COMPLETED` once the duration has passed;
 * - the result is `FAILURE` when the plan's title contains "fail" (any case), else `SUCCESS`;
 * - in a failing run, the cases whose title contains "fail" fail (the first case when none does),
 *   the others pass.
 * When a completed run is first read, its cases' statuses are written into the test run.
 */
export type ExecutionPhase = 'STATUS_CREATED' | 'STATUS_IN_PROGRESS' | 'STATUS_COMPLETED';

/** Where a run stands at `nowMs` (the web UI shows it too). */
export function executionPhase(e: ExecutionRow, nowMs: number, runDurationMs: number): ExecutionPhase {
  const elapsed = nowMs - e.started_ms;
  if (elapsed >= runDurationMs) return 'STATUS_COMPLETED';
  return elapsed < runDurationMs / 3 ? 'STATUS_CREATED' : 'STATUS_IN_PROGRESS';
}

const phase = (c: RouteContext, e: ExecutionRow): ExecutionPhase => executionPhase(e, c.now(), c.runDurationMs);

function failingCases(cases: { id: string; title: string }[], failing: boolean): Set<string> {
  if (!failing || cases.length === 0) return new Set();
  const named = cases.filter((x) => /fail/i.test(x.title));
  return new Set((named.length > 0 ? named : cases.slice(0, 1)).map((x) => x.id));
}

function executionOf(c: RouteContext): ExecutionRow {
  const id = Number(c.params.run_id);
  const e = Number.isSafeInteger(id) && id > 0 ? db.findExecution(c.db, id) : undefined;
  if (!e) throw notFound('Run');
  return e;
}

/** Writes the final case statuses of a completed run into its test run, once (the web UI reads through it too). */
export function settleExecution(ctx: db.DbContext, e: ExecutionRow): void {
  if (e.settled || !e.run_id) return;
  ctx.tx(() => {
    if (!db.markSettled(ctx, e.id)) return;
    const run = db.findRun(ctx, e.project_id, e.run_id!);
    if (!run) return;
    const statuses = new Map(db.allLookups(ctx, 'run_statuses').map((l) => [l.name, l.id]));
    const cases = db.runCases(ctx, run.id).map((r) => ({ id: r.case_id, title: r.title }));
    const fails = failingCases(cases, e.result === 'FAILURE');
    for (const x of cases) {
      const s = statuses.get(fails.has(x.id) ? 'Failed' : 'Passed');
      if (s) db.setRunCaseStatus(ctx, run.id, x.id, s, undefined, undefined);
    }
  });
}

const settle = (c: RouteContext, e: ExecutionRow): void => settleExecution(c.db, e);

export const executionRoutes = {
  triggerExecution(c) {
    const b = c.body;
    const plan = db.findPlanAnywhere(c.db, b.executionId);
    if (!plan) throw invalidField('executionId', 'no test plan with this execution id, uuid or human id');
    const buildNo = b.buildNo === undefined ? '' : String(b.buildNo);
    const project = db.findProject(c.db, plan.project_id)!;
    return c.db.tx(() => {
      const fromRuns = db.caseIdsOfPlanRuns(c.db, plan.id);
      const caseIds = fromRuns.length > 0 ? fromRuns : db.caseIdsOfProject(c.db, plan.project_id);
      const run = db.insertRun(
        c.db,
        plan.project_id,
        project.human_id_prefix,
        {
          title: `${plan.title}${buildNo ? ` (build ${buildNo})` : ''}`,
          description: 'Started through the execution interface',
          status: 'ACTIVE',
          selection_type: 'STATIC',
          filters: { static_selection_filters: [{ field: 'id', operator: 'IN', values: caseIds }] },
          start_date: c.dialect === 'live' ? c.now() : c.db.nowSec(),
          end_date: null,
          assignee_id: null,
          labels: [],
          environment_ids: b.environmentId === undefined ? [] : [b.environmentId],
          test_plan_id: plan.id,
        },
        caseIds,
      );
      const failing = /fail/i.test(plan.title);
      const titles = db.runCases(c.db, run.id).map((r) => ({ id: r.case_id, title: r.title }));
      const id = db.insertExecution(c.db, {
        execution_id: String(b.executionId),
        plan_id: plan.id,
        project_id: plan.project_id,
        run_id: run.id,
        environment_id: b.environmentId === undefined ? null : String(b.environmentId),
        build_no: buildNo,
        runtime_data: JSON.stringify(b.runtimeData ?? {}),
        started_ms: c.now(),
        result: failing ? 'FAILURE' : 'SUCCESS',
        total: caseIds.length,
        failed: failingCases(titles, failing).size,
      });
      return { body: { id } };
    });
  },
  getExecution(c) {
    const e = executionOf(c);
    const status = phase(c, e);
    const done = status === 'STATUS_COMPLETED';
    if (done) settle(c, e);
    const env = e.environment_id === null ? null : /^\d+$/.test(e.environment_id) ? Number(e.environment_id) : e.environment_id;
    return {
      body: {
        id: e.id,
        executionId: /^[0-9]+$/.test(e.execution_id) ? Number(e.execution_id) : e.execution_id,
        status,
        result: done ? e.result : 'QUEUED',
        message: done ? `Run completed: ${e.total - e.failed} passed, ${e.failed} failed` : status === 'STATUS_CREATED' ? 'Run queued' : 'Run in progress',
        startTime: e.started_ms,
        endTime: done ? e.started_ms + c.runDurationMs : null,
        duration: done ? c.runDurationMs : Math.max(0, c.now() - e.started_ms),
        buildNo: e.build_no,
        environmentId: env,
        totalCount: e.total,
        passedCount: done ? e.total - e.failed : 0,
        failedCount: done ? e.failed : 0,
        abortedCount: 0,
        stoppedCount: 0,
        notExecutedCount: 0,
        queuedCount: done ? 0 : e.total,
        test_run_id: e.run_id,
        app_url: `${c.urls.origin}${uiPaths.execution(e.id)}`,
      },
    };
  },
  getExecutionJunit(c) {
    const e = executionOf(c);
    if (phase(c, e) !== 'STATUS_COMPLETED') {
      throw new ServiceError(409, 'Run has not finished: poll /api/v1/execution_results/<id> until STATUS_COMPLETED');
    }
    settle(c, e);
    const plan = db.findPlanAnywhere(c.db, e.plan_id);
    const rows = e.run_id ? db.runCases(c.db, e.run_id) : [];
    const xml = renderJunit(
      plan?.title ?? `run ${e.id}`,
      rows.map((r) => ({ humanId: r.human_id, title: r.title, passed: r.status_name !== 'Failed' })),
      Math.round(c.runDurationMs / 1000),
    );
    return { body: xml, contentType: 'application/xml; charset=utf-8' };
  },
} satisfies Partial<HandlerTable>;
