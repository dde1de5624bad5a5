/**
 * The times the rate gate's latest answers came back, oldest first, in a ring of fixed size.
 * Each time is "now" when its answer is seen, so the ring is sorted by construction (a clock that
 * steps back is held at the latest time, which only counts an answer later than it came): the
 * n-th latest is one index away, O(1), and counting the times after an instant is a binary search.
 */
export class AnswerTimes {
  private readonly ring: number[];
  /** index of the oldest kept time */
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('capacity must be ≥ 1');
    this.ring = new Array<number>(capacity).fill(0);
  }

  get size(): number {
    return this.count;
  }

  /** Keeps `t` (at least the latest kept time) as the latest; the oldest goes once the ring is full. */
  push(t: number): void {
    const latest = this.nthLatest(1);
    const at = latest !== undefined && latest > t ? latest : t;
    if (this.count < this.capacity) {
      this.ring[(this.head + this.count) % this.capacity] = at;
      this.count++;
    } else {
      this.ring[this.head] = at;
      this.head = (this.head + 1) % this.capacity;
    }
  }

  /** The `n`-th latest kept time (1: the latest), or undefined when fewer than `n` are kept. */
  nthLatest(n: number): number | undefined {
    if (n < 1 || n > this.count) return undefined;
    return this.ring[(this.head + this.count - n) % this.capacity];
  }

  /** How many kept times are after `t`. */
  countAfter(t: number): number {
    // the oldest index i (0 = oldest) whose time is after t
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.ring[(this.head + mid) % this.capacity] > t) hi = mid;
      else lo = mid + 1;
    }
    return this.count - lo;
  }
}
