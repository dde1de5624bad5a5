import { randomInt } from 'node:crypto';
import * as db from '../db/index.js';
import type { ExecutionRow } from '../db/index.js';
import type { HandlerTable, RouteContext } from '../http.js';
import type { RunOutcome } from '../emulator-options.js';
import { renderJunit } from '../service-junit.js';
import { invalidField, notFound, ServiceError } from '../service-error.js';
import { uiPaths } from '../ui/links.js';

/**
 * The execution interface. A trigger creates a test run (`<PREFIX>-R-<n>`) for the plan holding
 * the cases of the plan's earlier runs, or every case of the project when the plan has no runs yet.
 *
 * The run's course is a function of time, so tests can predict it (docs/emulator.md):
 * - it waits for the queue time (`--run-queue`, half the run duration by default), a third each in
 *   `STATUS_CREATED`, `STATUS_QUEUED` and `STATUS_PRE_FLIGHT` (result `QUEUED`), then is
 *   `STATUS_IN_PROGRESS` (result `QUEUED`) until the run duration has passed, then `STATUS_COMPLETED`;
 * - its result is chosen when it starts (see {@link chooseOutcome}) and stored, so every read agrees.
 * When a completed run is first read, its cases' statuses are written into the test run and the run is closed.
 */
type ExecutionPhase = 'STATUS_CREATED' | 'STATUS_QUEUED' | 'STATUS_PRE_FLIGHT' | 'STATUS_IN_PROGRESS' | 'STATUS_COMPLETED';


/** The result a completed run carries, per outcome (random is resolved when the run starts). */
const RESULTS = { success: 'SUCCESS', failure: 'FAILURE', aborted: 'ABORTED', stopped: 'STOPPED', 'not-executed': 'NOT_EXECUTED' } as const;
type Result = (typeof RESULTS)[keyof typeof RESULTS];

/** A plan's own choice: `outcome:aborted` (or `outcome=aborted`) in its title or description. */
const PLAN_MARKER = /\boutcome\s*[:=]\s*(success|failure|aborted|stopped|not-executed|random)\b/i;

/**
 * The result of a run of `plan`: the plan's `outcome:` marker, else `--run-outcome`, else FAILURE
 * when the plan's title contains "fail" and SUCCESS otherwise. `random` picks one of the five.
 */
function chooseOutcome(plan: { title: string; description: string | null }, option: RunOutcome | undefined): Result {
  const marked = PLAN_MARKER.exec(`${plan.title}\n${plan.description ?? ''}`)?.[1]?.toLowerCase() as RunOutcome | undefined;
  const chosen: RunOutcome = marked ?? option ?? (/fail/i.test(plan.title) ? 'failure' : 'success');
  if (chosen !== 'random') return RESULTS[chosen];
  const all = Object.values(RESULTS);
  return all[randomInt(all.length)];
}

/** How long a run stays in each state (`--run-queue`, `--run-duration`). */
interface ExecutionCourse {
  durationMs: number;
  /** the time before `STATUS_IN_PROGRESS`, split evenly into created, queued and pre-flight @default durationMs / 2 */
  queueMs?: number;
}

/** Where a run stands at `nowMs` (the web UI shows it too). */
export function executionPhase(e: ExecutionRow, nowMs: number, course: number | ExecutionCourse): ExecutionPhase {
  const { durationMs, queueMs } = typeof course === 'number' ? { durationMs: course, queueMs: undefined } : course;
  const elapsed = nowMs - e.started_ms;
  if (elapsed >= durationMs) return 'STATUS_COMPLETED';
  const queue = Math.min(durationMs, queueMs ?? durationMs / 2);
  if (elapsed >= queue) return 'STATUS_IN_PROGRESS';
  const third = elapsed / queue;
  return third < 1 / 3 ? 'STATUS_CREATED' : third < 2 / 3 ? 'STATUS_QUEUED' : 'STATUS_PRE_FLIGHT';
}

const phase = (c: RouteContext, e: ExecutionRow): ExecutionPhase =>
  executionPhase(e, c.now(), { durationMs: c.runDurationMs, queueMs: c.execution?.queueMs });

/**
 * Which cases pass and which end otherwise, in run order. FAILURE: the cases whose title contains
 * "fail" fail (the first case when none does), the others pass. ABORTED and STOPPED: the run ended
 * half-way, the first half passed and the rest did not run to the end. NOT_EXECUTED: none ran.
 */
function outcomeOfCases(cases: { id: string; title: string }[], result: string): { passed: Set<string>; failed: Set<string> } {
  const all = cases.map((x) => x.id);
  switch (result) {
    case 'FAILURE': {
      if (cases.length === 0) return { passed: new Set(), failed: new Set() };
      const named = cases.filter((x) => /fail/i.test(x.title));
      const failed = new Set((named.length > 0 ? named : cases.slice(0, 1)).map((x) => x.id));
      return { passed: new Set(all.filter((id) => !failed.has(id))), failed };
    }
    case 'ABORTED':
    case 'STOPPED':
      return { passed: new Set(all.slice(0, Math.floor(all.length / 2))), failed: new Set() };
    case 'NOT_EXECUTED':
      return { passed: new Set(), failed: new Set() };
    default:
      return { passed: new Set(all), failed: new Set() };
  }
}

