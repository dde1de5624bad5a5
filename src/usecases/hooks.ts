import type { Problem } from '../errors.js';
import type { TmsyncConfig } from '../repository/config.js';
import type { LoadRepositoryOptions } from '../repository/loader.js';

/** How a repository's files are read: parse worker threads, the exact YAML read (`loadRepository`'s options of that name). */
export type ReadTuning = Pick<LoadRepositoryOptions, 'workers' | 'exactYaml'>;
import type { TmsClient } from '../remote/client.js';

/**
 * Where a use case reads and writes: the tests repository and the service. The CLI builds one from
 * its flags, profile and environment (`cli/target.ts`); a library caller from its own settings.
 */
export interface RepositoryTarget {
  /** the repository root (the directory of tmsync.yaml) */
  root: string;
  config: TmsyncConfig;
  client: TmsClient;
  /** project id, human id prefix or name */
  projectRef: string;
  /** the service's URL without credentials: keys the read cache, and goes into a new repository's tmsync.yaml */
  baseUrl: string;
  /** absolute path of tmsync.yaml, when there is one (a --changed-since plan watches it) */
  configFile?: string;
  /** how the repository's files are read (parse worker threads, the exact YAML read) @default the loader's choice */
  read?: ReadTuning;
}

/**
 * Moments when a large structure was let go or a long synchronous step ended, told to whoever
 * bounds the process's heap (the CLI's memory governor, `cli/memory.ts`). A library caller
 * leaves it out: nothing is collected by force.
 */
export interface MemoryHook {
  /** a long synchronous step ended: collect if the heap grew past its bound */
  check(): void;
  /** a large structure was let go: collect now */
  collect(): void;
  /** the large structures are built and the rest is short: no more forced collections */
  finish(): void;
}

/** Something a use case says on its way that changes nothing it returns. */
export type UseCaseNote =
  /** the sync base file said something (an older format, a project it does not record, …) */
  | { kind: 'sync_base'; message: string }
  /** tmsync.yaml changed since the --changed-since ref: everything is planned */
  | { kind: 'changed_since_config'; file: string; ref: string }
  /** the repository lock said something (a stale lock taken over, …) */
  | { kind: 'session'; message: string }
  /** temporary files a stopped run left, removed */
  | { kind: 'strays_removed'; files: string[] }
  /** ids an interrupted apply recorded, written now (and those that could not be) */
  | { kind: 'write_backs_finished'; written: string[]; failed: { file: string; id: string; message: string }[] };

/** What every use case takes besides its inputs. */
export interface UseCaseContext {
  /** aborted: reads are cancelled; an apply finishes the operations in flight and starts no new ones */
  signal?: AbortSignal;
  memory?: MemoryHook;
  onNote?: (note: UseCaseNote) => void;
  /** the repository's files are loaded: every problem found in them, warnings too (before the service's reads end) */
  onLoaded?: (problems: readonly Problem[]) => void;
}
