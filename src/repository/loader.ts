import { createHash } from 'node:crypto';
import type { Problem } from '../errors.js';
import { CASE_FIELDS } from '../fields.js';
import type { DesiredCase, DesiredFolder, DesiredState, DesiredStep, DesiredStepGroup } from '../model.js';
import { scopeMatcher } from '../scope.js';
import type { Parsed } from './case-file.js';
import type { TmsyncConfig } from './config.js';
import { crossFileProblems } from './cross-checks.js';
import { itemRef, stemOf } from './format.js';
import { FOLDER_ADDRESS } from './gherkin-edit.js';
import { folderNameProblem, type ParsedFolderFile } from './folder-file.js';
import { isParsedItems, parseFiles, type ParseFilesOptions, type ParseJob, type ParseResult } from './parse-files.js';
import { byName, byNaturalName, listStepGroupFiles, walkCasesDir, type WalkedDir } from './walk.js';
import { sortProblems } from './yaml-source.js';
import { textSharer } from '../text-sharer.js';
import { assertNever } from '../assert-never.js';

export { sortProblems };

export type LoadRepositoryOptions = ParseFilesOptions;

export interface LoadRepositoryResult {
  state: DesiredState;
  /** every problem found, sorted by file and position; warnings have `severity: 'warning'` */
  problems: Problem[];
  /**
   * temporary files a killed older tmsync left next to the files (`.NAME.yaml.PID.tmp`),
   * relative paths: commands that write the repository remove them (`removeStrayTempFiles`)
   */
  strays: string[];
}

/**
 * Reads the tests repository into a normalized desired state. Bad content never throws: it
 * comes back as problems, and the items it affects are left out of the state. Only I/O failures
 * (permissions, a vanished disk) throw. Each file is parsed by the format claiming its name
 * (`format.ts`).
 */
export async function loadRepository(
  root: string,
  config: TmsyncConfig,
  options: LoadRepositoryOptions = {},
): Promise<LoadRepositoryResult> {
  const problems: Problem[] = [];
  /** relative path → sha256 of the content, for contentHash */
  const hashes = new Map<string, string>();

  const walked = await walkCasesDir(root, config.casesDir);
  problems.push(...walkProblems(config, walked));
  const dirs = walked?.dirs ?? [];

  // 1. _folder.yaml files: names decide folder paths and scope
  const { folderFiles, folderProblems } = await parseFolderFiles(root, dirs, options, hashes);
  // 2. the folder tree, with names checked and scope applied
  const tree = folderTree(dirs, folderFiles, config, problems);
  problems.push(...scopeProblems(config, tree, folderProblems));
  // 3. cases and step groups, parsed in one batch (in worker threads when there are many)
  const items = await parseItems(root, config, dirs, tree, options, hashes, problems);

  // natural order (`case-2` before `case-10`): the plan creates in this order, the service numbers in it
  items.cases.sort((a, b) => byNaturalName(a.item.file, b.item.file));
  items.groups.sort((a, b) => byNaturalName(a.item.file, b.item.file));
  const folders = tree.folders;
  problems.push(...crossFileProblems({ folders, folderFiles, cases: items.cases, stepGroups: items.groups, brokenStepGroupKeys: items.brokenStepGroupKeys }));

  const state: DesiredState = {
    root,
    casesDir: config.casesDir,
    stepGroupsDir: config.stepGroupsDir,
    ...(config.scope !== undefined ? { scope: config.scope } : {}),
    defaults: config.defaults,
    folders,
    cases: items.cases.map((c) => c.item),
    stepGroups: items.groups.map((g) => g.item),
    contentHash: hashContents(hashes),
  };
  return { state, problems: sortProblems(problems), strays: [...(walked?.strays ?? []), ...items.strays] };
}

type Walked = Awaited<ReturnType<typeof walkCasesDir>>;

