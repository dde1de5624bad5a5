import { TmsyncError } from './errors.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A duration as written in tmsync.yaml and on the command line (the JSON Schema uses it too). */
export const DURATION_PATTERN = /^(?:[0-9]+(?:\.[0-9]+)?|(?:[0-9]+(?:\.[0-9]+)?(?:ms|s|m|h))+)$/;

/**
 * The one duration syntax of tmsync, in tmsync.yaml and in every flag → milliseconds.
 * A bare number is **seconds** (`30`, `"30"`, `0.5`), as `--timeout 30` means in most CLIs;
 * otherwise one or more number+unit parts: `500ms`, `30s`, `2m`, `1h`, `1h30m`, `1.5s`.
 * `what` names the setting or flag in the error.
 */
export function parseDuration(value: string | number, what = 'duration'): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return Math.round(value * 1000);
    throw invalid(value, what);
  }
  const text = value.trim().toLowerCase();
  if (!DURATION_PATTERN.test(text)) throw invalid(value, what);
  if (/^[0-9]+(?:\.[0-9]+)?$/.test(text)) return Math.round(Number(text) * 1000);
  let total = 0;
  for (const m of text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/g)) total += Number(m[1]) * UNIT_MS[m[2]];
  return Math.round(total);
}

function invalid(value: string | number, what: string): TmsyncError {
  return new TmsyncError('invalid_duration', `${what}: \`${value}\` is not a duration`, {
    hint: 'write e.g. 30s, 2m, 1h30m or 500ms; a bare number is seconds',
  });
}

/** Milliseconds for messages: 95000 → `1m35s` (a progress line's estimate is `formatEta`, from seconds). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  return [h ? `${h}h` : '', m ? `${m}m` : '', s || (!h && !m) ? `${s}s` : ''].join('');
}
