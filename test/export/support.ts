import type { DesiredCase, DesiredCaseFields, DesiredFolder, DesiredState, DesiredStepGroup } from '../../src/model.js';

/**
 * In-memory repositories for the export writers' tests: a `DesiredState` as `loadRepository`
 * gives it, built from folder paths, cases and step groups.
 */

export interface CaseSpec {
  folder: string[];
  title: string;
  id?: string;
  source?: string;
  fields?: DesiredCaseFields;
}

export interface GroupSpec {
  key: string;
  title: string;
  id?: string;
  steps: { action: string; expected: string }[];
}

/** Every folder of `paths` and their parents, parents first, in the order first named. */
function allFolders(paths: readonly string[][]): string[][] {
  const seen = new Map<string, string[]>();
  for (const path of paths) for (let n = 1; n <= path.length; n++) if (!seen.has(path.slice(0, n).join('\u0000'))) seen.set(path.slice(0, n).join('\u0000'), path.slice(0, n));
  return [...seen.values()];
}

export function repository(spec: { folders?: string[][]; cases: CaseSpec[]; groups?: GroupSpec[] }): DesiredState {
  const folders: DesiredFolder[] = allFolders([...(spec.folders ?? []), ...spec.cases.map((c) => c.folder)]).map((path) => ({
    path,
    name: path[path.length - 1],
    dir: ['cases', ...path].join('/'),
  }));
  const cases: DesiredCase[] = spec.cases.map((c, i) => ({
    file: ['cases', ...c.folder, `case-${i + 1}.yaml`].join('/'),
    folderPath: c.folder,
    ...(c.id !== undefined ? { id: c.id } : {}),
    ...(c.source !== undefined ? { source: c.source } : {}),
    title: c.title,
    fields: c.fields ?? {},
    lines: { title: 1, steps: 2 },
  }));
  const stepGroups: DesiredStepGroup[] = (spec.groups ?? []).map((g) => ({
    key: g.key,
    file: `step_groups/${g.key}.yaml`,
    ...(g.id !== undefined ? { id: g.id } : {}),
    title: g.title,
    steps: g.steps,
    lines: {},
  }));
  return { root: '/repo', casesDir: 'cases', stepGroupsDir: 'step_groups', defaults: {}, folders, cases, stepGroups, contentHash: '' };
}
