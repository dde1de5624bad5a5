import { hasAbandoned } from './transport.js';
import { setMaxListeners } from 'node:events';
import { EnvHttpProxyAgent, type FormData } from 'undici';
import {
  endpoint as findEndpoint,
  type BodyOf,
  type Endpoint,
  type EndpointName,
  type ItemOf,
  type ListEndpointName,
  type MultipartEndpointName,
  type QueryOf,
} from '../api/index.js';
import { TmsyncError } from '../errors.js';
import { attempt, type AttemptContext } from './attempt.js';
import { runCaseFileParts, type JunitUpload, type RunCaseFiles } from './encode.js';
import { abortedError, unconfirmedCreate } from './call-errors.js';
import { Counters, retryEvent, type ClientStats } from './events.js';
import { RequestGate } from './gate.js';
import { Lanes } from './lanes.js';
import type { ClientOptions } from './client-options.js';
import { paginatePages, type PageShape, type Query } from './paginate.js';
import { TimestampUnit } from './parse.js';
import { IDEMPOTENT_POSTS, isLoopbackRefusal, type RetryPolicy } from './policy.js';
import { ApiError } from './api-error.js';
import { Reconciler } from './ambiguous-create.js';
import { withRetries } from './retry.js';
import { RunCaseEncoding } from './run-case-encoding.js';
import { listKey, type ClientResponseOf } from './response-schemas.js';
import { resolveSettings, type ClientSettings } from './settings.js';

export type { ClientStats } from './events.js';
export type { ClientResponseOf } from './response-schemas.js';

/** The body a call sends: what the endpoint's body schema accepts (the JUnit upload for `importJunit`). */
export type CallBody<N extends EndpointName> =
  | (N extends 'importJunit' ? JunitUpload : N extends 'updateRunCases' ? BodyOf<N> & RunCaseFiles : BodyOf<N>)
  // a multipart body made by the caller goes as it is
  | (N extends MultipartEndpointName ? FormData : never);

