import { describe, expect, it } from 'vitest';
import { formatDuration, parseCliDuration } from '../../src/ci/duration.js';

describe('parseCliDuration', () => {
  it('reads units, combinations and plain milliseconds', () => {
    expect(parseCliDuration('30m')).toBe(1_800_000);
    expect(parseCliDuration('90s')).toBe(90_000);
    expect(parseCliDuration('1h')).toBe(3_600_000);
    expect(parseCliDuration('1h30m')).toBe(5_400_000);
    expect(parseCliDuration('250ms')).toBe(250);
    expect(parseCliDuration('1.5s')).toBe(1500);
    expect(parseCliDuration('1500')).toBe(1500);
    expect(parseCliDuration(42)).toBe(42);
  });

  it('rejects text that is not a duration, naming the flag', () => {
    expect(() => parseCliDuration('soon', '--timeout')).toThrow(/--timeout: `soon` is not a duration/);
    expect(() => parseCliDuration('10 s')).toThrow(/not a duration/);
    expect(() => parseCliDuration('')).toThrow(/not a duration/);
  });
});

describe('formatDuration', () => {
  it('prints hours, minutes and seconds compactly', () => {
    expect(formatDuration(95_000)).toBe('1m35s');
    expect(formatDuration(3_600_000)).toBe('1h');
    expect(formatDuration(0)).toBe('0ms');
    expect(formatDuration(1000)).toBe('1s');
  });
});
