/** One request's place in the rate window: the time it counts from. */
export interface StartMark {
  readonly t: number;
}

interface Entry extends StartMark {
  t: number;
  /** position in the heap, -1 once the mark has left the window */
  at: number;
}

/**
 * The last `cap` start marks of the rate gate, in grant order, with the earliest of them at hand.
 * A mark's time only grows in practice (a finished request counts from its answer), so a min-heap indexed by
 * position answers "when may the next request start" in O(1) and keeps itself in O(log n) per
 * start and per release, where sorting every mark on every start cost O(n log n) (16 % of the CPU
 * of an apply at `rate_limit: 2000`).
 */
export class StartMarks {
  /** marks in grant order; `head` is the oldest still kept */
  private readonly order: Entry[] = [];
  private head = 0;
  private readonly heap: Entry[] = [];

  get size(): number {
    return this.heap.length;
  }

  /** Adds a mark at `t` and drops the oldest marks (grant order) beyond `keep`. */
  add(t: number, keep: number): StartMark {
    const e: Entry = { t, at: this.heap.length };
    this.heap.push(e);
    this.up(e.at);
    this.order.push(e);
    while (this.size > keep) this.dropOldest();
    return e;
  }

  /** Moves a mark to `t` (later, as a rule); a mark that has left the window just keeps its time. */
  move(mark: StartMark, t: number): void {
    const e = mark as Entry;
    const later = t > e.t;
    e.t = t;
    if (e.at < 0) return;
    if (later) this.down(e.at);
    else this.up(e.at);
  }

  /**
   * The `n`-th latest time among the kept marks (n = size: the earliest, from the heap), or
   * undefined when fewer than `n` are kept.
   */
  nthLatest(n: number): number | undefined {
    if (n < 1 || this.size < n) return undefined;
    if (this.size === n) return this.heap[0].t;
    // more marks than the window holds: only after the service lowered the limit, until the next start
    return this.heap.map((e) => e.t).sort((a, b) => b - a)[n - 1];
  }

  /** How many kept marks count from after `t`. */
  countAfter(t: number): number {
    let n = 0;
    for (const e of this.heap) if (e.t > t) n++;
    return n;
  }

  private dropOldest(): void {
    const e = this.order[this.head++];
    // compact now and then so the grant-order list does not grow without end
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order.splice(0, this.head);
      this.head = 0;
    }
    const i = e.at;
    e.at = -1;
    const last = this.heap.pop()!;
    if (last === e) return;
    this.heap[i] = last;
    last.at = i;
    this.down(i);
    this.up(last.at);
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].t <= h[i].t) return;
      this.swap(i, p);
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && h[l].t < h[m].t) m = l;
      if (r < h.length && h[r].t < h[m].t) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(i: number, j: number): void {
    const h = this.heap;
    const a = h[i];
    h[i] = h[j];
    h[j] = a;
    h[i].at = i;
    h[j].at = j;
  }
}
