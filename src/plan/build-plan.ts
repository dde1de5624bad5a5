import type { Problem } from '../errors.js';
import type { ActualState, DesiredState } from '../model.js';
import { planCases } from './cases.js';
import type { BuildPlanOptions, PlanContext } from './context.js';
import { planDeletes } from './deletes.js';
import { planFolders } from './folders.js';
import { itemTypeOf } from './operation-kinds.js';
import { PLAN_FORMAT_VERSION, type Operation, type Plan } from './operations.js';
import { indexRemote } from './remote-index.js';
import { buildResolver } from './resolve.js';
import { planStepGroups } from './step-groups.js';
import { summarize } from './summary.js';
import { newSyncState, planSync, type SyncRecords } from './sync.js';

export interface BuildPlanResult {
  plan: Plan;
  /** non-empty: the plan must not be applied (the CLI lists them as `file:line:col` and exits 1) */
  problems: Problem[];
  /** with a sync base: what an apply of this plan records in the base (pass it to the engine) */
  synced?: SyncRecords;
}

/**
 * Desired × actual → plan. Pure: no network, disk or clock; the same inputs give the same plan.
 *
 * Operations come out topologically ordered: folder creates and moves top-down by the final tree,
 * folder renames, step groups, cases, then deletes (cases, step groups, folders bottom-up).
 * `dependsOn` names exactly what must finish first, so independent operations can run in parallel.
 */
export function buildPlan(desired: DesiredState, actual: ActualState, options: BuildPlanOptions = {}): BuildPlanResult {
  const ctx: PlanContext = {
    desired,
    actual,
    prune: options.prune ?? false,
    allowRecreate: options.allowRecreate ?? false,
    remote: indexRemote(actual, desired.scope),
    resolver: buildResolver(actual),
    problems: [],
    warnings: [],
    ...(options.base ? { sync: newSyncState(options.base, options.prefer, options.collectSynced ?? true) } : {}),
    ...(options.partialStepGroups ? { partialStepGroups: true } : {}),
  };
  const folders = planFolders(ctx);
  const groups = planStepGroups(ctx);
  const cases = planCases(ctx, folders, groups);
  const deletes = planDeletes(ctx, folders, groups, cases);

  const hasLabels = desired.cases.some((c) => c.fields.labels !== undefined);
  if (!actual.labelsReadable && hasLabels) {
    ctx.warnings.unshift({
      code: 'labels_not_comparable',
      message:
        'the service does not report the labels of test cases, so labels cannot be compared: they are sent when a case is created or updated for another reason',
    });
  }

  const operations = [...folders.ops, ...groups.ops, ...cases.ops, ...deletes.ops];
  const plan: Plan = {
    format_version: PLAN_FORMAT_VERSION,
    project: { id: actual.project.id, name: actual.project.name, humanIdPrefix: actual.project.humanIdPrefix },
    prune: ctx.prune,
    operations,
    unmanaged: deletes.unmanaged,
    warnings: ctx.warnings,
    summary: summarize(operations),
    contentHash: desired.contentHash,
    remoteVersions: remoteVersions(actual, operations),
  };
  const sync = planSync(ctx.sync);
  if (sync) plan.sync = sync;
  const problems = [...ctx.problems].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return { plan, problems, ...(ctx.sync?.collect ? { synced: { records: ctx.sync.records, forgets: ctx.sync.forgets, standings: ctx.sync.standings } } : {}) };
}

/** A folder has no `updated_at`: its name, parent and order stand in for a version. */
export function folderFingerprint(f: { name: string; parentId: string | null; order: number }): string {
  return `${f.name}|${f.parentId ?? ''}|${f.order}`;
}

export function remoteVersions(actual: ActualState, ops: readonly Operation[]): Record<string, string> {
  const cases = new Map(actual.cases.map((c) => [c.id, c]));
  const groups = new Map(actual.stepGroups.map((g) => [g.id, g]));
  const folders = new Map(actual.folders.map((f) => [f.id, f]));
  const versions: Record<string, string> = {};
  for (const op of ops) {
    if (!('id' in op)) continue;
    const type = itemTypeOf(op);
    if (type === 'case') {
      const c = cases.get(op.id);
      if (c) versions[`case:${op.id}`] = String(c.updatedAt);
    } else if (type === 'step_group') {
      const g = groups.get(op.id);
      if (g) versions[`step_group:${op.id}`] = String(g.updatedAt);
    } else {
      const f = folders.get(op.id);
      if (f) versions[`folder:${op.id}`] = folderFingerprint(f);
    }
  }
  return versions;
}
