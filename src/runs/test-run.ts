import { TmsyncError } from '../errors.js';
import type { RemoteProject } from '../model.js';
import type { TmsClient } from '../remote/client.js';
import { flattenFolders } from '../remote/fetch-state.js';
import { reportedLabelIds } from '../remote/to-actual.js';
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

/** The run closed (sparse `{"status":"CLOSED"}`); a run already closed is left as it is. */
export async function closeTestRun(options: { client: TmsClient; project: RemoteProject; ref: string; signal?: AbortSignal }): Promise<{ id: string; humanId?: string; title: string; url?: string; alreadyClosed: boolean }> {
  const { client, project, signal } = options;
  const run = await getRun(client, project.id, options.ref.trim(), signal);
  const base = { id: run.id, ...(run.human_id ? { humanId: run.human_id } : {}), title: run.title, ...linkOf(run) };
  if (run.status.toUpperCase() === 'CLOSED') return { ...base, alreadyClosed: true };
  await closeRun(client, project.id, run.id, signal);
  return { ...base, alreadyClosed: false };
}
