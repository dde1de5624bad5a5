import type { ActualState, DesiredCaseFields, RemoteCase, RemoteFolder, RemoteStepGroup } from '../model.js';
import { buildResolver } from '../plan/resolve.js';
import { TmsyncError } from '../errors.js';
import { remoteCaseFields, remoteGroupFields, type FieldContext, type FieldWarning, type GroupFileFields } from './case-fields.js';
import { folderNameProblem } from '../repository/folder-file.js';
import { defaultFormat, isFolderFileName, repositoryFormats, splitItemRef, stemOf } from '../repository/format.js';
import { NameAllocator, isPortableDirName, safeDirName, slugify, twinKey } from './naming.js';

/**
 * The service's state laid out as a tests repository: which directory each folder gets, which
 * file each case and step group gets, and what each file says. Shared by `pull` (which writes
 * the files) and `migrate` (which turns it into a desired state without touching disk), so both
 * describe a project the same way.
 *
 * Pure: no disk, no network, no clock. Names are stable: an item that already has a file (found
 * by its id in `existing`) keeps that file when it is still in the same directory.
 */

/** What a tests repository on disk already holds, as far as naming needs it. */
export interface ExistingRepository {
  /**
   * `id:` as written (a human id or a uuid) and the file, relative to the root. Items without
   * an id are adopted by a remote item of the same natural key (title in the same directory,
   * step group title, folder name in the same parent) instead of getting a second file. An item
   * of a file holding several has `file#at` as its file (`itemRef`), the directory of its folder
   * when that is not its file's (`folderDir`), and a step group its `use:` key; a folder such a
   * file adds (`inFile`) has no directory of its own.
   */
  cases: { id?: string; file: string; title?: string; folderDir?: string }[];
  stepGroups: { id?: string; file: string; title?: string; key?: string }[];
  folders: { id?: string; dir: string; file?: string; inFile?: string }[];
  /** every file and directory below the cases and step groups directories, `/`-separated */
  paths: string[];
}

export interface BuildModelOptions {
  /** @default 'cases' */
  casesDir?: string;
  /** @default 'step_groups' */
  stepGroupsDir?: string;
  /** only this folder subtree (names from the top); its ancestors are included as folders */
  folder?: string[];
  /** write remote ids into the items (pull); migrate leaves them out @default true */
  includeIds?: boolean;
  existing?: ExistingRepository;
  /**
   * Items (by remote id) that stay where their local file is even when the service has them in
   * another folder: pull's merge, when the item's place changed only in the repository (or both
   * moved it and the repository's place is kept). Their files are neither moved nor renamed.
   * @default none (every item goes where the service has it)
   */
  keepPlace?: (kind: 'folder' | 'case', id: string) => boolean;
  /**
   * A case the repository lacks, in a folder a file adds (a feature's level), is added to that
   * file (`file#+<id>`: its format appends it, `gherkin.new_scenarios: feature`) rather than
   * written as a new file of the default format, when it fits there (`fitsFile`).
   * @default false
   */
  newItemsInFiles?: boolean;
  /**
   * Cases' fields (and files' contents) computed earlier, while the state was being read (see
   * `CaseMemo`): used only when the state shares the memo's lists and step group keys.
   */
  memo?: CaseMemo;
}

/** What `remoteCaseFields` gives for a case, with the file content rendered from it (if any). */
export interface MemoCase {
  fields: DesiredCaseFields;
  warnings: FieldWarning[];
  /** the content of the case's file, rendered for a file in this directory */
  rendered?: { dir: string; content: string };
}

/**
 * Cases laid out before the state was complete (pull does it as the case pages arrive), keyed
 * by the very `RemoteCase` objects of the state. Valid for a state built from the same reads:
 * the same lookup, user, label and step group lists (by identity), cases' labels readable, and
 * the same `use:` key for every step group; otherwise ignored and everything is computed again.
 */
export interface CaseMemo {
  basis: ActualState;
  includeIds: boolean;
  stepGroupKeys: ReadonlyMap<string, string>;
  get(c: RemoteCase): MemoCase | undefined;
}

