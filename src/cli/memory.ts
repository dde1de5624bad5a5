import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * A bound on the garbage a command's heap holds (issue 15). V8 collects its old generation when it
 * has grown by a factor of what was alive after the last collection, and on a large repository
 * that is hundreds of megabytes of dead objects: the objects of a request or of a parsed page live
 * across a few young-generation collections, get promoted, and then wait (docs/performance.md has the figures). The governor checks the heap every `intervalMs` and collects when it
 * has grown by more than `slackMb` (or by `growth`, a quarter unless told, for a large heap) since the last collection:
 * a pause of a fraction of a second every few seconds of a busy run, against peak memory.
 *
 * Only the CLI process starts it (never the library), and not for `serve` or `validate` (see
 * `governed` in main.ts); `TMSYNC_GC=0` turns it off.
 */
interface MemoryGovernor {
  /**
   * Collects now if the heap has grown past the bound: for the end of a long synchronous step
   * (a timer cannot fire inside one), e.g. before the plan is built.
   */
  check(): void;
  /**
   * Collects now, whatever the heap's growth: for the moment a large structure was let go (the
   * repository's state once the plan is built), which the growth bound would leave in the heap
   * while the next steps pile their garbage on it.
   */
  collect(): void;
  stop(): void;
  /** full collections it made */
  readonly collections: number;
}

export function startMemoryGovernor(options: {
  intervalMs?: number;
  slackMb?: number;
  /** the growth, as a fraction of the heap after the last collection, that a large heap may take before the next @default 0.25 */
  growth?: number;
  env?: NodeJS.ProcessEnv;
} = {}): MemoryGovernor {
  const env = options.env ?? process.env;
  const collect = env.TMSYNC_GC === '0' ? undefined : fullCollection();
  let collections = 0;
  if (!collect) return { check: () => undefined, collect: () => undefined, stop: () => undefined, collections };
  const slack = (options.slackMb ?? 32) * 1024 * 1024;
  const growth = options.growth ?? 0.25;
  let base = getHeapStatistics().used_heap_size;
  let stopped = false;
  const collectNow = () => {
    if (stopped) return;
    collect();
    collections++;
    base = getHeapStatistics().used_heap_size;
  };
  const check = () => {
    const used = getHeapStatistics().used_heap_size;
    if (used - base <= Math.max(slack, base * growth)) return;
    collectNow();
  };
  const timer = setInterval(check, options.intervalMs ?? 250);
  timer.unref();
  return {
    check,
    collect: collectNow,
    // the command's large structures are built and its remaining steps are short: no more full
    // collections, which its last steps would otherwise pay for just before the process exits
    // and releases its heap anyway (docs/performance.md). V8's own collections go on as ever.
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    get collections() {
      return collections;
    },
  };
}

/** V8's full collection, reached without `--expose-gc` on the command line; undefined if unavailable. */
function fullCollection(): (() => void) | undefined {
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}
