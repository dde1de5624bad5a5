import { describe, expect, it } from 'vitest';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DURATION_PATTERN, formatDuration, parseDuration } from '../src/duration.js';
import { loadConfig } from '../src/repository/index.js';
import { configSchema } from '../src/repository/file-schemas.js';

describe('parseDuration (the one duration syntax of tmsync.yaml and every flag)', () => {
  it('reads units and combinations of units', () => {
    expect(parseDuration('30m')).toBe(1_800_000);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration('1h30m')).toBe(5_400_000);
    expect(parseDuration('1m30s500ms')).toBe(90_500);
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration(' 2M ')).toBe(120_000);
  });

  it('reads a bare number as seconds, as text or as a YAML number', () => {
    expect(parseDuration('30')).toBe(30_000);
    expect(parseDuration(30)).toBe(30_000);
    expect(parseDuration(0.5)).toBe(500);
    expect(parseDuration('0')).toBe(0);
  });

  it('rejects text that is not a duration, naming the flag or setting and saying what to write', () => {
    expect(() => parseDuration('soon', '--timeout')).toThrow(/--timeout: `soon` is not a duration/);
    expect(() => parseDuration('10 s')).toThrow(/not a duration/);
    expect(() => parseDuration('')).toThrow(/not a duration/);
    expect(() => parseDuration('1h30')).toThrow(/not a duration/);
    expect(() => parseDuration(-1)).toThrow(/not a duration/);
    let caught: unknown;
    try {
      parseDuration('5 minutes', 'request_timeout');
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ code: 'invalid_duration', hint: expect.stringContaining('a bare number is seconds') });
  });

  it('is the pattern the tmsync.yaml schema checks request_timeout with', () => {
    for (const ok of ['30', '30s', '1h30m', '500ms', '1.5m']) expect(DURATION_PATTERN.test(ok), ok).toBe(true);
    for (const bad of ['30 s', 'h', '1d', '']) expect(DURATION_PATTERN.test(bad), bad).toBe(false);
    expect(configSchema.safeParse({ request_timeout: '1h30m' }).success).toBe(true);
    expect(configSchema.safeParse({ request_timeout: 'soon' }).success).toBe(false);
  });

  it('means the same in tmsync.yaml: "30" and 30 are 30 seconds, 1h30m works', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tmsync-duration-'));
    const timeoutOf = async (value: string) => {
      await writeFile(join(dir, 'tmsync.yaml'), `request_timeout: ${value}\n`);
      return (await loadConfig(join(dir, 'tmsync.yaml'))).config.requestTimeoutMs;
    };
    expect(await timeoutOf('"30"')).toBe(30_000);
    expect(await timeoutOf('30')).toBe(30_000);
    expect(await timeoutOf('1h30m')).toBe(5_400_000);
    expect(await timeoutOf('750ms')).toBe(750);
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
