import type { ActualState, RemoteCase, RemoteFolder, RemoteStepGroup } from '../model.js';
import type { Prefer } from '../plan/operations.js';
import { flattenFolders } from '../remote/fetch-state.js';
import { toRemoteCase, toRemoteFolder, toRemoteStepGroup, normalizeTimestamp } from '../remote/to-actual.js';
import type { TmsClient } from '../remote/client.js';
import type { ApplyClient } from './finders.js';
import type { Operation } from '../plan/operations.js';
import { isGuarded, type GuardedItem, type GuardedOp } from './recheck.js';

/**
 * The write guard's reads (docs/sync.md, "When the service changes during an apply"). An update is
 * built from what the plan read; just before it is sent, the item is read again, cheaply: the
 * updates waiting for the same list (a case's folder, the step groups, the folders) share one read
 * of it, made right before their writes, and the next list is read only once those writes are
 * done, so each read is as close to its writes as it can be. A folder holding many more cases than
 * are updated in it is not listed: each case is asked by id (one GET each, the list's copy of a
 * case whose `updated_at` moved). `recheck.ts` compares what was read with what the plan read.
 */

export interface WriteGuardOptions {
  /** the service as the plan read it (for a saved plan: as read when it was found not stale) */
  before: Pick<ActualState, 'cases' | 'stepGroups' | 'folders'>;
  /** how conflicts found while the apply runs are settled (`--prefer`); none: they are not sent */
  prefer?: Prefer;
}

/** The check of one operation: the item as the plan read it and as it is now (undefined: deleted). */
export interface GuardCheck {
  before: GuardedItem;
  now: GuardedItem | undefined;
  /** the operation's requests are done (or it was not sent): the next read may go */
  release: () => void;
}

/**
 * Writes one page of a folder's case list checks at most: at 10 requests per second, a read and the
 * last write it checked are some 2 seconds apart, and the reads add one request per 20 writes.
 */
export const WRITES_PER_PAGE = 20;

type Source = { kind: 'cases'; folderId: string } | { kind: 'step_groups' } | { kind: 'folders' };

interface Batch {
  key: string;
  source: Source;
  ids: Set<string>;
  waiters: { id: string; resolve: (now: GuardedItem | undefined) => void; reject: (err: unknown) => void }[];
  /** its read was started: operations asking later wait for the next one */
  started: boolean;
  /** operations whose check this read answered and whose requests are not done yet */
  open: number;
}

export class WriteGuard {
  private readonly cases: Map<string, RemoteCase>;
  private readonly groups: Map<string, RemoteStepGroup>;
  private readonly folders: Map<string, RemoteFolder>;
  private readonly folderSizes = new Map<string, number>();
  private readonly queue: Batch[] = [];
  private current: Batch | undefined;
  /** requests the guard made */
  reads = 0;
  /** the page size lists are read with (the client's, when it says) */
  private readonly pageSize: number;
  /** step groups the plan read */
  private readonly groupCount: number;

  constructor(
    private readonly client: ApplyClient,
    private readonly projectId: string,
    readonly options: WriteGuardOptions,
    private readonly signal?: AbortSignal,
    /** the operations of the run: only the items their updates write are kept (a large project's state is not indexed twice) */
    operations?: readonly Operation[],
  ) {
    const { before } = options;
    this.pageSize = (client as Partial<Pick<TmsClient, 'pageSize'>>).pageSize ?? 100;
    const written = operations ? new Set(operations.filter(isGuarded).map((op) => op.id)) : undefined;
    const kept = <T extends { id: string }>(items: readonly T[]) => new Map(items.filter((i) => !written || written.has(i.id)).map((i) => [i.id, i]));
    this.cases = kept(before.cases);
    this.groups = kept(before.stepGroups);
    this.folders = kept(before.folders);
    this.groupCount = before.stepGroups.length;
    for (const c of before.cases) this.folderSizes.set(c.folderId, (this.folderSizes.get(c.folderId) ?? 0) + 1);
  }

