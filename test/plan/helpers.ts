import { expect } from 'vitest';
import type { ActualState, DesiredState } from '../../src/model.js';
import { buildPlan, type BuildPlanOptions, type BuildPlanResult } from '../../src/plan/index.js';
import { dependencyViolations } from './builders.js';

/** buildPlan, checking on the way that every plan is topologically ordered. */
export function plan(desired: DesiredState, actual: ActualState, options?: BuildPlanOptions): BuildPlanResult {
  const result = buildPlan(desired, actual, options);
  expect(dependencyViolations(result.plan)).toEqual([]);
  return result;
}

/** buildPlan that must not report problems. */
export function cleanPlan(desired: DesiredState, actual: ActualState, options?: BuildPlanOptions) {
  const result = plan(desired, actual, options);
  expect(result.problems).toEqual([]);
  return result.plan;
}
