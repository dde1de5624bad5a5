import type { QueryOf } from '../api/endpoints.js';
import type { CreateCaseOp, CreateFolderOp, CreateStepGroupOp, Operation, Plan, Ref } from '../plan/operations.js';
import type { Journal } from './journal.js';
import { findCreated, findFolder, type ApplyClient, type ReconcileContext } from './reconcile.js';
import { fillSelf, isCreate, requestsFor, type RefResolver } from './requests.js';
import type { WriteBackFn } from './write-back.js';

/**
 * Runs a plan: every operation whose dependencies are done is started, independent ones
 * concurrently (the client's queue enforces the rate and concurrency caps). A failed operation
 * skips only what depends on it. Ids are written back and journalled as soon as they are known.
 * Never prints.
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

export interface ApplyResult {
  created: number;
  updated: number;
  moved: number;
  deleted: number;
  adopted: number;
  failed: ApplyFailure[];
  skipped: { key: string; reason: string }[];
  /** stopped early by the signal: some operations were not started */
  interrupted: boolean;
  /** ids produced or confirmed, by operation key */
  ids: Record<string, { id: string; humanId?: string }>;
  /**
   * The journal could not be written (disk full, …): no operation started after that, the ones in
   * flight finished, and what they did is in this result (not all of it in the journal). The run
   * must end as a failure.
   */
  journalError?: string;
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
}

type CreateOp = CreateFolderOp | CreateCaseOp | CreateStepGroupOp;
type WireItem = { id: string; [key: string]: unknown };