  /** The item an operation writes as the plan read it; undefined when the plan did not read it (nothing to check). */
  before(op: GuardedOp): GuardedItem | undefined {
    switch (op.kind) {
      case 'update_case':
      case 'move_case':
        return this.cases.get(op.id);
      case 'update_step_group':
        return this.groups.get(op.id);
      case 'update_folder':
      case 'move_folder':
        return this.folders.get(op.id);
    }
  }

  /** Waits for the read that checks the operation's item. */
  async check(op: GuardedOp): Promise<GuardCheck | undefined> {
    const before = this.before(op);
    if (!before) return undefined;
    const source: Source = op.kind === 'update_case' || op.kind === 'move_case' ? { kind: 'cases', folderId: (before as RemoteCase).folderId } : op.kind === 'update_step_group' ? { kind: 'step_groups' } : { kind: 'folders' };
    const key = source.kind === 'cases' ? `cases ${source.folderId}` : source.kind;
    // a read not started yet is joined (the current one, waiting for its turn of the event loop, or
    // a queued one) while it covers fewer writes than its bound
    const room = (b: Batch | undefined) => b !== undefined && b.key === key && !b.started && b.ids.size < this.bound(source);
    let batch = room(this.current) ? this.current : this.queue.find(room);
    if (!batch) {
      batch = { key, source, ids: new Set(), waiters: [], started: false, open: 0 };
      this.queue.push(batch);
    }
    batch.ids.add(op.id);
    const joined = batch;
    const now = await new Promise<GuardedItem | undefined>((resolve, reject) => {
      joined.waiters.push({ id: op.id, resolve, reject });
      this.pump();
    });
    let released = false;
    return {
      before,
      now,
      release: () => {
        if (released) return;
        released = true;
        joined.open--;
        if (joined.open === 0 && this.current === joined) {
          this.current = undefined;
          this.pump();
        }
      },
    };
  }

  /**
   * How many writes one read may check: for a folder's cases, `WRITES_PER_PAGE` per page its list
   * takes, so that the reads cost at most one request per `WRITES_PER_PAGE` writes while the writes
   * of a large folder do not wait long after theirs; the step groups and the folders, all at once.
   */
  private bound(source: Source): number {
    if (source.kind !== 'cases') return Infinity;
    return WRITES_PER_PAGE * Math.max(1, Math.ceil((this.folderSizes.get(source.folderId) ?? 0) / this.pageSize));
  }

  /** Starts the next read once the writes the last one checked are done. */
  private pump(): void {
    if (this.current || this.queue.length === 0) return;
    const batch = this.queue.shift()!;
    this.current = batch;
    // the operations that ask in this turn of the event loop share the read
    setImmediate(() => void this.run(batch));
  }

  private async run(batch: Batch): Promise<void> {
    let found: Map<string, GuardedItem | undefined>;
    batch.started = true;
    try {
      found = await this.read(batch.source, batch.ids);
    } catch (err) {
      for (const w of batch.waiters) w.reject(err);
      this.current = undefined;
      this.pump();
      return;
    }
    batch.open = batch.waiters.length;
    for (const w of batch.waiters) w.resolve(found.get(w.id));
    if (batch.open === 0) {
      this.current = undefined;
      this.pump();
    }
  }

  private read(source: Source, ids: ReadonlySet<string>): Promise<Map<string, GuardedItem | undefined>> {
    switch (source.kind) {
      case 'cases':
        return this.readCases(source.folderId, ids);
      case 'step_groups':
        return this.readStepGroups(ids);
      case 'folders':
        return this.readFolders(ids);
    }
  }

  private get params() {
    return { project_id: this.projectId };
  }

  private req<T extends object>(r: T): T & { signal?: AbortSignal } {
    return { ...r, ...(this.signal ? { startSignal: this.signal } : {}) };
  }

  private async *list<N extends 'listTestCases' | 'listStepGroups' | 'listFolders'>(name: N, query?: Record<string, string>) {
    let first = true;
    for await (const item of this.client.paginate(name, this.req({ params: this.params, ...(query ? { query } : {}) }) as never)) {
      if (first) this.reads++;
      first = false;
      yield item;
    }
    // an empty list is one read too
    if (first) this.reads++;
  }

