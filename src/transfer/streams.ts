/**
 * Small async helpers for streaming transfers.
 */

/**
 * Maps an async source with up to `limit` calls of `fn` in flight, yielding results in the
 * source's order. At most `limit` results are held at once, so memory stays bounded.
 */
export async function* orderedMap<T, R>(source: AsyncIterable<T>, limit: number, fn: (item: T) => Promise<R>): AsyncGenerator<R> {
  const window: Promise<R>[] = [];
  try {
    for await (const item of source) {
      const p = fn(item);
      // a rejection is observed when its turn comes; mark it handled so it is not reported early
      p.catch(() => undefined);
      window.push(p);
      if (window.length >= limit) yield await window.shift()!;
    }
    while (window.length > 0) yield await window.shift()!;
  } finally {
    // an early exit (an error downstream) must not leave rejections unhandled
    for (const p of window) p.catch(() => undefined);
  }
}

/**
 * Runs `fn` over `items` with at most `limit` in flight. The first failure stops new work and is
 * thrown once everything running has settled.
 */
export async function forEachLimit<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>, signal?: AbortSignal): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure) {
      if (signal?.aborted) {
        failure ??= { err: signal.reason };
        return;
      }
      const i = next++;
      try {
        await fn(items[i], i);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.err;
}
