import type { LookupEntry } from '../api/resources.js';
import { TmsyncError } from '../errors.js';
import type { RemoteProject } from '../model.js';
import type { TmsClient } from '../remote/client.js';
import { getRun, resolveTestPlan } from '../results/test-runs.js';

/**
 * The cases a test run holds, or a test plan's selection, read from the service for `tmsync run
 * cases`. The service resolves a run's selection itself (a DYNAMIC run's filters, a STATIC run's
 * list) and lists the result as the run's cases; a test plan holds no cases of its own, only runs
 * linked to it (`test_plan_id`), so its selection is the cases of its runs, each once, in the order
 * first listed. `statuses` narrows to the cases whose run status is one of them (a case of several
 * runs counts when any of its rows is).
 */

export interface RunSelectionOptions {
  client: TmsClient;
  project: RemoteProject;
  /** exactly one of testRun and testPlan: an id or a human id */
  testRun?: string;
  testPlan?: string;
  /** run status names or aliases (`untested`, `Failed`), resolved through the run statuses lookup */
  statuses?: readonly string[];
  signal?: AbortSignal;
}

export interface SelectedRunCase {
  id: string;
  humanId?: string;
  title: string;
  /** the run status, as a word (`PASSED`, `UNTESTED`) */
  status: string;
}

export interface RunSelection {
  /** what was read: the run, or the plan and its runs */
  source: { kind: 'test_run' | 'test_plan'; id: string; humanId?: string; title?: string; runs: { id: string; humanId?: string; title: string }[] };
  /** the statuses `--status` resolved to (names), when given */
  statuses?: string[];
  cases: SelectedRunCase[];
  /** cases left out because they have no human id a test name can carry */
  withoutHumanId: number;
}

/** Names and status words compared as one: case, spaces and punctuation aside (`In Progress` = `IN_PROGRESS`). */
const fold = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** `--status` names → the lookup entries they name (by name, then alias, then id); an unknown one fails naming the choices. */
export function resolveStatusFilter(entries: readonly LookupEntry[], wanted: readonly string[]): LookupEntry[] {
  const out: LookupEntry[] = [];
  for (const w of wanted) {
    const f = fold(w);
    const hit = entries.find((e) => fold(e.name) === f) ?? entries.find((e) => e.alias && fold(e.alias) === f) ?? entries.find((e) => e.id === w);
    if (!hit) {
      throw new TmsyncError('unknown_run_status', `the service has no run status "${w}"`, {
        hint: `--status takes run status names, comma-separated: ${entries.map((e) => e.name).join(', ')}`,
        details: { wanted: w, available: entries.map((e) => e.name) },
      });
    }
    if (!out.includes(hit)) out.push(hit);
  }
  return out;
}

/** Whether a run case's status is one of `entries`: by status id where the list gives one, else by its word. */
function statusMatcher(entries: readonly LookupEntry[]): (row: { status: string; status_id?: unknown }) => boolean {
  const ids = new Set(entries.map((e) => e.id));
  const words = new Set(entries.flatMap((e) => [fold(e.name), ...(e.alias ? [fold(e.alias)] : [])]));
  return (row) => (typeof row.status_id === 'string' && ids.has(row.status_id)) || words.has(fold(row.status || 'untested'));
}

export async function readRunSelection(options: RunSelectionOptions): Promise<RunSelection> {
  const { client, project, signal } = options;
  if ((options.testRun === undefined) === (options.testPlan === undefined)) {
    throw new TmsyncError('invalid_arguments', 'give exactly one of --test-run and --test-plan', {
      hint: 'tmsync run cases --test-run DEMO-R-3 --format grep, or --test-plan DEMO-P-2',
    });
  }
  let matches: ((row: { status: string; status_id?: unknown }) => boolean) | undefined;
  let statusNames: string[] | undefined;
  if (options.statuses && options.statuses.length > 0) {
    const entries: LookupEntry[] = [];
    for await (const s of client.paginate('listRunStatuses', { signal })) entries.push(s);
    const chosen = resolveStatusFilter(entries, options.statuses);
    matches = statusMatcher(chosen);
    statusNames = chosen.map((e) => e.name);
  }
  const source = await sourceOf(options);
  const byId = new Map<string, SelectedRunCase>();
  for (const run of source.runs) {
    const res = await client.call('listRunCases', { params: { project_id: project.id, test_run_id: run.id }, signal });
    for (const item of res.data.test_cases) {
      if (byId.has(item.id) || (matches && !matches(item))) continue;
      const humanId = typeof item.human_id === 'string' && item.human_id !== '' ? item.human_id : undefined;
      byId.set(item.id, { id: item.id, ...(humanId ? { humanId } : {}), title: item.name, status: (item.status || 'UNTESTED').toUpperCase() });
    }
  }
  const cases = [...byId.values()];
  await fillHumanIds(client, project.id, cases, signal);
  return { source, ...(statusNames ? { statuses: statusNames } : {}), cases, withoutHumanId: cases.filter((c) => c.humanId === undefined).length };
}

async function sourceOf(options: RunSelectionOptions): Promise<RunSelection['source']> {
  const { client, project, signal } = options;
  if (options.testRun !== undefined) {
    const run = await getRun(client, project.id, options.testRun.trim(), signal);
    const one = { id: run.id, ...(run.human_id ? { humanId: run.human_id } : {}), title: run.title };
    return { kind: 'test_run', ...one, runs: [one] };
  }
  const planId = await resolveTestPlan(client, project.id, options.testPlan!, signal);
  const plan = (await client.call('getTestPlan', { params: { project_id: project.id, test_plan_id: planId }, signal })).data.test_plan;
  const runs: RunSelection['source']['runs'] = [];
  for await (const r of client.paginate('listTestPlanRuns', { params: { project_id: project.id, test_plan_id: planId }, signal })) {
    runs.push({ id: r.id, ...(r.human_id ? { humanId: r.human_id } : {}), title: r.title });
  }
  return { kind: 'test_plan', id: plan.id, ...(plan.human_id ? { humanId: plan.human_id } : {}), title: plan.title, runs };
}

/**
 * The interface document's run-case list carries no human id (the live one embeds the case): the
 * project's case list fills them in, read only when one is missing.
 */
async function fillHumanIds(client: TmsClient, projectId: string, cases: SelectedRunCase[], signal?: AbortSignal): Promise<void> {
  const missing = new Map(cases.filter((c) => c.humanId === undefined).map((c) => [c.id, c]));
  if (missing.size === 0) return;
  for await (const c of client.paginate('listTestCases', { params: { project_id: projectId }, signal })) {
    const hit = missing.get(c.id);
    if (hit && c.human_id) hit.humanId = c.human_id;
  }
}