/** How a case's fields are computed from the state and the step groups' `use:` keys. */
export function caseFieldContext(actual: ActualState, stepGroupKeys: ReadonlyMap<string, string>): FieldContext {
  return {
    resolver: buildResolver(actual),
    stepGroups: new Map(actual.stepGroups.map((g) => [g.id, g])),
    useName: (gid: string) => stepGroupKeys.get(gid),
    labelsReadable: actual.labelsReadable,
  };
}

/** `test case PRJ-1`: how a case's warnings name it. */
export const caseWhere = (c: RemoteCase) => `test case ${c.humanId || c.id}`;

function memoFits(memo: CaseMemo | undefined, actual: ActualState, includeIds: boolean, keys: ReadonlyMap<string, string>): memo is CaseMemo {
  if (!memo) return false;
  const b = memo.basis;
  if (b.lookups !== actual.lookups || b.users !== actual.users || b.labels !== actual.labels || b.stepGroups !== actual.stepGroups) return false;
  if (b.labelsReadable !== actual.labelsReadable || memo.includeIds !== includeIds || memo.stepGroupKeys.size !== keys.size) return false;
  for (const [id, key] of keys) if (memo.stepGroupKeys.get(id) !== key) return false;
  return true;
}

export interface ModelFolder {
  remote: RemoteFolder;
  path: string[];
  name: string;
  /** the directory, relative to the root */
  dir: string;
  /** its `_folder.yaml` */
  file: string;
  /** set when the directory name is not the folder name: written as `name:` */
  nameOverride?: string;
  /** the `_folder.yaml` the folder had before, when it is somewhere else */
  movedFrom?: string;
  /** a level a file holding several items adds (`DesiredFolder.inFile`: that file): no directory, no settings file is written */
  inFile?: string;
  /** true for an ancestor of `--folder` (written, but its other children are not) */
  ancestor: boolean;
}

export interface ModelCase {
  remote: RemoteCase;
  file: string;
  folderPath: string[];
  id?: string;
  title: string;
  fields: DesiredCaseFields;
  /** set when the file existed, for in-place updates */
  existingFile?: string;
}

/** A step group's file: its fields as the step group table names them (`GroupFileFields`). */
export interface ModelStepGroup extends GroupFileFields {
  remote: RemoteStepGroup;
  key: string;
  file: string;
  id?: string;
  title: string;
  existingFile?: string;
}

/** A local file whose remote item no longer exists (listed, never deleted). */
export interface GoneItem {
  itemType: 'case' | 'step_group' | 'folder';
  id: string;
  file: string;
}

export interface RepositoryModel {
  folders: ModelFolder[];
  cases: ModelCase[];
  stepGroups: ModelStepGroup[];
  /** step group id → its `use:` key */
  stepGroupKeys: ReadonlyMap<string, string>;
  gone: GoneItem[];
  warnings: FieldWarning[];
}

const numberOf = (humanId: string): number => {
  const m = /-(\d+)$/.exec(humanId);
  return m ? Number(m[1]) : Number.MAX_SAFE_INTEGER;
};
/** Oldest first, so the oldest item keeps the plain name and newer twins get `-2`, `-3`. */
const byAge = <T extends { createdAt: number; humanId: string; id: string }>(a: T, b: T) =>
  a.createdAt - b.createdAt || numberOf(a.humanId) - numberOf(b.humanId) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const parentOf = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
const baseOf = (rel: string) => rel.slice(rel.lastIndexOf('/') + 1);
const trimDir = (d: string) => d.split(/[\\/]+/).filter(Boolean).join('/');

/** How two names that are one entry on macOS and Windows differ. */
function twinDifference(a: string, b: string): string {
  if (a === b) return 'nothing (the same name)';
  const fold = (x: string) => x.toUpperCase().toLowerCase();
  if (fold(a) === fold(b)) return 'letter case';
  if (a.normalize('NFC') === b.normalize('NFC')) return 'Unicode normalisation';
  return 'letter case and Unicode normalisation';
}
/** `"Café" (NFD)`: the form is shown where it is the only visible difference. */
const quoted = (name: string, showForm: boolean) =>
  showForm ? `"${name}" (${name === name.normalize('NFC') ? 'NFC' : name === name.normalize('NFD') ? 'NFD' : 'mixed NFC/NFD'})` : `"${name}"`;

