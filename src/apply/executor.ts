import type { Plan } from '../plan/operations.js';
import type { ApplyResult, ExecuteOptions } from './execute-types.js';
import { settlePendingCreates } from './pending.js';
import { runOperation } from './run-operation.js';
import { createRunState } from './run-state.js';
import { scheduleOperations } from './schedule.js';
import { skipped } from './skip-causes.js';

export type { ApplyConflict, ApplyMerge, ApplyProgress, ApplyResult, ExecuteOptions } from './execute-types.js';

/**
 * Runs a plan: every operation whose dependencies are done is started, independent ones
 * concurrently (the client's queue enforces the rate and concurrency caps). A failed operation
 * skips only what depends on it. Ids are written back and journalled as soon as they are known.
 * Never prints.
 *
 * With the options given: no lock, no journal of its own (`applyPlan` in `engine.ts` adds those).
 * The parts: `run-state.ts` (what the run knows), `pending.ts` (creates a stopped run left open,
 * settled first), `schedule.ts` (dependency order, window, interrupts) and `run-operation.ts` (one
 * operation's requests, journal entries and write-back); `execute-types.ts` (options and result).
 */
export async function executePlan(plan: Plan, options: ExecuteOptions): Promise<ApplyResult> {
  const state = createRunState(plan, options);
  await settlePendingCreates(state);
  const finished = await scheduleOperations(state, (key) => runOperation(state, state.ops.get(key)!));
  const { result } = state;
  if (state.guard) result.guardReads = state.guard.reads;
  for (const op of plan.operations) {
    if (finished.has(op.key)) continue;
    // without an interrupt, only a dependency cycle leaves operations unstarted
    result.skipped.push(skipped(op.key, result.interrupted ? { kind: 'interrupted', before: 'start' } : state.journalError ? { kind: 'journal_unwritable' } : { kind: 'dependency_cycle' }));
  }
  return result;
}

