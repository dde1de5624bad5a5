import type { ApplyProgress } from './execute-types.js';

/**
 * Apply's progress for stderr: on a terminal a bar redrawn in place (done/total, rate, ETA); else
 * one line every few seconds, so CI logs show the run is alive without filling up.
 *
 * The reporter only formats and decides when; the caller gives it a `write` (the CLI's stderr).
 */
interface ProgressReporterOptions {
  /** receives the text to print; bar frames start with `\r` and carry no newline */
  write: (text: string) => void;
  /** draw a bar in place (stderr is a terminal) */
  tty: boolean;
  /** line mode: at most one line per interval. @default 5000 */
  intervalMs?: number;
  /** bar mode: at most one redraw per interval. @default 100 */
  redrawMs?: number;
  /** milliseconds, injectable for tests. @default performance.now */
  now?: () => number;
  /** bar width in characters. @default 30 */
  width?: number;
}

interface ProgressReporter {
  update(progress: ApplyProgress): void;
  /** prints a line if one is due (call it from a timer so a stalled run still reports) */
  tick(): void;
  /** ends the bar (a last frame and a newline); lines mode prints nothing more */
  finish(): void;
}

export function createProgressReporter(options: ProgressReporterOptions): ProgressReporter {
  const now = options.now ?? (() => performance.now());
  const interval = options.tty ? (options.redrawMs ?? 100) : (options.intervalMs ?? 5000);
  const width = options.width ?? 30;
  let start = now();
  let last: ApplyProgress | undefined;
  let lastPrint = start;
  let drawn = false;
  let finished = false;

  const render = (p: ApplyProgress): string => {
    // a phase before the operations start (resume lookups): what is happening, not a bar at 0
    if (p.phase) return options.tty ? `\r\x1b[K${p.phase}…` : `apply: ${p.phase}…`;
    // the average over the whole run, counted in whole seconds as the service's rate window counts:
    // the first second's burst (up to rate_limit at once) is not read as a rate above the limit
    const elapsed = Math.max(1, Math.ceil((now() - start) / 1000));
    const rate = p.done / elapsed;
    const left = p.total - p.done;
    const eta = rate > 0 ? formatEta(left / rate) : '?';
    const failed = p.failed > 0 ? `, ${p.failed} failed` : '';
    const stats = `${p.done}/${p.total}${failed}  ${rate.toFixed(1)}/s  ETA ${left === 0 ? '0s' : eta}`;
    if (!options.tty) return `apply: ${stats}`;
    const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
    return `\r\x1b[K[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${stats}`;
  };

  const print = (force: boolean) => {
    if (!last || finished) return;
    const t = now();
    if (!force && t - lastPrint < interval) return;
    lastPrint = t;
    drawn = true;
    options.write(render(last));
  };

  return {
    update(p) {
      // a new phase (or its end) is shown at once
      const phaseChanged = (last?.phase ?? '') !== (p.phase ?? '');
      // the rate and ETA count from when the operations started, not from the lookups before
      if (phaseChanged && !p.phase) start = now();
      last = p;
      print(phaseChanged);
    },
    tick() {
      print(false);
    },
    finish() {
      if (options.tty && drawn && last) {
        print(true);
        options.write('\n');
      }
      finished = true;
    },
  };
}

/** A progress line's estimate of the time left, from seconds, fixed width per unit: `45s`, `3m05s`, `1h02m`. */
export function formatEta(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
