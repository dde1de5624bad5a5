import { findTestPlan, findTestRun } from '../apply/reconcile.js';
import { withServiceDates } from '../remote/normalize.js';
import type { Backup, BackupTestRun } from './backup-format.js';
import { planBody, runBody, runResults } from './restore-bodies.js';
import type { RestoreRun } from './restore-run.js';
import { forEachLimit } from './streams.js';

/** Restoring test plans and test runs with their results (after the cases they refer to). */

export async function restoreTestPlan(r: RestoreRun, p: Backup['test_plans'][number]): Promise<void> {
  if (r.journal.idOf('plan', p.id) !== undefined) {
    if (!r.adoptedNow.has(`plan:${p.id}`)) r.skipped += 1;
    return;
  }
  const body = withServiceDates(planBody(p), r.o.client.timestampUnit());
  const { fresh } = await r.create(
    'plan',
    p.id,
    () => findTestPlan(r.find, p.title),
    async (reconcile) => (await r.o.client.call('createTestPlan', { params: r.params, body, reconcile, signal: r.o.signal })).data.test_plan,
  );
  if (fresh) r.created.test_plans += 1;
}

/** Completing a plan comes last: a completed plan may refuse new runs. */
export async function completeTestPlan(r: RestoreRun, p: Backup['test_plans'][number]): Promise<void> {
  if (r.journal.isDone('plan', p.id)) return;
  const id = r.newId('plan', p.id);
  const params = { ...r.params, test_plan_id: id };
  try {
    await r.o.client.call('completeTestPlan', { params, signal: r.o.signal });
  } catch (err) {
    // an earlier run may have completed it without recording so
    const plan = await r.o.client.call('getTestPlan', { params, signal: r.o.signal }).catch(() => undefined);
    if (plan?.data.test_plan.status !== 'COMPLETED') throw err;
  }
  await r.journal.done('plan', p.id, id);
}

export async function restoreTestRun(r: RestoreRun, run: BackupTestRun): Promise<void> {
  if (r.finished('run', run.id)) return;
  const body = withServiceDates(runBody(run, r.map, r.idOf, r.o.keepEnvironments ?? false), r.o.client.timestampUnit());
  const { id, fresh } = await r.create(
    'run',
    run.id,
    () => findTestRun(r.find, run.title),
    async (reconcile) => (await r.o.client.call('createTestRun', { params: r.params, body, reconcile, signal: r.o.signal })).data.test_run,
  );
  const runParams = { ...r.params, test_run_id: id };
  if (!fresh && run.status === 'CLOSED') {
    // an earlier run may have closed it already: results need it open
    await r.o.client.call('updateTestRun', { params: runParams, body: { status: 'ACTIVE' }, signal: r.o.signal });
  }
  // results and assignments are idempotent PUTs: a resumed run sends them again
  const { batches, assignOnly } = runResults(run, r.map, r.idOf, r.o.batchSize ?? 200);
  await forEachLimit(batches, 2, async (batch) => {
    await r.o.client.call('updateRunCases', { params: runParams, body: { test_run_cases: batch }, signal: r.o.signal });
  }, r.o.signal);
  await forEachLimit(assignOnly, 2, async (a) => {
    await r.o.client.call('assignRunCaseUser', { params: runParams, body: a, signal: r.o.signal });
  }, r.o.signal);
  if (run.status === 'CLOSED') {
    await r.o.client.call('updateTestRun', { params: runParams, body: { status: 'CLOSED' }, signal: r.o.signal });
  }
  await r.journal.done('run', run.id, id);
  if (fresh) r.created.test_runs += 1;
}
