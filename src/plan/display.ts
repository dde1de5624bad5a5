import { createChanges } from './case-body.js';
import type { CreateCaseOp, FieldChange } from './operations.js';
import type { Resolver } from './resolve.js';

/**
 * What the renderers need beside a plan to show it: the names of the ids its bodies hold, and the
 * step group each step of a new case comes from. The operations stay plain data (saved, cloned,
 * compared as they are); a new case's display values are computed here when they are shown rather
 * than held by each operation, as a large plan of creates would hold their text for an apply that
 * never reads it (docs/performance.md, "Issue 25").
 *
 * `buildPlan` returns one (`BuildPlanResult.display`); a plan read back from a file needs none, as
 * its operations hold the values they were saved with.
 */
export interface PlanDisplay {
  /** names for the ids of lookups, users and labels */
  readonly resolver: Pick<Resolver, 'showLookup' | 'showUser' | 'showLabels'>;
  /**
   * by create_case operation key: the label of each step's step group, parallel to the body's
   * steps (`undefined` for a step of the case's own); absent for a case with no step from a group
   */
  readonly stepGroupLabels: ReadonlyMap<string, readonly (string | undefined)[]>;
}

/** A display that only names ids: for a caller that has the resolver and no steps from groups to name. */
export function planDisplay(resolver: PlanDisplay['resolver'], stepGroupLabels: ReadonlyMap<string, readonly (string | undefined)[]> = new Map()): PlanDisplay {
  return { resolver, stepGroupLabels };
}

const NO_LABELS: readonly (string | undefined)[] = [];

/**
 * The display values of a new case's fields (`from` empty): those its operation holds when it was
 * read from a saved plan, else computed from its body with the display; none without either.
 */
export function createCaseChanges(op: CreateCaseOp, display: PlanDisplay | undefined): FieldChange[] {
  if (op.changes !== undefined) return op.changes;
  if (display === undefined) return [];
  return createChanges(display.resolver, { body: op.body, stepGroupLabels: display.stepGroupLabels.get(op.key) ?? NO_LABELS });
}
