import { describe, expect, it } from 'vitest';
import { createProgressReporter, formatEta } from '../../src/apply/progress.js';

describe('progress reporter', () => {
  it('prints at most one line every five seconds when stderr is not a terminal, with rate and ETA', () => {
    let t = 0;
    const out: string[] = [];
    const r = createProgressReporter({ write: (s) => out.push(s), tty: false, now: () => t });
    t = 1000;
    r.update({ total: 100, done: 10, failed: 0, inFlight: 4 });
    t = 5000;
    r.update({ total: 100, done: 50, failed: 1, inFlight: 4 });
    t = 6000;
    r.update({ total: 100, done: 60, failed: 1, inFlight: 4 });
    t = 9999;
    r.tick();
    t = 10_000;
    r.tick();
    r.finish();
    expect(out).toEqual(['apply: 50/100, 1 failed  10.0/s  ETA 5s', 'apply: 60/100, 1 failed  6.0/s  ETA 7s']);
  });

  it('redraws a bar in place on a terminal and ends it with a newline', () => {
    let t = 0;
    const out: string[] = [];
    const r = createProgressReporter({ write: (s) => out.push(s), tty: true, now: () => t, width: 10 });
    t = 2000;
    r.update({ total: 4, done: 2, failed: 0, inFlight: 1 });
    t = 2050;
    r.update({ total: 4, done: 3, failed: 0, inFlight: 1 });
    r.finish();
    expect(out[0]).toBe('\r\x1b[K[#####-----] 2/4  1.0/s  ETA 2s');
    expect(out[1]).toContain('[########--] 3/4');
    expect(out[2]).toBe('\n');
  });

  it('shows the phase before the operations start at once, then counts the rate from when they started', () => {
    let t = 0;
    const out: string[] = [];
    const r = createProgressReporter({ write: (s) => out.push(s), tty: false, now: () => t });
    t = 100;
    r.update({ total: 56, done: 0, failed: 0, inFlight: 0, phase: 'checking 56 creates a stopped run left open' });
    t = 4000;
    r.update({ total: 56, done: 0, failed: 0, inFlight: 0 });
    t = 9000;
    r.update({ total: 56, done: 10, failed: 0, inFlight: 4 });
    expect(out).toEqual(['apply: checking 56 creates a stopped run left open…', 'apply: 0/56  0.0/s  ETA ?', 'apply: 10/56  2.0/s  ETA 23s']);
  });

  it('shows the average over the whole run in whole seconds, so a first second\'s burst under rate_limit 8 never reads above 8/s', () => {
    let t = 0;
    const out: string[] = [];
    const r = createProgressReporter({ write: (s) => out.push(s), tty: true, now: () => t, width: 10, redrawMs: 0 });
    // the rate window lets 8 go at once, and 8 more a second later: 16 done after 1.5 s
    t = 500;
    r.update({ total: 61, done: 8, failed: 0, inFlight: 4 });
    t = 1500;
    r.update({ total: 61, done: 16, failed: 0, inFlight: 4 });
    expect(out[0]).toContain(' 8/61  8.0/s');
    expect(out[1]).toContain(' 16/61  8.0/s');
  });

  it('prints nothing when no operation ever reported progress', () => {
    const out: string[] = [];
    const r = createProgressReporter({ write: (s) => out.push(s), tty: true });
    r.tick();
    r.finish();
    expect(out).toEqual([]);
  });

  it('formats durations in seconds, minutes and hours', () => {
    expect([formatEta(4.4), formatEta(185), formatEta(3720)]).toEqual(['4s', '3m05s', '1h02m']);
  });
});
