import type { Clock } from './clock.js';
import { AnswerTimes } from './answer-times.js';

export type Lane = 'read' | 'write';

interface GateOptions {
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
}

/**
 * A granted start: `at` is when it was granted (clock ms). `answered` says the answer has begun to
 * come back (the request counts from then on, see `RequestGate`); `release` gives the slot back
 * once the answer is read (and counts the request as answered then, if `answered` was not called).
 */
export interface GateSlot {
  at: number;
  answered: () => void;
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
 * The service counts a request when it takes it in, which is some time after we start it and
 * before it answers: how long after, we cannot see (our own event loop busy between the start and
 * the socket write, a new connection, the service's queue, or its one thread busy with an earlier
 * request: the emulator took in requests long after their start while it served a heavy
 * page, or while the client's own event loop stood still). So the gate counts every request at the
 * one time it knows is not before the service's count: an answered request from when its answer
 * came back, a request not yet answered as taken in just now (any later start may reach the
 * service before it).
 * A start is allowed when fewer than `cap` requests are unanswered or were answered within the last
 * window: then no window of the service, however late within the request's life it counts each
 * one, holds more than `cap` of ours. A fast answer costs nothing; a slow one holds its place in
 * the window only as long as the service may have counted it late.
 */
export class RequestGate {
  private cap: number;
  private readonly windowMs: number;
  private readonly baseMarginMs: number;
  private marginMs: number;
  private readonly concurrency: number;
  private readonly clock: Clock;
  /** when the latest answers came back (the last `cap` of them) */
  private readonly answers: AnswerTimes;
  /** started and not yet answered: each counts as taken in now */
  private unanswered = 0;
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
    this.answers = new AnswerTimes(this.cap);
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
    const ours = this.unanswered + this.answers.countAfter(now - this.windowMs - this.marginMs);
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

  /** When the next start may go; Infinity: not before an answer comes back. */
  private earliestStart(): number {
    // the unanswered requests count as now: of the answered ones, the (cap - unanswered)-th latest
    // must have left the window
    const k = this.cap - this.unanswered;
    if (k <= 0) return Infinity;
    const nth = this.answers.nthLatest(k);
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
        if (at !== Infinity) this.arm(at);
        return;
      }
      const w = this.waiting[lane].shift()!;
      if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
      this.lastLane = lane;
      this.inFlight++;
      this.unanswered++;
      if (this.marginMs > this.baseMarginMs) {
        this.marginMs = Math.max(this.baseMarginMs, this.marginMs - this.windowMs * 0.001);
      }
      let answered = false;
      let released = false;
      const answer = () => {
        if (answered) return;
        answered = true;
        this.unanswered--;
        this.answers.push(this.clock.now());
      };
      w.resolve({
        at: now,
        answered: () => {
          answer();
          this.pump();
        },
        release: () => {
          if (released) return;
          released = true;
          answer();
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