/** What the walk of cases_dir found wrong: no such directory, files outside any folder, its own `_folder.yaml`. */
function walkProblems(config: TmsyncConfig, walked: Walked): Problem[] {
  const problems: Problem[] = [];
  if (!walked) {
    problems.push({
      file: config.casesDir,
      line: 1,
      col: 1,
      code: 'cases_dir_missing',
      message: `the cases directory \`${config.casesDir}\` does not exist`,
      hint: 'create it with one directory per folder, or set `cases_dir` in tmsync.yaml',
    });
  }
  problems.push(...(walked?.problems ?? []));
  for (const file of walked?.rootFiles ?? []) {
    problems.push({
      file,
      line: 1,
      col: 1,
      code: 'case_outside_folder',
      message: `a test case directly in \`${config.casesDir}\` has no folder; the service keeps every case in a folder`,
      hint: `move it into a directory under ${config.casesDir}/`,
    });
  }
  if (walked?.rootFolderFile) {
    problems.push({
      file: walked.rootFolderFile,
      line: 1,
      col: 1,
      code: 'root_folder_file',
      message: `\`${config.casesDir}\` itself is not a folder; this _folder.yaml is ignored`,
      hint: 'move it into the directory of the folder it describes',
      severity: 'warning',
    });
  }
  return problems;
}

async function parseFolderFiles(
  root: string,
  dirs: readonly WalkedDir[],
  options: LoadRepositoryOptions,
  hashes: Map<string, string>,
): Promise<{ folderFiles: Map<string, ParsedFolderFile>; folderProblems: { dir: WalkedDir; problems: Problem[] }[] }> {
  const folderFiles = new Map<string, ParsedFolderFile>();
  const withFolderFile = dirs.filter((d) => d.folderFile);
  const folderResults = await parseFiles(
    root,
    withFolderFile.map((d) => ({ kind: 'folder', rel: d.folderFile! })),
    options,
  );
  const folderProblems: { dir: WalkedDir; problems: Problem[] }[] = [];
  for (const [i, r] of folderResults.entries()) {
    hashes.set(r.rel, r.hash);
    if (r.problems.length > 0) folderProblems.push({ dir: withFolderFile[i], problems: r.problems });
    if (r.parsed) folderFiles.set(withFolderFile[i].rel, r.parsed);
  }
  return { folderFiles, folderProblems };
}

/** The folders of the repository, and the directories outside `scope`. */
interface FolderTree {
  folders: DesiredFolder[];
  folderByRel: Map<string, DesiredFolder>;
  /** per directory outside scope (or holding case files outside it): its path and case files */
  outOfScope: Map<string, { path: string[]; files: string[]; ancestor: boolean }>;
  /** directory → the topmost directory outside scope above it (or itself) */
  outsideRootOf: Map<string, string>;
}

