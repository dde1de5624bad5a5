/**
 * Fault injection: added latency, a per-key rate limit, random 500/503 answers and dropped
 * connections. Every random decision comes from one seeded generator, and every authenticated
 * request draws exactly three numbers from it (reset, fail, which 5xx), so under `--fault-seed` the
 * n-th request always meets the same fate.
 */
export interface FaultOptions {
  /** added to every authenticated request, in ms @default 0 */
  latencyMs: number;
  /** requests per second per key (sliding 1 s window); undefined = no limit */
  rateLimit?: number;
  /** `429` with Retry-After, or `live`: the live service's 500 `{"message":"rate limit exceeded"}` @default '429' */
  rateLimitStyle: '429' | 'live';
  /** probability of a 500 or 503 answer @default 0 */
  failRate: number;
  /** probability that the connection is destroyed without an answer @default 0 */
  resetRate: number;
  /** seed of the fault generator; random when absent */
  faultSeed?: number;
  /** faults on writes hit after the change is committed (the connection is dropped) @default false */
  failAfterCommit: boolean;
}

const DEFAULT_FAULTS: FaultOptions = {
  latencyMs: 0,
  rateLimitStyle: '429',
  failRate: 0,
  resetRate: 0,
  failAfterCommit: false,
};

/** mulberry32: small, fast, good enough for fault decisions, and reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type FaultRoll = { kind: 'none' } | { kind: 'reset' } | { kind: 'fail'; status: 500 | 503 };

interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** seconds until a request would be accepted (integer, at least 1) when refused */
  retryAfter: number;
}

export class Faults {
  private opts: FaultOptions;
  private random: () => number;
  private readonly windows = new Map<string, number[]>();

  constructor(
    opts: Partial<FaultOptions>,
    private readonly now: () => number,
  ) {
    this.opts = { ...DEFAULT_FAULTS, ...stripUndefined(opts) };
    this.random = seededRandom(this.opts.faultSeed ?? Math.floor(Math.random() * 2 ** 32));
  }

  get options(): Readonly<FaultOptions> {
    return this.opts;
  }

  /** Changes faults at run time; a new `faultSeed` restarts the sequence; the rate windows are cleared. */
  set(partial: Partial<FaultOptions>): void {
    this.opts = { ...this.opts, ...partial };
    if (partial.faultSeed !== undefined) this.random = seededRandom(partial.faultSeed);
    if ('rateLimit' in partial) this.windows.clear();
  }

  /** Sliding one-second window of accepted requests per key (refused requests do not count). */
  rate(key: string): RateDecision | undefined {
    const limit = this.opts.rateLimit;
    if (limit === undefined || limit <= 0) return undefined;
    const now = this.now();
    let w = this.windows.get(key);
    if (!w) this.windows.set(key, (w = []));
    while (w.length > 0 && w[0] <= now - 1000) w.shift();
    const allowed = w.length < limit;
    if (allowed) w.push(now);
    const untilFree = w.length > 0 ? Math.max(1, Math.ceil((w[0] + 1000 - now) / 1000)) : 0;
    return {
      allowed,
      retryAfter: Math.max(1, untilFree),
      headers: {
        'x-tms-api-limit': String(limit),
        'x-tms-api-remaining': String(Math.max(0, limit - w.length)),
        'x-tms-api-reset': String(untilFree),
      },
    };
  }

  /** Draws this request's fate (always three draws, so sequences stay aligned). */
  roll(): FaultRoll {
    const r1 = this.random();
    const r2 = this.random();
    const r3 = this.random();
    if (r1 < this.opts.resetRate) return { kind: 'reset' };
    if (r2 < this.opts.failRate) return { kind: 'fail', status: r3 < 0.5 ? 500 : 503 };
    return { kind: 'none' };
  }
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
