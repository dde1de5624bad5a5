import type { Problem } from '../errors.js';
import type { ActualState, DesiredCase, DesiredFolder, DesiredState, RemoteFolder } from '../model.js';
import type { CaseQuery } from '../case-query.js';
import { buildPlan, remoteVersions, type BuildPlanResult } from './build-plan.js';
import type { BuildPlanOptions, PlanContext } from './context.js';
import { folderFile, planFolders } from './folders.js';
import { isUuid, normalizeTitle, pathKey, showPath } from '../base/normalize-text.js';
import type { Operation } from './operations.js';
import { indexRemote } from './remote-index.js';
import { buildResolver } from './resolve.js';
import { summarize } from './summary.js';
import { actionOf, itemTypeOf } from './operation-kinds.js';

/**
 * A pull request's plan in O(change): `tmsync plan --changed-since REF` plans only the files a
 * change touches and reads only the remote cases those files can be (the folder tree and the step
 * group list are read whole: they are small and every identity rule needs them).
 *
 * Pure: the CLI asks git which files changed (src/cli/git.ts), `changedCaseQueries` says which
 * cases to read, `fetchState({ caseQueries })` runs those reads, and `planChanged` plans. The
 * property test checks that this equals the full plan restricted to the same files
 * (`restrictPlan(buildPlan(desired, fullActual), …)`).
 */

/** A case file the change removed (deleted, or the old side of a rename), as it was at REF. */
export interface RemovedCaseFile {
  /** path relative to the repository root, at REF */
  file: string;
  /** its folder: the directory names under the cases directory */
  folderPath: string[];
  id?: string;
  title?: string;
}

export interface ChangedFiles {
  /** files added or modified, and the new side of renames: paths relative to the repository root */
  present: string[];
  /** case files the change removed */
  removed: RemovedCaseFile[];
}

/** The desired case files among `present`, by file. */
function changedCases(desired: DesiredState, changed: ChangedFiles): DesiredCase[] {
  const present = new Set(changed.present);
  return desired.cases.filter((c) => present.has(c.file));
}

/**
 * The remote folder the plan gives each repository folder path (by the `_folder.yaml` id, else by
 * parent and name): the same matching `buildPlan` does, run on the folder tree alone.
 */
function folderMatches(desired: DesiredState, folders: readonly RemoteFolder[]): Map<string, RemoteFolder> {
  const actual: ActualState = {
    project: { id: '', name: '', humanIdPrefix: '' },
    folders: [...folders],
    cases: [],
    stepGroups: [],
    testPlans: [],
    lookups: { types: [], statuses: [], priorities: [], automationTypes: [], runStatuses: [] },
    users: [],
    labels: [],
    labelsReadable: true,
  };
  const ctx: PlanContext = {
    desired,
    actual,
    prune: false,
    allowRecreate: false,
    remote: indexRemote(actual, desired.scope),
    resolver: buildResolver(actual),
    problems: [],
    warnings: [],
  };
  const out = new Map<string, RemoteFolder>();
  for (const node of planFolders(ctx).nodes) if (node.remote) out.set(pathKey(node.path), node.remote);
  return out;
}

/** A remote folder by its names from the top (a removed directory that no repository folder names any more). */
function remoteFolderByNames(folders: readonly RemoteFolder[], names: readonly string[]): RemoteFolder | undefined {
  let parent: string | null = null;
  let found: RemoteFolder | undefined;
  const ids = new Set(folders.map((f) => f.id));
  for (const name of names) {
    found = folders.find((f) => (f.parentId !== null && ids.has(f.parentId) ? f.parentId : null) === parent && normalizeTitle(f.name) === name);
    if (!found) return undefined;
    parent = found.id;
  }
  return found;
}

/**
 * The case reads a change needs, given the folder tree: for each changed case file its `id:`
 * (wherever the case is now), or, without an id, its title in the folder it maps to (the natural
 * key); for each removed case file the same from its version at REF (the case it described is
 * listed as unmanaged when no file claims it any more, as in the full plan). Duplicates are dropped.
 */
