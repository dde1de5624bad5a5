import type { Clock } from '../../src/remote/clock.js';

/** A virtual clock: time moves only when the test calls `advance`, timers fire in order. */
export function manualClock(start = 0): Clock & { advance(ms: number): Promise<void>; readonly timers: number } {
  let now = start;
  const timers: { at: number; fire: () => void }[] = [];
  const flush = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const t = { at: now + Math.max(0, ms), fire: resolve };
        timers.push(t);
        signal?.addEventListener('abort', () => {
          const i = timers.indexOf(t);
          if (i >= 0) timers.splice(i, 1);
          reject(signal.reason);
        });
      });
    },
    async advance(ms: number) {
      const end = now + ms;
      await flush();
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > end) break;
        timers.shift();
        now = next.at;
        next.fire();
        await flush();
      }
      now = end;
      await flush();
    },
    get timers() {
      return timers.length;
    },
  };
}
