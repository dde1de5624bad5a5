import { actionOf } from './operation-kinds.js';
import type { Operation, Plan, PlanSummary } from './operations.js';

/**
 * Counts operations by what they do to the service. Every operation counts once: a case that
 * moves and changes is one update. `adopt` counts natural-key matches whose id is written back,
 * whether or not the item also changes (so it overlaps with `update`), because the reviewer's
 * question it answers is "how many files will apply touch besides the service".
 */
export function summarize(ops: readonly Operation[]): PlanSummary {
  const s: PlanSummary = { create: 0, update: 0, move: 0, delete: 0, adopt: 0 };
  for (const op of ops) {
    const action = actionOf(op);
    s[action]++;
    // an update or move of a natural-key match also writes its id back
    if ((action === 'update' || action === 'move') && 'writeBack' in op && op.writeBack) s.adopt++;
  }
  return s;
}

/**
 * `Plan: 2 to create, 1 to update, 1 to move, 0 to delete.`, with `, 3 to adopt (ids written
 * back)` before the full stop when natural-key matches write ids back, or
 * `No changes. The service matches the repository.` (or, when the service holds changes the
 * repository does not, or conflicts are open, says so).
 */
export function summaryLine(plan: Pick<Plan, 'summary' | 'operations'> & Partial<Pick<Plan, 'sync'>>): string {
  if (plan.operations.length === 0) {
    if (plan.sync && plan.sync.conflicts.length > 0 && !plan.sync.prefer) return 'No changes to send until the conflicts are settled.';
    if (plan.sync && (plan.sync.remoteChanges.length > 0 || plan.sync.conflicts.length > 0)) {
      return 'No changes to send. The service holds changes the files do not have yet (`tmsync pull` takes them in).';
    }
    return 'No changes. The service matches the repository.';
  }
  const s = plan.summary;
  const adopt = s.adopt > 0 ? `, ${s.adopt} to adopt (ids written back)` : '';
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.move} to move, ${s.delete} to delete${adopt}.`;
}
