import type { DesiredCase, DesiredFolder, DesiredState, DesiredStepGroup } from '../model.js';
import type { ImportReport } from '../import/report.js';

/**
 * The repository as the writers of `tmsync export` see it: cases in folder order with their steps
 * resolved (a `use:` stands for its step group's steps, or for the group's reference when the
 * repository does not hold it), the folders that hold no case, and the identity each case carries
 * out. What a format cannot hold is recorded in the report (`ImportReport`: the same counts per
 * field and first examples as an import's), never left out in silence.
 */

/** One step as written out: an individual step, or one of a step group's steps (`group` names it). */
export interface ExportStep {
  action: string;
  expected: string;
  /** the step group this step came from (its title), when it was a `use:` */
  group?: string;
}

export interface ExportCase {
  case: DesiredCase;
  /** the identity the case carries out (`externalId`), if any */
  externalId?: string;
  /** template STEPS: the steps, groups inlined; undefined for a TCD case or one without steps */
  steps?: ExportStep[];
}

export interface ExportView {
  cases: ExportCase[];
  /** folders (paths) no case sits in or under: formats that have folders of their own write them */
  emptyFolders: string[][];
  /** every folder path, parents first */
  folders: string[][];
}

/** `source:` split: `testrail:C123` → tool `testrail`, id `C123`. */
export function sourceOf(kase: DesiredCase): { tool: string; id: string } | undefined {
  const m = /^([a-z][a-z0-9-]*):(.+)$/.exec(kase.source?.trim() ?? '');
  return m ? { tool: m[1], id: m[2] } : undefined;
}

/**
 * The id a case carries into another tool (`tool`: the source tool of the format written, as
 * `source:` names it). A case imported from that tool takes its id there back (`testrail:C123` →
 * `C123`), so that exporting and importing again updates the same files; else the service's id
 * (`id:`); else, for a case imported from a third tool, its whole `source:` (`xray:CALC-7`).
 */
export function externalId(kase: DesiredCase, tool: string): string | undefined {
  const source = sourceOf(kase);
  if (source?.tool === tool) return source.id;
  const id = kase.id?.trim();
  if (id !== undefined && id !== '') return id;
  return kase.source?.trim() || undefined;
}

/** `use:` values → groups: the local key, or the group's `id:` (human id or uuid, any case). */
function groupIndex(groups: readonly DesiredStepGroup[]): (ref: string) => DesiredStepGroup | undefined {
  const byKey = new Map(groups.map((g) => [g.key, g]));
  const byId = new Map(groups.filter((g) => g.id !== undefined).map((g) => [g.id!.trim().toUpperCase(), g]));
  return (ref) => byKey.get(ref.trim()) ?? byId.get(ref.trim().toUpperCase());
}

const pathKey = (path: readonly string[]) => path.join('\u0000');

/** The case's steps with each `use:` replaced by its group's steps (recorded as inlined). */
function resolveSteps(kase: DesiredCase, findGroup: (ref: string) => DesiredStepGroup | undefined, report: ImportReport, format: string): ExportStep[] | undefined {
  const steps = kase.fields.steps;
  if (steps === undefined) return undefined;
  const out: ExportStep[] = [];
  for (const step of steps) {
    if (step.kind === 'step') {
      out.push({ action: step.action, expected: step.expected });
      continue;
    }
    const group = findGroup(step.use);
    const at = { file: kase.file, ...(kase.lines.steps !== undefined ? { line: kase.lines.steps } : {}) };
    if (group === undefined) {
      // only the service holds it (`use: SHOP-SG-3`): its steps are not in the files
      report.record('folded', 'step group', `not in the repository: written as one step naming it (${format})`, step.use, at);
      out.push({ action: `Use the step group ${step.use}`, expected: '' });
      continue;
    }
    report.record('folded', 'step group', `inlined: its steps written into the case's steps (${format} has no step groups to refer to)`, group.title, at);
    for (const s of group.steps) out.push({ action: s.action, expected: s.expected, group: group.title });
  }
  return out;
}

/** `format`: the format written, for the report; `tool`: its source tool (`source:` prefix). */
export function exportView(repository: DesiredState, report: ImportReport, format: string, tool: string): ExportView {
  const findGroup = groupIndex(repository.stepGroups);
  const order = new Map(repository.folders.map((f: DesiredFolder, i) => [pathKey(f.path), i]));
  // cases in folder order (the tree's, parents first), then the loader's order within a folder
  const cases = repository.cases
    .map((c, i) => ({ c, i }))
    .sort((a, b) => (order.get(pathKey(a.c.folderPath)) ?? -1) - (order.get(pathKey(b.c.folderPath)) ?? -1) || a.i - b.i)
    .map(({ c }): ExportCase => {
      const id = externalId(c, tool);
      const steps = resolveSteps(c, findGroup, report, format);
      return { case: c, ...(id !== undefined ? { externalId: id } : {}), ...(steps !== undefined ? { steps } : {}) };
    });
  const held = new Set<string>();
  for (const c of repository.cases) for (let n = 0; n <= c.folderPath.length; n++) held.add(pathKey(c.folderPath.slice(0, n)));
  const folders = repository.folders.map((f) => f.path);
  const emptyFolders = folders.filter((p) => !held.has(pathKey(p)));
  return { cases, emptyFolders, folders };
}

/** A case's template: given, or implied by its steps (a list: STEPS, a text: TCD); undefined when neither. */
export function templateOf(kase: DesiredCase): 'STEPS' | 'TCD' | undefined {
  if (kase.fields.template !== undefined) return kase.fields.template;
  if (kase.fields.steps !== undefined) return 'STEPS';
  if (kase.fields.stepsText !== undefined || kase.fields.expectedResults !== undefined) return 'TCD';
  return undefined;
}
