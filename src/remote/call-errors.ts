import { ErrorBody, fillPath, type Endpoint } from '../api/index.js';
import { ApiError, defaultHint, scrub, scrubValue, type ApiErrorCode } from './api-error.js';
import { isLoopbackUrl, parseResetHeader, parseRetryAfter, type RetryPolicy } from './policy.js';
import { ResponseTooLarge, TransportError, type RawResponse } from './transport.js';

/** Every way a call fails, as an ApiError: a refusing answer, no answer, a stop, an unconfirmed create. */

/** Said under every failed run-case update: how to pick the encoding. */
const RUN_CASE_ENCODING_HINT =
  'run-case updates are sent as JSON, then as multipart/form-data (part `data`) when the service refuses JSON; force one with `results.encoding: json|multipart` in tmsync.yaml or `--multipart`';

export function header(h: RawResponse['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
  return `${n} bytes`;
}

interface AnswerContext {
  policy: RetryPolicy;
  secrets: string[];
  keyVar: string;
  now: number;
}

/** The service's own words, scrubbed; and whether it is the live service's exact rate-limit answer. */
function readErrorBody(res: RawResponse, c: AnswerContext): { message?: string; details?: unknown; liveRateLimit: boolean } {
  let json: unknown;
  try {
    json = JSON.parse(res.text);
  } catch {
    // scrub first, then cut: a cut through the key would leave its prefix that scrub no longer matches
    return { liveRateLimit: false, ...(res.text.trim() ? { message: scrub(res.text.trim(), c.secrets).slice(0, 300) } : {}) };
  }
  const liveRateLimit =
    res.status === 500 &&
    typeof json === 'object' &&
    json !== null &&
    'message' in json &&
    typeof json.message === 'string' &&
    c.policy.rateLimitMessage.test(json.message.trim());
  const parsed = ErrorBody.safeParse(json);
  if (!parsed.success) return { liveRateLimit };
  const { message, errors } = parsed.data;
  return {
    liveRateLimit,
    message: scrub(errors?.message && errors.message !== message ? `${message} (${errors.message})` : message, c.secrets),
    details: errors?.details === undefined ? undefined : scrubValue(errors.details, c.secrets),
  };
}

function codeOf(s: number, liveRateLimit: boolean): ApiErrorCode {
  if (s === 401 || s === 403) return 'unauthorized';
  if (s === 404) return 'not_found';
  if (s === 429) return 'rate_limited';
  // only the live service's exact answer proves a refusal; any other 5xx may follow a stored create
  if (liveRateLimit) return 'rate_limited';
  if (s >= 500) return 'server_error';
  if (s >= 400) return 'invalid_request';
  return 'invalid_response';
}

/** A non-2xx answer as an ApiError. */
export function answerError(ep: Endpoint, path: string, res: RawResponse, c: AnswerContext): ApiError {
  const said = readErrorBody(res, c);
  const s = res.status;
  const code = codeOf(s, said.liveRateLimit);
  let retryAfterMs = parseRetryAfter(header(res.headers, 'retry-after'), c.now);
  if (retryAfterMs === undefined && code === 'rate_limited') retryAfterMs = parseResetHeader(header(res.headers, 'x-tms-api-reset'), c.now);
  if (retryAfterMs !== undefined) retryAfterMs = Math.min(retryAfterMs, c.policy.retryAfterCapMs);
  return new ApiError({
    code,
    status: s,
    method: ep.method,
    path,
    endpoint: ep.name,
    serviceMessage: said.message,
    details: said.details,
    ambiguous: code === 'server_error',
    retryAfterMs,
    requestId: header(res.headers, 'x-request-id')?.slice(0, 100),
    hint:
      ep.name === 'updateRunCases' && code === 'invalid_request'
        ? `${defaultHint(code, s)}; ${RUN_CASE_ENCODING_HINT}`
        : defaultHint(code, s, ep.iface === 'execution' ? 'the execution API key' : c.keyVar),
  });
}

/** No (whole) answer: the transport's failure as an ApiError; undefined for anything else (not ours). */
/**
 * A request that failed before an answer, as an `ApiError`. `url`: where it went; a connection
 * refused by a loopback address says that nothing listens there and names `tmsync serve`.
 */
export function transportFailure(ep: Endpoint, path: string, err: unknown, url?: string): ApiError | undefined {
  if (err instanceof ResponseTooLarge) {
    return new ApiError({
      code: 'response_too_large',
      status: err.status,
      method: ep.method,
      path,
      endpoint: ep.name,
      // the service answered, but what it did is unread: a create may have happened
      ambiguous: ep.method !== 'GET',
      cause: `the answer is larger than max_response_size (${formatBytes(err.limit)}); reading stopped at ${formatBytes(err.seen)}`,
    });
  }
  if (err instanceof TransportError) {
    const loopbackRefused = err.lowCode === 'ECONNREFUSED' && url !== undefined && isLoopbackUrl(url);
    return new ApiError({
      code: err.kind,
      method: ep.method,
      path,
      endpoint: ep.name,
      ambiguous: err.kind !== 'aborted' && err.sent,
      cause: err.lowCode,
      ...(loopbackRefused
        ? {
            loopbackRefused,
            hint: `nothing listens at ${new URL(url).origin}: is \`tmsync serve\` running? (start it with \`tmsync serve --seed demo\`, or check the base URL's port)`,
          }
        : {}),
    });
  }
  return undefined;
}

/** A 2xx answer tmsync cannot read. */
export function unreadableAnswer(ep: Endpoint, path: string, status: number, cause: string): ApiError {
  return new ApiError({ code: 'invalid_response', status, method: ep.method, path, endpoint: ep.name, cause });
}

/** Stopped before it was sent (or while waiting to be sent again). */
export function abortedError(ep: Endpoint, params: Record<string, string | number>): ApiError {
  return new ApiError({ code: 'aborted', method: ep.method, path: fillPath(ep.path, params), endpoint: ep.name });
}

/** A create that failed ambiguously and whose lookup failed too: it may or may not exist. */
export function unconfirmedCreate(ep: Endpoint, params: Record<string, string | number>, first: ApiError | undefined, lookupErr: unknown): ApiError {
  const lookup = lookupErr instanceof Error ? lookupErr.message : String(lookupErr);
  return new ApiError({
    code: first?.code ?? 'server_error',
    ...(first?.status !== undefined ? { status: first.status } : {}),
    method: ep.method,
    path: first?.path ?? fillPath(ep.path, params),
    endpoint: ep.name,
    ambiguous: true,
    serviceMessage: `${first?.serviceMessage ?? first?.code ?? 'no answer'}; the item may have been created, and looking it up failed: ${lookup}`,
    hint: 'run the command again: it looks the item up before creating anything of its kind',
  });
}