/**
 * The warning for a folder written under another directory than its name because `taken` (a
 * sibling folder's directory, or an entry already on disk) is its twin: names both and the
 * directory chosen.
 */
function twinMessage(f: RemoteFolder, parent: ModelFolder | undefined, parentDir: string, taken: string, dir: string, placed: ModelFolder[]): string {
  const other = placed.find((m) => parentOf(m.dir) === parentDir && twinKey(baseOf(m.dir)) === twinKey(taken));
  // compare with the other folder's name when that is the twin, else with the directory taken
  const otherName = other && twinKey(other.name) === twinKey(f.name) ? other.name : taken;
  const how = twinDifference(f.name, otherName);
  const forms = how.includes('normalisation');
  const self = `folder ${quoted([...(parent?.path ?? []), f.name].join('/'), forms)}`;
  const them = other
    ? otherName === other.name
      ? `folder ${quoted(other.path.join('/'), forms)} (in ${other.dir})`
      : `${other.dir} (the directory of folder "${other.path.join('/')}")`
    : isFolderFileName(taken)
      ? `the folder file name ${taken}`
      : `${parentDir}/${taken}, already on disk`;
  return `${self} and ${them} differ only by ${how}, which macOS and Windows do not tell apart (one directory there): ${self} is written to ${dir} with \`name: ${f.name}\` in its _folder.yaml`;
}

/** What every step of the layout shares: the options, the warnings, one name allocator per directory. */
interface LayoutContext {
  actual: ActualState;
  options: BuildModelOptions;
  casesDir: string;
  stepGroupsDir: string;
  includeIds: boolean;
  warnings: FieldWarning[];
  /** one allocator per directory, pre-filled with what is on disk so nothing local is overwritten */
  allocatorFor(dir: string): NameAllocator;
}

/** The extension of new files: the default format's (`format.ts`). */
const newFileExtension = () => defaultFormat().extensions[0];

export function buildRepositoryModel(actual: ActualState, options: BuildModelOptions = {}): RepositoryModel {
  const existing = options.existing ?? { cases: [], stepGroups: [], folders: [], paths: [] };
  const allocators = new Map<string, NameAllocator>();
  const ctx: LayoutContext = {
    actual,
    options,
    casesDir: trimDir(options.casesDir ?? 'cases'),
    stepGroupsDir: trimDir(options.stepGroupsDir ?? 'step_groups'),
    includeIds: options.includeIds ?? true,
    warnings: [],
    allocatorFor(dir) {
      let a = allocators.get(dir);
      if (!a) {
        a = new NameAllocator();
        // the names of a folder's settings file, in every format that has one
        for (const format of repositoryFormats()) if (format.parseFolder) for (const ext of format.extensions) a.reserve(`_folder${ext}`);
        allocators.set(dir, a);
      }
      return a;
    },
  };
  for (const p of existing.paths) ctx.allocatorFor(parentOf(p)).reserve(baseOf(p));
  const known = indexExisting(actual, existing);
  const tree = folderTree(actual, options.folder);
  const { folders, folderDir } = placeFolders(ctx, tree, known);

  // step groups: all of them, or (for a subtree) the ones its cases use
  const selected = tree.selected;
  const inSelection = (folderId: string) => {
    const m = folderDir.get(folderId);
    return m !== undefined && !m.ancestor;
  };
  const selectedCases = actual.cases.filter((c) => inSelection(c.folderId));
  for (const c of actual.cases) {
    if (!folderDir.has(c.folderId) && !selected) {
      ctx.warnings.push({ code: 'case_without_folder', message: `test case ${c.humanId || c.id} "${c.title}" is in no known folder; it is not written` });
    }
  }
  let groups = actual.stepGroups;
  if (selected) {
    const used = new Set(selectedCases.flatMap((c) => c.individualSteps.map((s) => s.stepGroupId).filter((x): x is string => !!x)));
    groups = groups.filter((g) => used.has(g.id));
  }
  const resolver = buildResolver(actual);
  const { stepGroups, keyOfGroup } = layOutStepGroups(ctx, groups, known, resolver);
  const cases = layOutCases(ctx, selected ? selectedCases : actual.cases.filter((x) => folderDir.has(x.folderId)), folders, known, {
    resolver,
    stepGroups: new Map(actual.stepGroups.map((g) => [g.id, g])),
    useName: (gid: string) => keyOfGroup.get(gid),
    labelsReadable: actual.labelsReadable,
  }, keyOfGroup);

  // for a subtree, only files under it can be gone
  const selectedDirs = selected ? folders.filter((f) => !f.ancestor).map((f) => `${f.dir}/`) : undefined;
  const relevant = (g: GoneItem) =>
    !selectedDirs || (g.itemType !== 'step_group' && selectedDirs.some((d) => g.file.startsWith(d)));
  return { folders, cases, stepGroups, stepGroupKeys: keyOfGroup, gone: known.gone.filter(relevant), warnings: ctx.warnings };
}

