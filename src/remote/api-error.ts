import { TmsyncError } from '../errors.js';

/**
 * Stable codes of a failed request:
 * - `unauthorized` 401/403, `not_found` 404, `invalid_request` other 4xx (400, 413, 422, …),
 * - `rate_limited` 429 or the live service's `500 rate limit exceeded`,
 * - `server_error` other 5xx, `network` connection refused/reset/closed, `timeout` no answer in time,
 * - `invalid_response` a 2xx answer tmsync cannot read, `aborted` the caller cancelled (Ctrl-C),
 * - `response_too_large` an answer larger than `max_response_size` (not read, not retried).
 */
export type ApiErrorCode =
  | 'unauthorized'
  | 'not_found'
  | 'invalid_request'
  | 'rate_limited'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'invalid_response'
  | 'response_too_large'
  | 'aborted';

interface ApiErrorInit {
  code: ApiErrorCode;
  method: string;
  /** the request path relative to the interface root, query secrets removed */
  path: string;
  status?: number;
  serviceMessage?: string;
  details?: unknown;
  hint?: string;
  /** the request may have reached the service and taken effect (timeout or reset after sending, 5xx) */
  ambiguous?: boolean;
  /** milliseconds the service asked to wait (Retry-After), already capped */
  retryAfterMs?: number;
  /** the endpoint name from the endpoint table */
  endpoint?: string;
  /** low-level error code (ECONNRESET, UND_ERR_SOCKET, …) for network errors */
  cause?: string;
  /** the service's `x-request-id` of the answer, quoted so the service's operators can find it */
  requestId?: string;
  /** a connection refused by a loopback address (nothing listens there: an emulator not running) */
  loopbackRefused?: boolean;
}

/** One failed request to the service. Never carries the API key or any header. */
export class ApiError extends TmsyncError {
  override readonly name = 'ApiError';
  override readonly code: ApiErrorCode;
  readonly status?: number;
  readonly method: string;
  readonly path: string;
  readonly serviceMessage?: string;
  readonly serviceDetails?: unknown;
  readonly ambiguous: boolean;
  readonly retryAfterMs?: number;
  readonly endpoint?: string;
  readonly requestId?: string;
  readonly loopbackRefused?: boolean;

  constructor(init: ApiErrorInit) {
    const what = `${init.method} ${init.path}`;
    const status = init.status !== undefined ? ` ${init.status}` : '';
    const said = init.serviceMessage ? `: ${init.serviceMessage}` : init.cause ? `: ${causeInWords(init.cause)}` : '';
    const rid = init.requestId ? ` [x-request-id ${init.requestId}]` : '';
    super(init.code, `${what} failed (${init.code}${status})${said}${rid}`, {
      hint: init.hint ?? defaultHint(init.code, init.status),
      details: {
        method: init.method,
        path: init.path,
        ...(init.status !== undefined ? { status: init.status } : {}),
        ...(init.serviceMessage !== undefined ? { serviceMessage: init.serviceMessage } : {}),
        ...(init.details !== undefined ? { serviceDetails: init.details } : {}),
        ...(init.cause !== undefined ? { cause: init.cause } : {}),
        ...(init.requestId !== undefined ? { requestId: init.requestId } : {}),
      },
    });
    this.code = init.code;
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.serviceMessage = init.serviceMessage;
    this.serviceDetails = init.details;
    if (init.loopbackRefused) this.loopbackRefused = true;
    this.ambiguous = init.ambiguous ?? false;
    this.retryAfterMs = init.retryAfterMs;
    this.endpoint = init.endpoint;
    this.requestId = init.requestId;
  }
}

/** True when the failed request may have taken effect: a timeout or a reset after it was sent, or a 5xx. */
export function isAmbiguous(err: unknown): boolean {
  return err instanceof ApiError && err.ambiguous;
}

/** The hint printed under an error: what the user can do about it. */
export function defaultHint(code: ApiErrorCode, status?: number, keyVar = 'TMSYNC_API_KEY'): string {
  switch (code) {
    case 'unauthorized':
      return status === 403
        ? `the API key has no access to this resource; check ${keyVar} and the key's permissions`
        : `check ${keyVar}: the service refused the API key`;
    case 'not_found':
      return 'check the id, human id or project; it may have been deleted on the service';
    case 'invalid_request':
      return status === 413
        ? 'the request body is too large; split the change into smaller ones'
        : 'the service refused the request as invalid; the message above says which field';
    case 'rate_limited':
      return 'the service kept refusing requests for rate; lower rate_limit in tmsync.yaml and try again later';
    case 'server_error':
      return 'the service failed; try again later (completed operations are kept)';
    case 'network':
      return 'check the base URL and the network connection to the service';
    case 'timeout':
      return 'the service did not answer in time; try again, or raise the request timeout';
    case 'invalid_response':
      return 'the service answered in a shape tmsync does not know; check the base URL points at the API (…/api/v1)';
    case 'aborted':
      return 'cancelled; run the command again to finish';
    case 'response_too_large':
      return 'raise max_response_size in tmsync.yaml if the service really sends answers that large, or lower page_size; otherwise check base_url points at the service';
  }
}

/** Replaces every occurrence of the secrets in a text (service messages may echo headers). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('***');
  return out;
}

/** Scrubs secrets from any JSON-like value. */
export function scrubValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return scrub(value, secrets);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, secrets));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v, secrets)]));
  }
  return value;
}

const CAUSES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connect timeout',
  UND_ERR_SOCKET: 'connection closed',
};

/** A low-level failure code in words, when it is a known one: `ECONNRESET` → `connection reset`. */
export function knownCause(code: string): string | undefined {
  return Object.hasOwn(CAUSES, code) ? CAUSES[code] : undefined;
}

/** A failure's cause for a message: `connection reset (ECONNRESET)`; other causes as they are. */
function causeInWords(cause: string): string {
  const words = knownCause(cause);
  return words ? `${words} (${cause})` : cause;
}
