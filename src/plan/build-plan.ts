import type { Problem } from '../errors.js';
import type { ActualState, DesiredState } from '../model.js';
import { planCases } from './cases.js';
import type { BuildPlanOptions, PlanContext } from './context.js';
import { planDeletes } from './deletes.js';
import { planDisplay, type PlanDisplay } from './display.js';
import { planFolders } from './folders.js';
import { itemTypeOf } from './operation-kinds.js';
import { PLAN_FORMAT_VERSION, type Operation, type Plan } from './operations.js';
import { indexRemote } from './remote-index.js';
import { buildResolver } from './resolve.js';
import { planStepGroups } from './step-groups.js';
import { summarize } from './summary.js';
import { baseEntryFor, newSyncState, planSync, type SyncForget, type SyncRecords, type SyncState } from './sync.js';
import type { BaseKind } from '../base/base.js';

export interface BuildPlanResult {
  plan: Plan;
  /** non-empty: the plan must not be applied (the CLI lists them as `file:line:col` and exits 1) */
  problems: Problem[];
  /** with a sync base: what an apply of this plan records in the base (pass it to the engine) */
  synced?: SyncRecords;
  /** what the renderers need beside the plan to show it (pass it along with the plan) */
  display: PlanDisplay;
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

  if (ctx.keptLabels && ctx.keptLabels.size > 0) {
    const shown = [...ctx.keptLabels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([label, refs]) => `@${label} (${refs.size})`);
    const cases = new Set([...ctx.keptLabels.values()].flatMap((refs) => [...refs])).size;
    ctx.warnings.push({
      code: 'unknown_tags_kept',
      message: `${ctx.keptLabels.size} tag${ctx.keptLabels.size === 1 ? '' : 's'} of ${cases} scenario${cases === 1 ? '' : 's'} name${ctx.keptLabels.size === 1 ? 's' : ''} no label on the service: kept in the files, not sent: ${shown.slice(0, 10).join(', ')}${shown.length > 10 ? ', …' : ''} (gherkin.unknown_tags: error makes them problems)`,
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
  if (ctx.sync?.collect && !ctx.partialStepGroups && desired.scope === undefined) ctx.sync.forgets.push(...goneFromBothSides(ctx.sync, desired, actual));
  const sync = planSync(ctx.sync);
  if (sync) plan.sync = sync;
  const problems = [...ctx.problems].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  const display = planDisplay(ctx.resolver, cases.stepGroupLabels);
  return { plan, problems, display, ...(ctx.sync?.collect ? { synced: { records: ctx.sync.records, forgets: ctx.sync.forgets, standings: ctx.sync.standings } } : {}) };
}

/**
 * Base entries of items neither side holds any more (deleted on the service, and no file names them
 * by `id:`): forgotten whatever the apply does, else their lines stay in `tmsync.base` forever. Only
 * when both sides were read whole: under a `scope`, an item outside it is not read, not gone.
 */
function goneFromBothSides(sync: SyncState, desired: DesiredState, actual: ActualState): SyncForget[] {
  const held: Record<BaseKind, Set<string>> = {
    folder: new Set(actual.folders.map((f) => f.id)),
    step_group: new Set(actual.stepGroups.map((g) => g.id)),
    case: new Set(actual.cases.map((c) => c.id)),
  };
  const named = (kind: BaseKind, items: readonly { id?: string }[]) => {
    for (const item of items) {
      const entry = item.id === undefined ? undefined : baseEntryFor(sync, kind, item.id);
      if (entry) held[kind].add(entry.id);
    }
  };
  named('folder', desired.folders);
  named('step_group', desired.stepGroups);
  named('case', desired.cases);
  const gone: SyncForget[] = [];
  for (const kind of ['folder', 'step_group', 'case'] as const) {
    for (const e of sync.base.entries(kind)) if (!held[kind].has(e.id)) gone.push({ kind, id: e.id });
  }
  return gone;
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