export interface CallRequest<N extends EndpointName = EndpointName> {
  /** `:param` values of the endpoint's path */
  params?: Record<string, string | number>;
  /** the query schema's parameters and `<field>__<OP>` filters on the list's text fields */
  query?: QueryOf<N>;
  /** checked against the endpoint's body schema (`src/api/request-schemas.ts`) by type */
  body?: CallBody<N>;
  /**
   * For creates: after an ambiguous failure (timeout, reset after sending, 5xx) the client calls
   * this to look the item up. A value is returned as the call's result (the response's shape);
   * undefined means "not there", and the create is sent again.
   */
  reconcile?: () => Promise<unknown>;
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

/** Overrides of the client's policy for one call (each page, for `paginate`). */
export interface CallPolicy {
  /** retries after the first attempt @default the client's `maxRetries` */
  retries?: number;
  /** time for one attempt, sending to the last byte of the answer @default the client's `timeoutMs` */
  timeoutMs?: number;
}

export interface TmsClient {
  /** One request, retried by the endpoint's policy; returns the whole parsed envelope. */
  call<N extends EndpointName>(name: N, req?: CallRequest<NoInfer<N>>, policy?: CallPolicy): Promise<ClientResponseOf<N>>;
  /** Every item of a paginated list, page after page, each page read once. */
  paginate<N extends ListEndpointName>(name: N, req?: CallRequest<NoInfer<N>>, policy?: CallPolicy): AsyncGenerator<ItemOf<N>>;
  /** A text answer (the JUnit report, `Accept: application/xml`). */
  getText(name: EndpointName, req?: CallRequest, policy?: CallPolicy): Promise<string>;
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

/** A call as the parts see it: names and shapes already checked by type at the public edge. */
interface Send {
  ep: Endpoint;
  params: Record<string, string | number>;
  query?: Query;
  body?: unknown;
  reconcile?: () => Promise<unknown>;
  signal?: AbortSignal;
  startSignal?: AbortSignal;
  priority: number;
  text: boolean;
  policy?: CallPolicy;
}

/** The query's set values (a typed query object is a plain record of strings and numbers). */
function toQuery(q: unknown): Query | undefined {
  if (typeof q !== 'object' || q === null) return undefined;
  const out: Query = {};
  for (const [k, v] of Object.entries(q)) if (typeof v === 'string' || typeof v === 'number') out[k] = v;
  return out;
}

function combine(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const s = signals.filter((x): x is AbortSignal => x !== undefined);
  if (s.length <= 1) return s[0];
  const any = AbortSignal.any(s);
  setMaxListeners(0, any);
  return any;
}

function lookup(name: string): Endpoint {
  try {
    return findEndpoint(name);
  } catch {
    throw new TmsyncError('unknown_endpoint', `no endpoint named "${name}"`, { hint: 'use a name from src/api/endpoints.ts' });
  }
}

/** HTTP(S)_PROXY / NO_PROXY from options.proxy when given (an empty string: none), else undici reads process.env. */
function createAgent(options: ClientOptions, s: ClientSettings): EnvHttpProxyAgent {
  const p = options.proxy;
  return new EnvHttpProxyAgent({
    ...(p ? { httpProxy: p.httpProxy ?? '', httpsProxy: p.httpsProxy ?? '', noProxy: p.noProxy ?? '' } : {}),
    connections: s.concurrency * 2,
    keepAliveTimeout: 10_000,
  });
}

/** What every call of a client shares: the attempt's parts and the caller's abort and retry notice. */
interface CallContext extends AttemptContext {
  signal?: AbortSignal;
  onRetry?: ClientOptions['onRetry'];
}

function sendOf<N extends EndpointName>(name: N, req: CallRequest<N> = {}, policy: CallPolicy | undefined, text = false): Send {
  return {
    ep: lookup(name),
    params: req.params ?? {},
    query: toQuery(req.query),
    body: req.body,
    reconcile: req.reconcile,
    signal: req.signal,
    startSignal: req.startSignal,
    priority: req.priority ?? 0,
    text,
    policy,
  };
}

/** One call: attempts, retried by the policy (with this call's overrides), creates reconciled. */
function send(ctx: CallContext, c: Send): Promise<unknown> {
  const { ep } = c;
  const s = ctx.settings;
  const signal = combine(ctx.signal, c.signal);
  const stop = combine(signal, c.startSignal);
  const policy = c.policy?.retries === undefined ? s.policy : { ...s.policy, maxRetries: c.policy.retries };
  const aborted = () => abortedError(ep, c.params);
  const firstStart = s.clock.now();
  const onRetry = ctx.onRetry;
  return withRetries((n) => attempt(ctx, { ...c, n, signal, stop, aborted, timeoutMs: c.policy?.timeoutMs ?? s.timeoutMs }), {
    kind: ep.method === 'POST' && !IDEMPOTENT_POSTS.has(ep.name) ? 'create' : 'idempotent',
    policy,
    clock: s.clock,
    random: s.random,
    signal,
    stop,
    reconciler: new Reconciler(c.reconcile, (first, err) => unconfirmedCreate(ep, c.params, first, err)),
    onRetry: onRetry && ((error, n, wait) => onRetry(retryEvent(ep, error, n, attemptsFor(error, policy), wait, s.clock.now() - firstStart))),
    aborted,
  });
}

/** How many attempts the policy gives this error: a loopback refusal gets fewer. */
function attemptsFor(error: unknown, policy: RetryPolicy): number {
  const retries = error instanceof ApiError && isLoopbackRefusal(error) ? Math.min(policy.maxRetries, policy.loopbackRefusedRetries) : policy.maxRetries;
  return retries + 1;
}

/** Every item of a list: its pages, each a call. */
function paginate(ctx: CallContext, name: ListEndpointName, c: Send, sendPage: (c: Send) => Promise<unknown>): AsyncGenerator<unknown> {
  const { ep } = c;
  const s = ctx.settings;
  return paginatePages((query) => sendPage({ ...c, query }) as Promise<PageShape>, {
    key: listKey(name),
    base: { ...c.query },
    pageSize: s.pageSize,
    cursorParam: s.cursorParam,
    baseUrl: s.baseUrl,
    prefetch: s.prefetchPages,
    describe: `${ep.method} ${ep.path}`,
    endpoint: ep.name,
    maxPages: s.maxPages,
  });
}

/**
 * The service client, composed of small parts: the encoding of a request (encode.ts), the lanes
 * (lanes.ts) and the rate gate (gate.ts) it waits in, the transport (transport.ts), the errors it
 * may end in (errors.ts), the parsing of its answer (parse.ts), the retries (retry.ts) with the
 * reconciliation of ambiguous creates (reconcile.ts), and what it tells (events.ts).
 */
export function createClient(options: ClientOptions): TmsClient {
  const s = resolveSettings(options);
  // every queued request listens to the caller's signal: many listeners are expected, not a leak
  if (options.signal) setMaxListeners(0, options.signal);
  const agent = createAgent(options, s);
  const encoding = new RunCaseEncoding(s.runCaseEncoding);
  const ctx: CallContext = {
    settings: s,
    agent,
    lanes: new Lanes(s.concurrency),
    gate: new RequestGate({ rate: s.rateLimit, concurrency: s.concurrency, clock: s.clock, marginMs: s.rateMarginMs }),
    counters: new Counters(),
    stamps: new TimestampUnit(),
    onEvent: options.onEvent,
    runCasesMultipart: () => encoding.multipart,
    signal: options.signal,
    onRetry: options.onRetry,
  };
  let closed = false;
  const sendOpen = async (c: Send): Promise<unknown> => {
    if (closed) throw new TmsyncError('client_closed', 'the service client was closed', { hint: 'this is a bug in tmsync' });
    return send(ctx, c);
  };

  return {
    pageSize: s.pageSize,
    timestampUnit: () => ctx.stamps.unit,
    async call<N extends EndpointName>(name: N, req?: CallRequest<N>, policy?: CallPolicy) {
      const c = sendOf(name, req, policy);
      // an update with files is multipart from the start: a refusal of it is not about JSON
      const answer = c.ep.name === 'updateRunCases' && runCaseFileParts(c.body).length === 0 ? encoding.send(() => sendOpen(c)) : sendOpen(c);
      // the answer was parsed by this endpoint's response schema (schemas.ts): its type is the schema's output
      return answer as Promise<ClientResponseOf<N>>;
    },
    paginate<N extends ListEndpointName>(name: N, req?: CallRequest<N>, policy?: CallPolicy) {
      // pages go first within the read lane: a list is a chain, a waiting page delays all after it
      const c = { ...sendOf(name, req, policy), priority: req?.priority ?? 1 };
      return paginate(ctx, name, c, sendOpen) as AsyncGenerator<ItemOf<N>>;
    },
    async getText(name, req, policy) {
      // asked with `Accept: application/xml`, the answer is its text
      return sendOpen(sendOf(name, req, policy, true)) as Promise<string>;
    },
    stats: () => ctx.counters.snapshot(),
    async close() {
      closed = true;
      await ctx.lanes.onIdle();
      // an attempt given up while undici still held it (a proxy that never answered) would hold a close for minutes
      if (hasAbandoned(agent)) await agent.destroy();
      else await agent.close();
    },
  };
}
