import { setMaxListeners } from 'node:events';
import { EnvHttpProxyAgent, FormData } from 'undici';
import PQueue from 'p-queue';
import pRetry, { AbortError } from 'p-retry';
import { endpoint as findEndpoint, fillPath, ErrorBody, type Endpoint } from '../api/index.js';
import { TmsyncError } from '../errors.js';
import { VERSION } from '../version.js';
import { ApiError, defaultHint, scrub, scrubValue, type ApiErrorCode } from './api-error.js';
import { systemClock } from './clock.js';
import { RequestGate, type GateSlot, type Lane } from './gate.js';
import { CLIENT_DEFAULTS, type ClientOptions, type RequestEvent, type RetryEvent } from './options.js';
import {
  IDEMPOTENT_POSTS,
  defaultRetryPolicy,
  isRetryable,
  parseResetHeader,
  parseRetryAfter,
  retryDelay,
  type RetryKind,
  type RetryPolicy,
} from './policy.js';
import { listKey, responseSchema } from './schemas.js';
import { ResponseTooLarge, TransportError, sendOnce, type RawResponse } from './transport.js';
import { paginatePages, type PageShape } from './paginate.js';
import type { ResponseOf, ItemOf } from './types.js';

export interface CallRequest {
  /** `:param` values of the endpoint's path */
  params?: Record<string, string | number>;
  query?: Record<string, string | number | undefined>;
  /** JSON body; for `importJunit` `{ junit_xml: string, filename?: string }`; a FormData is sent as is */
  body?: unknown;
  /**
   * For creates: after an ambiguous failure (timeout, reset after sending, 5xx) the client calls
   * this to look the item up. A value is returned as the call's result (the response's shape);
   * undefined means "not there", and the create is sent again.
   */
  reconcile?: () => Promise<unknown | undefined>;
  signal?: AbortSignal;
  /**
   * Stops the request from starting (still queued, waiting for a rate slot, or waiting to retry)
   * but never cuts one already sent: what Ctrl-C during apply needs, since a create cut mid-flight
   * is ambiguous. The call then fails with code `aborted`.
   */
  startSignal?: AbortSignal;
  /**
   * Goes before lower priorities waiting in the same lane. `paginate` raises it for its pages:
   * a list is a chain of dependent reads, and a page that waits delays every page after it. @default 0
   */
  priority?: number;
}

export interface ClientStats {
  /** attempts sent */
  requests: number;
  /** attempts that were repeats */
  retries: number;
  /** answers that said "rate limited" (429 or the live 500) */
  rateLimited: number;
  byEndpoint: Record<string, number>;
}

export interface TmsClient {
  /** One request, retried by the endpoint's policy; returns the whole parsed envelope. */
  call<N extends string>(name: N, req?: CallRequest): Promise<ResponseOf<N>>;
  /** Every item of a paginated list, page after page, each page read once. */
  paginate<N extends string>(name: N, req?: CallRequest): AsyncGenerator<ItemOf<N>>;
  /** A text answer (the JUnit report, `Accept: application/xml`). */
  getText(name: string, req?: CallRequest): Promise<string>;
  stats(): ClientStats;
  /** Waits for running requests and closes the connections. */
  close(): Promise<void>;
  /** the page size lists are read with */
  readonly pageSize: number;
  /**
   * The unit of the service's timestamps, from the first `created_at`/`updated_at` (or camelCase)
   * it answered with: dates are written back in that unit. Undefined until one was read.
   */
  timestampUnit(): 'seconds' | 'milliseconds' | undefined;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
  return `${n} bytes`;
}

/** The first timestamp of an answer; beyond 10^11 it is in milliseconds (see normalizeTimestamp). */
const STAMP = /"(?:created_at|updated_at|createdAt|updatedAt)"\s*:\s*(\d+)/;

/** Statuses with which a service refuses a body's encoding (or its content with it). */
const ENCODING_REFUSED = new Set([400, 406, 415, 422]);

