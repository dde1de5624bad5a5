import type { Outcome } from './record.js';

/**
 * The outcome of a Cucumber step or hook status, every runner's spelling (lower-cased): cucumber-js
 * and cucumber-jvm JSON, the messages' `TestStepResultStatus`, and behave's `Status`. A scenario
 * ends as its worst step or hook (failed > error > skipped > passed), so a failed Before or After
 * hook fails it. docs/ci.md shows this table.
 */
export const CUCUMBER_STATUS_OUTCOMES: Readonly<Record<string, Outcome>> = {
  passed: 'passed',
  failed: 'failed',
  // not run: after a failure, by a hook or tag that skips, or a step marked as not yet written
  skipped: 'skipped',
  pending: 'skipped',
  // the scenario cannot run as written: no step definition, two of them, or no result established
  undefined: 'error',
  ambiguous: 'error',
  unknown: 'error',
  // behave
  untested: 'skipped',
  untested_pending: 'skipped',
  untested_undefined: 'skipped',
  pending_warn: 'skipped',
  xfailed: 'skipped',
  xpassed: 'passed',
  error: 'error',
  hook_error: 'failed',
  cleanup_error: 'failed',
  executing: 'error',
};

const SEVERITY: Readonly<Record<Outcome, number>> = { failed: 3, error: 2, skipped: 1, passed: 0 };

/** What one step or hook of a scenario ended as, as a report gives it. */
export interface StepResult {
  /** the report's status, any case */
  status: string;
  /** `Given the cart is empty`, `Before hook`, `After hook (Hooks.screenshot)` */
  what: string;
  /** the error text (first line is kept) */
  error?: string;
  durationMs?: number;
}

/** The scenario's outcome from its steps and hooks: the worst wins, and the first of the worst explains it. */
export function foldSteps(steps: readonly StepResult[]): { outcome: Outcome; message?: string; durationMs?: number } {
  let worst: { outcome: Outcome; step: StepResult } | undefined;
  let durationMs: number | undefined;
  for (const step of steps) {
    const status = step.status.toLowerCase();
    const outcome = CUCUMBER_STATUS_OUTCOMES[status] ?? 'error';
    if (worst === undefined || SEVERITY[outcome] > SEVERITY[worst.outcome]) worst = { outcome, step };
    if (step.durationMs !== undefined) durationMs = (durationMs ?? 0) + step.durationMs;
  }
  const timing = durationMs !== undefined ? { durationMs } : {};
  if (worst === undefined) return { outcome: 'skipped', message: 'no step ran', ...timing };
  if (worst.outcome === 'passed') return { outcome: 'passed', ...timing };
  return { outcome: worst.outcome, message: stepMessage(worst.step, worst.outcome), ...timing };
}

/**
 * `Then the total is 12 — expected 11 to equal 12`; the step's status leads when it is not the
 * outcome's own word (`pending: When I pay later` of a skipped scenario). Capped as JUnit messages are.
 */
function stepMessage(step: StepResult, outcome: Outcome): string {
  const status = step.status.toLowerCase();
  const known = status in CUCUMBER_STATUS_OUTCOMES;
  const lead = !known ? `status "${step.status}": ` : status === outcome ? '' : `${status}: `;
  const first = firstLine(step.error);
  const text = `${lead}${step.what}${first ? ` — ${first}` : ''}`;
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

function firstLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  for (const l of text.split(/\r?\n/, 200)) {
    const t = l.trim();
    if (t !== '') return t;
  }
  return undefined;
}

/** The worse of two outcomes. */
export function worse(a: Outcome, b: Outcome): Outcome {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}
