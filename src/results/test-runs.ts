import type { TestRun } from '../api/resources.js';
import { runStatusRequest } from '../apply/operation-requests.js';
import { sendOperation } from '../apply/send-operation.js';
import type { CreateTestRunOp } from '../plan/operations.js';
import { TmsyncError } from '../errors.js';
import { ApiError } from '../remote/api-error.js';
import type { TmsClient } from '../remote/client.js';
import { webLink } from '../remote/web-link.js';

/**
 * The test-run requests `results push` and `tmsync test-run create|close` share: find a run, list
 * its cases, create one (STATIC, through the engine's operation), add cases to it, close it. Never
 * prints.
 */

/** A case as a run (or a lookup) names it. */
export interface RunCase {
  id: string;
  humanId?: string;
  title?: string;
}

/**
 * Where a run was made: the CI pipeline, commit and branch, written into a new run's description.
 * The CLI reads them from the CI's environment (GitHub Actions, GitLab CI); the library takes them.
 */
export interface RunMetadata {
  pipelineUrl?: string;
  commit?: string;
  branch?: string;
}

/** The description lines of a run's CI metadata (empty when there is none). */
export function describeRunMetadata(meta: RunMetadata | undefined): string {
  if (!meta) return '';
  const lines = [
    ...(meta.pipelineUrl ? [`Pipeline: ${meta.pipelineUrl}`] : []),
    ...(meta.commit ? [`Commit: ${meta.commit}`] : []),
    ...(meta.branch ? [`Branch: ${meta.branch}`] : []),
  ];
  return lines.join('\n');
}

/** `{ url }` when the run's answer links to its page in the service's web UI, else nothing. */
export function linkOf(run: TestRun): { url?: string } {
  const url = webLink(run);
  return url ? { url } : {};
}

/** `--environment 3` is the numeric id the service uses; anything else is sent as given. */
export function environmentId(value: string): string | number {
  return /^[0-9]+$/.test(value.trim()) ? Number(value.trim()) : value.trim();
}

/** A test plan of the project by id or human id (`DEMO-P-2`) → its id. */
export async function resolveTestPlan(client: TmsClient, projectId: string, ref: string, signal?: AbortSignal): Promise<string> {
  try {
    const res = await client.call('getTestPlan', { params: { project_id: projectId, test_plan_id: ref.trim() }, signal });
    return res.data.test_plan.id;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') {
      throw new TmsyncError('test_plan_not_found', `no test plan "${ref}" in the project; no run was created`, {
        hint: 'pass a test plan id or human id (e.g. DEMO-P-2); `tmsync test-plan create` makes one',
        details: { ref },
      });
    }
    throw err;
  }
}

export async function getRun(client: TmsClient, projectId: string, ref: string, signal?: AbortSignal): Promise<TestRun> {
  try {
    const res = await client.call('getTestRun', { params: { project_id: projectId, test_run_id: ref }, signal });
    return res.data.test_run;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') {
      throw new TmsyncError('run_not_found', `no test run "${ref}" in the project`, {
        hint: 'pass a run id or human id (e.g. DEMO-R-3), or --new-run TITLE to create one',
        details: { ref },
      });
    }
    throw err;
  }
}

/**
 * The cases of a run, from either shape of the list (the client turns the live
 * `test_run_cases[]` with an embedded `test_case` into the document's `test_cases[]`).
 */
export async function listRunCases(client: TmsClient, projectId: string, runId: string, signal?: AbortSignal): Promise<RunCase[]> {
  const res = await client.call('listRunCases', { params: { project_id: projectId, test_run_id: runId }, signal });
  return res.data.test_cases.map((item) => ({
    id: item.id,
    humanId: typeof item.human_id === 'string' ? item.human_id : undefined,
    title: item.name,
  }));
}

/**
 * A STATIC run holding the cases, sent by the engine (`apply/send-operation.ts`): after an
 * ambiguous failure, its finder takes a run with this exact title created since we started to be
 * ours, and the create is not repeated.
 */
export async function createRun(
  client: TmsClient,
  projectId: string,
  title: string,
  caseIds: string[],
  signal: AbortSignal | undefined,
  links: Pick<CreateTestRunOp, 'plan' | 'environmentIds' | 'description'>,
): Promise<TestRun> {
  const createdSince = Math.floor(Date.now() / 1000) - 5;
  const op: CreateTestRunOp = {
    kind: 'create_test_run',
    key: 'test_run',
    dependsOn: [],
    title,
    cases: caseIds.map((id) => ({ id })),
    results: [],
    batchSize: 100,
    close: false,
    ...links,
  };
  const { item } = await sendOperation(op, { client, projectId, createdSince, ...(signal ? { signal } : {}) });
  return item as unknown as TestRun;
}

/** A sparse update of one run (`PUT …/test_runs/:id` with only the fields changed, as the live service needs). */
async function updateRun(client: TmsClient, projectId: string, runId: string, body: Record<string, unknown>, signal?: AbortSignal): Promise<TestRun> {
  const res = await client.call('updateTestRun', { params: { project_id: projectId, test_run_id: runId }, body, signal });
  return res.data.test_run;
}

/** The run's description replaced (sparse: nothing else is sent). */
export function setRunDescription(client: TmsClient, projectId: string, runId: string, description: string, signal?: AbortSignal): Promise<TestRun> {
  return updateRun(client, projectId, runId, { description }, signal);
}

/**
 * Cases added to a STATIC run: its selection sent again, sparse, as `id IN` every case it holds and
 * the new ones (the one filter seen working live; the emulator keeps the results of the cases that
 * stay). Read back: the ids the run holds afterwards.
 */
export async function addCasesToRun(
  client: TmsClient,
  projectId: string,
  runId: string,
  held: readonly string[],
  added: readonly string[],
  signal?: AbortSignal,
): Promise<Set<string>> {
  const values = [...new Set([...held, ...added])];
  await updateRun(client, projectId, runId, { static_selection_filters: [{ field: 'id', operator: 'IN', values }] }, signal);
  return new Set((await listRunCases(client, projectId, runId, signal)).map((c) => c.id));
}

/** The run closed: the sparse `{"status":"CLOSED"}` the notes show (an echoed GET would be refused). */
export function closeRun(client: TmsClient, projectId: string, runId: string, signal?: AbortSignal): Promise<TestRun> {
  return updateRun(client, projectId, runId, runStatusRequest({ project_id: projectId, test_run_id: runId }, 'CLOSED').body as Record<string, unknown>, signal);
}
