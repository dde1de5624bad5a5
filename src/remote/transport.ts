import { request, type Dispatcher, type FormData } from 'undici';
import type { Clock } from './clock.js';

interface RawRequest {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers: Record<string, string>;
  body?: string | FormData;
  timeoutMs: number;
  clock: Clock;
  /** the caller's cancellation (Ctrl-C) */
  signal?: AbortSignal;
  /** the largest answer body read, in bytes; a larger one fails with ResponseTooLarge @default no cap */
  maxBytes?: number;
  /** called once the answer's status and headers are in, before its body is read */
  onAnswer?: () => void;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Why an attempt got no answer. `sent`: the request may have reached the service. */
export class TransportError extends Error {
  constructor(
    readonly kind: 'network' | 'timeout' | 'aborted',
    readonly sent: boolean,
    readonly lowCode: string,
  ) {
    super(`${kind}: ${lowCode}`);
  }
}

/** An answer whose body is larger than the cap: reading stops there (the rest is discarded). */
export class ResponseTooLarge extends Error {
  constructor(
    readonly status: number,
    readonly limit: number,
    /** bytes read (or announced by Content-Length) when reading stopped */
    readonly seen: number,
  ) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

/** Failures that happen before a byte of the request leaves: repeating is always safe. */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

function lowCodeOf(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR_ABORTED') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return err instanceof Error ? err.name : 'unknown';
}

/** Dispatchers with a request given up while undici still held it: closing one must not wait for it. */
const abandonedOn = new WeakSet<Dispatcher>();

/** Whether an attempt on this dispatcher was given up while undici still held it (see `sendOnce`). */
export function hasAbandoned(dispatcher: Dispatcher): boolean {
  return abandonedOn.has(dispatcher);
}

/** Rejects once the signal aborts (never resolves). */
function abandonedWhenAborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/**
 * A request given up: whatever it comes to later is let go (an answer's body destroyed, an error
 * swallowed), and closing its dispatcher does not wait for it.
 */
function abandon(dispatcher: Dispatcher, pending: Promise<Dispatcher.ResponseData>): void {
  pending.then(
    (res) => res.body.destroy(),
    () => undefined,
  );
  abandonedOn.add(dispatcher);
}

/**
 * Sends one attempt and reads the whole answer within `timeoutMs` (measured on the injected
 * clock). Throws TransportError when there is no answer; any HTTP status is an answer.
 */
export async function sendOnce(dispatcher: Dispatcher, req: RawRequest): Promise<RawResponse> {
  req.signal?.throwIfAborted();
  const attempt = new AbortController();
  const timer = new AbortController();
  let timedOut = false;
  req.clock.sleep(req.timeoutMs, timer.signal).then(
    () => {
      timedOut = true;
      attempt.abort(new Error('timeout'));
    },
    () => undefined,
  );
  const onCallerAbort = () => attempt.abort(req.signal?.reason);
  req.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const pending = request(req.url, {
      dispatcher,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: attempt.signal,
      // the timeout above (on the injected clock) governs; undici's own are only a backstop
      headersTimeout: req.timeoutMs + 60_000,
      bodyTimeout: req.timeoutMs + 60_000,
    });
    // The attempt ends when it is aborted even where undici does not listen: a proxy that takes the
    // connection and never answers its CONNECT held the request (and the command) for minutes.
    const res = await Promise.race([pending, abandonedWhenAborted(attempt.signal)]).catch((err: unknown) => {
      if (attempt.signal.aborted) abandon(dispatcher, pending);
      throw err;
    });
    req.onAnswer?.();
    const length = res.headers['content-length'];
    const announced = typeof length === 'string' && length.trim() !== '' ? Number(length) : NaN;
    if (req.maxBytes !== undefined && Number.isFinite(announced) && announced > req.maxBytes) {
      res.body.destroy();
      throw new ResponseTooLarge(res.statusCode, req.maxBytes, announced);
    }
    // no cap, or a length within it (undici refuses a body longer than its Content-Length)
    if (req.maxBytes === undefined || Number.isFinite(announced)) {
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, text };
    }
    // a chunked answer: counted as it arrives, cut at the cap
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (bytes > req.maxBytes) {
        res.body.destroy();
        throw new ResponseTooLarge(res.statusCode, req.maxBytes, bytes);
      }
      chunks.push(chunk as Buffer);
    }
    return { status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks, bytes).toString('utf8') };
  } catch (err) {
    if (err instanceof ResponseTooLarge) throw err;
    if (req.signal?.aborted) throw new TransportError('aborted', true, 'aborted');
    if (timedOut) throw new TransportError('timeout', true, 'timeout');
    const code = lowCodeOf(err);
    if (TIMEOUTS.has(code)) throw new TransportError('timeout', true, code);
    throw new TransportError('network', !NOT_SENT.has(code), code);
  } finally {
    timer.abort();
    req.signal?.removeEventListener('abort', onCallerAbort);
  }
}
