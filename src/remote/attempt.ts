import type { Dispatcher } from 'undici';
import type { Endpoint } from '../api/index.js';
import { answerError, header, transportFailure } from './call-errors.js';
import { encodeBody, headersFor, targetOf } from './encode.js';
import type { Counters } from './events.js';
import type { GateSlot, RequestGate } from './gate.js';
import { Lanes } from './lanes.js';
import type { RequestEvent } from './client-options.js';
import type { Query } from './paginate.js';
import { parseAnswer, type TimestampUnit } from './parse.js';
import { parseResetHeader } from './policy.js';
import type { ClientSettings } from './settings.js';
import { sendOnce, type RawResponse } from './transport.js';

/** What every attempt of a client shares. */
export interface AttemptContext {
  settings: ClientSettings;
  agent: Dispatcher;
  lanes: Lanes;
  gate: RequestGate;
  counters: Counters;
  stamps: TimestampUnit;
  onEvent?: (e: RequestEvent) => void;
  /** run-case updates go as multipart now */
  runCasesMultipart: () => boolean;
}

interface AttemptRequest {
  ep: Endpoint;
  params: Record<string, string | number>;
  query?: Query;
  body?: unknown;
  /** the text of the answer instead of parsed JSON (the JUnit report) */
  text: boolean;
  priority: number;
  timeoutMs: number;
  /** 1 for the first try */
  n: number;
  /** the full abort: may cut the request in flight */
  signal?: AbortSignal;
  /** stops the request before it is sent */
  stop?: AbortSignal;
  /** the error a stop before sending turns into */
  aborted: () => Error;
}

/** Reads the rate headers: when the budget runs low, the gate slows down before a refusal. */
function noteRemaining(c: AttemptContext, res: RawResponse): void {
  const remaining = Number(header(res.headers, 'x-tms-api-remaining') ?? NaN);
  if (!Number.isFinite(remaining)) return;
  const limit = Number(header(res.headers, 'x-tms-api-limit') ?? NaN);
  c.gate.noteBudget({
    remaining,
    limit: Number.isFinite(limit) ? limit : undefined,
    resetMs: parseResetHeader(header(res.headers, 'x-tms-api-reset'), c.settings.clock.now()),
    threshold: c.settings.lowRemaining,
  });
}

/** One attempt: a place in the endpoint's lane, a slot of the rate gate, the request, the answer read. */
export function attempt(c: AttemptContext, r: AttemptRequest): Promise<unknown> {
  const { ep, signal, stop = signal } = r;
  const s = c.settings;
  const lane = Lanes.of(ep.method);
  const { url, logPath } = targetOf(ep, r.params, r.query, s);
  const { body, contentType } = encodeBody(ep, r.body, c.runCasesMultipart());
  const headers = headersFor(ep, s, r.text ? 'xml' : 'json', contentType);
  const task = async (): Promise<unknown> => {
    if (stop?.aborted) throw r.aborted();
    let slot: GateSlot;
    try {
      slot = await c.gate.acquire(lane, stop, r.priority);
    } catch (err) {
      // stopped while waiting for a slot: never sent
      if (stop?.aborted && !signal?.aborted) throw r.aborted();
      throw err;
    }
    c.counters.sent(ep.name, r.n);
    const event: RequestEvent = { endpoint: ep.name, method: ep.method, path: logPath, startedAt: slot.at, durationMs: 0, attempt: r.n, lane };
    try {
      let res: RawResponse;
      try {
        res = await sendOnce(c.agent, { url, method: ep.method, headers, body, timeoutMs: r.timeoutMs, clock: s.clock, signal, maxBytes: s.maxResponseBytes, onAnswer: slot.answered });
      } catch (err) {
        const failure = transportFailure(ep, logPath, err, url);
        if (!failure) throw err;
        event.error = failure.code;
        if (failure.status !== undefined) event.status = failure.status;
        throw failure;
      } finally {
        // the answer is read: the slot is free before parsing (the rate window counted the request
        // from when the answer began to come back, or from now when none came)
        slot.release();
      }
      event.status = res.status;
      noteRemaining(c, res);
      if (res.status < 200 || res.status >= 300) {
        const apiErr = answerError(ep, logPath, res, { policy: s.policy, secrets: s.secrets, keyVar: s.keyVar, now: s.clock.now() });
        event.error = apiErr.code;
        if (apiErr.code === 'rate_limited') {
          c.counters.rateLimited();
          c.gate.widen();
          c.gate.pauseUntil(s.clock.now() + (apiErr.retryAfterMs ?? s.policy.rateLimitedMinDelayMs));
        }
        throw apiErr;
      }
      if (r.text) return res.text;
      try {
        return parseAnswer(ep, logPath, res, c.stamps);
      } catch (err) {
        event.error = 'invalid_response';
        throw err;
      }
    } finally {
      event.durationMs = s.clock.now() - slot.at;
      c.onEvent?.(event);
    }
  };
  return c.lanes.run(lane, task, { signal, priority: r.priority });
}