function folderTree(dirs: readonly WalkedDir[], folderFiles: ReadonlyMap<string, ParsedFolderFile>, config: TmsyncConfig, problems: Problem[]): FolderTree {
  const relation = scopeMatcher(config.scope);
  const folders: DesiredFolder[] = [];
  const folderByRel = new Map<string, DesiredFolder>();
  const outOfScope: FolderTree['outOfScope'] = new Map();
  const outsideRootOf = new Map<string, string>();
  const namesInParent = new Map<string, DesiredFolder>();
  for (const d of dirs) {
    const parentRel = d.rel.slice(0, d.rel.lastIndexOf('/'));
    const top = d.segments.length === 1;
    const parent = top ? undefined : folderByRel.get(parentRel);
    if (!top && !parent) {
      // the parent is out of scope (or otherwise skipped): so is this subtree
      const root = outsideRootOf.get(parentRel);
      if (root !== undefined) {
        outsideRootOf.set(d.rel, root);
        outOfScope.get(root)!.files.push(...d.caseFiles);
      }
      continue;
    }
    const override = folderFiles.get(d.rel);
    const dirName = d.segments[d.segments.length - 1];
    const name = override?.name ?? dirName;
    const where = relation([...(parent?.path ?? []), name]);
    if (where === 'outside') {
      // a warning, not an error: keeping unmanaged folders next to managed ones is legitimate,
      // but the user should know these files are not applied
      outOfScope.set(d.rel, { path: [...(parent?.path ?? []), name], files: [...d.caseFiles], ancestor: false });
      outsideRootOf.set(d.rel, d.rel);
      continue;
    }
    if (where === 'ancestor' && d.caseFiles.length > 0) {
      // the folder above a path scope only places it: its own cases are not managed
      outOfScope.set(d.rel, { path: [...(parent?.path ?? []), name], files: [...d.caseFiles], ancestor: true });
    }
    if (override?.name === undefined) {
      const why = folderNameProblem(dirName);
      if (why) problems.push(dirNameProblem(d, dirName, why));
    }
    const path = [...(parent?.path ?? []), name];
    const folder: DesiredFolder = {
      path,
      name,
      dir: d.rel,
      ...(override?.id !== undefined ? { id: override.id } : {}),
      ...(override?.order !== undefined ? { order: override.order } : {}),
      ...(d.folderFile ? { file: d.folderFile } : {}),
    };
    const key = path.join('\u0000');
    const twin = namesInParent.get(key);
    if (twin) {
      const pos = override?.namePos;
      problems.push({
        file: pos ? d.folderFile! : d.rel,
        line: pos?.line ?? 1,
        col: pos?.col ?? 1,
        code: 'duplicate_folder',
        message: `two folders named \`${name}\` in the same parent: ${twin.dir} and ${d.rel}`,
        hint: 'rename one; tmsync matches folders by parent and name',
      });
      continue;
    }
    namesInParent.set(key, folder);
    folderByRel.set(d.rel, folder);
    folders.push(folder);
  }
  return { folders, folderByRel, outOfScope, outsideRootOf };
}

function dirNameProblem(d: WalkedDir, dirName: string, why: string): Problem {
  return {
    file: d.rel,
    line: 1,
    col: 1,
    code: 'invalid_folder_name',
    message: `${why}: directory \`${dirName}\``,
    hint: `rename the directory, or give the name in ${d.rel}/_folder.yaml as \`name:\``,
  };
}

/** The problems of folder files that matter, and a warning per folder whose case files are outside scope. */
function scopeProblems(config: TmsyncConfig, tree: FolderTree, folderProblems: readonly { dir: WalkedDir; problems: Problem[] }[]): Problem[] {
  const problems: Problem[] = [];
  const { outOfScope, outsideRootOf } = tree;
  // problems of _folder.yaml files below an unmanaged folder do not matter; the one of the
  // topmost unmanaged folder does, as it may be what put its folder out of scope (a `name:` that
  // failed to parse)
  for (const { dir, problems: ps } of folderProblems) {
    const root = outsideRootOf.get(dir.rel);
    if (root === undefined || root === dir.rel) problems.push(...ps);
  }
  for (const [rel, { path, files, ancestor }] of outOfScope) {
    if (files.length === 0) continue;
    const shown = path.join('/');
    const count = `${files.length} test case file${files.length === 1 ? ' is' : 's are'}`;
    problems.push({
      file: files[0],
      line: 1,
      col: 1,
      code: 'outside_scope',
      message: ancestor
        ? `folder \`${shown}\` (${rel}) only holds folders of \`scope\` (${config.scope!.join(', ')}): its own ${count} not managed`
        : `folder \`${shown}\` (${rel}) is outside \`scope\` (${config.scope!.join(', ')}): its ${count} not managed`,
      hint: ancestor
        ? `move them into a folder in scope, or add \`${shown}\` to \`scope\` in tmsync.yaml to manage it`
        : `add \`${shown}\` to \`scope\` in tmsync.yaml to manage it`,
      severity: 'warning',
    });
  }
  return problems;
}

interface ParsedItems {
  cases: Parsed<DesiredCase>[];
  groups: Parsed<DesiredStepGroup>[];
  brokenStepGroupKeys: Set<string>;
  strays: string[];
}