export async function executePlan(plan: Plan, options: ExecuteOptions): Promise<ApplyResult> {
  const { client, journal, signal } = options;
  const projectId = plan.project.id;
  const window = Math.max(1, options.window ?? 64);
  const result: ApplyResult = {
    created: 0,
    updated: 0,
    moved: 0,
    deleted: 0,
    adopted: 0,
    failed: [],
    skipped: [],
    interrupted: false,
    ids: {},
  };

  const ops = new Map<string, Operation>();
  for (const op of plan.operations) ops.set(op.key, op);
  // ids that belong to other items: the plan's and those created in this run
  const knownIds = new Set<string>();
  for (const op of plan.operations) if ('id' in op && typeof op.id === 'string') knownIds.add(op.id);
  for (const id of options.claimedIds ?? []) knownIds.add(id);
  const existing = new Set<string>(options.existingIds ?? []);
  const topFolders = new Map<string, string[]>();
  for (const f of options.existingTopFolders ?? []) {
    existing.add(f.id);
    topFolders.set(f.name, [...(topFolders.get(f.name) ?? []), f.id]);
  }
  // a lookup for a create of an earlier run may find an item the service held before this run,
  // except what that run recorded as existing before its create was sent
  const resumeCtx = (key: string): ReconcileContext => {
    const exclude = new Set(options.pendingExclude?.get(key) ?? []);
    return { client, projectId, knownIds: { has: (id) => knownIds.has(id) || exclude.has(id) } };
  };
  // a journal that cannot be written stops the run: what is not recorded cannot be resumed safely
  let journalError: Error | undefined;
  const noteJournal = async (write: Promise<void> | undefined): Promise<void> => {
    try {
      await write;
    } catch (err) {
      journalError ??= err as Error;
      result.journalError ??= (err as Error).message;
    }
  };
  const runCtx: ReconcileContext = { client, projectId, knownIds: { has: (id) => knownIds.has(id) || existing.has(id) } };

  // dependency bookkeeping: a dependency outside the plan is taken as satisfied
  const waitingOn = new Map<string, number>();
  const dependents = new Map<string, string[]>();
  for (const op of plan.operations) {
    const deps = [...new Set(op.dependsOn)].filter((d) => ops.has(d) && d !== op.key);
    waitingOn.set(op.key, deps.length);
    for (const d of deps) {
      const list = dependents.get(d) ?? [];
      list.push(op.key);
      dependents.set(d, list);
    }
  }

  const produced = new Map<string, string>();
  const lookedUp = new Set<string>();
  const resolve: RefResolver = (ref: Ref) => {
    if ('id' in ref) return ref.id;
    const id = produced.get(ref.op);
    if (id === undefined) throw new Error(`operation ${ref.op} has not produced an id`);
    return id;
  };

  // a deleted item that a resumed create claims must not be deleted by the same run, so the
  // lookups that need no id from this run are done before anything starts
  const claimed = new Set<string>();
  const prefound = new Map<string, { id: string; humanId?: string }>();
  const claim = (key: string, found: { id: string; human_id?: unknown }) => {
    const rec = { id: found.id, ...(typeof found.human_id === 'string' ? { humanId: found.human_id } : {}) };
    prefound.set(key, rec);
    knownIds.add(found.id);
    claimed.add(found.id);
  };
  for (const [key, rec] of options.resumeIds ?? []) {
    if (ops.has(key) && isCreate(ops.get(key)!)) claim(key, { id: rec.id, human_id: rec.humanId });
  }
  // creates a stopped run left open (a `begin` without an answer) are answered before anything
  // starts, with one list read per folder for cases, one folder list and one step group list, in
  // parallel within the client's rate. A create stays open until a lookup positively answers
  // found or not found: one whose lookup fails is journalled as ambiguous again, and no create of
  // its kind is sent in this run (its lookup could otherwise take one of them, or they it). The
  // same holds for a create of this run that fails ambiguously after its own lookup failed.
  const unreconciled = new Map<string, unknown>();
  const blockedKinds = new Map<string, string>();
  const pendingOps = plan.operations.filter(
    (op): op is CreateOp => isCreate(op) && options.pendingCreates?.has(op.key) === true && !prefound.has(op.key),
  );
  if (pendingOps.length > 0) {
    const n = pendingOps.length;
    options.onProgress?.({
      total: plan.operations.length,
      done: 0,
      failed: 0,
      inFlight: 0,
      phase: `checking ${n} create${n === 1 ? '' : 's'} a stopped run left open`,
    });
    const failedLookups = await reconcilePending(pendingOps);
    // one more try each, alone, before giving up on it
    await Promise.all(
      [...failedLookups].map(async ([key, firstErr]) => {
        const op = ops.get(key) as CreateOp;
        try {
          // a folder whose new parent is not known yet can only be at the top level
          const found =
            op.kind === 'create_folder' && op.parent !== null && 'op' in op.parent && !prefound.has(op.parent.op)
              ? await findFolder(resumeCtx(key), op.name, null)
              : await findCreated(op, resumeCtx(key), resolveNow);
          if (found) claim(key, found);
          else lookedUp.add(key);
        } catch (err) {
          unreconciled.set(key, err ?? firstErr);
          if (!blockedKinds.has(op.kind)) blockedKinds.set(op.kind, key);
        }
      }),
    );
  }
  // a queue with a moving head: shift() on a 10,000-entry array would copy it every time
  const ready: string[] = plan.operations.filter((op) => waitingOn.get(op.key) === 0).map((op) => op.key);
  let head = 0;
  const finished = new Set<string>();
  let inFlight = 0;
  const total = plan.operations.length;
  const progress = () =>
    options.onProgress?.({ total, done: finished.size, failed: result.failed.filter((f) => f.stage === 'request').length, inFlight });

  const skipDependents = (key: string, reason: string) => {
    const stack = [...(dependents.get(key) ?? [])];
    while (stack.length) {
      const k = stack.pop()!;
      if (finished.has(k)) continue;
      finished.add(k);
      result.skipped.push({ key: k, reason });
      stack.push(...(dependents.get(k) ?? []));
    }
  };

  /** A reference resolved before anything ran: an id, or the id a resumed create claimed. */
  function resolveNow(ref: Ref): string {
    if ('id' in ref) return ref.id;
    const id = prefound.get(ref.op)?.id;
    if (id === undefined) throw new Error(`operation ${ref.op} has not produced an id`);
    return id;
  }

  /** Batch lookups of pending creates; returns the keys whose read failed, with the error. */
  async function reconcilePending(pending: CreateOp[]): Promise<Map<string, unknown>> {
    const failed = new Map<string, unknown>();
    const params = { project_id: projectId };
    const read = async (endpoint: 'listFolders' | 'listStepGroups' | 'listTestCases', query?: QueryOf<'listTestCases'>) => {
      const items: WireItem[] = [];
      for await (const x of client.paginate(endpoint, { params, ...(query ? { query } : {}) })) items.push(x as WireItem);
      return items;
    };
    const isTop = (parent: unknown) => parent === '' || parent === null || parent === undefined;
    const folders = pending.filter((op): op is CreateFolderOp => op.kind === 'create_folder');
    const groups = pending.filter((op): op is CreateStepGroupOp => op.kind === 'create_step_group');
    const cases = pending.filter((op): op is CreateCaseOp => op.kind === 'create_case');
    const parentOf = (ref: Ref): string | undefined => ('id' in ref ? ref.id : prefound.get(ref.op)?.id);
    await Promise.all([
      (async () => {
        if (folders.length === 0) return;
        let all: WireItem[];
        try {
          all = await read('listFolders');
        } catch (err) {
          for (const op of folders) failed.set(op.key, err);
          return;
        }
        // plan order: a parent is settled before its children
        for (const op of folders) {
          if (op.parent !== null && 'op' in op.parent && failed.has(op.parent.op)) {
            failed.set(op.key, failed.get(op.parent.op));
            continue;
          }
          const parentId = op.parent === null ? undefined : parentOf(op.parent);
          const known = resumeCtx(op.key).knownIds;
          const named = all.filter((f) => f.name === op.name && !known.has(f.id));
          const found = (parentId !== undefined ? named.find((f) => f.parent_folder_id === parentId) : undefined) ?? named.find((f) => isTop(f.parent_folder_id));
          if (found) claim(op.key, found);
          else lookedUp.add(op.key);
        }
      })(),
      (async () => {
        if (groups.length === 0) return;
        let all: WireItem[];
        try {
          all = await read('listStepGroups');
        } catch (err) {
          for (const op of groups) failed.set(op.key, err);
          return;
        }
        for (const op of groups) {
          const known = resumeCtx(op.key).knownIds;
          const found = all.find((g) => g.title === op.body.title && !known.has(g.id));
          if (found) claim(op.key, found);
          else lookedUp.add(op.key);
        }
      })(),
    ]);
    const byFolder = new Map<string, CreateCaseOp[]>();
    for (const op of cases) {
      const ref = op.body.folder;
      const folderId = parentOf(ref);
      if (folderId === undefined) {
        if ('op' in ref && failed.has(ref.op)) failed.set(op.key, failed.get(ref.op));
        // its folder is created by this run: nothing can be in it yet
        else lookedUp.add(op.key);
        continue;
      }
      byFolder.set(folderId, [...(byFolder.get(folderId) ?? []), op]);
    }
    await Promise.all(
      [...byFolder].map(async ([folderId, list]) => {
        let all: WireItem[];
        try {
          all = await read('listTestCases', { folder_id: folderId });
        } catch (err) {
          for (const op of list) failed.set(op.key, err);
          return;
        }
        for (const op of list) {
          const known = resumeCtx(op.key).knownIds;
          const found = all.find((c) => c.title === op.body.title && (c.folder_id === folderId || c.folder_id === undefined) && !known.has(c.id));
          if (found) claim(op.key, found);
          else lookedUp.add(op.key);
        }
      }),
    );
    return failed;
  }

  await new Promise<void>((done) => {
    const pump = () => {
      if (signal?.aborted) result.interrupted = true;
      while (!result.interrupted && !journalError && inFlight < window && head < ready.length) {
        const key = ready[head++];
        if (finished.has(key)) continue;
        inFlight++;
        void runOne(ops.get(key)!).then((ok) => {
          inFlight--;
          finished.add(key);
          if (ok) {
            for (const d of dependents.get(key) ?? []) {
              const left = (waitingOn.get(d) ?? 1) - 1;
              waitingOn.set(d, left);
              if (left === 0 && !finished.has(d)) ready.push(d);
            }
          } else {
            skipDependents(key, `depends on ${key}, which failed`);
          }
          progress();
          pump();
        });
      }
      if (inFlight === 0 && (result.interrupted || journalError || head >= ready.length)) {
        signal?.removeEventListener('abort', pump);
        done();
      }
    };
    signal?.addEventListener('abort', pump, { once: true });
    progress();
    pump();
  });

  for (const op of plan.operations) {
    if (finished.has(op.key)) continue;
    // without an interrupt, only a dependency cycle leaves operations unstarted
    result.skipped.push({
      key: op.key,
      reason: result.interrupted
        ? 'interrupted before it started'
        : journalError
          ? 'not started: the journal could not be written'
          : 'its dependencies form a cycle',
    });
  }
  return result;

  /** Runs one operation; resolves true on success (never rejects). */
  async function runOne(op: Operation): Promise<boolean> {
    let selfId: string | undefined;
    let humanId: string | undefined;
    let writtenBack = false;
    try {
      if (op.kind === 'adopt') {
        produced.set(op.key, op.id);
        const value = op.writeBack.id ?? (op.itemType === 'folder' ? op.id : (op.humanId ?? op.id));
        await recordDone(op, op.id, op.humanId, value);
        await writeBackId(op, value);
        result.adopted++;
        return true;
      }
      if (isDelete(op) && claimed.has(op.id)) {
        result.skipped.push({ key: op.key, reason: 'the item was claimed by a resumed create in this run' });
        return true;
      }
      if (isCreate(op) && unreconciled.has(op.key)) {
        throw unconfirmed(op.key, unreconciled.get(op.key));
      }
      if (isCreate(op) && blockedKinds.has(op.kind) && !prefound.has(op.key)) {
        result.skipped.push({
          key: op.key,
          reason: `not started: ${blockedKinds.get(op.kind)}, a create of the same kind, may have been made and could not be looked up; the next apply looks it up first`,
        });
        return false;
      }
      if (isCreate(op) && options.pendingCreates?.has(op.key) && !prefound.has(op.key) && !lookedUp.has(op.key)) {
        // an earlier run was killed after sending this create: adopt what it made, if anything
        let found;
        try {
          found = await findCreated(op, resumeCtx(op.key), resolve);
        } catch (err) {
          throw unconfirmed(op.key, err);
        }
        if (found) claim(op.key, found);
      }
      if (prefound.has(op.key)) {
        selfId = prefound.get(op.key)!.id;
        humanId = prefound.get(op.key)!.humanId;
      }
      if (isCreate(op) && selfId === undefined) {
        // a create is never sent unless its `begin` is on disk
        await noteJournal(journal?.begin(op.key, op.kind, op.kind === 'create_folder' ? topFolders.get(op.name) : undefined));
        if (journalError) {
          result.skipped.push({ key: op.key, reason: 'not started: the journal could not be written' });
          return false;
        }
      }
      const requests = requestsFor(op, resolve, projectId);
      for (let i = 0; i < requests.length; i++) {
        const req = requests[i];
        const last = i === requests.length - 1;
        if (req.produces && selfId !== undefined) {
          if (!last) writtenBack = await idKnown(op, selfId, humanId);
          continue;
        }
        const filled = fillSelf(req, selfId);
        const reconcile =
          req.produces && isCreate(op)
            ? async () => {
                const found = await findCreated(op, runCtx, resolve);
                return found ? { data: { [req.resultKey ?? 'item']: found } } : undefined;
              }
            : undefined;
        let answer: any;
        try {
          answer = await client.call(filled.endpoint, {
            params: filled.params,
            // Ctrl-C: requests not yet sent never start; the ones in flight finish
            ...(signal ? { startSignal: signal } : {}),
            ...(filled.body !== undefined ? { body: filled.body } : {}),
            ...(reconcile ? { reconcile } : {}),
          });
        } catch (err) {
          // a delete retried after a lost answer finds nothing: the item is gone, as wanted
          if (isDelete(op) && (err as { code?: string }).code === 'not_found') continue;
          throw err;
        }
        if (req.produces) {
          const item = answer?.data?.[req.resultKey ?? ''] as { id?: string; human_id?: string } | undefined;
          if (!item || typeof item.id !== 'string') throw new Error(`the service's answer to ${filled.endpoint} has no id`);
          selfId = item.id;
          humanId = typeof item.human_id === 'string' ? item.human_id : undefined;
          knownIds.add(selfId);
          if (humanId === undefined && op.kind !== 'create_folder') humanId = await fetchHumanId(op, selfId);
          if (!last) writtenBack = await idKnown(op, selfId, humanId);
        }
      }
      const id = selfId ?? ('id' in op ? op.id : undefined);
      if (id !== undefined) produced.set(op.key, id);
      const finalHumanId = humanId ?? ('humanId' in op ? op.humanId : undefined);
      const value = isCreate(op) && id !== undefined ? writeBackValue(op, id, humanId) : 'writeBack' in op ? op.writeBack?.id : undefined;
      await recordDone(op, id, finalHumanId, value);
      if (value !== undefined && !writtenBack) await writeBackId(op, value);
      count(op);
      return true;
    } catch (err) {
      if (signal?.aborted && (err as { code?: string }).code === 'aborted') {
        // stopped before its request was sent: not a failure, the next apply does it
        result.interrupted = true;
        result.skipped.push({ key: op.key, reason: 'interrupted before it was sent' });
        // its `begin` gets an answer: the request never left, so the next run need not look it up
        await noteJournal(journal?.failed({ key: op.key, kind: op.kind, message: 'interrupted before it was sent' }));
        return false;
      }
      const message = messageOf(err);
      result.failed.push({ key: op.key, kind: op.kind, file: fileOf(op), message, stage: 'request' });
      const ambiguous = isAmbiguousError(err) && isCreate(op) && selfId === undefined;
      // an ambiguous create nobody could look up: no create of its kind is sent after it in this run
      if (ambiguous && !blockedKinds.has(op.kind)) blockedKinds.set(op.kind, op.key);
      await noteJournal(journal?.failed({ key: op.key, kind: op.kind, message, ...(ambiguous ? { ambiguous: true } : {}) }));
      return false;
    }
  }

  /** A create's id is known but the operation has more requests: journal it and write it back first. */
  async function idKnown(op: Operation, id: string, humanId: string | undefined): Promise<boolean> {
    const value = writeBackValue(op, id, humanId);
    const file = 'writeBack' in op ? op.writeBack?.file : undefined;
    await noteJournal(
      journal?.created({ key: op.key, kind: op.kind, id, ...(humanId ? { human_id: humanId } : {}), ...(file ? { file, write_back: value } : {}) }),
    );
    await writeBackId(op, value);
    return true;
  }

  async function recordDone(op: Operation, id: string | undefined, humanId: string | undefined, value: string | undefined): Promise<void> {
    if (id !== undefined) result.ids[op.key] = { id, ...(humanId ? { humanId } : {}) };
    const file = 'writeBack' in op ? op.writeBack?.file : undefined;
    await noteJournal(
      journal?.done({
        key: op.key,
        kind: op.kind,
        ...(id !== undefined ? { id } : {}),
        ...(humanId !== undefined ? { human_id: humanId } : {}),
        ...(file && value !== undefined ? { file, write_back: value } : {}),
      }),
    );
  }

  /** A write-back failure is reported but does not fail the operation: the remote item exists. */
  async function writeBackId(op: Operation, value: string): Promise<void> {
    const file = 'writeBack' in op ? op.writeBack?.file : undefined;
    if (!file) return;
    try {
      await options.writeBack(file, value);
    } catch (err) {
      result.failed.push({
        key: op.key,
        kind: op.kind,
        file,
        message: `the id ${value} could not be written to ${file}: ${(err as Error).message}`,
        stage: 'write_back',
      });
    }
  }

  /** Cases and step groups are written back by human id; fetch it when the create answer lacks it. */
  async function fetchHumanId(op: Operation, id: string): Promise<string | undefined> {
    const params = { project_id: projectId };
    try {
      const item =
        op.kind === 'create_case'
          ? (await client.call('getTestCase', { params: { ...params, test_case_id: id } })).data?.test_case
          : op.kind === 'create_step_group'
            ? (await client.call('getStepGroup', { params: { ...params, step_group_id: id } })).data?.step_group
            : undefined;
      return typeof item?.human_id === 'string' ? item.human_id : undefined;
    } catch {
      return undefined;
    }
  }

  function count(op: Operation): void {
    switch (op.kind) {
      case 'create_folder':
      case 'create_case':
      case 'create_step_group':
        result.created++;
        break;
      case 'update_folder':
      case 'update_case':
      case 'update_step_group':
        result.updated++;
        break;
      case 'move_folder':
      case 'move_case':
        result.moved++;
        break;
      case 'delete_folder':
      case 'delete_case':
      case 'delete_step_group':
        result.deleted++;
        break;
      case 'adopt':
        result.adopted++;
        break;
    }
  }
}

