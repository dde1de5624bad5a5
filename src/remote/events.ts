import type { Endpoint } from '../api/index.js';
import { ApiError } from './api-error.js';
import type { RetryEvent } from './client-options.js';

/** What the client tells: counters for `stats()` and the retry notice. Request events are made per attempt. */

export interface ClientStats {
  /** attempts sent */
  requests: number;
  /** attempts that were repeats */
  retries: number;
  /** answers that said "rate limited" (429 or the live 500) */
  rateLimited: number;
  byEndpoint: Record<string, number>;
}

export class Counters {
  private readonly stats: ClientStats = { requests: 0, retries: 0, rateLimited: 0, byEndpoint: {} };

  sent(endpoint: string, attempt: number): void {
    this.stats.requests++;
    this.stats.byEndpoint[endpoint] = (this.stats.byEndpoint[endpoint] ?? 0) + 1;
    if (attempt > 1) this.stats.retries++;
  }

  rateLimited(): void {
    this.stats.rateLimited++;
  }

  snapshot(): ClientStats {
    return { ...this.stats, byEndpoint: { ...this.stats.byEndpoint } };
  }
}

export function retryEvent(ep: Endpoint, error: unknown, attempt: number, attempts: number, waitMs: number, elapsedMs: number): RetryEvent {
  const api = error instanceof ApiError ? error : undefined;
  const cause = api?.details?.cause;
  return {
    endpoint: ep.name,
    method: ep.method,
    path: api?.path ?? ep.path,
    attempt,
    attempts,
    error: api?.code ?? 'unknown',
    ...(api?.status !== undefined ? { status: api.status } : {}),
    ...(typeof cause === 'string' ? { cause } : {}),
    waitMs,
    elapsedMs,
  };
}