/** The repository's items matched to the service's by id, the others by natural key, and those gone. */
interface KnownFiles {
  existingCaseFile: Map<string, string>;
  /** the directory of the folder an existing case sits in, where that is not its file's (`folderDir`) */
  caseFolderDir: Map<string, string>;
  existingGroupFile: Map<string, string>;
  /** the `use:` key of an existing step group whose file holds several items */
  groupKey: Map<string, string>;
  existingFolder: Map<string, { dir: string; file?: string; inFile?: string }>;
  /** natural keys of local items without id: `dir\0title` → files */
  unclaimedCases: Map<string, string[]>;
  unclaimedGroups: Map<string, string[]>;
  unclaimedDirs: Map<string, { dir: string; file?: string; inFile?: string }>;
  gone: GoneItem[];
}

function indexExisting(actual: ActualState, existing: ExistingRepository): KnownFiles {
  const casesByRef = new Map<string, RemoteCase>();
  for (const c of actual.cases) {
    casesByRef.set(c.id.toLowerCase(), c);
    if (c.humanId) casesByRef.set(c.humanId.toUpperCase(), c);
  }
  const groupsByRef = new Map<string, RemoteStepGroup>();
  for (const g of actual.stepGroups) {
    groupsByRef.set(g.id.toLowerCase(), g);
    if (g.humanId) groupsByRef.set(g.humanId.toUpperCase(), g);
  }
  const findCase = (ref: string) => casesByRef.get(ref.toLowerCase()) ?? casesByRef.get(ref.toUpperCase());
  const findGroup = (ref: string) => groupsByRef.get(ref.toLowerCase()) ?? groupsByRef.get(ref.toUpperCase());
  const foldersById = new Map(actual.folders.map((f) => [f.id, f]));
  const known: KnownFiles = {
    existingCaseFile: new Map(),
    caseFolderDir: new Map(existing.cases.flatMap((e) => (e.folderDir !== undefined ? [[e.file, e.folderDir] as const] : []))),
    existingGroupFile: new Map(),
    groupKey: new Map(existing.stepGroups.flatMap((e) => (e.key !== undefined ? [[e.file, e.key] as const] : []))),
    existingFolder: new Map(),
    unclaimedCases: new Map(),
    unclaimedGroups: new Map(),
    unclaimedDirs: new Map(),
    gone: [],
  };
  // items the service has outside what was read (`confirmMissing`) are not gone
  const elsewhere = new Set((actual.elsewhere ?? []).map((id) => id.toUpperCase()));
  const isGone = (id: string) => !elsewhere.has(id.trim().toUpperCase());
  const push = (m: Map<string, string[]>, k: string, v: string) => m.set(k, [...(m.get(k) ?? []), v]);
  for (const e of existing.cases) {
    if (e.id === undefined) {
      if (e.title !== undefined) push(known.unclaimedCases, `${e.folderDir ?? parentOf(e.file)}\u0000${e.title.trim()}`, e.file);
      continue;
    }
    const c = findCase(e.id);
    if (c) {
      if (!known.existingCaseFile.has(c.id)) known.existingCaseFile.set(c.id, e.file);
    } else if (isGone(e.id)) known.gone.push({ itemType: 'case', id: e.id, file: e.file });
  }
  for (const e of existing.stepGroups) {
    if (e.id === undefined) {
      if (e.title !== undefined) push(known.unclaimedGroups, e.title.trim(), e.file);
      continue;
    }
    const g = findGroup(e.id);
    if (g) {
      if (!known.existingGroupFile.has(g.id)) known.existingGroupFile.set(g.id, e.file);
    } else if (isGone(e.id)) known.gone.push({ itemType: 'step_group', id: e.id, file: e.file });
  }
  for (const e of existing.folders) {
    if (e.id === undefined) {
      known.unclaimedDirs.set(twinKey(e.dir), e);
      continue;
    }
    const id = e.id;
    const f = foldersById.get(id) ?? actual.folders.find((x) => x.id.toLowerCase() === id.toLowerCase());
    if (f) {
      if (!known.existingFolder.has(f.id)) known.existingFolder.set(f.id, e);
    } else if (isGone(e.id)) known.gone.push({ itemType: 'folder', id: e.id, file: e.file ?? e.dir });
  }
  return known;
}

