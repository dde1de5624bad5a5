import * as db from '../db/index.js';
import type { PlanFields, PlanRow } from '../db/index.js';
import { listPage, ok, projectOf, type HandlerTable, type RouteContext } from '../http.js';
import { RefChecker } from '../refs.js';
import { notFound } from '../service-error.js';
import { uiPaths } from '../ui/links.js';
import { itemWebUrl } from '../web-url.js';
import { runWire } from './test-runs.js';

/** `label_ids` only where the document shows it (create) and on update (our choice). */
function planWire(c: RouteContext, p: PlanRow, labels: boolean) {
  return {
    id: p.id,
    // emulator extension: the integer the execution interface's `executionId` takes; the live service
    // shows no such field (its execution ids come from its UI), so the live dialect leaves it out
    ...(c.dialect === 'live' ? {} : { execution_id: p.execution_id }),
    human_id: p.human_id,
    title: p.title,
    description: p.description,
    status: p.status,
    start_date: p.start_date,
    end_date: p.end_date,
    ...(labels ? { label_ids: p.label_ids } : {}),
    project_id: p.project_id,
    created_at: p.created_at,
    updated_at: p.updated_at,
    ...(p.completed_at !== null ? { completed_at: p.completed_at } : {}),
    ...itemWebUrl(c, p.project_id, (prefix) => uiPaths.testPlan(prefix, p.human_id)),
  };
}

function planOf(c: RouteContext): PlanRow {
  const project = projectOf(c);
  const p = db.findPlan(c.db, project.id, c.params.test_plan_id);
  if (!p) throw notFound('Test plan', c.params.test_plan_id);
  return p;
}

export const testPlanRoutes = {
  listTestPlans(c) {
    const project = projectOf(c);
    return listPage(c, 'test_plans', (p) => db.listPlans(c.db, project.id, {}, p), (x) => planWire(c, x, false));
  },
  getTestPlan(c) {
    return ok('test_plan', planWire(c, planOf(c), false));
  },
  createTestPlan(c) {
    const project = projectOf(c);
    const b = c.body;
    new RefChecker(c.db, project.id).labels('label_ids', b.label_ids).check();
    const plan = db.insertPlan(c.db, project.id, project.human_id_prefix, {
      title: b.title,
      description: b.description ?? '',
      start_date: b.start_date ?? null,
      end_date: b.end_date ?? null,
      label_ids: b.label_ids ?? [],
    });
    return ok('test_plan', planWire(c, plan, true));
  },
  updateTestPlan(c) {
    const current = planOf(c);
    const b = c.body;
    new RefChecker(c.db, current.project_id).labels('label_ids', b.label_ids).check();
    const patch: Partial<PlanFields> = {};
    if (b.title !== undefined) patch.title = b.title;
    if (b.description !== undefined) patch.description = b.description ?? '';
    if (b.start_date !== undefined) patch.start_date = b.start_date;
    if (b.end_date !== undefined) patch.end_date = b.end_date;
    if (b.label_ids !== undefined) patch.label_ids = b.label_ids;
    return ok('test_plan', planWire(c, db.updatePlan(c.db, current, patch), true));
  },
  completeTestPlan(c) {
    const p = db.completePlan(c.db, planOf(c));
    return { body: { status: 'success', message: 'Test plan completed', data: { test_plan: planWire(c, p, false) } } };
  },
  deleteTestPlan(c) {
    db.deletePlan(c.db, planOf(c).id);
    return { body: { message: 'Test plan deleted' } };
  },
  listTestPlanRuns(c) {
    const plan = planOf(c);
    return listPage(c, 'test_runs', (p) => db.listRuns(c.db, plan.project_id, { planId: plan.id }, p), (r) => runWire(c, r));
  },
} satisfies Partial<HandlerTable>;
