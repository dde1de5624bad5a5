import { isOperationKind, kindCreates } from '../plan/operation-kinds.js';
import type { Plan } from '../plan/operations.js';
import type { ApplyProgress, ApplyResult } from './execute-types.js';
import { executePlan } from './executor.js';
import { Journal, journalPath, readJournalFile, rotateJournal, rotateJournalFile, summarizeJournal, type JournalOwner, type JournalSummary } from './journal.js';
import { acquireRepositoryLock } from './lock.js';
import { writeSynced, type SyncBaseOptions } from './sync-record.js';

export { writeSynced, type SyncBaseOptions } from './sync-record.js';
import type { ApplyClient } from './finders.js';
import type { PendingWriteBack, WriteBackFn } from './write-back.js';
import type { ReadOptions } from '../repository/case-file.js';
import type { WriteGuardOptions } from './write-guard.js';

/**
 * The write engine: `tmsync apply`, `tmsync migrate`, `tmsync restore` (`restoreBackup`) and
 * library callers run plans through it.
 * It owns the repository lock (`.tmsync/lock`), the journal of the runs
 * (`.tmsync/journal.jsonl`), resume (creates an earlier run recorded are not sent again, creates
 * it sent without an answer are looked up first, ids it did not write are written), reconciliation
 * of ambiguous creates, write-back and progress events. Never prints.
 *
 * ```ts
 * const result = await applyPlan(plan, { client, root, writeBack: fileWriteBack(root) });
 * // killed? run it again with a fresh plan: nothing is created twice
 * ```
 *
 * A caller that reads and plans under the lock (the CLI does, so the plan sees the ids an earlier
 * run wrote) opens a session, plans, then applies through it.
 */

export interface ApplySessionOptions {
  /** the directory whose `.tmsync/` holds the lock (the repository root) */
  root: string;
  /** what takes the lock, named to a second command that finds it held @default 'apply' */
  command?: string;
  /** wait this long for a held lock; 0 fails at once. @default 0 */
  lockTimeoutMs?: number;
  /** writes journal lines (tests inject a failing one) @default append to the file and fsync */
  journalWrite?: (text: string) => Promise<void>;
}

export interface ApplyRunOptions {
  client: ApplyClient;
  /**
   * the directory whose `.tmsync/journal.jsonl` is the journal (a migration keeps one per
   * source/target pair) @default the session's root
   */
  journalRoot?: string;
  /**
   * the journal file itself, instead of `<journalRoot>/.tmsync/journal.jsonl` (a restore keeps one
   * per backup and target), and how its messages name it @default none
   */
  journalFile?: JournalFile;
  /** called as each operation ends (false: failed, or skipped as a failure's dependent); restore counts its progress with it @default none */
  onOperationDone?: (key: string, ok: boolean) => void;
  /** writes an id into a repository file @default none (no files: the ids stay on the service) */
  writeBack?: WriteBackFn;
  /**
   * Ids the service held before the run (the state the plan was built from): a lookup after an
   * ambiguous create never claims one, and journal ids not among them are not resumed.
   * @default none
   */
  existingIds?: Iterable<string>;
  /**
   * Top-level folders the service held before the run (all of them, not only those in scope), or
   * `'read'` to read them now (the state covers only a scope). @default none
   */
  existingTopFolders?: readonly { id: string; name: string }[] | 'read';
  /** ids the repository's files claim with `id:` @default none */
  claimedIds?: Iterable<string>;
  /**
   * Settles creates a killed run left open against what the caller knows (migrate: the target as
   * just read); returns those still to look up. @default all are looked up by the executor
   */
  settlePending?: (pending: ReadonlySet<string>, resumeIds: Map<string, { id: string; humanId?: string }>) => Set<string>;
  /** when aborted, no new operation starts; the ones in flight finish */
  signal?: AbortSignal;
  onProgress?: (progress: ApplyProgress) => void;
  /** operations handed to the client at once @default 64 */
  window?: number;
  /**
   * Three-way sync: after the run, records each item it synced in the sync base and writes
   * `tmsync.base` under `root` atomically (docs/sync.md). Give it when the plan's target is the
   * repository's project (`tmsync apply`); migrate gives none. @default none (no base is written)
   */
  syncBase?: SyncBaseOptions;
  /**
   * The write guard: each update, move and rename is checked against the service just before it
   * is sent, and an item changed since the plan read it is re-classified three ways (a change on
   * another field merged, one on the same field a conflict: not sent unless `prefer` settles it).
   * Give it the state the plan was built from. docs/sync.md. @default none (sent as planned)
   */
  guard?: WriteGuardOptions;
}

