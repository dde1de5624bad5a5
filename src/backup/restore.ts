import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { openApplySession, type ApplyPlanResult, type ApplySession, type JournalFile } from '../apply/engine.js';
import type { JournalOwner } from '../apply/journal.js';
import { TmsyncError } from '../errors.js';
import { LOOKUP_FIELDS, LOOKUP_WORDS } from '../fields.js';
import type { RemoteProject } from '../model.js';
import type { TmsClient } from '../remote/client.js';
import type { Backup } from './backup-format.js';
import { ambiguousError, heldCounts, planAdoption, readTargetItems, TYPE_WORDS, type RestoreItemType, type TargetItems } from './restore-adopt.js';
import { buildRestoreMapping, type RestoreMapping, type RestoreMappingOptions, type RestoreTargetDirectory } from './restore-mapping.js';
import { buildRestorePlan, PHASES, type RestorePhase, type RestorePlan } from './restore-plan.js';

export type { RestorePhase } from './restore-plan.js';

/**
 * Recreates a backup in a target project: folders (parents first, siblings in order), step
 * groups, cases, test plans, test runs with their results, every id remapped. Everything the
 * backup uses is matched first; nothing is written when something cannot be matched.
 *
 * The backup becomes a plan of the write engine (`restore-plan.ts`: one operation per item, its
 * references resolved by the engine's id remapping), which `applyPlan`'s engine runs: the lock,
 * the journal, resume, the lookups after an ambiguous create, progress.
 *
 * Resumable: the journal (`.tmsync/restore-<hash>.jsonl`, one per backup and target) records every
 * create before it is sent and after it answers. A second run skips what is done, finishes what was
 * half done (a folder's move, a run's results) and pairs what an earlier run began without an
 * answer with the target's items, so nothing is created twice.
 *
 * Safe on a non-empty target: before anything is written the target is read, and every backup
 * item the journal has no id for that already exists there (by natural key, see
 * restore-adopt.ts) is adopted instead of created, so a run from another directory does not
 * duplicate what an earlier run made.
 */

export interface RestoreOptions extends RestoreMappingOptions {
  /** appends one journal line (tests inject a failing one) @default the journal file */
  journalWrite?: (text: string) => Promise<void>;
  client: TmsClient;
  target: RemoteProject;
  /** the target's lookups, users and labels */
  directory: RestoreTargetDirectory;
  /** the journal and the lock go in `<root>/.tmsync/` */
  root: string;
  /**
   * the write engine's session (its lock) a caller already holds on `root`; `journalWrite` is then
   * the session's @default one is opened and closed by the restore
   */
  session?: ApplySession;
  /** wait this long for a held lock when the restore opens the session; 0 fails at once @default 0 */
  lockTimeoutMs?: number;
  /** operations in flight; the client's queue still enforces the rate limit @default 8 */
  parallel?: number;
  /** run-case rows per update request @default 200 */
  batchSize?: number;
  /**
   * send runs' `environment_ids` (they are ids of the source instance: only meaningful when the
   * target is the same instance) @default false
   */
  keepEnvironments?: boolean;
  signal?: AbortSignal;
  /**
   * the target's base URL: with it, a backup restored into its own source project on the same
   * instance is refused unless that project is empty (the project id alone also tells)
   * @default undefined (only the project id is compared)
   */
  targetBaseUrl?: string;
  /** the earliest section not finished yet, as items finish */
  onProgress?: (p: { phase: RestorePhase; done: number; total: number }) => void;
}

export interface RestoreResult {
  /** items created by this run, by section */
  created: Record<RestorePhase, number>;
  /** items an earlier run had finished */
  skipped: number;
  /** items found in the target by natural key and adopted instead of created (left as they are) */
  adopted: number;
  /** what the target held before this run, by kind */
  held: Record<RestoreItemType, number>;
  /** replaced users, dropped labels */
  notes: string[];
  journal: string;
}

/** The journal of one backup restored into one target project. */
export function restoreJournalPath(root: string, sourceProjectId: string, backupCreatedAt: string, targetProjectId: string): string {
  const hash = createHash('sha256').update(`${sourceProjectId}\u0000${backupCreatedAt}\u0000${targetProjectId}`).digest('hex').slice(0, 16);
  return join(root, '.tmsync', `restore-${hash}.jsonl`);
}

/** How the restore's journal is named in messages. */
export const RESTORE_JOURNAL: JournalOwner = {
  label: 'restore journal',
  command: 'tmsync restore',
  asideCost: 'the restore starts over: items already restored would be created again',
};

