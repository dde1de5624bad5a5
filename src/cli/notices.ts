import type { ClientOptions, RetryEvent } from '../remote/index.js';
import { knownCause } from '../remote/api-error.js';
import { formatDuration } from '../duration.js';

/** How long a request retries before the CLI says it is waiting (ms, client clock). */
const RETRY_NOTICE_AFTER_MS = 2000;

/** Why an attempt failed, in words: `connection refused`, `HTTP 503`, `rate limited (HTTP 429)`. */
export function retryReason(e: RetryEvent): string {
  const words = e.cause ? knownCause(e.cause) : undefined;
  if (words) return words;
  if (e.error === 'timeout') return 'no answer in time';
  if (e.error === 'rate_limited') return `rate limited${e.status ? ` (HTTP ${e.status})` : ''}`;
  if (e.status !== undefined) return `HTTP ${e.status}`;
  return e.cause ?? e.error.replace(/_/g, ' ');
}

/** `waiting for the service: attempt 3 of 7, connection refused (GET /projects); next try in 2s` */
export function formatRetryNotice(e: RetryEvent): string {
  return `waiting for the service: attempt ${e.attempt} of ${e.attempts}, ${retryReason(e)} (${e.method} ${e.path}); next try in ${formatDuration(e.waitMs)}`;
}

/**
 * The client's `onRetry` for the CLI: silent while retries are quick; once a request has been
 * retrying for {@link RETRY_NOTICE_AFTER_MS} (counting the coming wait), one line per attempt
 * number, however many requests retry at once.
 */
export function retryNotifier(write: (line: string) => void, afterMs = RETRY_NOTICE_AFTER_MS): (e: RetryEvent) => void {
  let lastAttempt = 0;
  return (e) => {
    if (e.elapsedMs + e.waitMs < afterMs || e.attempt <= lastAttempt) return;
    lastAttempt = e.attempt;
    write(formatRetryNotice(e));
  };
}

/**
 * `HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY` of an environment (lower case first, as curl and undici
 * read them); an empty variable counts as unset.
 */
export function proxyFromEnv(env: NodeJS.ProcessEnv): NonNullable<ClientOptions['proxy']> {
  const get = (name: string) => env[name.toLowerCase()] || env[name] || undefined;
  const out: NonNullable<ClientOptions['proxy']> = {};
  const http = get('HTTP_PROXY');
  const https = get('HTTPS_PROXY');
  const no = get('NO_PROXY');
  if (http) out.httpProxy = http;
  if (https) out.httpsProxy = https;
  if (no) out.noProxy = no;
  return out;
}