  /** A GET by id; undefined when the service says the item does not exist. */
  private async get<T>(call: () => Promise<T>): Promise<T | undefined> {
    this.reads++;
    try {
      return await call();
    } catch (err) {
      if ((err as { code?: string }).code === 'not_found') return undefined;
      throw err;
    }
  }

  private async readCases(folderId: string, ids: ReadonlySet<string>): Promise<Map<string, GuardedItem | undefined>> {
    const out = new Map<string, GuardedItem | undefined>();
    const pages = Math.max(1, Math.ceil((this.folderSizes.get(folderId) ?? 0) / this.pageSize));
    if (ids.size < pages) {
      // fewer updates than pages: each case from its folder's list narrowed by the title the plan read
      for (const id of ids) {
        const title = this.cases.get(id)?.title.trim() ?? '';
        for await (const c of this.list('listTestCases', { folder_id: folderId, ...(title ? { title__CONTAINS: title } : {}) })) if (c.id === id) out.set(id, toRemoteCase(c));
      }
    } else {
      for await (const c of this.list('listTestCases', { folder_id: folderId })) if (ids.has(c.id)) out.set(c.id, toRemoteCase(c));
    }
    for (const id of ids) {
      if (out.has(id)) continue;
      // not where the plan read it (moved, renamed) or deleted: asked by id, then read in full where it is
      const got = await this.get(() => this.client.call('getTestCase', this.req({ params: { ...this.params, test_case_id: id } })));
      const item = got?.data.test_case;
      out.set(id, item ? await this.fullCase(id, item.folder_id ?? '', item.title ?? '') : undefined);
    }
    return out;
  }

  /** A case with its steps: the list of its folder narrowed by its title (what a GET lacks). */
  private async fullCase(id: string, folderId: string, title: string): Promise<RemoteCase> {
    const query: Record<string, string> = { folder_id: folderId, ...(title.trim() ? { title__CONTAINS: title.trim() } : {}) };
    for await (const c of this.list('listTestCases', query)) if (c.id === id) return toRemoteCase(c);
    throw Object.assign(new Error(`the case ${id} changed on the service while the apply ran and could not be read again in full; nothing was sent for it, run \`tmsync plan\` again`), { code: 'guard_read' });
  }

  private async readStepGroups(ids: ReadonlySet<string>): Promise<Map<string, GuardedItem | undefined>> {
    const out = new Map<string, GuardedItem | undefined>();
    const full = async (id: string) => {
      const got = await this.get(() => this.client.call('getStepGroup', this.req({ params: { ...this.params, step_group_id: id } })));
      return got ? toRemoteStepGroup(got.data.step_group) : undefined;
    };
    // an equal `updated_at` in whole seconds proves nothing (an edit within the second of the plan's read)
    const seconds = (this.client as Partial<Pick<TmsClient, 'timestampUnit'>>).timestampUnit?.() !== 'milliseconds';
    const pages = Math.max(1, Math.ceil(this.groupCount / this.pageSize));
    if (seconds || ids.size < pages) {
      for (const id of ids) out.set(id, await full(id));
      return out;
    }
    const listed = new Map<string, number>();
    for await (const g of this.list('listStepGroups')) if (ids.has(g.id)) listed.set(g.id, normalizeTimestamp(g.updated_at));
    for (const id of ids) {
      const at = listed.get(id);
      // the list has no steps: a group whose `updated_at` moved (or that the list missed) is read in full
      out.set(id, at !== undefined && at === this.groups.get(id)?.updatedAt ? this.groups.get(id) : await full(id));
    }
    return out;
  }

  private async readFolders(ids: ReadonlySet<string>): Promise<Map<string, GuardedItem | undefined>> {
    const out = new Map<string, GuardedItem | undefined>();
    const wire = [];
    for await (const f of this.list('listFolders')) wire.push(f);
    for (const f of flattenFolders(wire)) if (ids.has(f.id)) out.set(f.id, toRemoteFolder(f));
    for (const id of ids) {
      if (out.has(id)) continue;
      const got = await this.get(() => this.client.call('getFolder', this.req({ params: { ...this.params, folder_id: id } })));
      out.set(id, got ? toRemoteFolder(got.data.folder) : undefined);
    }
    return out;
  }
}