async function parseItems(
  root: string,
  config: TmsyncConfig,
  dirs: readonly WalkedDir[],
  tree: FolderTree,
  options: LoadRepositoryOptions,
  hashes: Map<string, string>,
  problems: Problem[],
): Promise<ParsedItems> {
  const { folderByRel, outOfScope } = tree;
  const caseFolders = new Map<string, DesiredFolder>();
  const jobs: ParseJob[] = [];
  for (const d of dirs) {
    const folder = folderByRel.get(d.rel);
    // a path scope's ancestor: its own case files were reported as outside scope
    if (!folder || outOfScope.has(d.rel)) continue;
    for (const rel of d.caseFiles) {
      caseFolders.set(rel, folder);
      jobs.push({ kind: 'case', rel });
    }
  }
  const sg = await listStepGroupFiles(root, config.stepGroupsDir);
  problems.push(...sg.problems);
  for (const dir of sg.nested) {
    problems.push({
      file: dir,
      line: 1,
      col: 1,
      code: 'nested_step_group_dir',
      message: 'step groups are one file each directly in the step groups directory; this directory is ignored',
      severity: 'warning',
    });
  }
  for (const rel of sg.files) jobs.push({ kind: 'step_group', rel, key: stemOf(rel) });

  const parsedCases: Parsed<DesiredCase>[] = [];
  const parsedGroups: Parsed<DesiredStepGroup>[] = [];
  const brokenStepGroupKeys = new Set<string>();
  const inFile = inFileFolders(tree);
  const firstInFile = tree.folders.length;
  const receive = receiver(caseFolders, inFile.folderOf);
  const read = { ...options, ...(config.gherkin ? { gherkin: config.gherkin } : {}), receive };
  for (const [i, r] of (await parseFiles(root, jobs, read)).entries()) {
    const job = jobs[i];
    hashes.set(job.rel, r.hash);
    if (r.problems.length > 0) problems.push(...r.problems);
    if (!r.parsed) {
      if (job.kind === 'step_group') brokenStepGroupKeys.add(job.key);
      continue;
    }
    if (isParsedItems(r.parsed)) {
      for (const c of r.parsed.cases) parsedCases.push(c);
      for (const g of r.parsed.stepGroups) parsedGroups.push(g);
    } else if (job.kind === 'case') parsedCases.push(r.parsed as Parsed<DesiredCase>);
    else parsedGroups.push(r.parsed as Parsed<DesiredStepGroup>);
  }
  // the folders files add arrive in the order their files were parsed (by several threads): put in path order
  tree.folders.push(...tree.folders.splice(firstInFile).sort((a, b) => byNaturalName(a.path.join('\u0000'), b.path.join('\u0000'))));
  return { cases: parsedCases, groups: parsedGroups, brokenStepGroupKeys, strays: sg.strays };
}

/**
 * The folders the files holding several items add below their directories (a feature's level):
 * made as their cases arrive, one per path (a directory of that name is the same folder).
 */
function inFileFolders(tree: FolderTree): { folderOf: (parent: DesiredFolder, names: readonly string[], file: string) => DesiredFolder } {
  const byPath = new Map(tree.folders.map((f) => [f.path.join('\u0000'), f]));
  return {
    folderOf: (parent, names, file) => {
      let folder = parent;
      for (const name of names) {
        const path = [...folder.path, name];
        const key = path.join('\u0000');
        let next = byPath.get(key);
        if (!next) {
          next = { path, name, dir: `${folder.dir}/${name}`, file: itemRef(file, FOLDER_ADDRESS), inFile: file };
          byPath.set(key, next);
          tree.folders.push(next);
        }
        folder = next;
      }
      return folder;
    },
  };
}

