import { TmsyncError } from '../errors.js';
import { systemClock, type Clock } from './clock.js';
import { CLIENT_DEFAULTS, type ClientOptions } from './client-options.js';
import { defaultRetryPolicy, type RetryPolicy } from './policy.js';

/** {@link ClientOptions} with every default filled in: what the client's parts read. */
export interface ClientSettings {
  baseUrl: string;
  appUrl: string;
  apiKey: string;
  appApiKey: string;
  /** the keys scrubbed from anything the service echoes */
  secrets: string[];
  /** the variable the key came from, for hints */
  keyVar: string;
  clock: Clock;
  random: () => number;
  rateLimit: number;
  /** in ms (options give it as a fraction of the window) */
  rateMarginMs?: number;
  concurrency: number;
  pageSize: number;
  timeoutMs: number;
  lowRemaining: number;
  cursorParam: string;
  maxPages: number;
  prefetchPages: number;
  maxResponseBytes: number;
  runCaseEncoding: 'auto' | 'json' | 'multipart';
  policy: RetryPolicy;
}

const trimSlash = (s: string) => s.replace(/\/+$/, '');

/**
 * Refuses a key no HTTP header can carry, before any request: sent, it fails inside the HTTP
 * library, which looks like a network error and is retried until the retries run out. A line break
 * is the usual cause (a key read from a file, `$(cat key.txt)` on Windows, a pasted line). The key
 * itself is never part of the message.
 */
function checkKey(key: string, what: string, keyVar: string): void {
  const lineBreak = /[\r\n]/.test(key);
  // eslint-disable-next-line no-control-regex
  if (!lineBreak && !/[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/.test(key)) return;
  const problem = lineBreak ? 'holds a line break' : 'holds a control character or a character outside Latin-1, which an HTTP header cannot carry';
  throw new TmsyncError('invalid_api_key', `${what} ${problem}; nothing was sent`, {
    hint: lineBreak
      ? `set ${keyVar} to the key alone, without the line break (a key read from a file often ends in one: export ${keyVar}="$(tr -d '\\r\\n' < key.txt)")`
      : `set ${keyVar} to the key exactly as the service issued it`,
  });
}

export function resolveSettings(options: ClientOptions): ClientSettings {
  const keyVar = options.apiKeyVar ?? 'TMSYNC_API_KEY';
  checkKey(options.apiKey, `the API key (${keyVar})`, keyVar);
  if (options.appApiKey !== undefined && options.appApiKey !== options.apiKey) checkKey(options.appApiKey, "the execution interface's API key", 'TMSYNC_APP_API_KEY');
  const rateLimit = options.rateLimit ?? CLIENT_DEFAULTS.rateLimit;
  const concurrency = options.concurrency ?? CLIENT_DEFAULTS.concurrency;
  const baseUrl = trimSlash(options.baseUrl);
  const appApiKey = options.appApiKey ?? options.apiKey;
  return {
    baseUrl,
    appUrl: trimSlash(options.appUrl ?? baseUrl.replace(/\/api\/v1$/, '')),
    apiKey: options.apiKey,
    appApiKey,
    secrets: [options.apiKey, appApiKey],
    keyVar,
    clock: options.clock ?? systemClock,
    random: options.random ?? Math.random,
    rateLimit,
    rateMarginMs:
      options.rateMargin === undefined ? undefined : options.rateMargin * (Math.max(1, Math.floor(rateLimit)) / rateLimit) * 1000,
    concurrency,
    pageSize: options.pageSize ?? CLIENT_DEFAULTS.pageSize,
    timeoutMs: options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs,
    lowRemaining: options.lowRemainingThreshold ?? concurrency,
    cursorParam: options.cursorParam ?? CLIENT_DEFAULTS.cursorParam,
    maxPages: options.maxPages ?? CLIENT_DEFAULTS.maxPages,
    prefetchPages: options.prefetchPages ?? concurrency,
    maxResponseBytes: options.maxResponseBytes ?? CLIENT_DEFAULTS.maxResponseBytes,
    runCaseEncoding: options.multipartRunCases ? 'multipart' : (options.runCaseEncoding ?? 'auto'),
    policy: {
      ...defaultRetryPolicy,
      maxRetries: options.maxRetries ?? CLIENT_DEFAULTS.maxRetries,
      baseDelayMs: options.retryBaseMs ?? CLIENT_DEFAULTS.retryBaseMs,
      maxDelayMs: options.retryMaxDelayMs ?? CLIENT_DEFAULTS.retryMaxDelayMs,
      retryAfterCapMs: options.retryAfterCapMs ?? CLIENT_DEFAULTS.retryAfterCapMs,
    },
  };
}
