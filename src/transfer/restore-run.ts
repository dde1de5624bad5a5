import type { ReconcileContext } from '../apply/reconcile.js';
import type { Backup } from './backup-format.js';
import type { NewId } from './restore-bodies.js';
import type { AdoptionPlan } from './restore-adopt.js';
import type { RestoreItemType, RestoreJournal } from './restore-journal.js';
import type { RestoreMapping } from './restore-mapping.js';
import type { RestoreOptions, RestorePhase } from './restore.js';
import { forEachLimit } from './streams.js';

/**
 * What one restore run shares between its sections (`restore-items.ts`: folders, step groups,
 * cases; `restore-runs.ts`: test plans and runs): the journal, the ids claimed, the counts, and
 * the journalled create every section goes through.
 */
export class RestoreRun {
  readonly created: Record<RestorePhase, number> = { folders: 0, step_groups: 0, test_cases: 0, test_plans: 0, test_runs: 0 };
  skipped = 0;
  adopted = 0;
  readonly params: { project_id: string };
  /** target ids handed out: a lookup never claims one of them */
  readonly claimed: Set<string>;
  readonly find: ReconcileContext;
  readonly parallel: number;
  /** `type:old` of items adopted by this run as they are: not counted as an earlier run's */
  readonly adoptedNow = new Set<string>();

  constructor(
    readonly backup: Backup,
    readonly o: RestoreOptions,
    readonly map: RestoreMapping,
    readonly journal: RestoreJournal,
  ) {
    this.params = { project_id: o.target.id };
    this.claimed = journal.claimed();
    this.find = { client: o.client, projectId: o.target.id, knownIds: this.claimed, ...(o.signal ? { signal: o.signal } : {}) };
    this.parallel = o.parallel ?? 8;
  }

  /** Runs `fn` over a section's items, `parallel` at once, reporting progress. */
  async each<T>(phase: RestorePhase, items: readonly T[], fn: (item: T) => Promise<void>): Promise<void> {
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

  readonly idOf: NewId = (type, old) => this.newId(type, old);

  newId(type: RestoreItemType, old: string): string {
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
  finished(type: RestoreItemType, old: string): boolean {
    if (!this.journal.isDone(type, old)) return false;
    if (!this.adoptedNow.has(`${type}:${old}`)) this.skipped += 1;
    return true;
  }

  /** One create, journaled: the known id when an earlier run made it, else sent (with a lookup after an ambiguous failure). */
  async create(
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
      return { data: { [WIRE_KEYS[type]]: found } };
    });
    this.claimed.add(item.id);
    await this.journal.created(type, old, item.id);
    return { id: item.id, fresh: true };
  }
}

function itemsOf(backup: Backup, type: RestoreItemType): readonly { id: string }[] {
  return { folder: backup.folders, step_group: backup.step_groups, case: backup.test_cases, plan: backup.test_plans, run: backup.test_runs }[type];
}

const WIRE_KEYS: Record<RestoreItemType, string> = {
  folder: 'folder',
  step_group: 'step_group',
  case: 'test_case',
  plan: 'test_plan',
  run: 'test_run',
};
