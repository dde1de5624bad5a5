import { setMaxListeners } from 'node:events';
import type { LookupListName } from '../api/endpoints.js';
import type { FolderWire, StepGroup, TestCase, TestPlan } from '../api/resources.js';
import { ApiError } from './api-error.js';
import type { ActualState, RemoteCase, RemoteFolder, RemoteProject } from '../model.js';
import { answersQuery, type CaseQuery } from '../case-query.js';
import { scopeMatcher } from '../scope.js';
import type { CallRequest, TmsClient } from './client.js';
import {
  toLabel,
  toLookup,
  reportedLabelIds,
  toRemoteCase,
  toRemoteFolder,
  toRemoteStepGroup,
  toRemoteTestPlan,
  toUser,
} from './to-actual.js';
import { looksLikeId, resolveProject } from './resolve-project.js';
import { textSharer } from '../text-sharer.js';
import type { ReadCache } from './read-cache.js';

interface FetchStateOptions {
  /**
   * only these folder subtrees (paths of names joined by `/`; a top-level name is a path of one),
   * plus the folders above them (without their cases); undefined = the whole project
   */
  scope?: string[];
  /** keep only the cases this returns true for (applied after the scope) */
  caseFilter?: (c: RemoteCase) => boolean;
  /** stops every outstanding read */
  signal?: AbortSignal;
  /**
   * per-item reads of the last run: a step group GET, or a case GET for a missing human id, is
   * skipped when the list shows the same `updated_at` as the cached copy; fills it for the next run
   */
  cache?: ReadCache;
  /**
   * `tmsync plan --changed-since`: read only some cases. The folder tree and the step group list
   * are read whole; then `caseQueries(folders)` names the cases to read (see `CaseQuery`), and only
   * the step groups `readStepGroup` accepts are read with their steps (the others keep the cached
   * copy when it is current, else the list's, without steps). Test plans and run statuses, which
   * the plan does not use, are not read (empty in the result).
   */
  changed?: {
    caseQueries: (folders: readonly RemoteFolder[]) => CaseQuery[] | Promise<CaseQuery[]>;
    readStepGroup: (group: StepGroup) => boolean | Promise<boolean>;
  };
  /**
   * Called on each listed case as it is read, before it is frozen, to replace texts by equal
   * strings the caller already holds (`repositoryTexts`: the repository's, so a plan does not hold
   * every text twice). It must change nothing but which string holds an equal text.
   */
  reuseTexts?: (c: RemoteCase) => void;
  /**
   * Called while the reads go on, for a caller that works on the state as it arrives (`pull`
   * renders and stages files during the reads): `context` once, as soon as everything but the
   * cases is read (`cases` empty, `labelsReadable` true until a case says otherwise), then `cases`
   * with each page's cases as read (before the scope and `caseFilter` are applied). The result
   * holds the very objects given here (folders, step groups, lookups, users, labels and cases), so
   * a caller can tell by identity that what it computed is from the same data.
   */
  onRead?: {
    context(state: ActualState): void;
    cases(cases: readonly RemoteCase[]): void;
  };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Deep-freezes plain data (the state is shared by plan, apply and pull; nobody may edit it). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Lists give folders flat; some answers nest `children`: flatten both, each folder once. */
export function flattenFolders(list: FolderWire[]): FolderWire[] {
  const byId = new Map<string, FolderWire>();
  const visit = (f: FolderWire, parent: string | null) => {
    if (byId.has(f.id)) return;
    const parentId = f.parent_folder_id ? f.parent_folder_id : parent;
    byId.set(f.id, { ...f, parent_folder_id: parentId, children: [] });
    for (const c of f.children ?? []) visit(c, f.id);
  };
  for (const f of list) visit(f, null);
  return [...byId.values()];
}

/**
 * Which folders `scope` lets through: `inside` the ids of the scoped subtrees, `ancestors` the ids
 * of the folders above a path scope (kept so the plan can place the subtree, never managed).
 * A folder whose parent is missing from the list counts as top-level.
 */
export function scopedFolderIds(folders: readonly RemoteFolder[], scope: readonly string[]): { inside: Set<string>; ancestors: Set<string> } {
  const byId = new Map(folders.map((f) => [f.id, f]));
  const relation = scopeMatcher(scope);
  const pathOf = (f: RemoteFolder): string[] => {
    const names: string[] = [];
    const seen = new Set<string>();
    // a corrupt tree with a cycle must not hang the read
    for (let cur: RemoteFolder | undefined = f; cur && !seen.has(cur.id); cur = cur.parentId ? byId.get(cur.parentId) : undefined) {
      seen.add(cur.id);
      names.unshift(cur.name);
    }
    return names;
  };
  const inside = new Set<string>();
  const ancestors = new Set<string>();
  for (const f of folders) {
    const r = relation(pathOf(f));
    if (r === 'inside') inside.add(f.id);
    else if (r === 'ancestor') ancestors.add(f.id);
  }
  return { inside, ancestors };
}

/** What the reads of one `fetchState` share: the stop on the first failure, the options, one copy of each repeated text. */
interface Reads {
  client: TmsClient;
  options: FetchStateOptions;
  /** a request that stops with the others */
  req: (r?: CallRequest) => CallRequest;
  /** marks a read handled at once and stops the others on its failure (see `startReads`) */
  guard: <T>(p: Promise<T>) => Promise<T>;
  /** one copy of each repeated short text across all pages (see `textSharer`) */
  share: (s: string) => string;
}

/** The reads' shared stop: the first failure aborts every outstanding request. */
function startReads(client: TmsClient, options: FetchStateOptions): Reads {
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // every outstanding request listens to it: thousands of listeners are expected, not a leak
  setMaxListeners(0, signal);
  // every promise is marked handled at once: a failure while later pages are still being read
  // must not become an unhandled rejection before Promise.all gets to it
  const guard = <T>(p: Promise<T>): Promise<T> => {
    const g = p.catch((err) => {
      stop.abort(err);
      throw err;
    });
    g.catch(() => undefined);
    return g;
  };
  return { client, options, req: (r: CallRequest = {}) => ({ ...r, signal }), guard, share: textSharer() };
}

type ProjectParams = { project_id: string };

/**
 * A list item in the model (with its human id from the list, the cache, or a GET started at
 * once), converted as its page arrives: only the compact form is held while the other pages
 * are read, not the page's wire objects.
 */
function readCase(reads: Reads, params: ProjectParams, c: TestCase): RemoteCase | Promise<RemoteCase> {
  const { client, options, req, guard, share } = reads;
  const cache = options.cache;
  // frozen as it arrives: the state's freeze at the end has only the lists left to do
  const settle = (rc: RemoteCase): RemoteCase => {
    options.reuseTexts?.(rc);
    return deepFreeze(rc);
  };
  if (c.human_id) return settle(toRemoteCase(c, share));
  const cached = cache?.caseHumanId(c.id, c.updated_at);
  if (cached) return settle(toRemoteCase({ ...c, human_id: cached }, share));
  return guard(
    client.call('getTestCase', req({ params: { ...params, test_case_id: c.id } })).then((r) => {
      const got = r.data.test_case;
      cache?.putCaseHumanId(c.id, got.human_id ?? '', c.updated_at);
      // the GET may carry the labels the list left out (the live GET sends `labels` objects)
      const labels = reportedLabelIds(c) === undefined ? reportedLabelIds(got) : undefined;
      return settle(toRemoteCase({ ...c, human_id: got.human_id, ...(labels ? { label_ids: labels } : {}) }, share));
    }),
  );
}

async function listCases(
  reads: Reads,
  params: ProjectParams,
  query: Record<string, string>,
  keep: (c: RemoteCase) => boolean = () => true,
): Promise<RemoteCase[]> {
  const pending: (RemoteCase | Promise<RemoteCase>)[] = [];
  for await (const c of reads.client.paginate('listTestCases', reads.req({ params, query }))) pending.push(readCase(reads, params, c));
  return (await Promise.all(pending)).filter(keep);
}

/** The whole list, each page's cases given to `onRead` as they are read. */
async function listAllCases(reads: Reads, params: ProjectParams): Promise<RemoteCase[]> {
  const onRead = reads.options.onRead;
  if (!onRead) return listCases(reads, params, {});
  const pending: (RemoteCase | Promise<RemoteCase>)[] = [];
  const given: Promise<void>[] = [];
  let page: (RemoteCase | Promise<RemoteCase>)[] = [];
  const flush = () => {
    if (page.length === 0) return;
    const batch = Promise.all(page);
    page = [];
    given.push(reads.guard(batch).then((cs) => onRead.cases(cs)));
  };
  for await (const c of reads.client.paginate('listTestCases', reads.req({ params }))) {
    const one = readCase(reads, params, c);
    pending.push(one);
    page.push(one);
    if (page.length >= reads.client.pageSize) flush();
  }
  flush();
  // every page is given to `onRead` before the state is complete
  await Promise.all(given);
  return Promise.all(pending);
}

/** One targeted read (see `CaseQuery`): the list filtered by human id or by folder and title; a uuid's GET gives the folder and title to filter by. */
async function runCaseQuery(reads: Reads, params: ProjectParams, q: CaseQuery): Promise<RemoteCase[]> {
  const keep = (c: RemoteCase) => answersQuery(c, q);
  if (q.by === 'title') return listCases(reads, params, { folder_id: q.folderId, title__CONTAINS: q.title }, keep);
  if (!looksLikeId(q.ref)) return listCases(reads, params, { search: q.ref }, keep);
  let found: TestCase;
  try {
    found = (await reads.client.call('getTestCase', reads.req({ params: { ...params, test_case_id: q.ref } }))).data.test_case;
  } catch (err) {
    if (err instanceof ApiError && err.code === 'not_found') return [];
    throw err;
  }
  // the GET omits the steps: the list of its folder, filtered by its title, has them
  const title = (found.title ?? '').trim();
  return listCases(reads, params, { folder_id: found.folder_id ?? '', ...(title ? { title__CONTAINS: title } : {}) }, (c) => c.id === found.id);
}

/** The cases: the whole list, or with `--changed-since` only those its queries name (each once). */
async function readCases(reads: Reads, params: ProjectParams, foldersP: Promise<FolderWire[]>): Promise<RemoteCase[]> {
  const changed = reads.options.changed;
  if (!changed) return listAllCases(reads, params);
  const queries = await changed.caseQueries(flattenFolders(await foldersP).map(toRemoteFolder));
  const results = await Promise.all(queries.map((q) => runCaseQuery(reads, params, q)));
  const byId = new Map<string, RemoteCase>();
  for (const c of results.flat()) if (!byId.has(c.id)) byId.set(c.id, c);
  return [...byId.values()];
}

/** One listed step group with its steps: from the list, the cache, or a GET. */
async function readStepGroup(reads: Reads, params: ProjectParams, g: StepGroup): Promise<StepGroup> {
  const { client, req, options } = reads;
  // --changed-since: a group the change does not name keeps the list's copy (no steps)
  if (options.changed && !(await options.changed.readStepGroup(g))) return g;
  // before the case pages: a case's file needs its step groups, so with them read
  // first, cases can be laid out as their pages arrive (`onRead`)
  const r = await client.call('getStepGroup', req({ params: { ...params, step_group_id: g.id }, priority: 2 }));
  const full = { ...g, ...r.data.step_group };
  options.cache?.putStepGroup(full, g.updated_at);
  return full;
}

async function readStepGroups(reads: Reads, params: ProjectParams): Promise<StepGroup[]> {
  const pending: Promise<StepGroup>[] = [];
  for await (const g of reads.client.paginate('listStepGroups', reads.req({ params }))) {
    const cached = g.steps ? undefined : reads.options.cache?.stepGroup(g.id, g.updated_at);
    if (g.steps) pending.push(Promise.resolve(g));
    else if (cached) pending.push(Promise.resolve({ ...g, ...cached }));
    else pending.push(reads.guard(readStepGroup(reads, params, g)));
  }
  return Promise.all(pending);
}

interface ProjectReads {
  project: RemoteProject;
  foldersP: Promise<FolderWire[]>;
  casesP: Promise<RemoteCase[]>;
  stepGroupsP: Promise<StepGroup[]>;
  plansP: Promise<TestPlan[]>;
}

/** The project's chain (resolve, then lists, then per-item reads), the longest: started first. */
async function readProject(reads: Reads, projectRef: string | RemoteProject, startPeople: () => void): Promise<ProjectReads> {
  const { client, req, guard, options } = reads;
  // a project already resolved by the caller saves the lookup
  const project = typeof projectRef === 'string' ? await resolveProject(client, projectRef) : { ...projectRef };
  const params = { project_id: project.id };
  const foldersP = guard(collect(client.paginate('listFolders', req({ params }))));
  const casesP = guard(readCases(reads, params, foldersP));
  const stepGroupsP = guard(readStepGroups(reads, params));
  // after a turn of the event loop: the pages' first requests are waiting for the rate limit by then
  setImmediate(startPeople);
  // the plan does not use test plans: a --changed-since read skips them
  const plansP = options.changed ? Promise.resolve([]) : guard(collect(client.paginate('listTestPlans', req({ params }))));
  if (options.changed) options.cache?.keepUnlistedCases();
  return { project, foldersP, casesP, stepGroupsP, plansP };
}

/** Everything but the cases and plans, as one frozen state (`cases` empty), with the scope's folder ids. */
async function readContext(
  reads: Reads,
  projectPart: Promise<ProjectReads>,
  people: Promise<void>,
): Promise<{ context: ActualState; inside: Set<string> | undefined }> {
  const { client, req, guard, options } = reads;
  const lookupList = (name: LookupListName) => guard(collect(client.paginate(name, req())).then((xs) => xs.map(toLookup)));
  const lookupsP = Promise.all([
    lookupList('listCaseTypes'),
    lookupList('listCaseStatuses'),
    lookupList('listPriorities'),
    lookupList('listAutomationTypes'),
    // the plan does not use run statuses: a --changed-since read skips them
    options.changed ? Promise.resolve([]) : lookupList('listRunStatuses'),
  ]);
  // users and labels: a case's file needs them. Asked at the pages' priority once the first case
  // page and the step group list are asked (so those go first, and the chain of pages starts at
  // once), and so before every page after the first. At a lower priority they waited for the last
  // page whenever the rate limit kept a page waiting: nothing was laid out during the reads
  const usersP = guard(people.then(() => client.call('listUsers', req({ priority: 1 }))).then((r) => r.data.map(toUser)));
  const labelsP = guard(people.then(() => client.call('listLabels', req({ priority: 1 }))).then((r) => r.data.labels.map(toLabel)));
  const part = await projectPart;
  const [[types, statuses, priorities, automationTypes, runStatuses], users, labels, wireFolders, groups] = await Promise.all([
    lookupsP,
    usersP,
    labelsP,
    part.foldersP,
    part.stepGroupsP,
  ]);
  let folders = flattenFolders(wireFolders).map(toRemoteFolder);
  let inside: Set<string> | undefined;
  if (options.scope) {
    const scoped = scopedFolderIds(folders, options.scope);
    inside = scoped.inside;
    folders = folders.filter((f) => scoped.inside.has(f.id) || scoped.ancestors.has(f.id));
  }
  const context: ActualState = deepFreeze({
    project: part.project,
    folders,
    cases: [],
    stepGroups: groups.map(toRemoteStepGroup),
    testPlans: [],
    lookups: { types, statuses, priorities, automationTypes, runStatuses },
    users,
    labels,
    labelsReadable: true,
  });
  return { context, inside };
}

/**
 * Everything tmsync compares, read with the fewest calls the interface allows: every list at the
 * client's page size (the largest by default), a per-item GET only for what a list leaves out
 * (step groups' steps; a case's human id when the list omits it), all independent reads at once
 * through the client's queue. The project's resolution overlaps the global lists; pass the
 * `RemoteProject` from `resolveProject` instead of a reference to skip it.
 *
 * Labels of cases: the list carries `label_ids` (emulator) or `labels` objects (live); when it does not, `labelsReadable` is
 * false and `labelIds` undefined (a GET omits them too, so no per-case reads are spent on them).
 *
 * The result is deep-frozen.
 */
export async function fetchState(
  client: TmsClient,
  projectRef: string | RemoteProject,
  options: FetchStateOptions = {},
): Promise<ActualState> {
  const reads = startReads(client, options);
  // users and labels are asked once the project's first reads are (see `readContext`)
  let startPeople!: () => void;
  const peopleAsked = new Promise<void>((asked) => (startPeople = asked));
  const projectPart = reads.guard(readProject(reads, projectRef, startPeople));
  // everything but the cases and plans: given to `onRead` as soon as it is read
  const contextP = reads.guard(readContext(reads, projectPart, peopleAsked));
  const onRead = options.onRead;
  // a failure is the Promise.all's below; `onRead` only hears of success
  if (onRead) contextP.then(({ context }) => onRead.context(context), () => undefined);

  const [{ context, inside }, read, plans] = await Promise.all([
    contextP,
    projectPart.then((p) => p.casesP),
    projectPart.then((p) => p.plansP),
  ]);
  let cases = read;
  // a case whose labels the service did not report has no `labelIds` (see `toRemoteCase`)
  const labelsReadable = cases.every((c) => c.labelIds !== undefined);
  // a path scope's ancestors are containers: their own cases are outside the scope
  if (inside) cases = cases.filter((c) => inside.has(c.folderId));
  if (options.caseFilter) cases = cases.filter(options.caseFilter);

  const state: ActualState = {
    ...context,
    cases,
    testPlans: plans.map(toRemoteTestPlan),
    labelsReadable,
  };
  return deepFreeze(state);
}
