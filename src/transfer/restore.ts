import { TmsyncError } from '../errors.js';
import type { RemoteProject } from '../model.js';
import type { TmsClient } from '../remote/client.js';
import { withServiceDates } from '../remote/normalize.js';
import type { Backup, BackupFolder, BackupTestCase, BackupTestRun } from './backup-format.js';
import { caseBody, planBody, runBody, runResults, stepGroupBody, type NewId } from './restore-bodies.js';
import { ambiguousError, heldCounts, planAdoption, readTargetItems, TYPE_WORDS, type AdoptionPlan } from './restore-adopt.js';
import { findCase, findFolder, findStepGroup, findTestPlan, findTestRun, type ReconcileContext } from '../apply/reconcile.js';
import { RestoreJournal, restoreJournalPath, type RestoreItemType } from './restore-journal.js';
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

const emptyCounts = (): Record<RestorePhase, number> => ({ folders: 0, step_groups: 0, test_cases: 0, test_plans: 0, test_runs: 0 });

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
    const r = new Restorer(backup, options, mapping, journal);
    await r.adopt(adoption);
    await r.run();
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

class Restorer {
  readonly created = emptyCounts();
  skipped = 0;
  adopted = 0;
  private readonly params: { project_id: string };
  private readonly claimed: Set<string>;
  private readonly find: ReconcileContext;
  private readonly parallel: number;
  /** `type:old` of items adopted by this run as they are: not counted as an earlier run's */
  private readonly adoptedNow = new Set<string>();

  constructor(
    private readonly backup: Backup,
    private readonly o: RestoreOptions,
    private readonly map: RestoreMapping,
    private readonly journal: RestoreJournal,
  ) {
    this.params = { project_id: o.target.id };
    this.claimed = journal.claimed();
    this.find = { client: o.client, projectId: o.target.id, knownIds: this.claimed, ...(o.signal ? { signal: o.signal } : {}) };
    this.parallel = o.parallel ?? 8;
  }

  async run(): Promise<void> {
    await this.folders();
    await this.each('step_groups', this.backup.step_groups, (g) => about(`step group ${g.human_id} "${g.title}"`, () => this.stepGroup(g)));
    await this.each('test_cases', this.backup.test_cases, (c) => about(`test case ${c.human_id} "${c.title}"`, () => this.testCase(c)));
    await this.each('test_plans', this.backup.test_plans, (p) => about(`test plan ${p.human_id} "${p.title}"`, () => this.plan(p)));
    await this.each('test_runs', this.backup.test_runs, (r) => about(`test run ${r.human_id} "${r.title}"`, () => this.testRun(r)));
    // completing a plan last: a completed plan may refuse new runs
    await forEachLimit(
      this.backup.test_plans.filter((p) => p.status === 'COMPLETED'),
      this.parallel,
      (p) => about(`completing test plan ${p.human_id} "${p.title}"`, () => this.completePlan(p)),
      this.o.signal,
    );
  }

  private async each<T>(phase: RestorePhase, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
    let done = 0;
    this.o.onProgress?.({ phase, done, total: items.length });
    await forEachLimit(
      items,
      this.parallel,
      async (item) => {
        await fn(item);
        done += 1;
        this.o.onProgress?.({ phase, done, total: items.length });
      },
      this.o.signal,
    );
  }

  private readonly idOf: NewId = (type, old) => this.newId(type, old);

  private newId(type: RestoreItemType, old: string): string {
    const id = this.journal.idOf(type, old);
    if (id === undefined) throw new Error(`internal: ${type} ${old} was not restored before it was needed`);
    return id;
  }