export function changedCaseQueries(desired: DesiredState, folders: readonly RemoteFolder[], changed: ChangedFiles): CaseQuery[] {
  const matches = folderMatches(desired, folders);
  const queries = new Map<string, CaseQuery>();
  const add = (q: CaseQuery) => {
    const k = q.by === 'ref' ? `ref\u0000${isUuid(q.ref) ? q.ref.toLowerCase() : q.ref.toUpperCase()}` : `title\u0000${q.folderId}\u0000${q.title}`;
    if (!queries.has(k)) queries.set(k, q);
  };
  for (const c of changedCases(desired, changed)) {
    if (c.id !== undefined) add({ by: 'ref', ref: c.id });
    else {
      const folder = matches.get(pathKey(c.folderPath));
      const title = normalizeTitle(c.title);
      if (folder && title !== '') add({ by: 'title', folderId: folder.id, title });
    }
  }
  for (const r of changed.removed) {
    if (r.id !== undefined && r.id.trim() !== '') add({ by: 'ref', ref: r.id.trim() });
    else if (r.title !== undefined) {
      const folder = matches.get(pathKey(r.folderPath)) ?? remoteFolderByNames(folders, r.folderPath);
      const title = normalizeTitle(r.title);
      if (folder && title !== '') add({ by: 'title', folderId: folder.id, title });
    }
  }
  return [...queries.values()];
}

/**
 * Which remote step groups the restricted read GETs (the list omits steps): those a changed step
 * group file names (by id, else by title), and those a changed case file's `use:` names by id or
 * human id (their steps are the case's steps). The others keep the list's copy, or the read
 * cache's when it is current; their operations are not part of the restricted plan.
 */
export function stepGroupsToRead(desired: DesiredState, changed: ChangedFiles): (remote: { id: string; human_id?: string | null; title: string }) => boolean {
  const present = new Set(changed.present);
  const files = desired.stepGroups.filter((g) => present.has(g.file));
  const refs = new Set<string>();
  for (const c of changedCases(desired, changed)) {
    for (const s of c.fields.steps ?? []) if (s.kind === 'use') refs.add(s.use.trim().toUpperCase());
  }
  return (remote) =>
    refs.has(remote.id.toUpperCase()) ||
    (!!remote.human_id && refs.has(remote.human_id.toUpperCase())) ||
    files.some((g) =>
      g.id !== undefined
        ? g.id.trim().toUpperCase() === remote.id.toUpperCase() || (!!remote.human_id && g.id.trim().toUpperCase() === remote.human_id.toUpperCase())
        : normalizeTitle(g.title) === normalizeTitle(remote.title),
    );
}

/**
 * The repository as the restricted plan sees it: every folder and step group, and the case files
 * whose identity can touch the cases read: the changed ones, those whose `id:` names a case read,
 * and those without id whose title is the title of a case read or of a changed file (they compete
 * for the same natural key). Other case files are left out: their cases were not read, so they
 * would look like creates or unknown ids. Folders that only case files imply are kept.
 */
function restrictDesired(desired: DesiredState, partial: ActualState, changed: ChangedFiles): DesiredState {
  const present = new Set(changed.present);
  const read = indexRemote(partial, desired.scope);
  const titles = new Set(partial.cases.map((c) => normalizeTitle(c.title)));
  for (const c of changedCases(desired, changed)) titles.add(normalizeTitle(c.title));
  const cases = desired.cases.filter((c) => {
    if (present.has(c.file)) return true;
    if (c.id !== undefined) return read.caseByRef(c.id) !== undefined;
    return titles.has(normalizeTitle(c.title));
  });
  return { ...desired, folders: withImpliedFolders(desired), cases };
}

/** The folder list `buildPlan` derives (declared folders, then the parents and folders case paths imply), in its order. */
function withImpliedFolders(desired: DesiredState): DesiredFolder[] {
  const byPath = new Map<string, DesiredFolder>();
  for (const f of desired.folders) if (f.path.length > 0 && !byPath.has(pathKey(f.path))) byPath.set(pathKey(f.path), f);
  const ensure = (path: string[]): void => {
    for (let i = 1; i <= path.length; i++) {
      const p = path.slice(0, i);
      if (!byPath.has(pathKey(p))) byPath.set(pathKey(p), { path: p, name: p[p.length - 1], dir: [desired.casesDir, ...p].join('/') });
    }
  };
  for (const f of desired.folders) ensure(f.path);
  for (const c of desired.cases) ensure(c.folderPath);
  return [...byPath.values()];
}

