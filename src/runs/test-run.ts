import { TmsyncError } from '../errors.js';
import type { RemoteProject } from '../model.js';
import type { TmsClient } from '../remote/client.js';
import { flattenFolders } from '../remote/fetch-state.js';
import { reportedLabelIds } from '../remote/to-actual.js';
import { runResultRequests } from '../apply/operation-requests.js';
import { sendRequest } from '../apply/send-operation.js';
import type { CreateTestRunOp, Ref } from '../plan/operations.js';
import type { LookupEntry } from '../api/resources.js';
import { resolveRunStatuses } from '../results/map-results.js';
import type { Outcome } from '../results/record.js';
import { readLedger, severity } from '../results/shard-ledger.js';
import {
  closeRun,
  createRun,
  describeRunMetadata,
  environmentId,
  getRun,
  linkOf,
  resolveTestPlan,
  type RunMetadata,
} from '../results/test-runs.js';

/**
 * `tmsync test-run create|close`: one run that several CI shards push their results into
 * (`results push --test-run`). Never prints.
 */

export interface CreateTestRunOptions {
  client: TmsClient;
  project: RemoteProject;
  title: string;
  /** a test plan the run belongs to (id or human id) */
  testPlan?: string;
  /** environment ids the run covers (numeric ones sent as numbers) */
  environments?: string[];
  /**
   * The cases the run holds: `all` (every case of the project), `label:NAME` (the cases with that
   * label), or a folder path (`Checkout/Payment`: the folder and its subfolders) @default 'all'
   */
  cases?: string;
  /** where the run was made (CI pipeline, commit, branch): written into its description */
  metadata?: RunMetadata;
  signal?: AbortSignal;
}

export interface CreatedTestRun {
  id: string;
  humanId?: string;
  title: string;
  description: string;
  /** its page in the service's web UI, when the answer gave one */
  url?: string;
  /** how many cases the selection chose */
  cases: number;
  /** the selection as given (`all` when none was) */
  selection: string;
}

type Selection = { kind: 'all' } | { kind: 'label'; name: string } | { kind: 'folder'; path: string[] };

/** `all`, `label:NAME` or a folder path; anything else is a folder path. */
export function parseSelection(value: string | undefined): Selection {
  const v = (value ?? 'all').trim();
  if (v === '' || v.toLowerCase() === 'all') return { kind: 'all' };
  if (/^label:/i.test(v)) {
    const name = v.slice('label:'.length).trim();
    if (name === '') throw new TmsyncError('invalid_arguments', '--cases label: names no label', { hint: 'write --cases label:smoke' });
    return { kind: 'label', name };
  }
  const path = v.split('/').map((p) => p.trim()).filter((p) => p !== '');
  return path.length > 0 ? { kind: 'folder', path } : { kind: 'all' };
}

/** A STATIC run holding the selected cases, with the CI metadata in its description. */
export async function createTestRun(options: CreateTestRunOptions): Promise<CreatedTestRun> {
  const { client, project, signal } = options;
  if (options.title.trim() === '') throw new TmsyncError('invalid_arguments', '--title is empty', { hint: 'e.g. --title "CI build 812"' });
  const selection = parseSelection(options.cases);
  // the plan first: a typo fails before the project's cases are read
  const testPlanId = options.testPlan !== undefined ? await resolveTestPlan(client, project.id, options.testPlan, signal) : undefined;
  const caseIds = await selectCases(client, project, selection, signal);
  if (caseIds.length === 0) {
    throw new TmsyncError('nothing_selected', `--cases ${options.cases ?? 'all'} selects no case of ${project.name}; no run was created`, {
      hint: 'choose a folder or label that holds cases, or --cases all',
    });
  }
  const description = describeRunMetadata(options.metadata);
  const run = await createRun(client, project.id, options.title, caseIds, signal, {
    ...(testPlanId !== undefined ? { plan: { id: testPlanId } } : {}),
    ...((options.environments ?? []).length > 0 ? { environmentIds: options.environments!.map(environmentId) } : {}),
    ...(description !== '' ? { description } : {}),
  });
  return {
    id: run.id,
    ...(run.human_id ? { humanId: run.human_id } : {}),
    title: run.title,
    description: run.description ?? description,
    ...linkOf(run),
    cases: caseIds.length,
    selection: options.cases ?? 'all',
  };
}

