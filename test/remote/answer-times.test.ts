import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnswerTimes } from '../../src/remote/answer-times.js';

describe('AnswerTimes', () => {
  it('answers the n-th latest and the count after an instant exactly as sorting the last capacity times does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.oneof(fc.record({ push: fc.integer({ min: 0, max: 1000 }) }), fc.record({ n: fc.integer({ min: 0, max: 14 }), t: fc.integer({ min: -1, max: 1001 }) })), { maxLength: 200 }),
        (capacity, ops) => {
          const times = new AnswerTimes(capacity);
          // the reference: every time kept in order, a time before the latest held at the latest
          let ref: number[] = [];
          for (const o of ops) {
            if ('push' in o) {
              times.push(o.push);
              ref.push(Math.max(o.push, ref[ref.length - 1] ?? -Infinity));
              ref = ref.slice(-capacity);
            } else {
              expect(times.nthLatest(o.n)).toBe(o.n >= 1 && o.n <= ref.length ? ref[ref.length - o.n] : undefined);
              expect(times.countAfter(o.t)).toBe(ref.filter((x) => x > o.t).length);
            }
            expect(times.size).toBe(ref.length);
          }
        },
      ),
    );
  });

  it('holds a time from a clock that stepped back at the latest time kept', () => {
    const times = new AnswerTimes(3);
    times.push(100);
    times.push(40);
    expect([times.nthLatest(1), times.nthLatest(2)]).toEqual([100, 100]);
  });
});
