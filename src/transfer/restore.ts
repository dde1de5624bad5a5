import { TmsyncError } from '../errors.js';
import type { RemoteProject } from '../model.js';
import type { TmsClient } from '../remote/client.js';
import type { Backup } from './backup-format.js';
import { ambiguousError, heldCounts, planAdoption, readTargetItems, TYPE_WORDS } from './restore-adopt.js';
import { restoreCase, restoreFolders, restoreStepGroup } from './restore-items.js';
import { RestoreJournal, restoreJournalPath, type RestoreItemType } from './restore-journal.js';
import { RestoreRun } from './restore-run.js';
import { completeTestPlan, restoreTestPlan, restoreTestRun } from './restore-runs.js';
import { buildRestoreMapping, type RestoreMapping, type RestoreMappingOptions, type RestoreTargetDirectory } from './restore-mapping.js';
import { forEachLimit } from './streams.js';

/**
 * Recreates a backup in a target project: folders (parents first, siblings in order), step
 * groups, cases, test plans, test runs with their results, every id remapped. Everything the
 * backup uses is matched first; nothing is written when something cannot be matched.
 *
 * Resumable: every create is journaled before it is sent and after it answers. A second run skips
 * what is done, finishes what was half done (a folder's move, a run's results) and looks up by
 * natural key what may have been created without an answer, so nothing is created twice.
 *
 * Safe on a non-empty target: before anything is written the target is read, and every backup
 * item the journal has no id for that already exists there (by natural key, see
 * restore-adopt.ts) is adopted instead of created, so a run from another directory does not
 * duplicate what an earlier run made.
 */

export type RestorePhase = 'folders' | 'step_groups' | 'test_cases' | 'test_plans' | 'test_runs';

export interface RestoreOptions extends RestoreMappingOptions {
  /** appends one journal line (tests inject a failing one) @default the journal file */
  journalWrite?: (text: string) => Promise<void>;
  client: TmsClient;
  target: RemoteProject;
  /** the target's lookups, users and labels */
  directory: RestoreTargetDirectory;
  /** the journal goes in `<root>/.tmsync/` */
  root: string;
  /** creates in flight; the client's queue still enforces the rate limit @default 8 */
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


/** Validates the mapping (throws before anything is written), then restores. */
export async function restoreBackup(backup: Backup, options: RestoreOptions): Promise<RestoreResult> {
  const mapping = buildRestoreMapping(backup, options.directory, options);
  checkRequiredFields(backup, mapping);
  const file = restoreJournalPath(options.root, backup.source.project.id, backup.created_at, options.target.id);
  // everything below is read before anything (the journal included) is written
  const earlier = await RestoreJournal.read(file, options.target.id);
  const resuming = earlier.ids.size > 0 || earlier.pending.size > 0;
  const items = await readTargetItems(options.client, options.target.id, options.signal);
  const held = heldCounts(items);
  if (!resuming && isSourceProject(backup, options.target, options.targetBaseUrl) && Object.values(held).some((n) => n > 0)) {
    throw new TmsyncError(
      'restore_into_source',
      `${options.target.name} (${options.target.humanIdPrefix}) is the project this backup was taken from, and it is not empty (${describeHeld(held)}); nothing was written`,
      { hint: 'pass --project with the project to restore into (another project, or another instance with --base-url); restoring into the source project is only allowed when it is empty' },
    );
  }
  const adoption = planAdoption(backup, items, {
    idOf: (type, old) => earlier.ids.get(`${type}:${old}`),
    isPending: (type, old) => earlier.pending.has(`${type}:${old}`),
    claimed: new Set(earlier.ids.values()),
  });
  if (adoption.conflicts.length > 0) throw ambiguousError(adoption.conflicts, `${options.target.name} (${options.target.humanIdPrefix})`);
  const journal = await RestoreJournal.open(file, options.target.id, options.journalWrite ? { write: options.journalWrite } : {});
  try {
    const r = new RestoreRun(backup, options, mapping, journal);
    await r.adopt(adoption);
    await restoreSections(r);
    return { created: r.created, skipped: r.skipped, adopted: r.adopted, held, notes: mapping.notes, journal: file };
  } finally {
    await journal.close();
  }
}

/** Same project id, or the same instance (base URL) and the same project prefix. */
export function isSourceProject(backup: Backup, target: RemoteProject, targetBaseUrl: string | undefined): boolean {
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
      m.lookup('types', c.type_id) === undefined && 'type',
      m.lookup('statuses', c.status_id) === undefined && 'status',
      m.lookup('priorities', c.priority_id) === undefined && 'priority',
      m.lookup('automation_types', c.automation_type_id) === undefined && 'automation type',
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

/** Every section in order: folders, step groups, cases, test plans, test runs, then plan completions. */
async function restoreSections(r: RestoreRun): Promise<void> {
  const { backup } = r;
  await restoreFolders(r, about);
  await r.each('step_groups', backup.step_groups, (g) => about(`step group ${g.human_id} "${g.title}"`, () => restoreStepGroup(r, g)));
  await r.each('test_cases', backup.test_cases, (c) => about(`test case ${c.human_id} "${c.title}"`, () => restoreCase(r, c)));
  await r.each('test_plans', backup.test_plans, (p) => about(`test plan ${p.human_id} "${p.title}"`, () => restoreTestPlan(r, p)));
  await r.each('test_runs', backup.test_runs, (x) => about(`test run ${x.human_id} "${x.title}"`, () => restoreTestRun(r, x)));
  // completing a plan last: a completed plan may refuse new runs
  await forEachLimit(
    backup.test_plans.filter((p) => p.status === 'COMPLETED'),
    r.parallel,
    (p) => about(`completing test plan ${p.human_id} "${p.title}"`, () => completeTestPlan(r, p)),
    r.o.signal,
  );
}

/** Names the backup item a failure belongs to; a re-run resumes where it stopped. */
async function about(what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof TmsyncError && err.code === 'aborted') throw err;
    const e = err instanceof TmsyncError ? err : undefined;
    throw new TmsyncError(e?.code ?? 'restore_failed', `restoring ${what}: ${err instanceof Error ? err.message : String(err)}`, {
      hint: `${e?.hint ? `${e.hint}; then ` : ''}run the same restore again: it resumes where it stopped, without duplicates`,
      ...(e?.details ? { details: e.details } : {}),
      cause: err,
    });
  }
}