/** The restore's journal file, as the write engine keeps it. */
function journalFile(file: string): JournalFile {
  return {
    file,
    ...RESTORE_JOURNAL,
    hint: 'check the permissions and free space of the directory',
    // a run again says what earlier runs restored
    keep: true,
  };
}

/** Validates the mapping (throws before anything is written), then restores. */
export async function restoreBackup(backup: Backup, options: RestoreOptions): Promise<RestoreResult> {
  const mapping = buildRestoreMapping(backup, options.directory, options);
  checkRequiredFields(backup, mapping);
  const session =
    options.session ??
    (await openApplySession({
      root: options.root,
      command: 'restore',
      lockTimeoutMs: options.lockTimeoutMs ?? 0,
      ...(options.journalWrite ? { journalWrite: options.journalWrite } : {}),
    }));
  try {
    return await restoreWith(session, backup, mapping, options);
  } finally {
    if (!options.session) await session.close();
  }
}

async function restoreWith(session: ApplySession, backup: Backup, mapping: RestoreMapping, options: RestoreOptions): Promise<RestoreResult> {
  const journal = journalFile(restoreJournalPath(options.root, backup.source.project.id, backup.created_at, options.target.id));
  // everything below is read before anything (the journal included) is written
  const earlier = await session.resume(options.target.id, journal);
  const resuming = earlier.ids.size > 0 || earlier.unanswered.size > 0;
  const items = await readTargetItems(options.client, options.target.id, options.signal);
  const held = heldCounts(items);
  if (!resuming && isSourceProject(backup, options.target, options.targetBaseUrl) && Object.values(held).some((n) => n > 0)) {
    throw new TmsyncError(
      'restore_into_source',
      `${options.target.name} (${options.target.humanIdPrefix}) is the project this backup was taken from, and it is not empty (${describeHeld(held)}); nothing was written`,
      { hint: 'pass --project with the project to restore into (another project, or another instance with --base-url); restoring into the source project is only allowed when it is empty' },
    );
  }
  const idOf = (type: RestoreItemType, old: string) => earlier.ids.get(`${type}:${old}`)?.id;
  const adoption = planAdoption(backup, items, {
    idOf,
    isPending: (type, old) => earlier.unanswered.has(`${type}:${old}`),
    claimed: new Set([...earlier.ids.values()].flatMap((r) => (r.id !== undefined ? [r.id] : []))),
    excluded: (type, old) => earlier.exclude.get(`${type}:${old}`) ?? [],
  });
  if (adoption.conflicts.length > 0) throw ambiguousError(adoption.conflicts, `${options.target.name} (${options.target.humanIdPrefix})`);
  const existingIds = targetIds(items);
  const planned = buildRestorePlan(backup, {
    mapping,
    target: options.target,
    journal: earlier,
    adoption,
    existingIds,
    timestampUnit: options.client.timestampUnit(),
    keepEnvironments: options.keepEnvironments ?? false,
    batchSize: options.batchSize ?? 200,
  });
  const progress = phaseProgress(planned, options.onProgress);
  const result = await session.apply(planned.plan, {
    client: options.client,
    journalFile: journal,
    existingIds,
    existingTopFolders: items.folder.filter((f) => f.topName !== undefined).map((f) => ({ id: f.id, name: f.topName! })),
    // what an earlier run began without an answer was paired with the target as just read
    settlePending: (_pending, resumeIds) => {
      for (const [k, r] of planned.resumeIds) resumeIds.set(k, r);
      return new Set();
    },
    window: options.parallel ?? 8,
    ...(options.signal ? { signal: options.signal } : {}),
    onOperationDone: progress,
  });
  throwIfUnfinished(result, planned);
  return { created: createdCounts(result, planned), skipped: sum(planned.finished), adopted: planned.adopted, held, notes: mapping.notes, journal: journal.file };
}

function targetIds(items: TargetItems): Set<string> {
  const ids = new Set<string>();
  for (const list of Object.values(items)) for (const t of list) ids.add(t.id);
  return ids;
}

const sum = (r: Record<RestorePhase, number>) => PHASES.reduce((n, p) => n + r[p], 0);

/** Reports the earliest section not finished yet, as operations end. */
function phaseProgress(planned: RestorePlan, onProgress: RestoreOptions['onProgress']): (key: string) => void {
  const done = { ...planned.finished };
  const report = () => {
    const phase = PHASES.find((p) => done[p] < planned.totals[p]) ?? 'test_runs';
    onProgress?.({ phase, done: done[phase], total: planned.totals[phase] });
  };
  report();
  return (key) => {
    const phase = planned.phaseOf.get(key);
    if (phase === undefined) return;
    done[phase] += 1;
    report();
  };
}

