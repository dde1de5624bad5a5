import type { BodyOf } from '../api/endpoints.js';
import type { ExecutionResult } from '../api/resources.js';
import { TmsyncError } from '../errors.js';
import { ApiError } from '../remote/api-error.js';
import type { TmsClient } from '../remote/client.js';
import { systemClock } from '../remote/clock.js';
import { webLink } from '../remote/web-link.js';

/**
 * The execution interface from CI: start a test plan, then follow its run to the end.
 * Pure of printing; time is injected so tests run whole waits in milliseconds.
 */

interface TriggerOptions {
  /**
   * the plan as the execution interface names it: its execution id, a number (sent as a JSON number,
   * as the live service's clients send it), or an id the service takes as it is
   */
  testPlanId: string;
  /** numeric environment id; sent as a number when it looks like one */
  environmentId?: string;
  buildNo?: string;
  runtimeData?: Record<string, string>;
  signal?: AbortSignal;
}

interface TriggeredRun {
  /** the run id for `run status` (a number on the live service) */
  id: string;
  /** a link to the run, when the service gave one */
  url?: string;
}

/** `POST {app_url}/api/v1/execution_results`. A failure is not retried blindly: a run may have started. */
export async function triggerExecution(client: TmsClient, options: TriggerOptions): Promise<TriggeredRun> {
  const body: BodyOf<'triggerExecution'> = { executionId: executionIdOf(options.testPlanId) };
  if (options.environmentId !== undefined) {
    body.environmentId = /^\d+$/.test(options.environmentId) ? Number(options.environmentId) : options.environmentId;
  }
  if (options.buildNo !== undefined) body.buildNo = options.buildNo;
  if (options.runtimeData && Object.keys(options.runtimeData).length > 0) body.runtimeData = options.runtimeData;
  const res = await client.call('triggerExecution', { body, signal: options.signal });
  const run: TriggeredRun = { id: String(res.id) };
  const url = webLink(res);
  if (url) run.url = url;
  return run;
}

/** `2090` → 2090 (the live service's clients send a bare number); anything else as given. */
function executionIdOf(ref: string): string | number {
  const text = ref.trim();
  return /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : ref;
}

/** `GET {app_url}/api/v1/execution_results/:id`. */
export async function getExecution(client: TmsClient, runId: string, signal?: AbortSignal): Promise<ExecutionResult> {
  return client.call('getExecution', { params: { run_id: runId }, signal });
}

/** `GET {app_url}/api/v1/reports/junit/:id` (application/xml). */
export async function fetchExecutionJunit(client: TmsClient, runId: string, signal?: AbortSignal): Promise<string> {
  return client.getText('getExecutionJunit', { params: { run_id: runId }, signal });
}

/** The status that ends the wait; every other value (known or not) means "keep polling". */
const COMPLETED_STATUS = 'STATUS_COMPLETED';

/** Result spellings that mean the run passed: real answers say SUCCESS, the reference's prose PASSED. */
const PASSING_RESULTS = new Set(['SUCCESS', 'PASSED', 'PASS', 'SUCCEEDED']);

/** `passed` for SUCCESS/PASSED; `failed` for everything else a completed run can carry (FAILURE, FAILED, ABORTED, …). */
export function classifyResult(result: string | null | undefined): 'passed' | 'failed' {
  return PASSING_RESULTS.has(String(result ?? '').trim().toUpperCase()) ? 'passed' : 'failed';
}

export function isCompleted(run: Pick<ExecutionResult, 'status'>): boolean {
  return String(run.status ?? '').trim().toUpperCase() === COMPLETED_STATUS;
}

export interface WaitClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

interface WaitOptions {
  /** give up after this long @default 1800000 (30 min) */
  timeoutMs?: number;
  /** the first interval between polls @default 10000 */
  pollMs?: number;
  /** the interval grows by this factor after each poll @default 1.5 */
  backoffFactor?: number;
  /** the longest interval between polls @default 60000 */
  maxPollMs?: number;
  /** @default the system clock */
  clock?: WaitClock;
  /** called after every successful poll (progress lines) */
  onPoll?: (run: ExecutionResult) => void;
  /** called when a poll failed with a transient error and the wait goes on */
  onTransientError?: (err: ApiError) => void;
  signal?: AbortSignal;
}

export interface WaitResult {
  /** `passed`/`failed`: the run completed with that result; `timeout`: it had not completed in time */
  outcome: 'passed' | 'failed' | 'timeout';
  /** the last status read (undefined when no poll ever succeeded) */
  run?: ExecutionResult;
  polls: number;
  /** polls that failed with a transient error and were tolerated */
  transientErrors: number;
  elapsedMs: number;
}

