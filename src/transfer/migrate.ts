import type { Problem } from '../errors.js';
import type { ActualState } from '../model.js';
import { buildPlan, type Plan } from '../plan/index.js';
import { actualToDesired } from './to-desired.js';
import type { FieldWarning } from './case-fields.js';

export interface PlanMigrationOptions {
  /** only this folder subtree (names from the top) */
  folder?: string[];
}

export interface PlanMigrationResult {
  plan: Plan;
  /** non-empty: the migration cannot run (names the target lacks, ambiguous natural keys) */
  problems: Problem[];
  warnings: FieldWarning[];
  /** the top-level folders the target side is read and compared within */
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
  const { plan, problems } = buildPlan(state, target, { prune: false });
  return { plan, problems, warnings: model.warnings, ...(state.scope ? { scope: state.scope } : {}) };
}

/** The top-level folder a migration of `folder` reads and compares within. */
export function migrationScope(folder: string[] | undefined): string[] | undefined {
  return folder && folder.length > 0 ? [folder[0]] : undefined;
}
