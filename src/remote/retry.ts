import pRetry, { AbortError } from 'p-retry';
import { ApiError } from './api-error.js';
import type { Clock } from './clock.js';
import { isLoopbackRefusal, isRetryable, retryDelay, type RetryKind, type RetryPolicy } from './policy.js';
import type { Reconciler } from './ambiguous-create.js';

interface RetryOptions {
  kind: RetryKind;
  /** this call's policy (a per-call `retries` already applied) */
  policy: RetryPolicy;
  clock: Clock;
  random: () => number;
  /** the full abort: cuts everything */
  signal?: AbortSignal;
  /** stops what is not sent yet, including a wait to retry */
  stop?: AbortSignal;
  reconciler: Reconciler;
  /** told before each wait */
  onRetry?: (error: unknown, attempt: number, waitMs: number) => void;
  /** the error a stop turns into */
  aborted: () => ApiError;
}

/**
 * Runs `attempt` until it succeeds or the policy gives up: refused requests are sent again after a
 * backoff (or the service's Retry-After); an ambiguous create is settled by the reconciler first.
 */
export async function withRetries<T>(attempt: (n: number) => Promise<T>, o: RetryOptions): Promise<unknown> {
  try {
    return await pRetry(
      async (n) => {
        let settled: { found: unknown } | undefined;
        try {
          settled = await o.reconciler.before();
        } catch (err) {
          throw new AbortError(err instanceof Error ? err : String(err));
        }
        if (settled) return settled.found;
        try {
          return await attempt(n);
        } catch (err) {
          if (o.signal?.aborted) throw new AbortError(o.aborted());
          // a request that was sent keeps its own error (an ambiguous create must stay ambiguous)
          if (err instanceof ApiError && err.code === 'aborted') throw new AbortError(err);
          throw err;
        }
      },
      {
        retries: o.policy.maxRetries,
        minTimeout: 0,
        maxTimeout: 0,
        shouldRetry: async ({ error, attemptNumber }) => {
          // after a stop nothing new is sent: the last real error stands
          if (o.stop?.aborted) return false;
          const decision = isRetryable(error, o.kind, o.policy);
          if (decision === 'fail' || !(error instanceof ApiError)) return false;
          if (isLoopbackRefusal(error) && attemptNumber > o.policy.loopbackRefusedRetries) return false;
          if (decision === 'reconcile' && !o.reconciler.arm(error)) return false;
          const wait = retryDelay(error, attemptNumber, o.policy, o.random);
          o.onRetry?.(error, attemptNumber, wait);
          try {
            await o.clock.sleep(wait, o.stop);
          } catch (err) {
            // a stop while waiting to retry: give up with the last real error
            if (o.stop?.aborted && !o.signal?.aborted) return false;
            throw err;
          }
          return true;
        },
      },
    );
  } catch (err) {
    if (o.signal?.aborted && !(err instanceof ApiError && err.code === 'aborted')) throw o.aborted();
    throw err;
  }
}
