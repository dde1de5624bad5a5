import type { Problem } from '../errors.js';
import type { DesiredCase, DesiredFolder, DesiredStepGroup } from '../model.js';
import type { Parsed } from './case-file.js';
import { didYouMean } from '../did-you-mean.js';
import type { ParsedFolderFile } from './folder-file.js';
import { STEP_GROUP_ID_PATTERN } from './file-schemas.js';
import type { Position } from './yaml-source.js';

interface CrossCheckInput {
  folders: DesiredFolder[];
  folderFiles: ReadonlyMap<string, ParsedFolderFile>;
  cases: Parsed<DesiredCase>[];
  stepGroups: Parsed<DesiredStepGroup>[];
  /** keys of step group files that did not load: their own problems are reported, not every `use:` of them */
  brokenStepGroupKeys?: ReadonlySet<string>;
}

const at = (file: string, pos: Position | undefined) => ({ file, line: pos?.line ?? 1, col: pos?.col ?? 1 });
/** Human ids are matched case-insensitively by the service, uuids are case-insensitive anyway. */
const idKey = (id: string) => id.toLowerCase();

/**
 * The rules between files: one remote item claimed by two files, natural keys that would match
 * ambiguously, and `use:` references.
 */
export function crossFileProblems(input: CrossCheckInput): Problem[] {
  const problems: Problem[] = [];

  const duplicateIds = (items: { id?: string; file: string; pos?: Position; what: string }[]) => {
    const first = new Map<string, { file: string; pos?: Position }>();
    for (const it of items) {
      if (it.id === undefined) continue;
      const prev = first.get(idKey(it.id));
      if (!prev) {
        first.set(idKey(it.id), it);
        continue;
      }
      problems.push({
        ...at(it.file, it.pos),
        code: 'duplicate_id',
        message: `id \`${it.id}\` is also the id of ${prev.file}:${prev.pos?.line ?? 1}:${prev.pos?.col ?? 1}; two files cannot describe one ${it.what}`,
        hint: 'delete one of the files, or remove the `id` line from the copy to make it a new item',
      });
    }
  };
  duplicateIds(input.cases.map((c) => ({ id: c.item.id, file: c.item.file, pos: c.idPos, what: 'test case' })));
  duplicateIds(input.stepGroups.map((g) => ({ id: g.item.id, file: g.item.file, pos: g.idPos, what: 'step group' })));
  duplicateIds(
    input.folders
      .filter((f) => f.id !== undefined && f.file !== undefined)
      .map((f) => ({ id: f.id, file: f.file!, pos: input.folderFiles.get(f.dir)?.idPos, what: 'folder' })),
  );

  // natural keys: only ambiguous when an item without id would have to be matched by it
  const duplicateTitles = <T extends { id?: string; title: string; file: string }>(
    items: Parsed<T>[],
    keyOf: (item: T) => string,
    describe: (item: T) => string,
    what: string,
  ) => {
    const groups = new Map<string, Parsed<T>[]>();
    for (const it of items) {
      const k = keyOf(it.item);
      const g = groups.get(k);
      if (g) g.push(it);
      else groups.set(k, [it]);
    }
    for (const group of groups.values()) {
      if (group.length < 2 || group.every((g) => g.item.id !== undefined)) continue;
      const [first, ...rest] = group;
      for (const it of rest) {
        problems.push({
          ...at(it.item.file, it.titlePos),
          code: 'duplicate_title',
          message: `${describe(it.item)} \`${it.item.title}\` like ${first.item.file}; items without id are matched by ${what}, so this is ambiguous`,
          hint: 'rename one of them, or give both an `id`',
        });
      }
    }
  };
  duplicateTitles(
    input.cases,
    (c) => `${c.folderPath.join('\u0000')}\u0001${c.title}`,
    (c) => `a second test case in folder \`${c.folderPath.join('/')}\` is titled`,
    'folder and title',
  );
  duplicateTitles(input.stepGroups, (g) => g.title, () => 'a second step group is titled', 'title');

  // step group keys: `a.yaml` and `a.yml` would both be `use: a`
  const keys = new Map<string, DesiredStepGroup>();
  for (const g of input.stepGroups) {
    const prev = keys.get(g.item.key);
    if (prev) {
      problems.push({
        ...at(g.item.file, undefined),
        code: 'duplicate_key',
        message: `step group key \`${g.item.key}\` is also the key of ${prev.file}`,
        hint: 'rename one of the files; the file stem is what `use:` refers to',
      });
    } else keys.set(g.item.key, g.item);
  }

  const ids = new Set(input.stepGroups.flatMap((g) => (g.item.id ? [idKey(g.item.id)] : [])));
  const keyList = [...keys.keys()];
  for (const c of input.cases) {
    for (const step of c.item.fields.steps ?? []) {
      if (step.kind !== 'use') continue;
      if (keys.has(step.use) || ids.has(idKey(step.use)) || input.brokenStepGroupKeys?.has(step.use)) continue;
      const src = at(c.item.file, step.source);
      if (STEP_GROUP_ID_PATTERN.test(step.use)) {
        // a remote group the repository does not hold: legal, but only the service can tell
        problems.push({
          ...src,
          code: 'unknown_step_group',
          message: `\`use: ${step.use}\` names no step group of this repository; the service must have it`,
          hint: 'run `tmsync pull` to bring the step group into the repository',
          severity: 'warning',
        });
        continue;
      }
      const guess = didYouMean(step.use, keyList);
      problems.push({
        ...src,
        code: 'unknown_step_group',
        message: `\`use: ${step.use}\` names no step group`,
        hint: guess
          ? `did you mean \`${guess}\`?`
          : keyList.length > 0
            ? `a step group is named by its file stem (${keyList.slice(0, 5).join(', ')}${keyList.length > 5 ? ', …' : ''}) or its id`
            : 'add the step group as a file under the step groups directory',
      });
    }
  }
  problems.push(...automationProblems(input.cases));
  return problems;
}

/**
 * One test named by the `automation:` of two cases (the same name, or the same pattern): its
 * result would go to both, which is rarely meant. A warning, as a test may prove two cases.
 */
function automationProblems(cases: readonly Parsed<DesiredCase>[]): Problem[] {
  const problems: Problem[] = [];
  const first = new Map<string, DesiredCase>();
  for (const { item } of cases) {
    for (const entry of new Set(item.automation?.tests ?? [])) {
      const prev = first.get(entry);
      if (!prev) {
        first.set(entry, item);
        continue;
      }
      problems.push({
        file: item.file,
        line: item.lines.automation ?? 1,
        col: 1,
        code: 'duplicate_automation_test',
        message: `\`automation.tests\` names \`${entry}\`, which ${prev.file}:${prev.lines.automation ?? 1} names too; its results would go to both cases`,
        hint: 'keep the test in the case it proves; a test that proves both may stay (this is a warning)',
        severity: 'warning',
      });
    }
  }
  return problems;
}
