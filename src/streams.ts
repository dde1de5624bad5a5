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

/** An async source read ahead of its consumer into a bounded buffer (see `readAhead`). */
export interface ReadAhead<T> extends AsyncIterable<T> {
  /** stops reading (the source is closed once its pending step settles); a failure is dropped */
  stop(): void;
}

/**
 * Starts reading `source` at once, up to `limit` items ahead of the consumer, so independent
 * sources read concurrently while an earlier one is still being consumed. Items come out in the
 * source's order; a failure of the source is thrown when the consumer reaches it. Iterate once.
 */
export function readAhead<T>(source: () => AsyncIterable<T>, limit: number): ReadAhead<T> {
  const buffer: T[] = [];
  let done = false;
  let failure: { err: unknown } | undefined;
  let stopped = false;
  /** wakes the consumer (an item, the end, a failure) */
  let wakeConsumer: (() => void) | undefined;
  /** wakes the reader (room in the buffer, a stop) */
  let wakeReader: (() => void) | undefined;
  const wake = (which: 'consumer' | 'reader') => {
    const w = which === 'consumer' ? wakeConsumer : wakeReader;
    if (which === 'consumer') wakeConsumer = undefined;
    else wakeReader = undefined;
    w?.();
  };

  const reading = (async () => {
    try {
      for await (const item of source()) {
        if (stopped) return;
        buffer.push(item);
        wake('consumer');
        while (buffer.length >= limit && !stopped) await new Promise<void>((r) => (wakeReader = r));
        if (stopped) return;
      }
    } catch (err) {
      failure = { err };
    } finally {
      done = true;
      wake('consumer');
    }
  })();
  reading.catch(() => undefined);

  return {
    stop() {
      stopped = true;
      wake('reader');
    },
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          if (buffer.length > 0) {
            const item = buffer.shift()!;
            wake('reader');
            yield item;
            continue;
          }
          if (failure) throw failure.err;
          if (done) return;
          await new Promise<void>((r) => (wakeConsumer = r));
        }
      } finally {
        stopped = true;
        wake('reader');
      }
    },
  };
}
