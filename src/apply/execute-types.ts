import type { ApplySkip } from './skip-causes.js';
import type { Operation, Prefer } from '../plan/operations.js';
import type { BaseKind } from '../base/base.js';
import type { FieldValues } from '../base/field-values.js';
import type { Journal } from './journal.js';
import type { ApplyClient } from './finders.js';
import type { WriteBackFn } from './write-back.js';
import type { WriteGuardOptions } from './write-guard.js';

/**
 * What one execution of a plan takes and gives (`executePlan`, `executor.ts`): its options, its
 * progress and its result. Apart from the executor, so that the parts of a run (`run-state.ts`,
 * `run-operation.ts`, …) and the engine share them without importing the executor that imports them.
 */

export interface ApplyProgress {
  /** what runs before the operations start, e.g. `checking 56 creates a stopped run left open` */
  phase?: string;
  total: number;
  /** finished: succeeded + failed + skipped */
  done: number;
  failed: number;
  inFlight: number;
}

export interface ApplyFailure {
  key: string;
  kind: Operation['kind'];
  /** the repository file the operation came from, when it has one */
  file?: string;
  /** the service's message (or what went wrong) */
  message: string;
  /** `write_back`: the remote change succeeded but the id could not be written to the file */
  stage: 'request' | 'write_back';
}

/** An update the write guard did not send: the service changed a field it changes since the plan read it. */
export interface ApplyConflict {
  key: string;
  kind: Operation['kind'];
  itemType: BaseKind;
  id: string;
  humanId?: string;
  /** the repository file the operation came from, when it has one */
  file?: string;
  /** the field as the plan names it (`deleted`: the item was deleted on the service) */
  field: string;
  /** what the update would have sent */
  local: string;
  /** the service's value */
  remote: string;
  /** `--prefer` settled it: the repository's value (`local`) or the service's (`remote`) was sent */
  settled?: Prefer;
}

/** An update that took in fields the service changed since the plan read them (its value was sent). */
export interface ApplyMerge {
  key: string;
  kind: Operation['kind'];
  id: string;
  humanId?: string;
  file?: string;
  /** the fields, as the plan names them */
  fields: string[];
}

export interface ApplyResult {
  created: number;
  updated: number;
  moved: number;
  deleted: number;
  adopted: number;
  failed: ApplyFailure[];
  /** operations not started, each with its typed `cause` */
  skipped: ApplySkip[];
  /** stopped early by the signal: some operations were not started */
  interrupted: boolean;
  /** ids produced or confirmed, by operation key */
  ids: Record<string, { id: string; humanId?: string }>;
  /** the item's `updated_at` as the service's answer to an operation's last request gave it (Unix seconds), by operation key */
  updatedAt?: Record<string, string>;
  /**
   * The journal could not be written (disk full, …): no operation started after that, the ones in
   * flight finished, and what they did is in this result (not all of it in the journal). The run
   * must end as a failure.
   */
  journalError?: string;
  /**
   * The write guard found these fields changed on both sides since the plan read them: listed, and
   * (unless `settled`) not sent; the run ends as a failure.
   */
  conflicts?: ApplyConflict[];
  /** updates that took in a change the service made since the plan read the item */
  merged?: ApplyMerge[];
  /** requests the write guard made to check items before their writes */
  guardReads?: number;
  /** values the sync base records instead of the plan's, by operation key (conflicts settled for the service) */
  recordValues?: Record<string, FieldValues>;
  /** the item as the plan read it, by operation key, for an update a conflict kept from being sent */
  baselines?: Record<string, { updatedAt?: number; values: FieldValues }>;
}

export interface ExecuteOptions {
  client: ApplyClient;
  /** the journal of this run; none: nothing is recorded (tests, dry runs) */
  journal?: Journal;
  /** when aborted, no new operation starts; the ones in flight finish */
  signal?: AbortSignal;
  onProgress?: (progress: ApplyProgress) => void;
  /** writes an id into a repository file */
  writeBack: WriteBackFn;
  /**
   * Ids the service held before the run: a lookup after an ambiguous create in this run never
   * claims one of these (ids the plan refers to and ids created so far are never claimed either).
   * @default none
   */
  existingIds?: Iterable<string>;
  /**
   * Top-level folders the service held before the run (all of them, not only those in scope): a
   * new folder lands at the top level, so a lookup for one never claims these, in this run or,
   * through the journal, in the next. @default none
   */
  existingTopFolders?: readonly { id: string; name: string }[];
  /**
   * Keys of creates that an earlier, killed run may have sent (journal `begin` without an answer):
   * looked up by natural key before being sent again. @default none
   */
  pendingCreates?: ReadonlySet<string>;
  /**
   * Ids that items of the repository claim with `id:` (unchanged ones have no operation): a lookup
   * after an ambiguous or pending create never adopts one of these. @default none
   */
  claimedIds?: Iterable<string>;
  /** per pending create, ids its lookup must not claim (journal `begin` `exclude`). @default none */
  pendingExclude?: ReadonlyMap<string, readonly string[]>;
  /**
   * Ids an earlier run recorded for create operations (journal `created`/`done`) that still exist
   * on the service: the create is not sent again, the rest of the operation (a folder's move) is.
   * @default none
   */
  resumeIds?: ReadonlyMap<string, { id: string; humanId?: string }>;
  /**
   * Operations handed to the client at once. Bounds memory on big plans and what an interrupt
   * waits for; it is not a rate limiter (keep it well above the client's concurrency). @default 64
   */
  window?: number;
  /** called as each operation ends (succeeded, failed, or skipped as a failure's dependent) @default none */
  onOperationDone?: (key: string, ok: boolean) => void;
  /**
   * Checks each update against the service just before it is sent and re-classifies an item that
   * changed since the plan read it (`write-guard.ts`, `recheck.ts`). @default none: sent as planned
   */
  guard?: WriteGuardOptions;
}
