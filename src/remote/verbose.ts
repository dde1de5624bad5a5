import type { RequestEvent } from './client-options.js';

/** One `--verbose` line: method, path, status or error, duration, attempt. Never headers or the key. */
export function formatRequestEvent(e: RequestEvent): string {
  const outcome = e.status !== undefined ? String(e.status) : (e.error ?? 'error');
  const retry = e.attempt > 1 ? ` (retry ${e.attempt - 1})` : '';
  return `${e.method} ${e.path} ${outcome} ${Math.round(e.durationMs)}ms${retry}`;
}
