import { safeInline, safeLineStart, safeMessage } from '../../safe-text.js';
import type { TestPlan } from '../../api/resources.js';
import type { ResponseOf } from '../../api/endpoints.js';
import { sendOperation } from '../../apply/send-operation.js';
import type { CompleteTestPlanOp, CreateTestPlanOp } from '../../plan/operations.js';
import { TmsyncError } from '../../errors.js';
import type { RemoteProject } from '../../model.js';
import type { TmsClient } from '../../remote/client.js';
import { looksLikeId, resolveProject } from '../../remote/resolve-project.js';
import { normalizeTimestamp, toServiceTime } from '../../remote/to-actual.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { loadTarget } from '../target.js';
import { EXIT } from '../exit-codes.js';

interface TestPlanCreateOptions extends GlobalOptions {
  title: string;
  /** @default '' */
  description?: string;
  /** ISO 8601 date/time or Unix seconds */
  start?: string;
  end?: string;
  /** label names or ids */
  label?: string[];
  args?: string[];
}

interface TestPlanRefOptions extends GlobalOptions {
  /** positional: the plan's id or human id */
  args: string[];
}

/** `tmsync test-plan create --title T`: prints the new plan's id on stdout (the plan with --json). */
export async function runTestPlanCreate(options: TestPlanCreateOptions, io: CliIo): Promise<number> {
  const start = options.start !== undefined ? parseDate(options.start, '--start') : undefined;
  const end = options.end !== undefined ? parseDate(options.end, '--end') : undefined;
  if (start !== undefined && end !== undefined && end < start) {
    throw new TmsyncError('invalid_arguments', '--end is before --start', { hint: 'swap the dates' });
  }
  const target = await loadTarget(options, io);
  try {
    const project = await resolveProject(target.client, target.projectRef);
    const labelIds = options.label?.length ? await labelIdsOf(target.client, options.label) : undefined;
    // dates in the unit the service answers in (the project's timestamps were just read)
    const unit = target.client.timestampUnit();
    const op: CreateTestPlanOp = {
      kind: 'create_test_plan',
      key: 'test_plan',
      dependsOn: [],
      title: options.title,
      description: options.description ?? '',
      ...(start !== undefined ? { startDate: toServiceTime(start, unit) } : {}),
      ...(end !== undefined ? { endDate: toServiceTime(end, unit) } : {}),
      ...(labelIds ? { labelIds } : {}),
    };
    // sent by the engine: after an ambiguous failure, its finder takes a plan with this title made since we started to be ours
    const since = Math.floor(Date.now() / 1000) - 5;
    const { item } = await sendOperation(op, { client: target.client, projectId: project.id, createdSince: since, ...(io.signal ? { signal: io.signal } : {}) });
    const plan = item as unknown as TestPlan;
    if (options.json) io.stdout(jsonOutput({ test_plan: plan }));
    else io.stdout(safeInline(plan.id));
    io.stderr(safeLineStart(`Created test plan ${safeInline(plan.human_id ?? plan.id)} "${safeInline(plan.title)}" in ${safeInline(project.name)}.`));
    return EXIT.OK;
  } finally {
    await target.close();
  }
}

/** `tmsync test-plan get ID`: the plan as a few lines (JSON with --json). */
export async function runTestPlanGet(options: TestPlanRefOptions, io: CliIo): Promise<number> {
  const ref = planRef(options);
  const target = await loadTarget(options, io);
  try {
    const project = await resolveProject(target.client, target.projectRef);
    const plan = await getPlan(target.client, project, ref, io.signal);
    if (options.json) {
      io.stdout(jsonOutput({ test_plan: plan }));
      return EXIT.OK;
    }
    const lines = [
      `${plan.human_id ?? plan.id}  ${plan.status}  ${safeInline(plan.title)}`,
      `id: ${plan.id}`,
      // the emulator's integer id for the execution interface (`run trigger --plan`, `executionId`)
      ...(typeof plan.execution_id === 'number' ? [`execution id: ${plan.execution_id}`] : []),
      ...(plan.description ? [`description: ${plan.description}`] : []),
      ...(plan.start_date ? [`start: ${isoDate(plan.start_date)}`] : []),
      ...(plan.end_date ? [`end: ${isoDate(plan.end_date)}`] : []),
      ...(plan.completed_at ? [`completed: ${isoDate(plan.completed_at)}`] : []),
    ];
    // the service's texts, each on its line (`safe-text.ts`)
    io.stdout(safeMessage(lines.join('\n')));
    return EXIT.OK;
  } finally {
    await target.close();
  }
}