/**
 * The files a changed `_folder.yaml` (added, edited or deleted: `folderFiles`, paths relative to
 * the repository root) makes part of the change: the folder is its subtree, so every case file and
 * folder file under its directory counts, the changed `_folder.yaml` included even when it is gone
 * (a folder without one is planned under that path). A folder file decides which remote folder the
 * directory is, and so where each of its cases is: deleting one that held `id:` and another
 * `name:` makes the full plan create a folder and move its cases, which the plan of the changed
 * files must show too. Every case read this takes is one request (by its `id:`).
 */
export function folderSubtreeFiles(desired: DesiredState, folderFiles: readonly string[]): string[] {
  const out = new Set<string>();
  for (const file of folderFiles) {
    const dir = file.slice(0, file.lastIndexOf('/'));
    const under = (f: string) => f.startsWith(`${dir}/`);
    out.add(file);
    for (const f of withImpliedFolders(desired)) if (f.dir === dir || under(f.dir)) out.add(folderFile(f));
    for (const c of desired.cases) if (under(c.file)) out.add(c.file);
  }
  return [...out];
}

/** The file an operation comes from (undefined for deletes, which `--changed-since` never plans). */
function ownerFile(op: Operation, desired: DesiredState, folderFiles: Map<string, string>): string | undefined {
  if (actionOf(op) === 'delete') return undefined;
  const after = op.key.slice(op.key.indexOf(':') + 1);
  switch (itemTypeOf(op)) {
    case 'case':
      return after;
    case 'step_group': {
      const key = 'localKey' in op ? op.localKey : after;
      return desired.stepGroups.find((g) => g.key === key)?.file;
    }
    case 'folder':
      return folderFiles.get(after);
    case 'test_plan':
    case 'test_run':
      return undefined;
  }
}

/**
 * The plan restricted to the changed files: their operations (a case file's create, update, move
 * or adopt; a step group file's; a `_folder.yaml`'s folder operations), plus the folder and step
 * group creates they wait for (a reference needs them); `dependsOn` keeps only operations still in
 * the plan. Unmanaged items: only cases among `readCaseIds` (the cases the restricted read saw:
 * those of removed files); unmanaged folders and step groups are left to the full plan (whether a
 * step group is unused depends on every case file). Problems and warnings:
 * those of the changed files, and warnings that name no file.
 */
export function restrictPlan(result: BuildPlanResult, desired: DesiredState, actual: ActualState, changed: ChangedFiles, readCaseIds: ReadonlySet<string>): BuildPlanResult {
  const present = new Set(changed.present);
  const folderFiles = new Map(withImpliedFolders(desired).map((f) => [showPath(f.path), folderFile(f)]));
  const ops = result.plan.operations;
  const byKey = new Map(ops.map((op) => [op.key, op]));
  const keep = new Set<string>();
  const visit = (op: Operation) => {
    if (keep.has(op.key)) return;
    keep.add(op.key);
    for (const dep of op.dependsOn) {
      const d = byKey.get(dep);
      if (d && actionOf(d) === 'create' && itemTypeOf(d) !== 'case') visit(d);
    }
  };
  for (const op of ops) {
    const file = ownerFile(op, desired, folderFiles);
    if (file !== undefined && present.has(file)) visit(op);
  }
  const operations = ops.filter((op) => keep.has(op.key)).map((op) => ({ ...op, dependsOn: op.dependsOn.filter((k) => keep.has(k)) }));
  const plan = {
    ...result.plan,
    operations,
    unmanaged: result.plan.unmanaged.filter((u) => u.itemType === 'case' && readCaseIds.has(u.id)),
    warnings: result.plan.warnings.filter((w) => w.file === undefined || present.has(w.file)),
    summary: summarize(operations),
    remoteVersions: remoteVersions(actual, operations),
  };
  const problems: Problem[] = result.problems.filter((p) => present.has(p.file));
  return { plan, problems, display: result.display };
}

/**
 * The plan of exactly the changed files, from the restricted read `partial` (every folder and step
 * group, the cases `changedCaseQueries` named). `--prune` is refused before this is reached.
 */
export function planChanged(desired: DesiredState, partial: ActualState, changed: ChangedFiles, options: Omit<BuildPlanOptions, 'prune'> = {}): BuildPlanResult {
  const restricted = restrictDesired(desired, partial, changed);
  const full = buildPlan(restricted, partial, { ...options, prune: false, partialStepGroups: true });
  return restrictPlan(full, restricted, partial, changed, new Set(partial.cases.map((c) => c.id)));
}
