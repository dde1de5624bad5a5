import type { Problem } from '../errors.js';
import type { ActualState, DesiredState } from '../model.js';
import { buildPlan, type Plan, type PlanDisplay } from '../plan/index.js';
import { normalizeText, normalizeTitle } from '../base/normalize-text.js';
import type { DesiredCase, DesiredStepGroup, RemoteCase, RemoteStepGroup } from '../model.js';
import { summarize } from '../plan/summary.js';
import { actualToDesired } from './to-desired.js';
import { caseTemplate } from '../pull/case-fields.js';
import { belongsTo, CASE_FIELDS_BY_KIND, fieldOf, STEP_GROUP_FIELDS, type CaseField, type StepGroupField } from '../fields.js';
import type { FieldWarning } from '../pull/case-fields.js';

interface PlanMigrationOptions {
  /** only this folder subtree (names from the top) */
  folder?: string[];
}

interface PlanMigrationResult {
  plan: Plan;
  /** what the renderers need beside the plan to show it */
  display: PlanDisplay;
  /** target ids the desired state already accounts for (matched by id, pairing or natural key) */
  claimedIds: Set<string>;
  /** non-empty: the migration cannot run (names the target lacks, ambiguous natural keys) */
  problems: Problem[];
  warnings: FieldWarning[];
  /** the folder subtree the target side is read and compared within */
  scope?: string[];
}

/**
 * The plan that makes the target hold the source project (or one folder subtree): the source
 * read as the repository `pull` would write, without ids, planned against the target. Without
 * ids, every item meets the target's by natural key, so a second run adopts what the first
 * created and only the rest is created. Nothing is ever deleted from the target.
 *
 * Pure: both states are read by the caller.
 */
export function planMigration(source: ActualState, target: ActualState, options: PlanMigrationOptions = {}): PlanMigrationResult {
  const { state, model } = actualToDesired(source, options.folder ? { folder: options.folder } : {});
  const desired = pairTwins(state, target);
  const built = buildPlan(desired, target, { prune: false });
  const claimedIds = new Set<string>();
  for (const op of built.plan.operations) if ('id' in op && typeof op.id === 'string') claimedIds.add(op.id);
  const byRef = new Map<string, string>();
  for (const x of [...target.cases, ...target.stepGroups]) {
    byRef.set(x.id.toLowerCase(), x.id);
    if (x.humanId) byRef.set(x.humanId.toUpperCase(), x.id);
  }
  for (const x of [...desired.cases, ...desired.stepGroups]) {
    const id = x.id === undefined ? undefined : (byRef.get(x.id.toLowerCase()) ?? byRef.get(x.id.toUpperCase()));
    if (id) claimedIds.add(id);
  }
  return {
    plan: withoutAdopts(built.plan),
    display: built.display,
    claimedIds,
    problems: built.problems,
    // directory names are pull's concern: migrate writes no files
    warnings: model.warnings.filter((w) => w.code !== 'folder_name_twin'),
    ...(state.scope ? { scope: state.scope } : {}),
  };
}

/**
 * Creates a killed run may have sent without an answer, settled against the target as just read:
 * a case or step group found by natural key among the target items nothing else claims was made
 * by that run (its id is resumed, the create is not sent again); one not found was never made.
 * Folders are left to the executor's own lookup (a new folder may still wait at the top level for
 * its move). Pure.
 */
export function settlePendingCreates(
  plan: Plan,
  target: ActualState,
  claimedIds: ReadonlySet<string>,
  pending: ReadonlySet<string>,
  resumeIds: Map<string, { id: string; humanId?: string }>,
): Set<string> {
  const taken = new Set([...claimedIds, ...[...resumeIds.values()].map((r) => r.id)]);
  const stillPending = new Set<string>();
  for (const op of plan.operations) {
    if (!pending.has(op.key) || resumeIds.has(op.key)) continue;
    let found: { id: string; humanId: string } | undefined;
    if (op.kind === 'create_case') {
      const folder = op.body.folder;
      if (!('id' in folder)) {
        stillPending.add(op.key);
        continue;
      }
      found = target.cases.find((c) => c.folderId === folder.id && normalizeTitle(c.title) === normalizeTitle(op.body.title) && !taken.has(c.id));
    } else if (op.kind === 'create_step_group') {
      found = target.stepGroups.find((g) => normalizeTitle(g.title) === normalizeTitle(op.body.title) && !taken.has(g.id));
    } else {
      stillPending.add(op.key);
      continue;
    }
    if (found) {
      taken.add(found.id);
      resumeIds.set(op.key, { id: found.id, ...(found.humanId ? { humanId: found.humanId } : {}) });
    }
  }
  return stillPending;
}

/**
 * An adopt only writes an id back into a file; a migration has no files, so adopts are no-ops
 * and a target that already matches shows "No changes".
 */
export function withoutAdopts(plan: Plan): Plan {
  const adopts = new Set(plan.operations.filter((op) => op.kind === 'adopt').map((op) => op.key));
  if (adopts.size === 0) return plan;
  const operations = plan.operations
    .filter((op) => !adopts.has(op.key))
    .map((op) => ({ ...op, dependsOn: op.dependsOn.filter((k) => !adopts.has(k)) }));
  return { ...plan, operations, summary: summarize(operations) };
}

const numberOf = (humanId: string) => Number(/-(\d+)$/.exec(humanId)?.[1] ?? Number.MAX_SAFE_INTEGER);
const byAge = <T extends { createdAt: number; humanId: string; id: string }>(a: T, b: T) =>
  a.createdAt - b.createdAt || numberOf(a.humanId) - numberOf(b.humanId) || (a.id < b.id ? -1 : 1);