  /**
   * Records what was found in the target, read before any create of this run was sent (so an
   * item being created cannot be mistaken for an existing one). An item an earlier run began
   * without an answer is `created` (its follow-ups, such as a folder's move or a run's results,
   * still run); any other is `done`: taken as it is.
   */
  async adopt(plan: AdoptionPlan): Promise<void> {
    for (const a of plan.adopt) {
      this.claimed.add(a.id);
      if (a.pending) await this.journal.created(a.type, a.old, a.id);
      else await this.journal.done(a.type, a.old, a.id);
      this.adoptedNow.add(`${a.type}:${a.old}`);
      this.adopted += 1;
    }
    // begun items not found were never made: their next begin says so
    for (const type of ['folder', 'step_group', 'case', 'plan', 'run'] as const) {
      for (const item of itemsOf(this.backup, type)) if (this.journal.isPending(type, item.id)) this.journal.forget(type, item.id);
    }
  }

  /** Done by an earlier run (counted as skipped) or adopted as it is by this one. */
  private finished(type: RestoreItemType, old: string): boolean {
    if (!this.journal.isDone(type, old)) return false;
    if (!this.adoptedNow.has(`${type}:${old}`)) this.skipped += 1;
    return true;
  }

  /** One create, journaled: the known id when an earlier run made it, else sent (with a lookup after an ambiguous failure). */
  private async create(
    type: RestoreItemType,
    old: string,
    find: () => Promise<{ id: string } | undefined>,
    send: (reconcile: () => Promise<unknown>) => Promise<{ id: string }>,
  ): Promise<{ id: string; fresh: boolean }> {
    const known = this.journal.idOf(type, old);
    if (known !== undefined) return { id: known, fresh: false };
    await this.journal.begin(type, old);
    const item = await send(async () => {
      const found = await find();
      if (!found) return undefined;
      this.claimed.add(found.id);
      return { data: { [wireKey[type]]: found } };
    });
    this.claimed.add(item.id);
    await this.journal.created(type, old, item.id);
    return { id: item.id, fresh: true };
  }

  // -- folders: parents before children; siblings one after another so they keep their order

  private async folders(): Promise<void> {
    const children = new Map<string | null, BackupFolder[]>();
    for (const f of this.backup.folders) children.set(f.parent_id, [...(children.get(f.parent_id) ?? []), f]);
    for (const list of children.values()) list.sort((a, b) => a.order - b.order);
    const total = this.backup.folders.length;
    let done = 0;
    this.o.onProgress?.({ phase: 'folders', done, total });
    let level: (string | null)[] = [null];
    while (level.length > 0) {
      const next: string[] = [];
      await forEachLimit(
        level,
        this.parallel,
        async (parent) => {
          for (const f of children.get(parent) ?? []) {
            await about(`folder "${f.name}"`, () => this.folder(f));
            next.push(f.id);
            done += 1;
            this.o.onProgress?.({ phase: 'folders', done, total });
          }
        },
        this.o.signal,
      );
      level = next;
    }
  }

  private async folder(f: BackupFolder): Promise<void> {
    if (this.finished('folder', f.id)) return;
    const parentId = f.parent_id === null ? null : this.newId('folder', f.parent_id);
    const { id, fresh } = await this.create(
      'folder',
      f.id,
      () => findFolder(this.find, f.name, parentId),
      async (reconcile) =>
        (await this.o.client.call('createFolder', { params: this.params, body: { name: f.name }, reconcile, signal: this.o.signal })).data
          .folder,
    );
    // the service creates folders at the top level; the move is idempotent, so a resumed run repeats it safely
    if (parentId !== null) {
      await this.o.client.call('moveFolder', {
        params: { ...this.params, folder_id: id },
        body: { parent_folder_id: parentId },
        signal: this.o.signal,
      });
    }
    await this.journal.done('folder', f.id, id);
    if (fresh) this.created.folders += 1;
  }

  // -- step groups and cases

  private async stepGroup(g: Backup['step_groups'][number]): Promise<void> {
    if (this.finished('step_group', g.id)) return;
    const body = stepGroupBody(g, this.map);
    const { id, fresh } = await this.create(
      'step_group',
      g.id,
      () => findStepGroup(this.find, g.title),
      async (reconcile) =>
        (await this.o.client.call('createStepGroup', { params: this.params, body, reconcile, signal: this.o.signal })).data.step_group,
    );
    await this.journal.done('step_group', g.id, id);
    if (fresh) this.created.step_groups += 1;
  }