/** `tmsync test-plan complete ID`: marks the plan COMPLETED; exit 1 when the service says it failed. */
export async function runTestPlanComplete(options: TestPlanRefOptions, io: CliIo): Promise<number> {
  const ref = planRef(options);
  const target = await loadTarget(options, io);
  try {
    const project = await resolveProject(target.client, target.projectRef);
    // the complete call takes the plan's id; a human id is looked up first
    const id = looksLikeId(ref) ? ref : (await getPlan(target.client, project, ref, io.signal)).id;
    const op: CompleteTestPlanOp = { kind: 'complete_test_plan', key: 'complete', dependsOn: [], plan: { id }, title: ref };
    const res = (await sendOperation(op, { client: target.client, projectId: project.id, ...(io.signal ? { signal: io.signal } : {}) })).answer as CompleteAnswer;
    if (res.status && res.status.toLowerCase() !== 'success') {
      throw new TmsyncError('complete_failed', `the service did not complete test plan ${ref}: ${res.message || res.status}`, {
        hint: 'check the plan on the service; completing may be refused from some states',
        details: { status: res.status },
      });
    }
    const done = res.data.test_plan;
    if (options.json) io.stdout(jsonOutput({ test_plan: done }));
    else io.stdout(done.id);
    io.stderr(`Completed test plan ${ref} at ${isoDate(done.completed_at)}.`);
    return EXIT.OK;
  } finally {
    await target.close();
  }
}

type CompleteAnswer = ResponseOf<'completeTestPlan'>;

function planRef(options: TestPlanRefOptions): string {
  const ref = options.args[0];
  if (!ref) throw new TmsyncError('invalid_arguments', 'give the test plan id or human id', { hint: 'e.g. tmsync test-plan get DEMO-P-1' });
  return ref;
}

async function getPlan(client: TmsClient, project: RemoteProject, ref: string, signal?: AbortSignal): Promise<TestPlan> {
  try {
    const res = await client.call('getTestPlan', { params: { project_id: project.id, test_plan_id: ref }, signal });
    return res.data.test_plan;
  } catch (err) {
    if ((err as { code?: string }).code === 'not_found') {
      throw new TmsyncError('plan_not_found', `no test plan "${ref}" in ${project.name}`, {
        hint: `use the plan's id or human id (${project.humanIdPrefix}-P-1)`,
        details: { ref },
      });
    }
    throw err;
  }
}

/** Label names (or ids) → ids, from the service's label list. */
async function labelIdsOf(client: TmsClient, refs: string[]): Promise<string[]> {
  const res = await client.call('listLabels');
  const labels = res.data.labels;
  return refs.map((ref) => {
    const hit = labels.find((l) => l.id === ref) ?? labels.find((l) => l.name === ref) ?? labels.find((l) => l.name.toLowerCase() === ref.toLowerCase());
    if (!hit) {
      throw new TmsyncError('unknown_label', `the service has no label "${ref}"`, {
        hint: `labels cannot be created through the API; existing ones: ${labels.map((l) => l.name).join(', ') || '(none)'}`,
      });
    }
    return hit.id;
  });
}

/** ISO 8601 (`2026-11-20`, `2026-11-20T10:00:00Z`) or Unix seconds → Unix seconds. */
function parseDate(value: string, flag: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return normalizeTimestamp(Number(v));
  const ms = Date.parse(v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(ms)) {
    throw new TmsyncError('invalid_date', `${flag}: \`${value}\` is not a date`, { hint: 'write an ISO 8601 date (2026-11-20 or 2026-11-20T09:00:00Z) or Unix seconds' });
  }
  return Math.floor(ms / 1000);
}

function isoDate(sec: number): string {
  return new Date(normalizeTimestamp(sec) * 1000).toISOString();
}