/** The case ids a selection chooses, read from the project's case list (and its folders or labels). */
async function selectCases(client: TmsClient, project: RemoteProject, selection: Selection, signal?: AbortSignal): Promise<string[]> {
  const keep = await selectionTest(client, project, selection, signal);
  const ids: string[] = [];
  for await (const c of client.paginate('listTestCases', { params: { project_id: project.id }, signal })) if (keep(c)) ids.push(c.id);
  return ids;
}

type CaseTest = (c: { folder_id?: string | null; label_ids?: readonly string[] | null; labels?: unknown }) => boolean;

async function selectionTest(client: TmsClient, project: RemoteProject, selection: Selection, signal?: AbortSignal): Promise<CaseTest> {
  switch (selection.kind) {
    case 'all':
      return () => true;
    case 'label': {
      const labels = (await client.call('listLabels', { signal })).data.labels;
      const label = labels.find((l) => l.name === selection.name) ?? labels.find((l) => l.name.toLowerCase() === selection.name.toLowerCase());
      if (!label) {
        throw new TmsyncError('unknown_label', `the service has no label "${selection.name}"; no run was created`, {
          hint: `existing labels: ${labels.map((l) => l.name).join(', ') || '(none)'}`,
        });
      }
      return (c) => {
        const ids = reportedLabelIds(c);
        if (ids === undefined) {
          throw new TmsyncError('labels_unreadable', "the service's case list does not say which labels the cases have, so --cases label: cannot select; no run was created", {
            hint: 'select by folder (--cases Checkout/Payment) or --cases all',
          });
        }
        return ids.includes(label.id);
      };
    }
    case 'folder': {
      const inside = await folderSubtree(client, project, selection.path, signal);
      return (c) => typeof c.folder_id === 'string' && inside.has(c.folder_id);
    }
  }
}

/** The ids of the folder at this path (names, case-sensitive first) and of every folder below it. */
async function folderSubtree(client: TmsClient, project: RemoteProject, path: string[], signal?: AbortSignal): Promise<Set<string>> {
  const wire = [];
  for await (const f of client.paginate('listFolders', { params: { project_id: project.id }, signal })) wire.push(f);
  const folders = flattenFolders(wire);
  const childrenOf = (parent: string | undefined) => folders.filter((f) => (f.parent_folder_id || undefined) === parent);
  let parent: string | undefined;
  for (const [i, name] of path.entries()) {
    const level = childrenOf(parent);
    const hit = level.find((f) => f.name === name) ?? level.find((f) => f.name.toLowerCase() === name.toLowerCase());
    if (!hit) {
      throw new TmsyncError('folder_not_found', `${project.name} has no folder ${path.slice(0, i + 1).join('/')}; no run was created`, {
        hint: `folders there: ${level.map((f) => f.name).join(', ') || '(none)'}; or --cases label:NAME, --cases all`,
      });
    }
    parent = hit.id;
  }
  const inside = new Set<string>();
  const walk = (id: string) => {
    inside.add(id);
    for (const f of childrenOf(id)) if (!inside.has(f.id)) walk(f.id);
  };
  walk(parent!);
  return inside;
}

export interface ClosedTestRun {
  id: string;
  humanId?: string;
  title: string;
  url?: string;
  alreadyClosed: boolean;
  /** rows set to the worst outcome the shards' record holds, before closing (a push that raced another wrote a better one) */
  repaired: { caseId: string; humanId?: string; outcome: Outcome; shards: string[] }[];
}

/**
 * The run closed (sparse `{"status":"CLOSED"}`); a run already closed is left as it is. First, when
 * shards pushed into it, every row whose status is a better outcome than the worst the shards'
 * record holds for its case (two shards that pushed at the same instant) is set to that worst.
 */
