import { createHash } from 'node:crypto';
import { readFile } from 'node:fs';
import { join } from 'node:path';
import type { Problem } from '../errors.js';
import type { DesiredCase, DesiredFolder, DesiredState, DesiredStepGroup } from '../model.js';
import { parseCaseFile, parseStepGroupFile, type Parsed } from './case-file.js';
import type { TmsyncConfig } from './config.js';
import { crossFileProblems } from './cross-checks.js';
import { folderNameProblem, parseFolderFile, type ParsedFolderFile } from './folder-file.js';
import { byName, listStepGroupFiles, mapLimit, walkCasesDir } from './walk.js';
import { sortProblems } from './yaml-source.js';

export { sortProblems };

/** Files read at once: enough to hide disk latency, few enough to stay far from EMFILE. */
const READ_CONCURRENCY = 64;

export interface LoadRepositoryResult {
  state: DesiredState;
  /** every problem found, sorted by file and position; warnings have `severity: 'warning'` */
  problems: Problem[];
}

const stemOf = (file: string) => file.slice(file.lastIndexOf('/') + 1).replace(/\.ya?ml$/i, '');

/**
 * Reads the tests repository into a normalized desired state. Bad content never throws: it
 * comes back as problems, and the items it affects are left out of the state. Only I/O failures
 * (permissions, a vanished disk) throw.
 */
export async function loadRepository(root: string, config: TmsyncConfig): Promise<LoadRepositoryResult> {
  const problems: Problem[] = [];
  const contents = new Map<string, string>();
  const read = async (rel: string) => {
    const text = await readText(join(root, rel));
    contents.set(rel, text);
    return text;
  };

  const walked = await walkCasesDir(root, config.casesDir);
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
  const dirs = walked?.dirs ?? [];

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

  // 1. _folder.yaml files: names decide folder paths and scope
  const folderFiles = new Map<string, ParsedFolderFile>();
  await mapLimit(
    dirs.filter((d) => d.folderFile),
    READ_CONCURRENCY,
    async (d) => {
      const { parsed, problems: ps } = parseFolderFile(d.folderFile!, await read(d.folderFile!));
      problems.push(...ps);
      if (parsed) folderFiles.set(d.rel, parsed);
    },
  );

  // 2. the folder tree, with names checked and scope applied
  const folders: DesiredFolder[] = [];
  const folderByRel = new Map<string, DesiredFolder>();
  const outOfScope = new Map<string, { name: string; files: string[] }>();
  const namesInParent = new Map<string, DesiredFolder>();
  for (const d of dirs) {
    const parentRel = d.rel.slice(0, d.rel.lastIndexOf('/'));
    const top = d.segments.length === 1;
    const parent = top ? undefined : folderByRel.get(parentRel);
    if (!top && !parent) {
      // the parent is out of scope (or otherwise skipped): so is this subtree
      const topRel = d.rel.split('/').slice(0, d.rel.split('/').length - d.segments.length + 1).join('/');
      outOfScope.get(topRel)?.files.push(...d.caseFiles);
      continue;
    }
    const override = folderFiles.get(d.rel);
    const dirName = d.segments[d.segments.length - 1];
    const name = override?.name ?? dirName;
    if (top && config.scope !== undefined && !config.scope.includes(name)) {
      // a warning, not an error: keeping unmanaged folders next to managed ones is legitimate,
      // but the user should know these files are not applied
      outOfScope.set(d.rel, { name, files: [...d.caseFiles] });
      continue;
    }
    if (override?.name === undefined) {
      const why = folderNameProblem(dirName);
      if (why) {
        problems.push({
          file: d.rel,
          line: 1,
          col: 1,
          code: 'invalid_folder_name',
          message: `${why}: directory \`${dirName}\``,
          hint: `rename the directory, or give the name in ${d.rel}/_folder.yaml as \`name:\``,
        });
      }
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
  for (const [rel, { name, files }] of outOfScope) {
    if (files.length === 0) continue;
    problems.push({
      file: files[0],
      line: 1,
      col: 1,
      code: 'outside_scope',
      message: `folder \`${name}\` (${rel}) is outside \`scope\` (${config.scope!.join(', ')}): its ${files.length} test case file${files.length === 1 ? ' is' : 's are'} not managed`,
      hint: `add \`${name}\` to \`scope\` in tmsync.yaml to manage it`,
      severity: 'warning',
    });
  }

  // 3. cases and step groups
  const caseJobs = dirs.flatMap((d) => {
    const folder = folderByRel.get(d.rel);
    return folder ? d.caseFiles.map((file) => ({ file, folder })) : [];
  });
  const parsedCases: Parsed<DesiredCase>[] = [];
  await mapLimit(caseJobs, READ_CONCURRENCY, async ({ file, folder }) => {
    const { parsed, problems: ps } = parseCaseFile(file, await read(file));
    if (ps.length > 0) problems.push(...ps);
    if (parsed) {
      parsed.item.folderPath = folder.path;
      parsedCases.push(parsed);
    }
  });

  const sg = await listStepGroupFiles(root, config.stepGroupsDir);
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
  const parsedGroups: Parsed<DesiredStepGroup>[] = [];
  await mapLimit(sg.files, READ_CONCURRENCY, async (file) => {
    const { parsed, problems: ps } = parseStepGroupFile(file, stemOf(file), await read(file));
    problems.push(...ps);
    if (parsed) parsedGroups.push(parsed);
  });

  parsedCases.sort((a, b) => byName(a.item.file, b.item.file));
  parsedGroups.sort((a, b) => byName(a.item.file, b.item.file));
  problems.push(...crossFileProblems({ folders, folderFiles, cases: parsedCases, stepGroups: parsedGroups }));

  const state: DesiredState = {
    root,
    casesDir: config.casesDir,
    stepGroupsDir: config.stepGroupsDir,
    ...(config.scope !== undefined ? { scope: config.scope } : {}),
    defaults: config.defaults,
    folders,
    cases: parsedCases.map((c) => c.item),
    stepGroups: parsedGroups.map((g) => g.item),
    contentHash: hashContents(contents),
  };
  return { state, problems: sortProblems(problems) };
}

/**
 * The callback `readFile`: for thousands of small files it costs half of what the FileHandle
 * based `fs/promises` version does (no handle object, fewer round trips to the thread pool).
 */
function readText(file: string): Promise<string> {
  return new Promise((resolve, reject) => readFile(file, 'utf8', (err, text) => (err ? reject(err) : resolve(text))));
}

/** sha256 over relative paths and contents, in path order. */
export function hashContents(contents: ReadonlyMap<string, string>): string {
  const h = createHash('sha256');
  for (const rel of [...contents.keys()].sort(byName)) {
    h.update(rel);
    h.update('\u0000');
    h.update(contents.get(rel)!);
    h.update('\u0000');
  }
  return h.digest('hex');
}