/** Makes each item what the state keeps as it arrives, while its objects are young (see `ParseFilesOptions.receive`). */
function receiver(
  caseFolders: ReadonlyMap<string, DesiredFolder>,
  folderOf: (parent: DesiredFolder, names: readonly string[], file: string) => DesiredFolder,
): (job: ParseJob, r: ParseResult) => void {
  const share = textSharer();
  const shareLines = linesSharer();
  return (job: ParseJob, r: ParseResult) => {
    if (!r.parsed) return;
    if (isParsedItems(r.parsed)) {
      const parent = caseFolders.get(job.rel)!;
      for (const c of r.parsed.cases) {
        c.item.file = job.rel;
        c.item.folderPath = c.folders && c.folders.length > 0 ? folderOf(parent, c.folders, job.rel).path : parent.path;
        delete c.folders;
        shareCase(c.item, share);
      }
      for (const g of r.parsed.stepGroups) {
        g.item.file = job.rel;
        for (const step of g.item.steps) shareStep(step, job.rel, share);
      }
    } else if (job.kind === 'case') {
      const item = (r.parsed as Parsed<DesiredCase>).item;
      // this thread's copy of the path: the item and the hashes share it
      item.file = job.rel;
      item.folderPath = caseFolders.get(job.rel)!.path;
      item.lines = shareLines(item.lines);
      shareCase(item, share);
    } else if (job.kind === 'step_group') {
      const item = (r.parsed as Parsed<DesiredStepGroup>).item;
      item.file = job.rel;
      for (const step of item.steps) shareStep(step, item.file, share);
    }
  };
}

function shareStep(step: { action?: string; expected?: string; source?: { file: string } }, file: string, share: (s: string) => string): void {
  if (step.source) step.source.file = file;
  if (step.action !== undefined) step.action = share(step.action);
  if (step.expected !== undefined) step.expected = share(step.expected);
}

/**
 * One object for equal `lines` records (issue 15): files written alike (the same keys on the same
 * lines) share it; nothing changes a loaded item's `lines`.
 */
function linesSharer(): (lines: Record<string, number>) => Record<string, number> {
  const pool = new Map<string, Record<string, number>>();
  return (lines) => {
    const key = JSON.stringify(lines);
    const had = pool.get(key);
    if (had !== undefined) return had;
    pool.set(key, lines);
    return lines;
  };
}

/** Replaces a case's repeated texts (short texts, lookup names, labels, step texts and references, its file in each step) by shared copies. */
function shareCase(item: DesiredCase, share: (s: string) => string): void {
  const f: Record<string, unknown> = item.fields;
  for (const field of CASE_FIELDS) {
    const value = f[field.model];
    if (value === undefined) continue;
    switch (field.kind) {
      case 'text':
        // short texts repeat (`The user is signed in.`); the sharer keeps longer ones as they come
        if (typeof value === 'string') f[field.model] = share(value);
        break;
      case 'template':
      case 'lookup':
      case 'user':
        f[field.model] = share(value as string);
        break;
      case 'labels':
        f[field.model] = (value as string[]).map(share);
        break;
      case 'steps':
        // new objects in a new array (issue 15): the array a worker's message brings holds room
        // for more elements than it has, and an action step keeps no position: nothing after
        // loading reports at one (the rules between files and the plan report at `use:` steps)
        f[field.model] = (value as DesiredStep[]).map((step): DesiredStep => {
          if (step.kind === 'step') return { kind: 'step', action: share(step.action), expected: share(step.expected) };
          const at = step.source;
          return at ? { kind: 'use', use: share(step.use), source: { file: item.file, line: at.line, col: at.col } } : { kind: 'use', use: share(step.use) };
        });
        break;
      default:
        assertNever(field.kind);
    }
  }
}

/** sha256 over relative paths and the sha256 of each file's content, in path order. */
function hashContents(fileHashes: ReadonlyMap<string, string>): string {
  const h = createHash('sha256');
  // one update per file (the same bytes as four)
  for (const rel of [...fileHashes.keys()].sort(byName)) h.update(`${rel}\u0000${fileHashes.get(rel)!}\n`);
  return h.digest('hex');
}