export async function closeTestRun(options: { client: TmsClient; project: RemoteProject; ref: string; signal?: AbortSignal }): Promise<ClosedTestRun> {
  const { client, project, signal } = options;
  const run = await getRun(client, project.id, options.ref.trim(), signal);
  const base = { id: run.id, ...(run.human_id ? { humanId: run.human_id } : {}), title: run.title, ...linkOf(run) };
  if (run.status.toUpperCase() === 'CLOSED') return { ...base, alreadyClosed: true, repaired: [] };
  const repaired = await repairRows(client, project.id, run.id, run.description ?? '', signal);
  await closeRun(client, project.id, run.id, signal);
  return { ...base, alreadyClosed: false, repaired };
}

/** The worst outcome over every shard of the record, per case, and the shards it came from. */
function worstPerCase(description: string): Map<string, { outcome: Outcome; shards: string[] }> {
  const out = new Map<string, { outcome: Outcome; shards: string[] }>();
  for (const [shard, entry] of Object.entries(readLedger(description).ledger.shards)) {
    for (const [outcome, ids] of Object.entries(entry) as [Outcome, string[]][]) {
      for (const id of ids) {
        const seen = out.get(id);
        if (!seen || severity(outcome) > severity(seen.outcome)) out.set(id, { outcome, shards: [shard] });
        else if (seen.outcome === outcome) seen.shards.push(shard);
      }
    }
  }
  return out;
}

/**
 * The rows whose status is the default status of a better outcome than the record's worst, set to
 * the worst's default status (rows with another status, a person's or a --status-map's, are left).
 */
async function repairRows(client: TmsClient, projectId: string, runId: string, description: string, signal?: AbortSignal): Promise<ClosedTestRun['repaired']> {
  const worst = worstPerCase(description);
  if (worst.size === 0) return [];
  const statuses: LookupEntry[] = [];
  for await (const s of client.paginate('listRunStatuses', { signal })) statuses.push(s);
  let choice: ReturnType<typeof resolveRunStatuses>;
  try {
    choice = resolveRunStatuses(statuses);
  } catch {
    // a service without the default status names: nothing to compare rows with; closing goes on
    return [];
  }
  const word = (name: string | null | undefined) => (name ?? '').toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  // outcomes may share a status (error and failed both Failed): a status stands for the worst of them
  const outcomeOf = new Map<string, Outcome>();
  for (const [o, st] of Object.entries(choice) as [Outcome, { name: string }][]) {
    const had = outcomeOf.get(word(st.name));
    if (had === undefined || severity(o) > severity(had)) outcomeOf.set(word(st.name), o);
  }
  const rows = (await client.call('listRunCases', { params: { project_id: projectId, test_run_id: runId }, signal })).data.test_cases;
  const repaired: ClosedTestRun['repaired'] = [];
  for (const row of rows) {
    const want = worst.get(row.id);
    const now = outcomeOf.get(word(row.status));
    if (!want || now === undefined || severity(now) >= severity(want.outcome) || word(choice[want.outcome].name) === word(row.status)) continue;
    repaired.push({ caseId: row.id, ...(typeof row.human_id === 'string' ? { humanId: row.human_id } : {}), outcome: want.outcome, shards: want.shards });
  }
  if (repaired.length === 0) return [];
  const results = repaired.map((r) => ({
    case: { id: r.caseId },
    statusId: choice[r.outcome].id,
    description: `${r.outcome} in shard ${r.shards.join(', ')}: set by test-run close, the worst outcome over the run's shards.`,
  }));
  const op: CreateTestRunOp = { kind: 'create_test_run', key: 'test_run', dependsOn: [], title: runId, cases: [], results, batchSize: 100, close: false };
  const byId = (ref: Ref) => ('id' in ref ? ref.id : '');
  for (const req of runResultRequests(results, 100, byId, { project_id: projectId, test_run_id: runId })) {
    await sendRequest(op, req, { client, projectId, ...(signal ? { signal } : {}) });
  }
  return repaired;
}