function group<T>(items: readonly T[], key: (item: T) => string | undefined): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    if (k !== undefined) out.set(k, [...(out.get(k) ?? []), it]);
  }
  return out;
}

const t = (s: string | undefined) => normalizeText(s ?? '');
/**
 * What a twin holds besides its title, in a form both sides can produce without resolving names:
 * the texts, the template and the plain steps of the field table; a field of the other template
 * counts as empty.
 */
function casePrint(template: string, value: (f: CaseField) => unknown, steps: () => string[][]): string {
  const of = template === 'STEPS' || template === 'TCD' ? template : undefined;
  return JSON.stringify(
    CASE_FIELDS_BY_KIND.flatMap((f): unknown[] => {
      if (f.kind === 'template') return [template];
      if (f.kind === 'text') return [belongsTo(f, of) ? t(value(f) as string | undefined) : ''];
      if (f.kind === 'steps') return [belongsTo(f, of) ? steps() : []];
      return [];
    }),
  );
}
function desiredCasePrint(c: DesiredCase): string {
  const f = c.fields;
  return casePrint(f.template ?? '', (x) => fieldOf(f, x, 'model'), () =>
    (f.steps ?? []).flatMap((s) => (s.kind === 'step' ? [[t(s.action), t(s.expected)]] : [])),
  );
}
function remoteCasePrint(c: RemoteCase): string {
  return casePrint(caseTemplate(c), (x) => fieldOf(c, x, 'remote'), () =>
    c.individualSteps.filter((s) => !s.stepGroupId).map((s) => [t(s.description), t(s.expected)]),
  );
}
/** A step group's content as twins compare it: its texts and steps, as the step group table lists them (labels apart). */
function groupPrint(value: (f: StepGroupField) => unknown, steps: () => string[][]): string {
  return JSON.stringify(STEP_GROUP_FIELDS.flatMap((f): unknown[] => (f.kind === 'text' ? [t(value(f) as string | undefined)] : f.kind === 'steps' ? [steps()] : [])));
}
function desiredGroupPrint(g: DesiredStepGroup): string {
  return groupPrint((f) => fieldOf(g, f, 'model'), () => g.steps.map((s) => [t(s.action), t(s.expected)]));
}
function remoteGroupPrint(g: RemoteStepGroup): string {
  return groupPrint((f) => fieldOf(g, f, 'remote'), () => g.steps.map((s) => [t(s.description), t(s.expected)]));
}

/** Twins with the same content first, then the rest oldest with oldest. */
function pair<L, R>(locals: readonly L[], remotes: readonly R[], lp: (l: L) => string, rp: (r: R) => string): [L, R][] {
  const out: [L, R][] = [];
  const free = [...remotes];
  const rest: L[] = [];
  for (const l of locals) {
    const i = free.findIndex((r) => rp(r) === lp(l));
    if (i >= 0) out.push([l, free.splice(i, 1)[0]]);
    else rest.push(l);
  }
  rest.forEach((l, i) => {
    if (free[i]) out.push([l, free[i]]);
  });
  return out;
}

/**
 * Natural keys cannot tell twins apart (two cases with one title in one folder, two step groups
 * with one title). Where either side has twins, they are paired oldest with oldest and the
 * target's id is written into the desired item, so a re-run updates instead of refusing an
 * ambiguous match; unpaired source twins are created.
 */
export function pairTwins(state: DesiredState, target: ActualState): DesiredState {
  const folders = new Map(target.folders.map((f) => [f.id, f]));
  const pathOf = (id: string): string | undefined => {
    const names: string[] = [];
    const seen = new Set<string>();
    for (let f = folders.get(id); f; f = f.parentId ? folders.get(f.parentId) : undefined) {
      if (seen.has(f.id)) return undefined;
      seen.add(f.id);
      names.unshift(f.name);
    }
    return names.length > 0 ? names.join('\u0000') : undefined;
  };
  const caseKey = (path: string | undefined, title: string) => (path === undefined ? undefined : `${path}\u0001${normalizeTitle(title)}`);
  const remoteCases = group(target.cases, (c) => caseKey(pathOf(c.folderId), c.title));
  const desiredCases = group(state.cases, (c) => caseKey(c.folderPath.join('\u0000'), c.title));
  const caseIds = new Map<string, string>();
  for (const [k, locals] of desiredCases) {
    const remotes = [...(remoteCases.get(k) ?? [])].sort(byAge);
    if (locals.length < 2 && remotes.length < 2) continue;
    for (const [c, r] of pair(locals, remotes, desiredCasePrint, remoteCasePrint)) caseIds.set(c.file, r.humanId || r.id);
  }
  const remoteGroups = group(target.stepGroups, (g) => normalizeTitle(g.title));
  const desiredGroups = group(state.stepGroups, (g) => normalizeTitle(g.title));
  const groupIds = new Map<string, string>();
  for (const [k, locals] of desiredGroups) {
    const remotes = [...(remoteGroups.get(k) ?? [])].sort(byAge);
    if (locals.length < 2 && remotes.length < 2) continue;
    for (const [g, r] of pair(locals, remotes, desiredGroupPrint, remoteGroupPrint)) groupIds.set(g.file, r.humanId || r.id);
  }
  if (caseIds.size === 0 && groupIds.size === 0) return state;
  return {
    ...state,
    cases: state.cases.map((c) => (caseIds.has(c.file) ? { ...c, id: caseIds.get(c.file)! } : c)),
    stepGroups: state.stepGroups.map((g) => (groupIds.has(g.file) ? { ...g, id: groupIds.get(g.file)! } : g)),
  };
}

/** The scope a migration of `folder` reads and compares within: that subtree (and its ancestors, as containers). */
export function migrationScope(folder: string[] | undefined): string[] | undefined {
  return folder && folder.length > 0 ? [folder.join('/')] : undefined;
}
