import { TmsyncError } from '../errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A command-line duration → milliseconds: `30m`, `90s`, `1h`, `1h30m`, `250ms`, or a plain number of
 * milliseconds (`1500`). `flag` names the option in the error.
 */
export function parseCliDuration(value: string | number, flag = 'duration'): number {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.round(value);
  const text = String(value).trim().toLowerCase();
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text));
  const part = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (const m of text.matchAll(part)) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    consumed += m[0].length;
  }
  if (text === '' || consumed !== text.length) {
    throw new TmsyncError('invalid_duration', `${flag}: \`${value}\` is not a duration`, {
      hint: 'write e.g. 30m, 90s, 1h30m, 500ms, or a number of milliseconds',
    });
  }
  return Math.round(total);
}

/** 95000 → `1m35s`, for messages. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s || (!h && !m) ? `${s}s` : ''].join('');
}
