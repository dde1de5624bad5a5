import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StartMarks, type StartMark } from '../../src/remote/start-marks.js';

type Op = { kind: 'add'; t: number; keep: number } | { kind: 'move'; which: number; t: number } | { kind: 'nth'; n: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), t: fc.integer({ min: 0, max: 1000 }), keep: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('move' as const), which: fc.nat(), t: fc.integer({ min: 0, max: 1000 }) }),
  fc.record({ kind: fc.constant('nth' as const), n: fc.integer({ min: 0, max: 14 }) }),
);

describe('StartMarks', () => {
  it('answers the n-th latest kept time exactly as sorting the last marks in grant order does, through any adds, drops and moves', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const marks = new StartMarks();
        // the reference: the gate's former array of marks, trimmed in grant order and sorted on demand
        let ref: { t: number }[] = [];
        const handles: { mark: StartMark; ref: { t: number } }[] = [];
        for (const o of ops) {
          if (o.kind === 'add') {
            const r = { t: o.t };
            ref.push(r);
            if (ref.length > o.keep) ref = ref.slice(ref.length - o.keep);
            handles.push({ mark: marks.add(o.t, o.keep), ref: r });
          } else if (o.kind === 'move') {
            if (!handles.length) continue;
            const h = handles[o.which % handles.length];
            h.ref.t = o.t;
            marks.move(h.mark, o.t);
            expect(h.mark.t).toBe(o.t);
          } else {
            const sorted = ref.map((m) => m.t).sort((a, b) => b - a);
            const expected = o.n >= 1 && sorted.length >= o.n ? sorted[o.n - 1] : undefined;
            expect(marks.nthLatest(o.n)).toBe(expected);
          }
          expect(marks.size).toBe(ref.length);
          expect(marks.countAfter(500)).toBe(ref.filter((m) => m.t > 500).length);
        }
      }),
      { numRuns: 500, seed: 20261123 },
    );
  });

  it('keeps only the newest marks in grant order when more are added than the window keeps, whatever their times', () => {
    const marks = new StartMarks();
    marks.add(100, 2);
    marks.add(5, 2);
    marks.add(50, 2); // drops the first mark (t = 100), although it is the latest time
    expect(marks.size).toBe(2);
    expect(marks.nthLatest(2)).toBe(5);
    expect(marks.nthLatest(1)).toBe(50);
  });
});
