/**
 * Time, injectable. Every wait of the client (rate window, backoff, Retry-After, request timeout)
 * goes through a Clock, so tests can run whole retry storms in milliseconds.
 */
export interface Clock {
  /** milliseconds; only differences are used, except for Retry-After dates */
  now(): number;
  /** resolves after `ms`; rejects with the signal's reason when it is aborted first */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function realSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Wall-clock time and real timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: realSleep,
};

/**
 * A clock that runs `speedup` times faster than the wall clock: `sleep(1000)` takes 1000/speedup
 * real milliseconds and `now()` advances by 1000. For tests and demos against real sockets, where
 * a purely virtual clock cannot work (the network still takes real time).
 *
 * A sleep never ends before its virtual deadline (timers may fire a little early; it re-arms).
 */
export function scaledClock(speedup: number, start = Date.now()): Clock {
  const realStart = performance.now();
  const now = () => start + (performance.now() - realStart) * speedup;
  return {
    now,
    async sleep(ms: number, signal?: AbortSignal) {
      const deadline = now() + ms;
      for (;;) {
        const left = deadline - now();
        if (left <= 0) {
          signal?.throwIfAborted();
          return;
        }
        await realSleep(Math.max(1, Math.ceil(left / speedup)), signal);
      }
    },
  };
}
