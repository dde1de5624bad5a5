import type { Clock } from './clock.js';
import { StartMarks } from './start-marks.js';

export type Lane = 'read' | 'write';

export interface GateOptions {
  /** requests started per second, over a sliding window */
  rate: number;
  /** requests in flight at once, both lanes together */
  concurrency: number;
  clock: Clock;
  /**
   * Extra time added to the window, in ms. Grows on each refusal (`widen`) and shrinks back to
   * this as starts go through without one. @default 0
   */
  marginMs?: number;
  /**
   * How long after its start a request may still reach the service, as a fraction of the window
   * (see `RequestGate`). @default 0.25
   */
  arrivalSlack?: number;
}

/** A granted start: `at` is when it was granted (clock ms), `release` gives the slot back once. */
export interface GateSlot {
  at: number;
  release: () => void;
}

interface Waiter {
  priority: number;
  resolve: (slot: GateSlot) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/**
 * The one budget both lanes share: at most `concurrency` requests in flight and at most
 * `floor(rate)` requests in any sliding window of `floor(rate)/rate` seconds (8 in any second by
 * default). When both lanes wait, they take turns, so a long burst of writes cannot starve reads.
 * The service can push back: `pauseUntil` (Retry-After, a rate-limit answer) holds every start.
 *
 * The service counts a request when it arrives, which is some time after we start it (connection
 * set-up, its queue, our own busy event loop). A window kept on start times alone would run into
 * refusals at a pace equal to the service's limit, and each refusal costs a whole Retry-After. So a
 * finished request counts from the moment its answer came back (it surely arrived before that),
 * but no later than `arrivalSlack` of a window after its start (so a slow answer does not hold the
 * budget); a request still in flight counts from its start.
 */
export class RequestGate {
  private cap: number;
  private readonly windowMs: number;
  private readonly baseMarginMs: number;
  private marginMs: number;
  private readonly slackMs: number;
  private readonly concurrency: number;
  private readonly clock: Clock;
  /** the time each of the last `cap` requests counts from */
  private readonly marks = new StartMarks();
  private readonly waiting: Record<Lane, Waiter[]> = { read: [], write: [] };
  private lastLane: Lane = 'write';
  private inFlight = 0;
  private pausedUntil = 0;
  private timerAt = Infinity;

  constructor(options: GateOptions) {
    if (!(options.rate > 0)) throw new RangeError('rate must be > 0');
    this.cap = Math.max(1, Math.floor(options.rate));
    this.windowMs = (this.cap / options.rate) * 1000;
    this.baseMarginMs = options.marginMs ?? 0;
    this.marginMs = this.baseMarginMs;
    this.slackMs = (options.arrivalSlack ?? 0.25) * this.windowMs;
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    this.clock = options.clock;
  }

  /**
   * Waits for a slot; give it back with `release()` once the answer is read. A higher `priority`
   * goes first within its lane (the next page of a list: the longest chain of dependent reads).
   */
  acquire(lane: Lane, signal?: AbortSignal, priority = 0): Promise<GateSlot> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const w: Waiter = { priority, resolve, reject, signal };
      if (signal) {
        w.onAbort = () => {
          const list = this.waiting[lane];
          const i = list.indexOf(w);
          if (i >= 0) list.splice(i, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      // FIFO within a priority: a higher one goes before every lower one already waiting
      const list = this.waiting[lane];
      let i = list.length;
      while (i > 0 && list[i - 1].priority < priority) i--;
      list.splice(i, 0, w);
      this.pump();
    });
  }

  /** Holds every start until `at` (clock ms); a later call can only extend the pause. */
  pauseUntil(at: number): void {
    if (at > this.pausedUntil) this.pausedUntil = at;
  }

  /**
   * The service refused for rate although the window was respected: it sees our requests later
   * than we count them. Each refusal stretches the window by 5 % (up to 30 %); starts that go
   * through shrink it back slowly, so the pace settles just under the service's limit.
   */
  widen(): void {
    this.marginMs = Math.min(this.marginMs + this.windowMs * 0.05, this.windowMs * 0.3);
  }

  /**
   * What the service says of its budget (`x-tms-api-limit`, `-remaining`, `-reset`). A limit below
   * ours (per window) becomes ours. When its remaining budget is lower than our own accounting
   * explains (another client shares the key) and at or below `threshold`, the rest of the budget is
   * spread over the time to reset.
   */
  noteBudget(b: { limit?: number; remaining: number; resetMs?: number; threshold: number }): void {
    if (b.limit !== undefined && b.limit >= 1 && b.limit < this.cap) this.cap = Math.floor(b.limit);
    if (b.remaining > b.threshold) return;
    const now = this.clock.now();
    const ours = this.marks.countAfter(now - this.windowMs - this.marginMs);
    if (b.remaining >= this.cap - ours) return;
    const reset = b.resetMs ?? this.windowMs;
    this.pauseUntil(now + reset / (Math.max(0, b.remaining) + 1));
  }

  /** Requests waiting for a slot. */
  get pendingCount(): number {
    return this.waiting.read.length + this.waiting.write.length;
  }

  private nextLane(): Lane | undefined {
    const other: Lane = this.lastLane === 'read' ? 'write' : 'read';
    if (this.waiting[other].length) return other;
    if (this.waiting[this.lastLane].length) return this.lastLane;
    return undefined;
  }

  private earliestStart(): number {
    // the cap-th most recent mark must have left the window
    const nth = this.marks.nthLatest(this.cap);
    return nth === undefined ? this.pausedUntil : Math.max(this.pausedUntil, nth + this.windowMs + this.marginMs);
  }

  private pump(): void {
    for (;;) {
      if (this.inFlight >= this.concurrency) return;
      const lane = this.nextLane();
      if (!lane) return;
      const now = this.clock.now();
      const at = this.earliestStart();
      if (at > now) {
        this.arm(at);
        return;
      }
      const w = this.waiting[lane].shift()!;
      if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
      this.lastLane = lane;
      this.inFlight++;
      const mark = this.marks.add(now, this.cap);
      if (this.marginMs > this.baseMarginMs) {
        this.marginMs = Math.max(this.baseMarginMs, this.marginMs - this.windowMs * 0.001);
      }
      let released = false;
      w.resolve({
        at: now,
        release: () => {
          if (released) return;
          released = true;
          this.marks.move(mark, Math.min(this.clock.now(), mark.t + this.slackMs));
          this.inFlight--;
          this.pump();
        },
      });
    }
  }

  private arm(at: number): void {
    if (this.timerAt <= at) return;
    this.timerAt = at;
    void this.clock.sleep(at - this.clock.now()).then(() => {
      if (this.timerAt === at) this.timerAt = Infinity;
      this.pump();
    });
  }
}
