import type { EndpointName, PostEndpointName } from '../api/endpoints.js';
import { ApiError } from './api-error.js';

/**
 * What is retried, how long to wait, and what is never retried: data, so the CLI, tests and docs
 * read one table. Every number is a default that `ClientOptions` can override.
 */
export interface RetryPolicy {
  /** retries after the first attempt @default 6 */
  maxRetries: number;
  /** first backoff ceiling; the n-th retry waits a random time in [0, base·2^(n-1)] (full jitter) @default 500 */
  baseDelayMs: number;
  /** ceiling of one backoff wait @default 30000 */
  maxDelayMs: number;
  /** longest `Retry-After` obeyed; longer ones are cut to this @default 120000 */
  retryAfterCapMs: number;
  /** shortest wait after a rate-limit answer that names no time (the live 500): one rate window @default 1000 */
  rateLimitedMinDelayMs: number;
  /**
   * retries of a connection refused by a loopback address: nothing listens there (an emulator
   * that is not running), which waiting does not mend @default 2
   */
  loopbackRefusedRetries: number;
  /** statuses retried for every method (the request was refused, nothing happened) */
  refusedStatuses: readonly number[];
  /** statuses retried for idempotent requests; for a create they are ambiguous (reconcile first) */
  serverErrorStatuses: readonly number[];
  /** statuses never retried */
  neverRetriedStatuses: readonly number[];
  /**
   * The live service's rate-limit answer: HTTP 500 whose JSON body's `message` matches this whole
   * (`{"message":"rate limit exceeded"}`). Only that exact answer, or a 429, proves the request was
   * refused: a 5xx HTML page of a gateway that merely mentions "rate limit" may come after the
   * service stored a create, so it is ambiguous like any other 5xx.
   */
  rateLimitMessage: RegExp;
}

export const defaultRetryPolicy: Readonly<RetryPolicy> = Object.freeze({
  maxRetries: 6,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  retryAfterCapMs: 120_000,
  rateLimitedMinDelayMs: 1_000,
  loopbackRefusedRetries: 2,
  refusedStatuses: Object.freeze([429]),
  serverErrorStatuses: Object.freeze([500, 502, 503, 504]),
  neverRetriedStatuses: Object.freeze([400, 401, 403, 404, 413, 422]),
  rateLimitMessage: /^rate limit exceeded$/,
});

/**
 * How a request may be repeated:
 * - `idempotent`: GET, PUT, DELETE and the idempotent POSTs (move a folder, complete a plan): retried;
 * - `create`: a POST that makes something: repeated only when it surely did not happen (429, rate
 *   limit, connection refused); after an ambiguous failure the caller's reconcile decides.
 */
export type RetryKind = 'idempotent' | 'create';

/** POST endpoints whose repetition does no harm: names of the endpoint table's POSTs (a typo, or a GET, does not compile). */
const IDEMPOTENT_POST_NAMES = ['moveFolder', 'completeTestPlan'] as const satisfies readonly PostEndpointName[];
export const IDEMPOTENT_POSTS: ReadonlySet<EndpointName> = new Set<EndpointName>(IDEMPOTENT_POST_NAMES);

/**
 * `retry`: send again after a wait; `reconcile`: ask the caller whether the create happened;
 * `fail`: give up with the error.
 */
type RetryDecision = 'retry' | 'reconcile' | 'fail';

export function isRetryable(err: unknown, kind: RetryKind, policy: RetryPolicy = defaultRetryPolicy): RetryDecision {
  if (!(err instanceof ApiError)) return 'fail';
  switch (err.code) {
    case 'rate_limited':
      return 'retry';
    case 'server_error':
      if (err.status !== undefined && !policy.serverErrorStatuses.includes(err.status)) return 'fail';
      return kind === 'idempotent' ? 'retry' : 'reconcile';
    case 'network':
    case 'timeout':
      if (!err.ambiguous) return 'retry';
      return kind === 'idempotent' ? 'retry' : 'reconcile';
    default:
      return 'fail';
  }
}

/** Full-jitter exponential backoff for the n-th retry (1-based). */
export function backoffDelay(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/** The wait before the n-th retry of this error. */
export function retryDelay(err: ApiError, retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  if (err.retryAfterMs !== undefined) return Math.min(err.retryAfterMs, policy.retryAfterCapMs);
  const jittered = backoffDelay(retry, policy, random);
  return err.code === 'rate_limited' ? Math.max(jittered, policy.rateLimitedMinDelayMs) : jittered;
}

/**
 * `Retry-After` in seconds (`"3"`, `"1.5"`) or as an HTTP date; milliseconds from `now`, or
 * undefined when absent or unreadable. Negative waits become 0.
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * `x-tms-api-reset`: seconds until the window resets, or a Unix time in seconds or milliseconds.
 * Milliseconds from `now`, or undefined.
 */
export function parseResetHeader(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value.trim());
  if (!Number.isFinite(n) || n < 0) return undefined;
  if (n > 1e12) return Math.max(0, n - now);
  if (n > 1e9) return Math.max(0, n * 1000 - now);
  return Math.round(n * 1000);
}

/** Whether a URL's host is a loopback address (127.0.0.0/8, ::1, localhost). */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** A connection refused by a loopback address: the error `loopbackRefusedRetries` counts. */
export function isLoopbackRefusal(err: ApiError): boolean {
  return err.code === 'network' && err.loopbackRefused === true;
}