  private async testCase(c: BackupTestCase): Promise<void> {
    if (this.finished('case', c.id)) return;
    const body = caseBody(c, this.map, this.idOf);
    const folderId = body.folder_id as string;
    const { id, fresh } = await this.create(
      'case',
      c.id,
      () => findCase(this.find, c.title, folderId),
      async (reconcile) =>
        (await this.o.client.call('createTestCase', { params: this.params, body, reconcile, signal: this.o.signal })).data.test_case,
    );
    await this.journal.done('case', c.id, id);
    if (fresh) this.created.test_cases += 1;
  }

  // -- plans and runs

  private async plan(p: Backup['test_plans'][number]): Promise<void> {
    if (this.journal.idOf('plan', p.id) !== undefined) {
      if (!this.adoptedNow.has(`plan:${p.id}`)) this.skipped += 1;
      return;
    }
    const body = withServiceDates(planBody(p), this.o.client.timestampUnit());
    const { fresh } = await this.create(
      'plan',
      p.id,
      () => findTestPlan(this.find, p.title),
      async (reconcile) =>
        (await this.o.client.call('createTestPlan', { params: this.params, body, reconcile, signal: this.o.signal })).data.test_plan,
    );
    if (fresh) this.created.test_plans += 1;
  }

  private async completePlan(p: Backup['test_plans'][number]): Promise<void> {
    if (this.journal.isDone('plan', p.id)) return;
    const id = this.newId('plan', p.id);
    const params = { ...this.params, test_plan_id: id };
    try {
      await this.o.client.call('completeTestPlan', { params, signal: this.o.signal });
    } catch (err) {
      // an earlier run may have completed it without recording so
      const plan = await this.o.client.call('getTestPlan', { params, signal: this.o.signal }).catch(() => undefined);
      if (plan?.data.test_plan.status !== 'COMPLETED') throw err;
    }
    await this.journal.done('plan', p.id, id);
  }

  private async testRun(r: BackupTestRun): Promise<void> {
    if (this.finished('run', r.id)) return;
    const body = withServiceDates(runBody(r, this.map, this.idOf, this.o.keepEnvironments ?? false), this.o.client.timestampUnit());
    const { id, fresh } = await this.create(
      'run',
      r.id,
      () => findTestRun(this.find, r.title),
      async (reconcile) =>
        (await this.o.client.call('createTestRun', { params: this.params, body, reconcile, signal: this.o.signal })).data.test_run,
    );
    const runParams = { ...this.params, test_run_id: id };
    if (!fresh && r.status === 'CLOSED') {
      // an earlier run may have closed it already: results need it open
      await this.o.client.call('updateTestRun', { params: runParams, body: { status: 'ACTIVE' }, signal: this.o.signal });
    }
    // results and assignments are idempotent PUTs: a resumed run sends them again
    const { batches, assignOnly } = runResults(r, this.map, this.idOf, this.o.batchSize ?? 200);
    await forEachLimit(batches, 2, async (batch) => {
      await this.o.client.call('updateRunCases', { params: runParams, body: { test_run_cases: batch }, signal: this.o.signal });
    }, this.o.signal);
    await forEachLimit(assignOnly, 2, async (a) => {
      await this.o.client.call('assignRunCaseUser', { params: runParams, body: a, signal: this.o.signal });
    }, this.o.signal);
    if (r.status === 'CLOSED') {
      await this.o.client.call('updateTestRun', { params: runParams, body: { status: 'CLOSED' }, signal: this.o.signal });
    }
    await this.journal.done('run', r.id, id);
    if (fresh) this.created.test_runs += 1;
  }
}

function itemsOf(backup: Backup, type: RestoreItemType): readonly { id: string }[] {
  return { folder: backup.folders, step_group: backup.step_groups, case: backup.test_cases, plan: backup.test_plans, run: backup.test_runs }[type];
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

const wireKey: Record<RestoreItemType, string> = {
  folder: 'folder',
  step_group: 'step_group',
  case: 'test_case',
  plan: 'test_plan',
  run: 'test_run',
};