/** The folder tree (parents before children, siblings by order) and, for `--folder`, the chain down to the selected one. */
interface FolderTree {
  children: Map<string | null, RemoteFolder[]>;
  selected: RemoteFolder | undefined;
  chain: RemoteFolder[];
}

function folderTree(actual: ActualState, folder: readonly string[] | undefined): FolderTree {
  const foldersById = new Map(actual.folders.map((f) => [f.id, f]));
  const children = new Map<string | null, RemoteFolder[]>();
  for (const f of actual.folders) {
    const parent = f.parentId !== null && foldersById.has(f.parentId) ? f.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(f);
    children.set(parent, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : 1));
  let selected: RemoteFolder | undefined;
  const chain: RemoteFolder[] = [];
  if (folder && folder.length > 0) {
    let level = children.get(null) ?? [];
    for (const [i, name] of folder.entries()) {
      const hit = level.find((f) => f.name === name) ?? level.find((f) => f.name.trim() === name.trim());
      if (!hit) {
        const here = folder.slice(0, i).join('/') || 'the top level';
        throw new TmsyncError('folder_not_found', `no folder "${folder.slice(0, i + 1).join('/')}" on the service`, {
          hint: `folders in ${here}: ${level.map((f) => f.name).join(', ') || '(none)'}`,
        });
      }
      selected = hit;
      chain.push(hit);
      level = children.get(hit.id) ?? [];
    }
  }
  return { children, selected, chain };
}

function placeFolders(ctx: LayoutContext, tree: FolderTree, known: KnownFiles): { folders: ModelFolder[]; folderDir: Map<string, ModelFolder> } {
  const folders: ModelFolder[] = [];
  const folderDir = new Map<string, ModelFolder>();
  const place = (f: RemoteFolder, parent: ModelFolder | undefined, ancestor: boolean) => {
    const parentDir = parent ? parent.dir : ctx.casesDir;
    const dir = folderDirectory(ctx, known, f, parent, parentDir, folders);
    const prev = known.existingFolder.get(f.id);
    const file = prev?.file && (parentOf(prev.file) === dir || prev.inFile !== undefined) ? prev.file : `${dir}/_folder${newFileExtension()}`;
    const m: ModelFolder = {
      remote: f,
      path: [...(parent?.path ?? []), f.name],
      name: f.name,
      dir,
      file,
      ...(baseOf(dir) !== f.name ? { nameOverride: f.name } : {}),
      ...(prev?.file && prev.file !== file ? { movedFrom: prev.file } : {}),
      ...(prev?.inFile !== undefined && prev.dir === dir ? { inFile: prev.inFile } : {}),
      ancestor,
    };
    folders.push(m);
    folderDir.set(f.id, m);
    const why = folderNameProblem(f.name);
    if (why) {
      ctx.warnings.push({
        code: 'unsupported_folder_name',
        message: `folder "${m.path.join('/')}": ${why}; the repository format cannot hold it as it is, rename it on the service`,
      });
    }
    return m;
  };
  const walk = (parentId: string | null, parent: ModelFolder | undefined): void => {
    for (const f of tree.children.get(parentId) ?? []) walk(f.id, place(f, parent, false));
  };
  const selected = tree.selected;
  if (selected) {
    let parent: ModelFolder | undefined;
    for (const f of tree.chain) parent = place(f, parent, f.id !== selected.id);
    walk(selected.id, parent);
  } else walk(null, undefined);
  return { folders, folderDir };
}