/** What `applyPlan` takes: where the lock and journal are, and how to run. */
export type ApplyPlanOptions = ApplyRunOptions & ApplySessionOptions;

export interface ApplyPlanResult extends ApplyResult {
  /** the journal file of this run */
  journal: string;
  /** `tmsync.base` could not be written (what the run did on the service stands) */
  syncBaseError?: string;
}

/** A journal in a file of its own. */
export interface JournalFile extends JournalOwner {
  file: string;
  /**
   * keep the file after a run where everything succeeded (a restore run again says what earlier
   * runs restored) @default false: it is moved to `<file>.prev`
   */
  keep?: boolean;
  /** what a write failure asks to check @default the permissions and free space of the repository directory */
  hint?: string;
}

export interface ApplySession {
  /** what taking the lock noticed (a lock taken over from a process that is gone) */
  readonly notes: readonly string[];
  /** what earlier runs against the project left in the journal (read once per journal): the root's, another root's, or a file */
  resume(projectId: string, journal?: string | JournalFile): Promise<JournalSummary>;
  /** writes the ids earlier runs recorded but did not write (files without `id:` only) */
  finishWriteBacks(projectId: string, root: string, writeBack: WriteBackFn, read?: ReadOptions): Promise<{ written: PendingWriteBack[]; failed: (PendingWriteBack & { message: string })[] }>;
  /** runs the plan, resuming what the journal recorded; an all-successful run rotates the journal (unless its `journalFile` keeps it) */
  apply(plan: Plan, options: ApplyRunOptions): Promise<ApplyPlanResult>;
  /** nothing is left to resume (the service matches): the journal is rotated */
  settled(projectId: string): Promise<void>;
  /** releases the lock */
  close(): Promise<void>;
}

/** Takes the repository lock and opens a session on its journal. */
export async function openApplySession(options: ApplySessionOptions): Promise<ApplySession> {
  const lock = await acquireRepositoryLock(options.root, { command: options.command ?? 'apply', timeoutMs: options.lockTimeoutMs ?? 0 });
  const summaries = new Map<string, JournalSummary>();
  const resume = async (projectId: string, journal: string | JournalFile = options.root) => {
    const where = typeof journal === 'string' ? { file: journalPath(journal) } : journal;
    const key = `${where.file}\u0000${projectId}`;
    let s = summaries.get(key);
    if (!s) summaries.set(key, (s = summarizeJournal(await readJournalFile(where.file, where), projectId)));
    return s;
  };
  return {
    notes: lock.notes,
    resume,
    finishWriteBacks: async (projectId, root, writeBack, read) => {
      // loaded when asked: it reads YAML, which a caller without files (restore, migrate) never needs
      const { applyPendingWriteBacks, pendingWriteBacks } = await import('./write-back.js');
      return applyPendingWriteBacks(await pendingWriteBacks(await resume(projectId), root, read), writeBack);
    },
    apply: async (plan, run) => {
      const journal = run.journalFile ?? { file: journalPath(run.journalRoot ?? options.root) };
      return runJournalled(plan, run, await resume(plan.project.id, journal), journal, options.journalWrite);
    },
    settled: async (projectId) => {
      if ((await resume(projectId)).runs > 0) await rotateJournal(options.root);
    },
    close: () => lock.release(),
  };
}