/** Said under every failed run-case update: how to pick the encoding. */
export const RUN_CASE_ENCODING_HINT =
  'run-case updates are sent as JSON, then as multipart/form-data (part `data`) when the service refuses JSON; force one with `results.encoding: json|multipart` in tmsync.yaml or `--multipart`';

const SECRET_PARAM = /key|token|secret|password|auth/i;

function trimSlash(s: string): string {
  return s.replace(/\/+$/, '');
}

function header(h: RawResponse['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function queryString(query: Record<string, string | number | undefined> | undefined, redact: boolean): string {
  if (!query) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    sp.append(k, redact && SECRET_PARAM.test(k) ? '***' : String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

/** undici's settings for {@link ClientOptions.proxy}; an empty string means "none" (undefined: process.env). */
function proxySettings(proxy: ClientOptions['proxy']): { httpProxy?: string; httpsProxy?: string; noProxy?: string } {
  if (!proxy) return {};
  return { httpProxy: proxy.httpProxy ?? '', httpsProxy: proxy.httpsProxy ?? '', noProxy: proxy.noProxy ?? '' };
}

export function createClient(options: ClientOptions): TmsClient {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;
  const rateLimit = options.rateLimit ?? CLIENT_DEFAULTS.rateLimit;
  const concurrency = options.concurrency ?? CLIENT_DEFAULTS.concurrency;
  const pageSize = options.pageSize ?? CLIENT_DEFAULTS.pageSize;
  const timeoutMs = options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs;
  const lowRemaining = options.lowRemainingThreshold ?? concurrency;
  const cursorParam = options.cursorParam ?? CLIENT_DEFAULTS.cursorParam;
  const maxPages = options.maxPages ?? CLIENT_DEFAULTS.maxPages;
  const maxResponseBytes = options.maxResponseBytes ?? CLIENT_DEFAULTS.maxResponseBytes;
  const encoding = options.multipartRunCases ? 'multipart' : (options.runCaseEncoding ?? 'auto');
  /** run-case updates go as multipart: asked for, or JSON was refused once */
  let runCasesMultipart = encoding === 'multipart';
  let stampUnit: 'seconds' | 'milliseconds' | undefined;
  const keyVar = options.apiKeyVar ?? 'TMSYNC_API_KEY';
  const policy: RetryPolicy = {
    ...defaultRetryPolicy,
    maxRetries: options.maxRetries ?? CLIENT_DEFAULTS.maxRetries,
    baseDelayMs: options.retryBaseMs ?? CLIENT_DEFAULTS.retryBaseMs,
    maxDelayMs: options.retryMaxDelayMs ?? CLIENT_DEFAULTS.retryMaxDelayMs,
    retryAfterCapMs: options.retryAfterCapMs ?? CLIENT_DEFAULTS.retryAfterCapMs,
  };
  const baseUrl = trimSlash(options.baseUrl);
  const appUrl = trimSlash(options.appUrl ?? baseUrl.replace(/\/api\/v1$/, ''));
  const appApiKey = options.appApiKey ?? options.apiKey;
  const secrets = [options.apiKey, appApiKey];
  // every queued request listens to the caller's signal: many listeners are expected, not a leak
  if (options.signal) setMaxListeners(0, options.signal);

  // HTTP(S)_PROXY / NO_PROXY: from options.proxy when given (the CLI passes its environment),
  // else undici reads process.env; without a proxy it is a plain Agent
  const agent = new EnvHttpProxyAgent({
    ...proxySettings(options.proxy),
    connections: concurrency * 2,
    keepAliveTimeout: 10_000,
    // the client's own timeout (on the injected clock) governs; these are only a backstop
    headersTimeout: timeoutMs + 60_000,
    bodyTimeout: timeoutMs + 60_000,
  });
  const gate = new RequestGate({
    rate: rateLimit,
    concurrency,
    clock,
    marginMs: options.rateMargin === undefined ? undefined : options.rateMargin * (Math.max(1, Math.floor(rateLimit)) / rateLimit) * 1000,
  });
  const lanes: Record<Lane, PQueue> = {
    read: new PQueue({ concurrency }),
    write: new PQueue({ concurrency }),
  };
  const counters: ClientStats = { requests: 0, retries: 0, rateLimited: 0, byEndpoint: {} };
  let closed = false;

  const lookup = (name: string): Endpoint => {
    try {
      return findEndpoint(name);
    } catch {
      throw new TmsyncError('unknown_endpoint', `no endpoint named "${name}"`, {
        hint: 'use a name from src/api/endpoints.ts',
      });
    }
  };

  function buildBody(ep: Endpoint, body: unknown): { body?: string | FormData; contentType?: string } {
    if (body === undefined) return {};
    if (body instanceof FormData) return { body };
    if (ep.name === 'importJunit') {
      const b = body as { junit_xml: string | Uint8Array; filename?: string };
      const form = new FormData();
      form.append('junit_xml', new Blob([b.junit_xml as string], { type: 'application/xml' }), b.filename ?? 'junit.xml');
      return { body: form };
    }
    if (ep.name === 'updateRunCases' && runCasesMultipart) {
      const form = new FormData();
      form.append('data', JSON.stringify(body));
      return { body: form };
    }
    return { body: JSON.stringify(body), contentType: 'application/json' };
  }

  /** Turns a non-2xx answer into an ApiError. */
  function errorFromAnswer(ep: Endpoint, path: string, res: RawResponse): ApiError {
    let serviceMessage: string | undefined;
    let details: unknown;
    let liveRateLimit = false;
    try {
      const json: unknown = JSON.parse(res.text);
      liveRateLimit =
        res.status === 500 &&
        json !== null &&
        typeof json === 'object' &&
        typeof (json as { message?: unknown }).message === 'string' &&
        policy.rateLimitMessage.test((json as { message: string }).message.trim());
      const parsed = ErrorBody.safeParse(json);
      if (parsed.success) {
        serviceMessage = parsed.data.errors?.message && parsed.data.errors.message !== parsed.data.message
          ? `${parsed.data.message} (${parsed.data.errors.message})`
          : parsed.data.message;
        details = parsed.data.errors?.details;
      }
    } catch {
      // scrub first, then cut: a cut through the key would leave its prefix that scrub no longer matches
      if (res.text.trim()) serviceMessage = scrub(res.text.trim(), secrets).slice(0, 300);
    }
    if (serviceMessage !== undefined) serviceMessage = scrub(serviceMessage, secrets);
    if (details !== undefined) details = scrubValue(details, secrets);
    const s = res.status;
    const now = clock.now();
    const requestId = header(res.headers, 'x-request-id')?.slice(0, 100);
    let code: ApiErrorCode;
    if (s === 401 || s === 403) code = 'unauthorized';
    else if (s === 404) code = 'not_found';
    else if (s === 429) code = 'rate_limited';
    // only the live service's exact answer proves a refusal; any other 5xx may follow a stored create
    else if (liveRateLimit) code = 'rate_limited';
    else if (s >= 500) code = 'server_error';
    else if (s >= 400) code = 'invalid_request';
    else code = 'invalid_response';
    let retryAfterMs = parseRetryAfter(header(res.headers, 'retry-after'), now);
    if (retryAfterMs === undefined && code === 'rate_limited') {
      retryAfterMs = parseResetHeader(header(res.headers, 'x-tms-api-reset'), now);
    }
    if (retryAfterMs !== undefined) retryAfterMs = Math.min(retryAfterMs, policy.retryAfterCapMs);
    return new ApiError({
      code,
      status: s,
      method: ep.method,
      path,
      endpoint: ep.name,
      serviceMessage,
      details,
      ambiguous: code === 'server_error',
      retryAfterMs,
      requestId,
      hint: ep.name === 'updateRunCases' && code === 'invalid_request'
        ? `${defaultHint(code, s)}; ${RUN_CASE_ENCODING_HINT}`
        : defaultHint(code, s, ep.iface === 'execution' ? 'the execution API key' : keyVar),
    });
  }

  /** Reads the rate headers: when the budget runs low, the gate slows down before a refusal. */
  function noteRemaining(res: RawResponse): void {
    const remaining = Number(header(res.headers, 'x-tms-api-remaining') ?? NaN);
    if (!Number.isFinite(remaining)) return;
    const limit = Number(header(res.headers, 'x-tms-api-limit') ?? NaN);
    gate.noteBudget({
      remaining,
      limit: Number.isFinite(limit) ? limit : undefined,
      resetMs: parseResetHeader(header(res.headers, 'x-tms-api-reset'), clock.now()),
      threshold: lowRemaining,
    });
  }

  interface Target {
    url: string;
    logPath: string;
  }

  function target(ep: Endpoint, req: CallRequest, query: CallRequest['query']): Target {
    const path = fillPath(ep.path, req.params ?? {});
    const root = ep.iface === 'execution' ? appUrl : baseUrl;
    return { url: `${root}${path}${queryString(query, false)}`, logPath: `${path}${queryString(query, true)}` };
  }

  /** One attempt: a queue slot in the endpoint's lane, a gate slot, the request, the answer. */
  async function attempt(
    ep: Endpoint,
    req: CallRequest,
    query: CallRequest['query'],
    n: number,
    signal: AbortSignal | undefined,
    text: boolean,
    stop: AbortSignal | undefined = signal,
  ): Promise<unknown> {
    const lane: Lane = ep.method === 'GET' ? 'read' : 'write';
    const { url, logPath } = target(ep, req, query);
    const { body, contentType } = buildBody(ep, req.body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${ep.iface === 'execution' ? appApiKey : options.apiKey}`,
      accept: text ? 'application/xml' : 'application/json',
      'user-agent': `tmsync/${VERSION}`,
    };
    if (contentType) headers['content-type'] = contentType;
    return lanes[lane].add(
      async () => {
        if (stop?.aborted) throw abortedError(ep, req);
        let slot: GateSlot;
        try {
          slot = await gate.acquire(lane, stop, req.priority ?? 0);
        } catch (err) {
          // stopped while waiting for a slot: never sent
          if (stop?.aborted && !signal?.aborted) throw abortedError(ep, req);
          throw err;
        }
        const { release, at: start } = slot;
        counters.requests++;
        counters.byEndpoint[ep.name] = (counters.byEndpoint[ep.name] ?? 0) + 1;
        if (n > 1) counters.retries++;
        const event: RequestEvent = { endpoint: ep.name, method: ep.method, path: logPath, startedAt: start, durationMs: 0, attempt: n, lane };
        try {
          let res: RawResponse;
          try {
            try {
              res = await sendOnce(agent, { url, method: ep.method, headers, body, timeoutMs, clock, signal, maxBytes: maxResponseBytes });
            } finally {
              // the answer is in: the slot (and the rate window's mark) is free before parsing
              release();
            }
          } catch (err) {
            if (err instanceof ResponseTooLarge) {
              event.status = err.status;
              event.error = 'response_too_large';
              throw new ApiError({
                code: 'response_too_large',
                status: err.status,
                method: ep.method,
                path: logPath,
                endpoint: ep.name,
                // the service answered, but what it did is unread: a create may have happened
                ambiguous: ep.method !== 'GET',
                cause: `the answer is larger than max_response_size (${formatBytes(err.limit)}); reading stopped at ${formatBytes(err.seen)}`,
              });
            }
            if (err instanceof TransportError) {
              const code = err.kind === 'aborted' ? 'aborted' : err.kind;
              event.error = code;
              throw new ApiError({
                code,
                method: ep.method,
                path: logPath,
                endpoint: ep.name,
                ambiguous: err.kind !== 'aborted' && err.sent,
                cause: err.lowCode,
              });
            }
            throw err;
          }
          event.status = res.status;
          noteRemaining(res);
          if (res.status < 200 || res.status >= 300) {
            const apiErr = errorFromAnswer(ep, logPath, res);
            event.error = apiErr.code;
            if (apiErr.code === 'rate_limited') {
              counters.rateLimited++;
              gate.widen();
              const hold = apiErr.retryAfterMs ?? policy.rateLimitedMinDelayMs;
              gate.pauseUntil(clock.now() + hold);
            }
            throw apiErr;
          }
          if (text) return res.text;
          if (res.status === 204 || res.text.trim() === '') return { message: '' };
          if (stampUnit === undefined) {
            const m = STAMP.exec(res.text);
            if (m) stampUnit = Number(m[1]) >= 100_000_000_000 ? 'milliseconds' : 'seconds';
          }
          let json: unknown;
          try {
            json = JSON.parse(res.text);
          } catch {
            event.error = 'invalid_response';
            throw new ApiError({ code: 'invalid_response', status: res.status, method: ep.method, path: logPath, endpoint: ep.name, cause: 'the answer is not JSON' });
          }
          const schema = responseSchema(ep.name);
          if (!schema) return json;
          const parsed = schema.safeParse(json);
          if (!parsed.success) {
            event.error = 'invalid_response';
            throw new ApiError({
              code: 'invalid_response',
              status: res.status,
              method: ep.method,
              path: logPath,
              endpoint: ep.name,
              cause: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
            });
          }
          return parsed.data;
        } finally {
          event.durationMs = clock.now() - start;
          options.onEvent?.(event);
        }
      },
      // the queue races its task against this signal even while it runs: only the full abort may
      // cut a request in flight, `stop` is checked when the task starts and while it waits for a slot
      { signal, priority: req.priority ?? 0 },
    );
  }

  function retryEvent(ep: Endpoint, error: unknown, attemptNumber: number, waitMs: number, elapsedMs: number): RetryEvent {
    const api = error instanceof ApiError ? error : undefined;
    const cause = api?.details?.cause;
    return {
      endpoint: ep.name,
      method: ep.method,
      path: api?.path ?? ep.path,
      attempt: attemptNumber,
      attempts: policy.maxRetries + 1,
      error: api?.code ?? 'unknown',
      ...(api?.status !== undefined ? { status: api.status } : {}),
      ...(typeof cause === 'string' ? { cause } : {}),
      waitMs,
      elapsedMs,
    };
  }

  function combine(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
    const s = signals.filter((x): x is AbortSignal => x !== undefined);
    if (s.length === 0) return undefined;
    if (s.length === 1) return s[0];
    const any = AbortSignal.any(s);
    setMaxListeners(0, any);
    return any;
  }

  function unconfirmedCreate(ep: Endpoint, req: CallRequest, first: ApiError | undefined, lookupErr: unknown): ApiError {
    const lookup = lookupErr instanceof Error ? lookupErr.message : String(lookupErr);
    return new ApiError({
      code: first?.code ?? 'server_error',
      ...(first?.status !== undefined ? { status: first.status } : {}),
      method: ep.method,
      path: first?.path ?? fillPath(ep.path, req.params ?? {}),
      endpoint: ep.name,
      ambiguous: true,
      serviceMessage: `${first?.serviceMessage ?? first?.code ?? 'no answer'}; the item may have been created, and looking it up failed: ${lookup}`,
      hint: 'run the command again: it looks the item up before creating anything of its kind',
    });
  }

  function abortedError(ep: Endpoint, req: CallRequest): ApiError {
    return new ApiError({ code: 'aborted', method: ep.method, path: fillPath(ep.path, req.params ?? {}), endpoint: ep.name });
  }

  async function run(name: string, req: CallRequest = {}, query = req.query, text = false): Promise<unknown> {
    if (closed) throw new TmsyncError('client_closed', 'the service client was closed', { hint: 'this is a bug in tmsync' });
    const ep = lookup(name);
    const kind: RetryKind = ep.method === 'POST' && !IDEMPOTENT_POSTS.has(ep.name) ? 'create' : 'idempotent';
    const signal = combine(options.signal, req.signal);
    const stop = combine(signal, req.startSignal);
    let reconcileFirst = false;
    // the ambiguous failure that sent us to reconcile: a lookup that fails leaves the create ambiguous
    let ambiguousFailure: ApiError | undefined;
    const firstStart = clock.now();
    try {
      return await pRetry(
        async (n) => {
          if (reconcileFirst) {
            reconcileFirst = false;
            let found: unknown;
            try {
              found = await req.reconcile!();
            } catch (err) {
              // the lookup failed on its own terms (already retried): never fall back to a blind
              // create, and the create stays ambiguous (it may have happened; nobody knows yet)
              throw new AbortError(unconfirmedCreate(ep, req, ambiguousFailure, err));
            }
            if (found !== undefined) return found;
          }
          try {
            return await attempt(ep, req, query, n, signal, text, stop);
          } catch (err) {
            if (signal?.aborted) throw new AbortError(abortedError(ep, req));
            // a request that was sent keeps its own error (an ambiguous create must stay ambiguous)
            if (err instanceof ApiError && err.code === 'aborted') throw new AbortError(err);
            throw err;
          }
        },
        {
          retries: policy.maxRetries,
          minTimeout: 0,
          maxTimeout: 0,
          shouldRetry: async ({ error, attemptNumber }) => {
            // after a stop nothing new is sent: the last real error stands
            if (stop?.aborted) return false;
            const decision = isRetryable(error, kind, policy);
            if (decision === 'fail') return false;
            if (decision === 'reconcile') {
              if (!req.reconcile) return false;
              reconcileFirst = true;
              ambiguousFailure = error as ApiError;
            }
            const wait = retryDelay(error as ApiError, attemptNumber, policy, random);
            if (options.onRetry) options.onRetry(retryEvent(ep, error, attemptNumber, wait, clock.now() - firstStart));
            try {
              await clock.sleep(wait, stop);
            } catch (err) {
              // a stop while waiting to retry: give up with the last real error
              if (stop?.aborted && !signal?.aborted) return false;
              throw err;
            }
            return true;
          },
        },
      );
    } catch (err) {
      if (signal?.aborted && !(err instanceof ApiError && err.code === 'aborted')) throw abortedError(ep, req);
      throw err;
    }
  }

  function paginate(name: string, req: CallRequest = {}): AsyncGenerator<unknown> {
    const ep = lookup(name);
    // pages go first within the read lane: a list is a chain, a waiting page delays all after it
    const pageReq: CallRequest = { ...req, priority: req.priority ?? 1 };
    return paginatePages((q) => run(name, pageReq, q) as Promise<PageShape>, {
      key: listKey(ep.name),
      base: { ...(req.query ?? {}) },
      pageSize,
      cursorParam,
      baseUrl,
      prefetch: options.prefetchPages ?? concurrency,
      describe: `${ep.method} ${ep.path}`,
      endpoint: ep.name,
      maxPages,
    });
  }

  /** A run-case update in the encoding the service takes: JSON refused once, multipart from then on. */
  async function runCaseUpdate(req: CallRequest = {}): Promise<unknown> {
    const json = !runCasesMultipart;
    try {
      return await run('updateRunCases', req);
    } catch (err) {
      if (!(json && encoding === 'auto' && err instanceof ApiError && err.status !== undefined && ENCODING_REFUSED.has(err.status))) throw err;
      runCasesMultipart = true;
      try {
        return await run('updateRunCases', req);
      } catch (again) {
        // refused the same way both ways: the data is wrong, not the encoding; JSON stays the first try
        if (again instanceof ApiError && again.status === err.status) runCasesMultipart = false;
        throw again;
      }
    }
  }

  return {
    pageSize,
    timestampUnit: () => stampUnit,
    call: (name, req) => (name === 'updateRunCases' ? runCaseUpdate(req) : run(name, req)) as Promise<never>,
    paginate: paginate as TmsClient['paginate'],
    getText: (name, req) => run(name, req, req?.query, true) as Promise<string>,
    stats: () => ({ ...counters, byEndpoint: { ...counters.byEndpoint } }),
    async close() {
      closed = true;
      await Promise.all([lanes.read.onIdle(), lanes.write.onIdle()]);
      await agent.close();
    },
  };
}
