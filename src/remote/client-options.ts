import type { Clock } from './clock.js';
import type { Lane } from './gate.js';

/** One attempt of one request, for `--verbose`. Never carries headers, bodies or the key. */
export interface RequestEvent {
  /** endpoint name from the endpoint table */
  endpoint: string;
  method: string;
  /** path relative to the interface root with its query; secret-looking parameters redacted */
  path: string;
  /** HTTP status when the service answered */
  status?: number;
  /** ApiError code when the attempt failed (network, timeout, rate_limited, …) */
  error?: string;
  /** when the attempt started, on the client's clock (ms) */
  startedAt: number;
  /** from the start of sending to the end of the answer (queue time excluded) */
  durationMs: number;
  /** 1 for the first try, 2 for the first retry, … */
  attempt: number;
  lane: Lane;
}

/**
 * A failed attempt that will be repeated, for "waiting for the service" notices. Never carries
 * headers, bodies or the key.
 */
export interface RetryEvent {
  endpoint: string;
  method: string;
  /** path relative to the interface root, secret-looking parameters redacted */
  path: string;
  /** the attempt that failed: 1 for the first try */
  attempt: number;
  /** attempts this request may make in all (max_retries + 1) */
  attempts: number;
  /** ApiError code of the failure (network, timeout, rate_limited, server_error, …) */
  error: string;
  /** HTTP status when the service answered */
  status?: number;
  /** the low-level reason of a network failure (ECONNREFUSED, ECONNRESET, …) */
  cause?: string;
  /** wait before the next attempt (ms) */
  waitMs: number;
  /** since this request's first attempt started, on the client's clock (ms) */
  elapsedMs: number;
}

export interface ClientOptions {
  /** root of the management interface; ends in `/api/v1` */
  baseUrl: string;
  /** root of the execution interface (its endpoint paths start with `/api/v1`) @default baseUrl without `/api/v1` */
  appUrl?: string;
  /** bearer key of the management interface (from the environment; never printed) */
  apiKey: string;
  /** bearer key of the execution interface @default apiKey */
  appApiKey?: string;
  /** name of the variable the key came from, for hints @default 'TMSYNC_API_KEY' */
  apiKeyVar?: string;
  /** requests started per second, both lanes together, over a sliding window @default 8 */
  rateLimit?: number;
  /**
   * Slack added to the rate window, as a fraction of it. A request already counts from the moment
   * its answer began to come back (the service took it in before that), and until then as sent just
   * now, so none is needed against a service that counts per key over the same window; the slack
   * grows by 0.05 on each refusal (up to 0.3) and shrinks back as requests go through. @default 0
   */
  rateMargin?: number;
  /** requests in flight at once, both lanes together @default 4 */
  concurrency?: number;
  /** `page_size` sent on every list request @default 100 */
  pageSize?: number;
  /** time for one attempt, sending to the last byte of the answer @default 30000 */
  timeoutMs?: number;
  /** retries after the first attempt @default 6 */
  maxRetries?: number;
  /** first backoff ceiling (full jitter, doubling) @default 500 */
  retryBaseMs?: number;
  /** longest backoff wait @default 30000 */
  retryMaxDelayMs?: number;
  /** longest Retry-After obeyed @default 120000 */
  retryAfterCapMs?: number;
  /**
   * When `x-tms-api-remaining` falls to this, the queue spreads the remaining budget over the
   * time to `x-tms-api-reset` instead of running into a refusal @default concurrency
   */
  lowRemainingThreshold?: number;
  /**
   * Pages of one list read ahead when `next` is a URL with a page number and `total_count` says
   * where the list ends (the document's form); 0 follows `next` one page at a time. Opaque cursors
   * are always followed one at a time. @default concurrency
   */
  prefetchPages?: number;
  /**
   * Pages read at most from a list whose answers give no `total_count` (with one, the walk stops
   * past `ceil(total_count / page_size) + 2` pages or when more items than the total arrive)
   * @default 10000
   */
  maxPages?: number;
  /** the largest answer body read, in bytes (larger: `response_too_large`) @default 64 MiB */
  maxResponseBytes?: number;
  /** query parameter that carries an opaque `next` cursor back @default 'cursor' */
  cursorParam?: string;
  /** @default systemClock */
  clock?: Clock;
  /** random numbers in [0, 1) for backoff jitter @default Math.random */
  random?: () => number;
  /**
   * Proxies, as `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` mean them (undici's EnvHttpProxyAgent:
   * `HTTPS_PROXY` falls back to `HTTP_PROXY`; `NO_PROXY` lists hosts, `*.example.com`, `host:port`
   * or `*`). Each unset field means no proxy. @default read from process.env (lower case first)
   */
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  /** called before each retry's wait (the library prints nothing; the CLI says it is waiting) */
  onRetry?: (e: RetryEvent) => void;
  /** called once per attempt, for `--verbose` */
  onEvent?: (e: RequestEvent) => void;
  /** cancels everything (Ctrl-C): queued requests never start, running ones are dropped */
  signal?: AbortSignal;
  /** send run-case updates as multipart/form-data with the JSON in a part named `data` (live service) @default false */
  multipartRunCases?: boolean;
  /**
   * How run-case updates travel: `json`, `multipart` (the JSON in a part named `data`, as the live
   * service needs) or `auto`: JSON, and multipart from the first time the service refuses JSON on
   * (remembered for the client's life). `multipartRunCases: true` means `multipart`. @default 'auto'
   */
  runCaseEncoding?: 'auto' | 'json' | 'multipart';
}

export const CLIENT_DEFAULTS = Object.freeze({
  rateLimit: 8,
  concurrency: 4,
  pageSize: 100,
  timeoutMs: 30_000,
  maxRetries: 6,
  retryBaseMs: 500,
  retryMaxDelayMs: 30_000,
  retryAfterCapMs: 120_000,
  cursorParam: 'cursor',
  maxPages: 10_000,
  maxResponseBytes: 64 * 1024 * 1024,
});