/**
 * The directory of a folder: where its local directory is (found by id, or adopted by name), else
 * a new name in its parent. Records an adopted directory in `known.existingFolder`.
 */
function folderDirectory(ctx: LayoutContext, known: KnownFiles, f: RemoteFolder, parent: ModelFolder | undefined, parentDir: string, placed: ModelFolder[]): string {
  const alloc = ctx.allocatorFor(parentDir);
  let prev: { dir: string; file?: string; inFile?: string } | undefined = known.existingFolder.get(f.id);
  if (!prev && isPortableDirName(f.name)) {
    // a local directory of that name without an id is this folder (adopted, not duplicated)
    // (or of that name in NFD, as macOS writes `Café`: one entry there, so the same directory)
    const local = known.unclaimedDirs.get(twinKey(`${parentDir}/${f.name}`));
    if (local && baseOf(local.dir).normalize('NFC') === f.name) {
      known.unclaimedDirs.delete(twinKey(local.dir));
      prev = local;
      known.existingFolder.set(f.id, local);
    }
  }
  if (prev && (parentOf(prev.dir) === parentDir || ctx.options.keepPlace?.('folder', f.id) === true)) {
    ctx.allocatorFor(parentOf(prev.dir)).reserve(baseOf(prev.dir));
    return prev.dir;
  }
  const twin = alloc.twinOf(f.name.normalize('NFC'));
  const stem = isPortableDirName(f.name) && twin === undefined ? f.name : safeDirName(f.name);
  const dir = `${parentDir}/${alloc.allocate(stem)}`;
  if (twin !== undefined && baseOf(dir) !== f.name) {
    // `Login` next to `login`, or `Café` in NFC next to NFD: one directory on macOS and
    // Windows; written under another name, with the real one in _folder.yaml, and said,
    // whichever of the two came first (the directory taken may carry this folder's own name)
    ctx.warnings.push({ code: 'folder_name_twin', message: twinMessage(f, parent, parentDir, twin, dir, placed) });
  }
  return dir;
}

function layOutStepGroups(
  ctx: LayoutContext,
  groups: readonly RemoteStepGroup[],
  known: KnownFiles,
  resolver: ReturnType<typeof buildResolver>,
): { stepGroups: ModelStepGroup[]; keyOfGroup: Map<string, string> } {
  const { stepGroupsDir } = ctx;
  const existingGroupFile = known.existingGroupFile;
  const stepGroups: ModelStepGroup[] = [];
  const groupAlloc = ctx.allocatorFor(stepGroupsDir);
  const keyOfGroup = new Map<string, string>();
  const pending: RemoteStepGroup[] = [];
  for (const g of [...groups].sort(byAge)) {
    if (existingGroupFile.has(g.id)) continue;
    const local = known.unclaimedGroups.get(g.title.trim());
    if (local && local.length > 0) existingGroupFile.set(g.id, local.shift()!);
  }
  for (const g of groups) {
    const prev = existingGroupFile.get(g.id);
    const inFileKey = prev !== undefined ? known.groupKey.get(prev) : undefined;
    if (inFileKey !== undefined) keyOfGroup.set(g.id, inFileKey);
    else if (prev && parentOf(prev) === stepGroupsDir) {
      groupAlloc.reserve(baseOf(prev));
      keyOfGroup.set(g.id, stemOf(baseOf(prev)));
    } else pending.push(g);
  }
  const ext = newFileExtension();
  for (const g of pending.sort(byAge)) {
    const name = groupAlloc.allocate(slugify(g.title, 'step-group'), ext);
    keyOfGroup.set(g.id, name.slice(0, name.length - ext.length));
  }
  for (const g of [...groups].sort(byAge)) {
    const key = keyOfGroup.get(g.id)!;
    const prev = existingGroupFile.get(g.id);
    const file = prev && (parentOf(prev) === stepGroupsDir || known.groupKey.has(prev)) ? prev : `${stepGroupsDir}/${key}${ext}`;
    stepGroups.push({
      remote: g,
      key,
      file,
      ...(ctx.includeIds ? { id: g.humanId || g.id } : {}),
      title: g.title,
      ...remoteGroupFields(g, resolver, ctx.actual.labelsReadable),
      ...(prev ? { existingFile: prev } : {}),
    });
  }
  return { stepGroups, keyOfGroup };
}

