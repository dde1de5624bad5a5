import { describe, expect, expectTypeOf, it } from 'vitest';
import { endpoint, type EndpointName } from '../../src/api/endpoints.js';
import {
  ApiError,
  IDEMPOTENT_POSTS,
  backoffDelay,
  defaultRetryPolicy,
  isLoopbackRefusal,
  isLoopbackUrl,
  isRetryable,
  parseResetHeader,
  parseRetryAfter,
  retryDelay,
} from '../../src/remote/index.js';

const err = (code: ApiError['code'], extra: Partial<ConstructorParameters<typeof ApiError>[0]> = {}) =>
  new ApiError({ code, method: 'GET', path: '/x', ...extra });

describe('retry policy', () => {
  it('documents its defaults as data', () => {
    expect(defaultRetryPolicy).toMatchObject({ maxRetries: 6, baseDelayMs: 500, maxDelayMs: 30_000, retryAfterCapMs: 120_000 });
    expect(defaultRetryPolicy.neverRetriedStatuses).toEqual([400, 401, 403, 404, 413, 422]);
    expect(Object.isFrozen(defaultRetryPolicy)).toBe(true);
  });

  it('retries rate limits for every kind of request, creates included', () => {
    expect(isRetryable(err('rate_limited', { status: 429 }), 'idempotent')).toBe('retry');
    expect(isRetryable(err('rate_limited', { status: 500 }), 'create')).toBe('retry');
  });

  it('retries 5xx, timeouts and resets for idempotent requests and asks to reconcile for creates', () => {
    for (const e of [err('server_error', { status: 503, ambiguous: true }), err('timeout', { ambiguous: true }), err('network', { ambiguous: true })]) {
      expect(isRetryable(e, 'idempotent')).toBe('retry');
      expect(isRetryable(e, 'create')).toBe('reconcile');
    }
  });

  it('tells a loopback address from others, and gives a refusal by one two retries by default', () => {
    for (const url of ['http://127.0.0.1:4010/api/v1', 'http://127.1.2.3/api/v1', 'http://localhost:4010/api/v1', 'http://[::1]:4010/api/v1', 'http://tms.localhost/api/v1']) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of ['https://tms.example/api/v1', 'http://10.0.0.1/api/v1', 'http://127.0.0.1.example/api/v1', 'not a url']) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
    expect(defaultRetryPolicy.loopbackRefusedRetries).toBe(2);
    expect(isLoopbackRefusal(err('network', { cause: 'ECONNREFUSED', loopbackRefused: true }))).toBe(true);
    expect(isLoopbackRefusal(err('network', { cause: 'ECONNREFUSED' }))).toBe(false);
  });

  it('repeats a create whose connection was refused (nothing was sent)', () => {
    expect(isRetryable(err('network', { ambiguous: false }), 'create')).toBe('retry');
  });

  it('never retries client errors, a 501, or errors that are not ApiErrors', () => {
    for (const code of ['unauthorized', 'not_found', 'invalid_request', 'invalid_response', 'aborted'] as const) {
      expect(isRetryable(err(code), 'idempotent')).toBe('fail');
    }
    expect(isRetryable(err('server_error', { status: 501 }), 'idempotent')).toBe('fail');
    expect(isRetryable(new Error('x'), 'idempotent')).toBe('fail');
  });

  it('uses full jitter: the n-th wait lies in [0, base·2^(n-1)] up to the ceiling', () => {
    const p = { ...defaultRetryPolicy };
    expect(backoffDelay(1, p, () => 0.999)).toBe(499);
    expect(backoffDelay(3, p, () => 0.5)).toBe(1000);
    expect(backoffDelay(1, p, () => 0)).toBe(0);
    expect(backoffDelay(20, p, () => 0.999)).toBe(29_970);
  });

  it('waits the Retry-After when given (capped), and at least one rate window after a rate limit without one', () => {
    const p = { ...defaultRetryPolicy };
    expect(retryDelay(err('rate_limited', { retryAfterMs: 7000 }), 1, p, () => 0)).toBe(7000);
    expect(retryDelay(err('rate_limited', { retryAfterMs: 900_000 }), 1, p, () => 0)).toBe(120_000);
    expect(retryDelay(err('rate_limited'), 1, p, () => 0)).toBe(1000);
    expect(retryDelay(err('server_error'), 1, p, () => 0)).toBe(0);
  });

  it('reads Retry-After in seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('1.5', now)).toBe(1500);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });

  it('reads x-tms-api-reset as seconds to wait or as a Unix time in seconds or milliseconds', () => {
    const now = 1_700_000_000_000;
    expect(parseResetHeader('2', now)).toBe(2000);
    expect(parseResetHeader(String(now / 1000 + 4), now)).toBe(4000);
    expect(parseResetHeader(String(now + 250), now)).toBe(250);
    expect(parseResetHeader('x', now)).toBeUndefined();
  });
});

describe('IDEMPOTENT_POSTS', () => {
  it('names POST endpoints of the endpoint table, by their typed names', () => {
    expectTypeOf(IDEMPOTENT_POSTS).toEqualTypeOf<ReadonlySet<EndpointName>>();
    expect([...IDEMPOTENT_POSTS].sort()).toEqual(['completeTestPlan', 'moveFolder']);
    for (const name of IDEMPOTENT_POSTS) expect(endpoint(name).method, name).toBe('POST');
  });
});