/** Creates this run sent, by section (not the adopted, and not those an earlier run had made). */
function createdCounts(result: ApplyPlanResult, planned: RestorePlan): Record<RestorePhase, number> {
  const created: Record<RestorePhase, number> = { folders: 0, step_groups: 0, test_cases: 0, test_plans: 0, test_runs: 0 };
  for (const op of planned.plan.operations) {
    const phase = planned.phaseOf.get(op.key);
    if (phase === undefined || op.kind === 'adopt' || planned.resumeIds.has(op.key) || !(op.key in result.ids)) continue;
    created[phase] += 1;
  }
  return created;
}

const ITEM_WORDS: Record<string, string> = { ...TYPE_WORDS, complete_plan: 'completing test plan' };

/** A run that did not finish everything fails, naming what failed; run again, it resumes where it stopped. */
function throwIfUnfinished(result: ApplyPlanResult, planned: RestorePlan): void {
  if (result.journalError) {
    throw new TmsyncError('journal_write', result.journalError, { hint: 'check the permissions and free space of the directory; then run the same restore again: it resumes where it stopped, without duplicates' });
  }
  const failed = result.failed.filter((f) => f.stage === 'request');
  if (failed.length > 0) {
    const op = planned.plan.operations.find((o) => o.key === failed[0].key);
    const [type, ...old] = failed[0].key.split(':');
    const what = `${ITEM_WORDS[type] ?? type} ${op && 'title' in op ? `"${op.title}"` : op && 'name' in op ? `"${op.name}"` : op && 'body' in op ? `"${op.body.title}"` : old.join(':')}`;
    const more = failed.length > 1 ? ` (and ${failed.length - 1} more failed${result.skipped.length ? `, ${result.skipped.length} not started` : ''})` : '';
    throw new TmsyncError('restore_failed', `restoring ${what}: ${failed[0].message}${more}`, {
      hint: 'run the same restore again: it resumes where it stopped, without duplicates',
      details: { failed, skipped: result.skipped },
    });
  }
  if (result.interrupted || result.skipped.length > 0) {
    throw new TmsyncError('aborted', `the restore was interrupted: ${result.skipped.length} item${result.skipped.length === 1 ? '' : 's'} not started`, {
      hint: 'run the same restore again: it resumes where it stopped, without duplicates',
    });
  }
}

/** Same project id, or the same instance (base URL) and the same project prefix. */
function isSourceProject(backup: Backup, target: RemoteProject, targetBaseUrl: string | undefined): boolean {
  if (backup.source.project.id === target.id) return true;
  return targetBaseUrl !== undefined && sameBaseUrl(backup.source.base_url, targetBaseUrl) && backup.source.project.human_id_prefix.toUpperCase() === target.humanIdPrefix.toUpperCase();
}

function sameBaseUrl(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      const x = new URL(u);
      return `${x.protocol}//${x.host}${x.pathname.replace(/\/+$/, '')}`.toLowerCase();
    } catch {
      return u.replace(/\/+$/, '').toLowerCase();
    }
  };
  return norm(a) === norm(b);
}

/** "3 folders, 30 test cases" */
export function describeHeld(held: Record<RestoreItemType, number>): string {
  const parts = (Object.keys(held) as RestoreItemType[]).filter((t) => held[t] > 0).map((t) => `${held[t]} ${TYPE_WORDS[t]}${held[t] === 1 ? '' : 's'}`);
  return parts.length > 0 ? parts.join(', ') : 'nothing';
}

/** The service refuses a case without these: find such cases before anything is written. */
function checkRequiredFields(backup: Backup, m: RestoreMapping): void {
  const missing: string[] = [];
  for (const c of backup.test_cases) {
    const lacks = [
      ...LOOKUP_FIELDS.map((f) => m.lookup(f.list, c[f.wire]) === undefined && LOOKUP_WORDS[f.list]),
      (m.user(c.owner_id) ?? m.fallbackUser) === undefined && 'owner',
    ].filter((x): x is string => typeof x === 'string');
    if (lacks.length > 0) missing.push(`${c.human_id || c.id} "${c.title}" (no ${lacks.join(', ')})`);
  }
  if (missing.length > 0) {
    throw new TmsyncError(
      'restore_incomplete_case',
      `${missing.length} test case${missing.length === 1 ? '' : 's'} of the backup lack a value the service requires; nothing was written: ${missing.slice(0, 10).join('; ')}${missing.length > 10 ? '; …' : ''}`,
      { hint: 'a case without an owner takes --default-owner EMAIL; lookups must be set on the source service and backed up again' },
    );
  }
}
