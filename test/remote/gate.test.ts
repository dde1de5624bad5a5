import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestGate, type Lane } from '../../src/remote/gate.js';
import { manualClock } from './manual-clock.js';

function starter(gate: RequestGate, clock: { now(): number }) {
  const log: { lane: Lane; id: string; at: number }[] = [];
  const take = (lane: Lane, id: string, holdRelease = false, signal?: AbortSignal) =>
    gate.acquire(lane, signal).then((slot) => {
      log.push({ lane, id, at: clock.now() });
      if (!holdRelease) slot.release();
      return slot;
    });
  return { log, take };
}

describe('RequestGate', () => {
  it('grants at most rate starts in any sliding window and spaces the rest by the window', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 2, concurrency: 10, clock, marginMs: 0 });
    const { log, take } = starter(gate, clock);
    for (let i = 0; i < 5; i++) void take('read', `r${i}`);
    await clock.advance(5000);
    expect(log.map((x) => x.at)).toEqual([0, 0, 1000, 1000, 2000]);
  });

  it('counts a request from when its answer began to come back, however long after its start', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 1, concurrency: 4, clock });
    const { log, take } = starter(gate, clock);
    const first = await take('read', 'a', true);
    await clock.advance(40);
    first.answered(); // the service counted it at most 40 ms after its start
    await clock.advance(300);
    first.release(); // reading the body does not hold the window
    void take('read', 'b');
    await clock.advance(5000);
    const slow = await take('read', 'c', true);
    await clock.advance(900);
    // a slow answer: the service may have taken the request in only just before answering (a busy
    // service, or our own event loop between the start and the socket write)
    slow.release();
    void take('read', 'd');
    await clock.advance(5000);
    expect(log.map((x) => x.at)).toEqual([0, 1040, 5340, 7240]);
  });

  it('counts a request not yet answered as taken in now: a start waits while rate requests await their answers', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 2, concurrency: 4, clock });
    const { log, take } = starter(gate, clock);
    const a = await take('read', 'a', true);
    await take('read', 'b', true);
    void take('read', 'c');
    await clock.advance(2500);
    // both may still reach the service at any moment: a third start could make three in a window
    expect(log.map((x) => x.id)).toEqual(['a', 'b']);
    a.release();
    await clock.advance(5000);
    expect(log.map((x) => x.at)).toEqual([0, 0, 3500]);
  });

  it('keeps an early start answered late in the window, however many starts came after it', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 3, concurrency: 4, clock });
    const { log, take } = starter(gate, clock);
    const a = await take('read', 'a', true);
    const b = await take('read', 'b', true);
    const c = await take('read', 'c', true);
    await clock.advance(10);
    b.release();
    c.release();
    await clock.advance(790);
    a.release(); // a may have reached the service at 800
    for (const id of ['d', 'e', 'f']) void take('read', id);
    await clock.advance(5000);
    // d and e go with a in the window that ends at 1010; f waits until a has left it, although
    // d and e are the later starts (counting the last three starts would let f go at 1010: four)
    expect(log.map((x) => `${x.id}@${x.at}`)).toEqual(['a@0', 'b@0', 'c@0', 'd@1010', 'e@1010', 'f@1800']);
  });

  it('never lets a strict sliding window of the service see more than rate requests, however late within each request it counts', async () => {
    const scenario = fc.record({
      rate: fc.integer({ min: 1, max: 6 }),
      concurrency: fc.integer({ min: 1, max: 6 }),
      requests: fc.array(
        fc.record({
          // from the start to the service taking it in, from then to the answer, then reading it
          hold: fc.integer({ min: 0, max: 1500 }),
          answer: fc.integer({ min: 0, max: 300 }),
          read: fc.integer({ min: 0, max: 300 }),
          headers: fc.boolean(),
        }),
        { minLength: 1, maxLength: 30 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async ({ rate, concurrency, requests }) => {
        const clock = manualClock();
        const gate = new RequestGate({ rate, concurrency, clock });
        const takenIn: number[] = [];
        let done = 0;
        for (const r of requests) {
          void gate.acquire('read').then(async (slot) => {
            await clock.sleep(r.hold);
            takenIn.push(clock.now());
            await clock.sleep(r.answer);
            if (r.headers) slot.answered();
            await clock.sleep(r.read);
            slot.release();
            done++;
          });
        }
        await clock.advance(requests.length * 3200);
        expect(done).toBe(requests.length);
        for (const t of takenIn) {
          // the service's window at t: the requests taken in after t - 1 s, up to t
          expect(takenIn.filter((u) => u > t - 1000 && u <= t).length).toBeLessThanOrEqual(rate);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('lets a higher priority go first within a lane, first come first served among equals', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 1, concurrency: 1, clock, marginMs: 0 });
    const { log } = starter(gate, clock);
    const take = (id: string, priority: number) =>
      gate.acquire('read', undefined, priority).then((s) => {
        log.push({ lane: 'read', id, at: clock.now() });
        s.release();
      });
    void take('first', 0);
    void take('low1', 0);
    void take('low2', 0);
    void take('page1', 1);
    void take('page2', 1);
    await clock.advance(10_000);
    expect(log.map((x) => x.id)).toEqual(['first', 'page1', 'page2', 'low1', 'low2']);
  });

  it('handles a fractional rate as a longer window', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 0.5, concurrency: 10, clock, marginMs: 0 });
    const { log, take } = starter(gate, clock);
    for (let i = 0; i < 3; i++) void take('read', `r${i}`);
    await clock.advance(10_000);
    expect(log.map((x) => x.at)).toEqual([0, 2000, 4000]);
  });

  it('never has more than concurrency slots out at once', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 1000, concurrency: 2, clock });
    const { log, take } = starter(gate, clock);
    const slots = [take('read', 'a', true), take('read', 'b', true)];
    void take('read', 'c', true);
    await clock.advance(100);
    expect(log.map((x) => x.id)).toEqual(['a', 'b']);
    (await slots[0]).release();
    await clock.advance(1);
    expect(log.map((x) => x.id)).toEqual(['a', 'b', 'c']);
  });

  it('alternates lanes when both wait, so writes queued first do not starve a read', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 1, concurrency: 1, clock });
    const { log, take } = starter(gate, clock);
    for (let i = 0; i < 4; i++) void take('write', `w${i}`);
    void take('read', 'r0');
    void take('read', 'r1');
    await clock.advance(10_000);
    expect(log.map((x) => x.id)).toEqual(['w0', 'r0', 'w1', 'r1', 'w2', 'w3']);
  });

  it('holds every start while paused and resumes at the end of the pause', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 100, concurrency: 4, clock });
    const { log, take } = starter(gate, clock);
    gate.pauseUntil(3000);
    void take('read', 'a');
    void take('write', 'b');
    await clock.advance(2999);
    expect(log).toHaveLength(0);
    await clock.advance(1);
    expect(log.map((x) => x.at)).toEqual([3000, 3000]);
  });

  it('stretches the window after a refusal', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 1, concurrency: 4, clock, marginMs: 0 });
    const { log, take } = starter(gate, clock);
    await take('read', 'a');
    gate.widen();
    void take('read', 'b');
    await clock.advance(5000);
    expect(log.map((x) => x.at)).toEqual([0, 1050]);
    // starts that go through shrink the stretch back
    for (let i = 0; i < 60; i++) void take('read', `x${i}`);
    await clock.advance(120_000);
    expect(log[log.length - 1].at - log[log.length - 2].at).toBe(1000);
  });

  it('slows down when the service has less budget left than our own starts explain', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 10, concurrency: 4, clock });
    const { log, take } = starter(gate, clock);
    await take('read', 'a');
    // one start of ours in the window, yet the service says 1 left: someone else uses the key
    gate.noteBudget({ remaining: 1, resetMs: 1000, threshold: 2 });
    void take('read', 'b');
    await clock.advance(499);
    expect(log).toHaveLength(1);
    await clock.advance(1);
    expect(log.map((x) => x.at)).toEqual([0, 500]);
  });

  it('does not slow down when the low budget is only its own recent starts', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 4, concurrency: 4, clock });
    const { log, take } = starter(gate, clock);
    for (let i = 0; i < 3; i++) await take('read', `x${i}`);
    gate.noteBudget({ remaining: 1, resetMs: 1000, threshold: 2 });
    void take('read', 'y');
    await clock.advance(0);
    expect(log.map((x) => x.at)).toEqual([0, 0, 0, 0]);
  });

  it('adopts a service limit lower than the configured rate', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 8, concurrency: 8, clock, marginMs: 0 });
    const { log, take } = starter(gate, clock);
    gate.noteBudget({ limit: 2, remaining: 2, threshold: 0 });
    for (let i = 0; i < 3; i++) void take('read', `r${i}`);
    await clock.advance(2000);
    expect(log.map((x) => x.at)).toEqual([0, 0, 1000]);
  });

  it('drops a waiter whose signal is aborted', async () => {
    const clock = manualClock();
    const gate = new RequestGate({ rate: 1, concurrency: 1, clock });
    const { take } = starter(gate, clock);
    await take('read', 'a');
    const ac = new AbortController();
    const p = take('read', 'b', false, ac.signal);
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
    expect(gate.pendingCount).toBe(0);
  });
});