const WAIT_DEFAULTS = Object.freeze({
  timeoutMs: 30 * 60_000,
  pollMs: 10_000,
  backoffFactor: 1.5,
  maxPollMs: 60_000,
});

/** The client's wall clock serves the wait loop as it is. */
const systemWaitClock: WaitClock = systemClock;

/**
 * Polls a run until its status is `STATUS_COMPLETED` or the timeout passes. The interval starts at
 * `pollMs` and grows ×`backoffFactor` up to `maxPollMs`; the last sleep is cut so the final poll
 * happens at the deadline. Unknown intermediate statuses keep the wait going; so do transient
 * failures (5xx, rate limits, network, timeouts — already retried by the client). Anything else
 * (bad key, unknown run) is thrown.
 */
export async function waitForExecution(client: TmsClient, runId: string, options: WaitOptions = {}): Promise<WaitResult> {
  const clock = options.clock ?? systemWaitClock;
  const timeoutMs = options.timeoutMs ?? WAIT_DEFAULTS.timeoutMs;
  const factor = Math.max(1, options.backoffFactor ?? WAIT_DEFAULTS.backoffFactor);
  const maxPollMs = options.maxPollMs ?? WAIT_DEFAULTS.maxPollMs;
  let interval = Math.min(Math.max(1, options.pollMs ?? WAIT_DEFAULTS.pollMs), maxPollMs);
  const start = clock.now();
  const deadline = start + timeoutMs;
  let polls = 0;
  let transientErrors = 0;
  let last: ExecutionResult | undefined;

  for (;;) {
    polls++;
    // a poll (with the client's own retries) must not outlive the deadline
    const pollDeadline = AbortSignal.timeout(Math.max(1, deadline - clock.now()));
    const signal = options.signal ? AbortSignal.any([options.signal, pollDeadline]) : pollDeadline;
    try {
      last = await getExecution(client, runId, signal);
      options.onPoll?.(last);
      if (isCompleted(last)) {
        return { outcome: classifyResult(last.result), run: last, polls, transientErrors, elapsedMs: clock.now() - start };
      }
    } catch (err) {
      if (pollDeadline.aborted && !options.signal?.aborted) {
        return { outcome: 'timeout', run: last, polls, transientErrors, elapsedMs: clock.now() - start };
      }
      if (!isTransient(err)) throw err;
      transientErrors++;
      options.onTransientError?.(err as ApiError);
    }
    const now = clock.now();
    if (now >= deadline) {
      return { outcome: 'timeout', run: last, polls, transientErrors, elapsedMs: now - start };
    }
    await clock.sleep(Math.min(interval, deadline - now), options.signal);
    interval = Math.min(Math.round(interval * factor), maxPollMs);
  }
}

/** Failures worth waiting through: the service or the network hiccuped, the run is not at fault. */
function isTransient(err: unknown): boolean {
  return (
    err instanceof ApiError &&
    (err.code === 'server_error' || err.code === 'rate_limited' || err.code === 'network' || err.code === 'timeout' || err.code === 'invalid_response')
  );
}

/** The counts of a run as one line: `12 total, 10 passed, 1 failed, 1 aborted`. */
/**
 * A status or result of the execution interface in words for people: `STATUS_IN_PROGRESS` →
 * `in progress`, `NOT_EXECUTED` → `not executed`; a value of another shape as it is.
 */
export function executionWords(value: string | null | undefined): string {
  if (!value) return 'none';
  if (!/^[A-Z][A-Z0-9_]*$/.test(value)) return value;
  return value.replace(/^STATUS_/, '').toLowerCase().replace(/_/g, ' ').replace(/^pre flight$/, 'pre-flight');
}

export function formatCounts(run: ExecutionResult | undefined): string {
  if (!run) return 'no status was read';
  const parts: string[] = [];
  const add = (n: number | null | undefined, label: string, always = false) => {
    if (typeof n === 'number' && (always || n > 0)) parts.push(`${n} ${label}`);
  };
  add(run.totalCount, 'total', true);
  add(run.passedCount, 'passed', true);
  add(run.failedCount, 'failed', true);
  add(run.abortedCount, 'aborted');
  add(run.stoppedCount, 'stopped');
  add(run.notExecutedCount, 'not executed');
  add(run.queuedCount, 'queued');
  return parts.length ? parts.join(', ') : 'no counts given';
}

/** `["browser=chromium", "tag=smoke"]` → `{ browser: 'chromium', tag: 'smoke' }`. */
export function parseRuntimeData(entries: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq <= 0) {
      throw new TmsyncError('invalid_runtime_data', `\`${entry}\` is not key=value`, {
        hint: 'write e.g. --runtime-data browser=chromium region=eu',
      });
    }
    out[entry.slice(0, eq).trim()] = entry.slice(eq + 1);
  }
  return out;
}
