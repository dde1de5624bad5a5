import { setMaxListeners } from 'node:events';
import type { FolderWire, StepGroup, TestCase } from '../api/resources.js';
import type { ActualState, RemoteCase, RemoteFolder, RemoteProject } from '../model.js';
import { scopeMatcher } from '../scope.js';
import type { CallRequest, TmsClient } from './client.js';
import {
  toLabel,
  toLookup,
  toRemoteCase,
  toRemoteFolder,
  toRemoteStepGroup,
  toRemoteTestPlan,
  toUser,
} from './normalize.js';
import { resolveProject } from './project.js';

export interface FetchStateOptions {
  /**
   * only these folder subtrees (paths of names joined by `/`; a top-level name is a path of one),
   * plus the folders above them (without their cases); undefined = the whole project
   */
  scope?: string[];
  /** keep only the cases this returns true for (applied after the scope) */
  caseFilter?: (c: RemoteCase) => boolean;
  /** stops every outstanding read */
  signal?: AbortSignal;
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
function flattenFolders(list: FolderWire[]): FolderWire[] {
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

/**
 * Everything tmsync compares, read with the fewest calls the interface allows: every list at the
 * client's page size (the largest by default), a per-item GET only for what a list leaves out
 * (step groups' steps; a case's human id when the list omits it), all independent reads at once
 * through the client's queue. The project's resolution overlaps the global lists; pass the
 * `RemoteProject` from `resolveProject` instead of a reference to skip it.
 *
 * Labels of cases: the list carries `label_ids` (emulator); when it does not, `labelsReadable` is
 * false and `labelIds` undefined (a GET omits them too, so no per-case reads are spent on them).
 *
 * The result is deep-frozen.
 */
export async function fetchState(
  client: TmsClient,
  projectRef: string | RemoteProject,
  options: FetchStateOptions = {},
): Promise<ActualState> {
  // the first failure stops the other reads instead of letting them run on
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  // every outstanding request listens to it: thousands of listeners are expected, not a leak
  setMaxListeners(0, signal);
  const req = (r: CallRequest = {}): CallRequest => ({ ...r, signal });
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
  const lookupList = (name: string) => guard(collect(client.paginate(name, req())).then((xs) => xs.map(toLookup)));

  // the project's chain (resolve, then lists, then per-item reads) is the longest: start it first
  const projectPart = guard(
    (async () => {
      // a project already resolved by the caller saves the lookup
      const project = typeof projectRef === 'string' ? await resolveProject(client, projectRef) : { ...projectRef };
      const params = { project_id: project.id };

      const foldersP = guard(collect(client.paginate('listFolders', req({ params }))));

      const casesP = guard(
        (async () => {
          const pending: Promise<TestCase>[] = [];
          for await (const c of client.paginate('listTestCases', req({ params }))) {
            if (c.human_id) {
              pending.push(Promise.resolve(c));
            } else {
              // the list left the human id out: the GET has it (start it now, keep reading pages)
              pending.push(
                guard(
                  client
                    .call('getTestCase', req({ params: { ...params, test_case_id: c.id } }))
                    .then((r) => ({ ...c, human_id: r.data.test_case.human_id })),
                ),
              );
            }
          }
          return Promise.all(pending);
        })(),
      );

      const stepGroupsP = guard(
        (async () => {
          const pending: Promise<StepGroup>[] = [];
          for await (const g of client.paginate('listStepGroups', req({ params }))) {
            pending.push(
              g.steps
                ? Promise.resolve(g)
                : guard(
                    client
                      .call('getStepGroup', req({ params: { ...params, step_group_id: g.id } }))
                      .then((r) => ({ ...g, ...r.data.step_group })),
                  ),
            );
          }
          return Promise.all(pending);
        })(),
      );

      const plansP = guard(collect(client.paginate('listTestPlans', req({ params }))));
      const [folders, cases, stepGroups, plans] = await Promise.all([foldersP, casesP, stepGroupsP, plansP]);
      return { project, folders, cases, stepGroups, plans };
    })(),
  );

  const lookupsP = Promise.all([
    lookupList('listCaseTypes'),
    lookupList('listCaseStatuses'),
    lookupList('listPriorities'),
    lookupList('listAutomationTypes'),
    lookupList('listRunStatuses'),
  ]);
  const usersP = guard(client.call('listUsers', req()).then((r) => r.data.map(toUser)));
  const labelsP = guard(client.call('listLabels', req()).then((r) => r.data.labels.map(toLabel)));

  const [[types, statuses, priorities, automationTypes, runStatuses], users, labels, part] = await Promise.all([
    lookupsP,
    usersP,
    labelsP,
    projectPart,
  ]);

  let folders = flattenFolders(part.folders).map(toRemoteFolder);
  let cases = part.cases.map(toRemoteCase);
  const labelsReadable = part.cases.every((c) => Array.isArray(c.label_ids));
  if (options.scope) {
    const { inside, ancestors } = scopedFolderIds(folders, options.scope);
    folders = folders.filter((f) => inside.has(f.id) || ancestors.has(f.id));
    // a path scope's ancestors are containers: their own cases are outside the scope
    cases = cases.filter((c) => inside.has(c.folderId));
  }
  if (options.caseFilter) cases = cases.filter(options.caseFilter);

  const state: ActualState = {
    project: part.project,
    folders,
    cases,
    stepGroups: part.stepGroups.map(toRemoteStepGroup),
    testPlans: part.plans.map(toRemoteTestPlan),
    lookups: { types, statuses, priorities, automationTypes, runStatuses },
    users,
    labels,
    labelsReadable,
  };
  return deepFreeze(state);
}