/** The counts of a completed run; `failed` stores the cases that did not pass. */
function completedCounts(e: ExecutionRow) {
  const notPassed = e.failed;
  return {
    passedCount: e.total - notPassed,
    failedCount: e.result === 'FAILURE' || e.result === 'FAILED' ? notPassed : 0,
    abortedCount: e.result === 'ABORTED' ? notPassed : 0,
    stoppedCount: e.result === 'STOPPED' ? notPassed : 0,
    notExecutedCount: e.result === 'NOT_EXECUTED' ? notPassed : 0,
  };
}

const COMPLETED_MESSAGE: Record<string, string> = {
  SUCCESS: 'Run completed',
  FAILURE: 'Run completed with failures',
  ABORTED: 'Run aborted',
  STOPPED: 'Run stopped',
  NOT_EXECUTED: 'Run not executed',
};

const PHASE_MESSAGE: Record<Exclude<ExecutionPhase, 'STATUS_COMPLETED'>, string> = {
  STATUS_CREATED: 'Run created',
  STATUS_QUEUED: 'Run queued',
  STATUS_PRE_FLIGHT: 'Run preparing',
  STATUS_IN_PROGRESS: 'Run in progress',
};

function executionOf(c: RouteContext): ExecutionRow {
  const id = Number(c.params.run_id);
  const e = Number.isSafeInteger(id) && id > 0 ? db.findExecution(c.db, id) : undefined;
  if (!e) throw notFound('Run', c.params.run_id);
  return e;
}

/**
 * Writes the final case statuses of a completed run into its test run and closes the test run,
 * once (the web UI reads through it too).
 */
export function settleExecution(ctx: db.DbContext, e: ExecutionRow): void {
  if (e.settled || !e.run_id) return;
  ctx.tx(() => {
    if (!db.markSettled(ctx, e.id)) return;
    const run = db.findRun(ctx, e.project_id, e.run_id!);
    if (!run) return;
    const statuses = new Map(db.allLookups(ctx, 'run_statuses').map((l) => [l.name, l.id]));
    const cases = db.runCases(ctx, run.id).map((r) => ({ id: r.case_id, title: r.title }));
    const { passed, failed } = outcomeOfCases(cases, e.result);
    for (const x of cases) {
      // cases an aborted, stopped or unexecuted run never finished stay as they were
      const s = passed.has(x.id) ? statuses.get('Passed') : failed.has(x.id) ? statuses.get('Failed') : undefined;
      if (s) db.setRunCaseStatus(ctx, run.id, x.id, s, undefined, undefined);
    }
    // the execution is over, so is its run: closed as a PUT {"status":"CLOSED"} closes one (closed_by follows)
    if (run.status !== 'CLOSED') db.updateRun(ctx, run, { status: 'CLOSED' }, undefined);
  });
}

const settle = (c: RouteContext, e: ExecutionRow): void => settleExecution(c.db, e);

export const executionRoutes = {
  triggerExecution(c) {
    const b = c.body;
    if (c.dialect === 'live' && typeof b.executionId !== 'number') {
      // the notes see live clients send a bare JSON number; a plan's uuid or human id is the emulator's convenience
      throw invalidField('executionId', 'must be the test plan\'s execution id, a number (uuids and human ids are a convenience of the document dialect)');
    }
    const plan = db.findPlanAnywhere(c.db, b.executionId);
    if (!plan) throw invalidField('executionId', c.dialect === 'live' ? 'no test plan with this execution id' : 'no test plan with this execution id, uuid or human id');
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
      const result = chooseOutcome(plan, c.execution?.outcome);
      const titles = db.runCases(c.db, run.id).map((r) => ({ id: r.case_id, title: r.title }));
      const { passed } = outcomeOfCases(titles, result);
      const id = db.insertExecution(c.db, {
        execution_id: String(b.executionId),
        plan_id: plan.id,
        project_id: plan.project_id,
        run_id: run.id,
        environment_id: b.environmentId === undefined ? null : String(b.environmentId),
        build_no: buildNo,
        runtime_data: JSON.stringify(b.runtimeData ?? {}),
        started_ms: c.now(),
        result,
        total: caseIds.length,
        // the cases that did not pass (failed, aborted, stopped or not executed, by the result)
        failed: caseIds.length - passed.size,
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
    const counts = done ? completedCounts(e) : { passedCount: 0, failedCount: 0, abortedCount: 0, stoppedCount: 0, notExecutedCount: 0 };
    const message = done
      ? `${COMPLETED_MESSAGE[e.result] ?? 'Run completed'}: ${counts.passedCount} passed, ${e.total - counts.passedCount} not passed`
      : PHASE_MESSAGE[status];
    return {
      body: {
        id: e.id,
        executionId: /^[0-9]+$/.test(e.execution_id) ? Number(e.execution_id) : e.execution_id,
        status,
        result: done ? e.result : 'QUEUED',
        message,
        startTime: e.started_ms,
        endTime: done ? e.started_ms + c.runDurationMs : null,
        duration: done ? c.runDurationMs : Math.max(0, c.now() - e.started_ms),
        buildNo: e.build_no,
        environmentId: env,
        totalCount: e.total,
        ...counts,
        queuedCount: done ? 0 : e.total,
        // emulator extension (the test run the execution wrote into): not in the live answer
        ...(c.dialect === 'live' ? {} : { test_run_id: e.run_id }),
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
      rows.map((r) => ({ humanId: r.human_id, title: r.title, passed: r.status_name === 'Passed' })),
      Math.round(c.runDurationMs / 1000),
    );
    return { body: xml, contentType: 'application/xml; charset=utf-8' };
  },
} satisfies Partial<HandlerTable>;
