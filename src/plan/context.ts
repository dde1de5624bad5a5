import type { Problem } from '../errors.js';
import type { ActualState, DesiredState } from '../model.js';
import type { PlanWarning } from './operations.js';
import type { RemoteIndex } from './remote-index.js';
import type { Resolver } from './resolve.js';

/** Decisions the diff cannot make on its own, injected by the caller (the CLI flags). */
export interface BuildPlanOptions {
  /** delete remote items in scope that the repository does not describe
   * @default false */
  prune?: boolean;
  /** with `prune`, accept deleting and recreating cases that look renamed
   * @default false */
  allowRecreate?: boolean;
}

/** What the builders share while one plan is computed. */
export interface PlanContext {
  desired: DesiredState;
  actual: ActualState;
  prune: boolean;
  allowRecreate: boolean;
  remote: RemoteIndex;
  resolver: Resolver;
  problems: Problem[];
  warnings: PlanWarning[];
}

export function problem(
  ctx: PlanContext,
  code: string,
  file: string,
  line: number | undefined,
  message: string,
  hint?: string,
): void {
  ctx.problems.push({ file, line: line ?? 1, col: 1, code, message, ...(hint ? { hint } : {}), severity: 'error' });
}
