import type { DbContext } from './db/index.js';
import type { FaultOptions } from './faults.js';
import type { RequestLogEntry } from './request-log.js';

export type { RequestLogEntry, FaultOptions };

export type Dialect = 'document' | 'live';

/** What `--run-outcome` chooses: the result of every execution-interface run (docs/emulator.md). */
export type RunOutcome = 'success' | 'failure' | 'aborted' | 'stopped' | 'not-executed' | 'random';

/** How execution-interface runs go, beyond their duration. */
export interface ExecutionOptions {
  /** ms before STATUS_IN_PROGRESS, a third each in STATUS_CREATED, STATUS_QUEUED, STATUS_PRE_FLIGHT @default half the run duration */
  queueMs?: number;
  /** the result of every run (a plan's `outcome:` marker wins) @default FAILURE when the plan's title contains "fail", else SUCCESS */
  outcome?: RunOutcome;
}

export interface EmulatorOptions {
  /** port to listen on; 0 picks a free one @default 0 (the CLI's default is 4010) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** SQLite file; data survives restarts. One emulator process per file (a second fails with `emulator_db_in_use`). Ignored with `memory`. */
  db?: string;
  /** keep everything in memory (the default when no `db` is given) @default false */
  memory?: boolean;
  /** accepted API keys; when empty a random key is generated (see RunningEmulator.generatedKey) */
  apiKeys?: string[];
  /** seed data: `demo` creates project Demo (prefix DEMO), three users and labels */
  seed?: 'demo';
  /** added latency per request in ms @default 0 */
  latencyMs?: number;
  /** requests per second per key; absent = unlimited */
  rateLimit?: number;
  /** @default '429' (`live` when `dialect` is `live`) */
  rateLimitStyle?: '429' | 'live';
  /**
   * Which service to answer as: `document` (the interface document) or `live` (the live service as
   * real-service-notes.md records it: milliseconds, cursors, 400s, multipart-only run-case updates…).
   * docs/emulator.md lists every difference. @default 'document'
   */
  dialect?: Dialect;
  /**
   * Largest page a list serves: a larger `page_size` is served this many items (as a service that
   * caps its pages does) instead of refused. Absent = `page_size` above 100 is refused (422/400).
   */
  pageSizeCap?: number;
  /** probability of a 500/503 @default 0 */
  failRate?: number;
  /** probability of a dropped connection @default 0 */
  resetRate?: number;
  /** seed for deterministic faults */
  faultSeed?: number;
  /** faults on writes hit after the change is stored @default false */
  failAfterCommit?: boolean;
  /** append one JSON line per request to this file */
  logFile?: string;
  /** how long an execution-interface run takes, in ms @default 3000 */
  runDurationMs?: number;
  /** how long a run waits (created, queued, pre-flight) before it is in progress, in ms @default half of runDurationMs */
  runQueueMs?: number;
  /** the result of every execution-interface run; a plan's `outcome:<value>` marker wins @default by the plan's title */
  runOutcome?: RunOutcome;
  /** the clock, in ms since the epoch @default Date.now */
  now?: () => number;
  /**
   * Called (and awaited) before each API request is served, once its key is accepted: a scripted
   * hook for tests, e.g. an edit another user makes right after a client's first write. Not a
   * command-line option. `path` is the URL's path (with `/api/v1`). @default none
   */
  onRequest?: (request: { method: string; path: string }) => void | Promise<void>;
}

export interface RunningEmulator {
  /** http://HOST:PORT/api/v1 */
  baseUrl: string;
  /** http://HOST:PORT, the execution interface root (its paths start /api/v1/execution_results) */
  appUrl: string;
  /** http://HOST:PORT/assets, where icon_url points */
  assetsUrl: string;
  port: number;
  /** the plain keys it accepts (the given ones, or the generated one) */
  apiKeys: string[];
  /** the key generated because none was given */
  generatedKey?: string;
  /** copy of the request log (most recent 100,000 entries at most) */
  requestLog(): RequestLogEntry[];
  clearRequestLog(): void;
  /** changes faults at run time */
  setFaults(partial: Partial<FaultOptions>): void;
  /** the database, for seed helpers (`seedDemo(emu)`, `createProject(emu, …)`) */
  db: DbContext;
  close(): Promise<void>;
}