/**
 * Whether a case the service has can be added to a file holding several items: steps as a list
 * (template STEPS), and no step group but the one that file holds, as its first step (a Gherkin
 * background); else it gets a file of its own.
 */
function fitsFile(c: RemoteCase, file: string, known: KnownFiles): boolean {
  if (c.templateType === 'TCD') return false;
  return c.individualSteps.every((s, i) => {
    if (!s.stepGroupId) return true;
    const groupFile = known.existingGroupFile.get(s.stepGroupId);
    return i === 0 && groupFile !== undefined && splitItemRef(groupFile).file === file;
  });
}

/** Cases, folder by folder: a case keeps its file where it is still in its folder, else gets a new name there. */
function layOutCases(
  ctx: LayoutContext,
  chosen: readonly RemoteCase[],
  folders: readonly ModelFolder[],
  known: KnownFiles,
  fieldCtx: FieldContext,
  keyOfGroup: ReadonlyMap<string, string>,
): ModelCase[] {
  const existingCaseFile = known.existingCaseFile;
  const memo = memoFits(ctx.options.memo, ctx.actual, ctx.includeIds, keyOfGroup) ? ctx.options.memo : undefined;
  const byFolder = new Map<string, RemoteCase[]>();
  for (const c of chosen) {
    const list = byFolder.get(c.folderId) ?? [];
    list.push(c);
    byFolder.set(c.folderId, list);
  }
  const ext = newFileExtension();
  const cases: ModelCase[] = [];
  for (const folder of folders) {
    const list = byFolder.get(folder.remote.id);
    if (!list) continue;
    const alloc = ctx.allocatorFor(folder.dir);
    const fileOf = new Map<string, string>();
    const fresh: RemoteCase[] = [];
    for (const c of [...list].sort(byAge)) {
      if (existingCaseFile.has(c.id)) continue;
      const local = known.unclaimedCases.get(`${folder.dir}\u0000${c.title.trim()}`);
      if (local && local.length > 0) existingCaseFile.set(c.id, local.shift()!);
    }
    for (const c of list) {
      const prev = existingCaseFile.get(c.id);
      // an item of a file holding several stays in it (a scenario is not moved between feature files)
      const inFile = prev !== undefined && splitItemRef(prev).at !== undefined;
      if (prev && ((known.caseFolderDir.get(prev) ?? parentOf(prev)) === folder.dir || inFile || ctx.options.keepPlace?.('case', c.id) === true)) fileOf.set(c.id, prev);
      else fresh.push(c);
    }
    const appended = new Set<string>();
    for (const c of fresh.sort(byAge)) {
      if (ctx.options.newItemsInFiles && folder.inFile !== undefined && fitsFile(c, folder.inFile, known)) {
        fileOf.set(c.id, `${folder.inFile}#+${c.id}`);
        appended.add(c.id);
      } else fileOf.set(c.id, `${folder.dir}/${alloc.allocate(slugify(c.title, 'case'), ext)}`);
    }
    for (const c of [...list].sort(byAge)) {
      const { fields, warnings: w } = memo?.get(c) ?? remoteCaseFields(c, fieldCtx, caseWhere(c));
      ctx.warnings.push(...w);
      const prev = existingCaseFile.get(c.id);
      cases.push({
        remote: c,
        file: fileOf.get(c.id)!,
        folderPath: folder.path,
        ...(ctx.includeIds ? { id: c.humanId || c.id } : {}),
        title: c.title,
        fields,
        // one added to a file is an edit of that file
        ...(prev ? { existingFile: prev } : appended.has(c.id) ? { existingFile: fileOf.get(c.id)! } : {}),
      });
    }
  }
  return cases;
}