/** The repository file an operation came from, for failure messages. */
export function fileOf(op: Operation): string | undefined {
  if ('writeBack' in op && op.writeBack?.file) return op.writeBack.file;
  const m = /^[a-z_]+:(.+\.ya?ml)$/.exec(op.key);
  return m ? m[1] : undefined;
}

/** Folders are written back by id, cases and step groups by human id. */
function writeBackValue(op: Operation, id: string, humanId: string | undefined): string {
  return op.kind === 'create_folder' ? id : (humanId ?? id);
}

function isDelete(op: Operation): op is Extract<Operation, { kind: 'delete_case' | 'delete_folder' | 'delete_step_group' }> {
  return op.kind === 'delete_case' || op.kind === 'delete_folder' || op.kind === 'delete_step_group';
}

function messageOf(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { serviceMessage?: string; message?: string };
    if (e.message) return e.message;
    if (e.serviceMessage) return e.serviceMessage;
  }
  return String(err);
}

/** A create that may exist and could not be looked up: it stays ambiguous (journalled so). */
function unconfirmed(key: string, cause: unknown): Error {
  return Object.assign(
    new Error(`${key}: a stopped run may have created it, and looking it up failed (${messageOf(cause)}); the next apply looks it up again before creating anything of its kind`),
    { ambiguous: true },
  );
}

function isAmbiguousError(err: unknown): boolean {
  return Boolean(err && typeof err === 'object' && (err as { ambiguous?: boolean }).ambiguous);
}