/**
 * Applies a plan as a library caller would: takes the lock, resumes from the journal, runs,
 * releases the lock. Run it again after a kill (with a plan built afresh) and nothing is created
 * twice.
 */
export async function applyPlan(plan: Plan, options: ApplyPlanOptions): Promise<ApplyPlanResult> {
  const session = await openApplySession(options);
  try {
    return await session.apply(plan, options);
  } finally {
    await session.close();
  }
}

async function runJournalled(
  plan: Plan,
  run: ApplyRunOptions,
  summary: JournalSummary,
  where: JournalFile,
  journalWrite: ((text: string) => Promise<void>) | undefined,
): Promise<ApplyPlanResult> {
  const existing = new Set(run.existingIds ?? []);
  const resumeIds = resumedCreates(summary, existing);
  const pendingCreates = run.settlePending ? run.settlePending(summary.pendingCreates, resumeIds) : summary.pendingCreates;
  const topFolders = run.existingTopFolders === 'read' ? await readTopFolders(run.client, plan) : run.existingTopFolders;
  const { keep, ...owner } = where;
  const journal = await Journal.open('', plan.project.id, {
    ...owner,
    ...(journalWrite ? { write: journalWrite } : {}),
  });
  let result: ApplyResult;
  try {
    result = await executePlan(plan, {
      client: run.client,
      journal,
      writeBack: run.writeBack ?? (async () => undefined),
      existingIds: existing,
      ...(run.claimedIds ? { claimedIds: run.claimedIds } : {}),
      ...(topFolders ? { existingTopFolders: topFolders } : {}),
      pendingCreates,
      pendingExclude: summary.exclude,
      resumeIds,
      ...(run.signal ? { signal: run.signal } : {}),
      ...(run.onProgress ? { onProgress: run.onProgress } : {}),
      ...(run.window !== undefined ? { window: run.window } : {}),
      ...(run.onOperationDone ? { onOperationDone: run.onOperationDone } : {}),
      ...(run.guard ? { guard: run.guard } : {}),
    });
  } finally {
    await journal.close();
  }
  let syncBaseError: string | undefined;
  if (run.syncBase) {
    try {
      await writeSynced(run.syncBase, result);
    } catch (err) {
      syncBaseError = (err as Error).message;
    }
  }
  const open = (result.conflicts ?? []).some((c) => !c.settled);
  const complete = !result.journalError && !result.interrupted && result.failed.length === 0 && result.skipped.length === 0 && !open;
  // nothing is left to resume: the next run starts a fresh journal
  if (complete && !keep) await rotateJournalFile(where.file);
  return { ...result, journal: where.file, ...(syncBaseError ? { syncBaseError } : {}) };
}

/** Creates an earlier run recorded with an id that the service still holds. */
function resumedCreates(summary: JournalSummary, existing: ReadonlySet<string>): Map<string, { id: string; humanId?: string }> {
  const resumeIds = new Map<string, { id: string; humanId?: string }>();
  for (const [key, rec] of summary.ids) {
    if (rec.id && isOperationKind(rec.kind) && kindCreates(rec.kind) && existing.has(rec.id)) resumeIds.set(key, { id: rec.id, ...(rec.humanId ? { humanId: rec.humanId } : {}) });
  }
  return resumeIds;
}

/**
 * Every top-level folder, in scope or not: new folders land there, and lookups for them must never
 * claim one that was there before. Read only when the plan creates folders.
 */
async function readTopFolders(client: ApplyClient, plan: Plan): Promise<{ id: string; name: string }[] | undefined> {
  if (!plan.operations.some((op) => op.kind === 'create_folder')) return undefined;
  const top: { id: string; name: string }[] = [];
  for await (const f of client.paginate('listFolders', { params: { project_id: plan.project.id } })) {
    if (!f.parent_folder_id) top.push({ id: f.id, name: f.name });
  }
  return top;
}
