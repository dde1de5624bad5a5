import type { TestCase } from '../api/resources.js';
import type { ActualState, RemoteCase, RemoteFolder, RemoteStepGroup } from '../model.js';
import { TmsyncError } from '../errors.js';
import { ApiError } from './api-error.js';
import type { TmsClient } from './client.js';
import { deepFreeze, scopedFolderIds } from './fetch-state.js';
import { toRemoteCase, toRemoteFolder, toRemoteStepGroup } from './to-actual.js';
import { looksLikeId } from './resolve-project.js';

/** The `id:`s the repository's files write (a `DesiredState` or pull's view of the files both fit). */
interface NamedItems {
  cases: readonly { id?: string }[];
  stepGroups: readonly { id?: string }[];
  folders: readonly { id?: string }[];
}

interface ConfirmMissingOptions {
  signal?: AbortSignal;
  /** the lists were read under a scope: an item found outside it is not added (see `ActualState.elsewhere`) */
  scope?: readonly string[];
}

/**
 * An item a file names by `id:` that the lists did not hold is read by id before anything treats
 * it as deleted: a list that shifted while it was read (a deletion and an addition, which no total
 * shows) passes over an item that still exists. Each such item costs one GET (a case found, one
 * filtered list read more: its steps come only from lists); an item the lists held costs nothing.
 * Items the service has are added to the state (a case outside the scope is only named in
 * `elsewhere`); items it does not have stay missing.
 */
export async function confirmMissing(client: TmsClient, actual: ActualState, named: NamedItems, options: ConfirmMissingOptions = {}): Promise<ActualState> {
  const { signal } = options;
  const params = { project_id: actual.project.id };
  const caseIds = new Set(actual.cases.map((c) => c.id));
  const caseHumanIds = new Set(actual.cases.map((c) => c.humanId.toUpperCase()).filter((h) => h !== ''));
  const groupIds = new Set(actual.stepGroups.map((g) => g.id));
  const groupHumanIds = new Set(actual.stepGroups.map((g) => (g.humanId ?? '').toUpperCase()).filter((h) => h !== ''));
  const folderIds = new Set(actual.folders.map((f) => f.id));
  const missing = (items: readonly { id?: string }[], ids: Set<string>, humanIds?: Set<string>) => [
    ...new Set(
      items
        .map((i) => i.id?.trim())
        .filter((id): id is string => !!id && !ids.has(id) && !(humanIds?.has(id.toUpperCase()) ?? false)),
    ),
  ];
  const cases = missing(named.cases, caseIds, caseHumanIds);
  const groups = missing(named.stepGroups, groupIds, groupHumanIds);
  const folders = missing(named.folders, folderIds);
  if (cases.length + groups.length + folders.length === 0) return actual;

  /** the answer, or undefined when the service does not have it */
  const found = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (err) {
      // an id the service cannot even parse (the live service answers 400 `Invalid ID format`) names nothing either
      if (err instanceof ApiError && (err.code === 'not_found' || (err.code === 'invalid_request' && (err.status === 400 || err.status === 422)))) return undefined;
      throw err;
    }
  };
  /** a human id upper-cased first (the plan takes any letter case; services give them upper-case), then as written */
  const byRef = async <T>(ref: string, read: (ref: string) => Promise<T>): Promise<T | undefined> => {
    const upper = looksLikeId(ref) ? ref : ref.toUpperCase();
    return (await found(() => read(upper))) ?? (upper !== ref ? await found(() => read(ref)) : undefined);
  };
  const readCase = async (ref: string): Promise<RemoteCase | undefined> => {
    const got = await byRef(ref, async (r) => (await client.call('getTestCase', { params: { ...params, test_case_id: r }, signal })).data.test_case);
    if (!got) return undefined;
    // the GET leaves out what only lists carry (steps of step groups, human id, labels): the
    // list of its folder filtered by its title has the case as the plan reads every other one
    let listed: TestCase | undefined;
    const title = (got.title ?? '').trim();
    const query = { folder_id: got.folder_id ?? '', ...(title ? { title__CONTAINS: title } : {}) };
    for await (const c of client.paginate('listTestCases', { params, query, signal })) if (c.id === got.id) listed = c;
    // renamed between the GET and the list: the folder's whole list (the GET's own answer has no
    // steps, and a case without its steps would read as "every step removed on the service")
    if (!listed && title) for await (const c of client.paginate('listTestCases', { params, query: { folder_id: got.folder_id ?? '' }, signal })) if (c.id === got.id) listed = c;
    if (!listed) {
      throw new TmsyncError('list_changed', `the test case ${ref} exists on the service but changed while it was read, and could not be read in full; nothing was written`, {
        hint: 'run the command again',
        details: { ref, id: got.id },
      });
    }
    return toRemoteCase({ ...listed, human_id: listed.human_id ?? got.human_id ?? (looksLikeId(ref) ? undefined : ref.toUpperCase()) });
  };
  const readGroup = async (ref: string): Promise<RemoteStepGroup | undefined> => {
    const got = await byRef(ref, async (r) => (await client.call('getStepGroup', { params: { ...params, step_group_id: r }, signal })).data.step_group);
    return got && toRemoteStepGroup(got);
  };
  const readFolder = async (id: string): Promise<RemoteFolder | undefined> => {
    const got = await found(async () => (await client.call('getFolder', { params: { ...params, folder_id: id }, signal })).data.folder);
    return got && toRemoteFolder(got);
  };

  const [gotCases, gotGroups, gotFolders] = await Promise.all([
    Promise.all(cases.map(readCase)),
    Promise.all(groups.map(readGroup)),
    Promise.all(folders.map(readFolder)),
  ]);
  const elsewhere: string[] = [...(actual.elsewhere ?? [])];
  // under a scope, what was found is placed by the folder paths the lists and the GETs give
  const scope = options.scope;
  const placed = (extra: readonly RemoteFolder[]) => (scope ? scopedFolderIds([...actual.folders, ...extra], scope) : undefined);
  const addedFolders: RemoteFolder[] = [];
  const candidates = gotFolders.filter((f): f is RemoteFolder => !!f && !folderIds.has(f.id));
  const folderPlaces = placed(candidates);
  gotFolders.forEach((f, i) => {
    if (!f || folderIds.has(f.id)) return;
    if (folderPlaces && !folderPlaces.inside.has(f.id) && !folderPlaces.ancestors.has(f.id)) elsewhere.push(folders[i]);
    else {
      folderIds.add(f.id);
      addedFolders.push(f);
    }
  });
  // a path scope's ancestors are containers: their own cases are outside it (as `fetchState` reads)
  const inside = placed(addedFolders)?.inside;
  const addedCases: RemoteCase[] = [];
  gotCases.forEach((c, i) => {
    if (!c || caseIds.has(c.id)) return;
    if (inside && !inside.has(c.folderId)) elsewhere.push(cases[i]);
    else {
      caseIds.add(c.id);
      addedCases.push(c);
    }
  });
  const addedGroups = gotGroups.filter((g): g is RemoteStepGroup => !!g && !groupIds.has(g.id));
  if (addedCases.length + addedGroups.length + addedFolders.length + elsewhere.length === (actual.elsewhere?.length ?? 0)) return actual;
  return deepFreeze({
    ...actual,
    folders: [...actual.folders, ...addedFolders],
    cases: [...actual.cases, ...addedCases],
    stepGroups: [...actual.stepGroups, ...addedGroups],
    labelsReadable: actual.labelsReadable && addedCases.every((c) => c.labelIds !== undefined),
    ...(elsewhere.length ? { elsewhere } : {}),
  });
}
