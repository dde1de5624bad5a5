import type { RunState } from './run-state.js';
import { skipped, type SkipCause } from './skip-causes.js';

/**
 * Starts every operation whose dependencies are done, at most `window` at once (the client's
 * queue enforces the rate and concurrency caps). A failed operation skips only what depends on it.
 * Stops starting new ones after an interrupt or a journal write failure; resolves once the ones in
 * flight have finished. Returns the keys that finished (succeeded, failed or skipped).
 */
export async function scheduleOperations(state: RunState, runOne: (key: string) => Promise<boolean>): Promise<Set<string>> {
  const { plan, options, result } = state;
  const { signal } = options;
  const window = Math.max(1, options.window ?? 64);
  const { waitingOn, dependents } = dependencyGraph(state);
  // a queue with a moving head: shift() on a 10,000-entry array would copy it every time
  const ready: string[] = plan.operations.filter((op) => waitingOn.get(op.key) === 0).map((op) => op.key);
  let head = 0;
  const finished = new Set<string>();
  let inFlight = 0;
  const total = plan.operations.length;
  const progress = () =>
    options.onProgress?.({ total, done: finished.size, failed: result.failed.filter((f) => f.stage === 'request').length, inFlight });

  const skipDependents = (key: string, cause: SkipCause) => {
    const stack = [...(dependents.get(key) ?? [])];
    while (stack.length) {
      const k = stack.pop()!;
      if (finished.has(k)) continue;
      finished.add(k);
      result.skipped.push(skipped(k, cause));
      options.onOperationDone?.(k, false);
      stack.push(...(dependents.get(k) ?? []));
    }
  };
  const release = (key: string) => {
    for (const d of dependents.get(key) ?? []) {
      const left = (waitingOn.get(d) ?? 1) - 1;
      waitingOn.set(d, left);
      if (left === 0 && !finished.has(d)) ready.push(d);
    }
  };

  await new Promise<void>((done) => {
    const pump = () => {
      if (signal?.aborted) result.interrupted = true;
      while (!result.interrupted && !state.journalError && inFlight < window && head < ready.length) {
        const key = ready[head++];
        if (finished.has(key)) continue;
        inFlight++;
        void runOne(key).then((ok) => {
          inFlight--;
          finished.add(key);
          options.onOperationDone?.(key, ok);
          if (ok) release(key);
          else skipDependents(key, { kind: 'dependency_failed', dependency: key });
          progress();
          pump();
        });
      }
      if (inFlight === 0 && (result.interrupted || state.journalError || head >= ready.length)) {
        signal?.removeEventListener('abort', pump);
        done();
      }
    };
    signal?.addEventListener('abort', pump, { once: true });
    progress();
    pump();
  });
  return finished;
}

/** How many dependencies each operation waits for, and who waits for each; one outside the plan is satisfied. */
function dependencyGraph(state: RunState): { waitingOn: Map<string, number>; dependents: Map<string, string[]> } {
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const op of state.plan.operations) {
    const deps = [...new Set(op.dependsOn)].filter((d) => state.ops.has(d) && d !== op.key);
    waitingOn.set(op.key, deps.length);
    for (const d of deps) {
      const list = dependents.get(d) ?? [];
      list.push(op.key);
      dependents.set(d, list);
    }
  }
  return { waitingOn, dependents };
}
