import { actionOf, itemTypeOf } from '../plan/operation-kinds.js';
import type { BaseKind } from '../base/base.js';
import { caseFieldValues, folderFieldValues, stepGroupFieldValues, type FieldValues } from '../base/field-values.js';
import { isGuarded, recheck, type GuardedItem, type GuardedOp } from './recheck.js';
import type { GuardCheck } from './write-guard.js';
import { normalizeTimestamp } from '../remote/to-actual.js';
import type { AdoptOp, Operation } from '../plan/operations.js';
import type { ApplyResult } from './execute-types.js';
import { confirmDone, CREATE_KINDS, findCreated } from './finders.js';
import { answerItem, callOperationRequest } from './send-operation.js';
import { fillSelf, isCreate, isDelete, requestsFor, type CreateOp, type RequestDescriptor } from './operation-requests.js';
import type { RunState } from './run-state.js';
import { skipped } from './skip-causes.js';

/**
 * Runs one operation of a plan: its requests in order, the id journalled and written back as soon
 * as it is known. Resolves true on success; never rejects (a failure is recorded in the result).
 */
export async function runOperation(state: RunState, planned: Operation): Promise<boolean> {
  const self: SelfId = { id: undefined, humanId: undefined, writtenBack: false };
  let op = planned;
  let check: GuardCheck | undefined;
  try {
    if (op.kind === 'adopt') return await adopt(state, op);
    const gate = await mayStart(state, op);
    if (gate !== 'start') return gate === 'done';
    if (state.guard && isGuarded(op)) {
      check = await state.guard.check(op);
      if (check) {
        const send = guarded(state, op, check);
        if (send === 'conflict') return false;
        if (send === 'nothing') {
          await finish(state, op, self, false);
          return true;
        }
        op = send;
      }
    }
    const found = state.prefound.get(op.key);
    if (found) Object.assign(self, { id: found.id, humanId: found.humanId });
    if (isCreate(op) && self.id === undefined) {
      // a create is never sent unless its `begin` is on disk
      const exclude = op.kind === 'create_folder' ? state.topFolders.get(op.name) : undefined;
      await state.noteJournal(state.options.journal?.begin(op.key, op.kind, exclude));
      if (state.journalError) {
        state.result.skipped.push(skipped(op.key, { kind: 'journal_unwritable' }));
        return false;
      }
    }
    // a create an earlier run made: the requests only a resumed item needs are sent too
    const resumed = found !== undefined;
    const requests = requestsFor(op, state.resolve, state.projectId).filter((r) => resumed || !r.resumeOnly);
    for (let i = 0; i < requests.length; i++) await sendRequest(state, op, requests[i], i === requests.length - 1, self);
    await finish(state, op, self);
    return true;
  } catch (err) {
    const sent = op;
    if (sent.kind !== 'adopt' && !(state.options.signal?.aborted && (err as { code?: string }).code === 'aborted')) {
      // an answer lost after the change was made, or a change an earlier run made without recording so
      const confirmed = await confirmDone(sent, state.options.client, state.projectId, state.resolve).catch(() => false);
      if (confirmed) {
        await finish(state, sent, self);
        return true;
      }
    }
    return failed(state, op, err, self.id === undefined);
  } finally {
    // the next list the guard reads waits for this operation's writes
    check?.release();
  }
}

/**
 * An update re-classified against the item as the check read it (`recheck.ts`): what to send, or
 * `conflict` (listed, not sent), or `nothing` (a folder's conflict settled for the service).
 */
function guarded(state: RunState, op: GuardedOp, check: GuardCheck): GuardedOp | 'conflict' | 'nothing' {
  const { result } = state;
  const prefer = state.guard!.options.prefer;
  const r = recheck(op, check.before, check.now, prefer, (ref) => {
    try {
      return state.resolve(ref);
    } catch {
      return undefined;
    }
  });
  const item = { key: op.key, kind: op.kind, id: op.id, ...('humanId' in op && op.humanId ? { humanId: op.humanId } : {}), ...(fileOf(op) ? { file: fileOf(op) } : {}) };
  for (const c of r.conflicts) (result.conflicts ??= []).push({ ...item, itemType: itemTypeOf(op) as BaseKind, ...c, ...(r.settled ? { settled: r.settled } : {}) });
  if (r.merged.length > 0) (result.merged ??= []).push({ ...item, fields: r.merged });
  if (r.record) (result.recordValues ??= {})[op.key] = r.record;
  if (r.send) return r.send;
  if (r.settled) return 'nothing';
  (result.baselines ??= {})[op.key] = baselineOf(check.before);
  return 'conflict';
}

/** The compare form of an item as the plan read it. */
function baselineOf(item: GuardedItem): { updatedAt?: number; values: FieldValues } {
  if ('individualSteps' in item) return { updatedAt: item.updatedAt, values: caseFieldValues(item) };
  if ('updatedAt' in item) return { updatedAt: item.updatedAt, values: stepGroupFieldValues(item) };
  return { values: folderFieldValues(item) };
}

interface SelfId {
  id: string | undefined;
  humanId: string | undefined;
  /** the id was written back before the last request */
  writtenBack: boolean;
}

async function adopt(state: RunState, op: AdoptOp): Promise<boolean> {
  state.produced.set(op.key, op.id);
  const value = op.writeBack.id ?? (op.itemType === 'folder' ? op.id : (op.humanId ?? op.id));
  await recordDone(state, op, op.id, op.humanId, value);
  await writeBackId(state, op, value);
  state.result.adopted++;
  return true;
}

/**
 * Whether the operation may be sent: `start`, or `done` (nothing to send, counted as success), or
 * `skip` (not started, counted as failed for its dependents). A pending create of a killed run is
 * looked up here when the batch lookups before the run did not settle it.
 */
async function mayStart(state: RunState, op: Operation): Promise<'start' | 'done' | 'skip'> {
  const { prefound, options } = state;
  if (isDelete(op) && state.claimed.has(op.id)) {
    state.result.skipped.push(skipped(op.key, { kind: 'claimed_by_resumed_create' }));
    return 'done';
  }
  if (!isCreate(op)) return 'start';
  if (state.unreconciled.has(op.key)) throw unconfirmed(op.key, state.unreconciled.get(op.key));
  if (state.blockedKinds.has(op.kind) && !prefound.has(op.key)) {
    state.result.skipped.push(skipped(op.key, { kind: 'lookup_blocked', blockedBy: state.blockedKinds.get(op.kind)! }));
    return 'skip';
  }
  if (options.pendingCreates?.has(op.key) && !prefound.has(op.key) && !state.lookedUp.has(op.key)) {
    // an earlier run was killed after sending this create: adopt what it made, if anything
    let found;
    try {
      found = await findCreated(op, state.resumeCtx(op.key), state.resolve);
    } catch (err) {
      throw unconfirmed(op.key, err);
    }
    if (found) state.claim(op.key, found);
  }
  return 'start';
}

/** Sends one request of an operation (or skips a create already resumed) and keeps the id it produces. */
async function sendRequest(state: RunState, op: Operation, req: RequestDescriptor, last: boolean, self: SelfId): Promise<void> {
  const { client, signal } = state.options;
  if (req.produces && self.id !== undefined) {
    if (!last) self.writtenBack = await idKnown(state, op, self.id, self.humanId);
    return;
  }
  const filled = fillSelf(req, self.id);
  let answer: unknown;
  try {
    // Ctrl-C: requests not yet sent never start; the ones in flight finish
    answer = await callOperationRequest(client, op, filled, { ctx: state.runCtx, resolve: state.resolve }, signal ? { startSignal: signal } : {});
  } catch (err) {
    // a delete retried after a lost answer finds nothing: the item is gone, as wanted
    if (isDelete(op) && (err as { code?: string }).code === 'not_found') return;
    throw err;
  }
  const answered = req.resultKey ? (answerItem(answer, req.resultKey) as { updated_at?: unknown } | undefined) : undefined;
  if (last && typeof answered?.updated_at === 'number') (state.result.updatedAt ??= {})[op.key] = String(normalizeTimestamp(answered.updated_at));
  if (!req.produces) return;
  const item = answerItem(answer, req.resultKey ?? '');
  if (!item || typeof item.id !== 'string') throw new Error(`the service's answer to ${filled.endpoint} has no id`);
  self.id = item.id;
  self.humanId = typeof item.human_id === 'string' ? item.human_id : undefined;
  state.knownIds.add(self.id);
  // only written back: an operation without a file (a restore's) does not read it
  if (self.humanId === undefined && isCreate(op) && 'writeBack' in op && op.writeBack.file) self.humanId = await fetchHumanId(state, op, self.id);
  if (!last) self.writtenBack = await idKnown(state, op, self.id, self.humanId);
}

/** Every request succeeded: the id is recorded, journalled as done and written back, and counted. */
async function finish(state: RunState, op: Exclude<Operation, AdoptOp>, self: SelfId, count = true): Promise<void> {
  const id = self.id ?? ('id' in op ? op.id : undefined);
  if (id !== undefined) state.produced.set(op.key, id);
  const finalHumanId = self.humanId ?? ('humanId' in op ? op.humanId : undefined);
  const value = isCreate(op) && id !== undefined ? writeBackValue(op, id, self.humanId) : 'writeBack' in op ? op.writeBack?.id : undefined;
  await recordDone(state, op, id, finalHumanId, value);
  if (value !== undefined && !self.writtenBack) await writeBackId(state, op, value);
  if (count) state.result[COUNTERS[actionOf(op)]]++;
}

const COUNTERS = { create: 'created', update: 'updated', move: 'moved', delete: 'deleted', adopt: 'adopted' } as const satisfies Record<
  ReturnType<typeof actionOf>,
  keyof ApplyResult
>;

/** Records a failure (or an interrupt before sending); resolves false. */
async function failed(state: RunState, op: Operation, err: unknown, noId: boolean): Promise<boolean> {
  const { result, options } = state;
  if (options.signal?.aborted && (err as { code?: string }).code === 'aborted') {
    // stopped before its request was sent: not a failure, the next apply does it
    result.interrupted = true;
    result.skipped.push(skipped(op.key, { kind: 'interrupted', before: 'send' }));
    // its `begin` gets an answer: the request never left, so the next run need not look it up
    await state.noteJournal(options.journal?.failed({ key: op.key, kind: op.kind, message: 'interrupted before it was sent' }));
    return false;
  }
  const message = messageOf(err);
  result.failed.push({ key: op.key, kind: op.kind, file: fileOf(op), message, stage: 'request' });
  const ambiguous = isAmbiguousError(err) && isCreate(op) && noId;
  // an ambiguous create nobody could look up: no create of its kind is sent after it in this run
  if (ambiguous && !state.blockedKinds.has(op.kind)) state.blockedKinds.set(op.kind, op.key);
  await state.noteJournal(options.journal?.failed({ key: op.key, kind: op.kind, message, ...(ambiguous ? { ambiguous: true } : {}) }));
  return false;
}

/** A create's id is known but the operation has more requests: journal it and write it back first. */
async function idKnown(state: RunState, op: Operation, id: string, humanId: string | undefined): Promise<boolean> {
  const value = writeBackValue(op, id, humanId);
  const file = 'writeBack' in op ? op.writeBack?.file : undefined;
  await state.noteJournal(
    state.options.journal?.created({ key: op.key, kind: op.kind, id, ...(humanId ? { human_id: humanId } : {}), ...(file ? { file, write_back: value } : {}) }),
  );
  await writeBackId(state, op, value);
  return true;
}

async function recordDone(state: RunState, op: Operation, id: string | undefined, humanId: string | undefined, value: string | undefined): Promise<void> {
  if (id !== undefined) state.result.ids[op.key] = { id, ...(humanId ? { humanId } : {}) };
  const file = 'writeBack' in op ? op.writeBack?.file : undefined;
  await state.noteJournal(
    state.options.journal?.done({
      key: op.key,
      kind: op.kind,
      ...(id !== undefined ? { id } : {}),
      ...(humanId !== undefined ? { human_id: humanId } : {}),
      ...(file && value !== undefined ? { file, write_back: value } : {}),
    }),
  );
}

/** A write-back failure is reported but does not fail the operation: the remote item exists. */
async function writeBackId(state: RunState, op: Operation, value: string): Promise<void> {
  const file = 'writeBack' in op ? op.writeBack?.file : undefined;
  if (!file) return;
  try {
    await state.options.writeBack(file, value);
  } catch (err) {
    state.result.failed.push({
      key: op.key,
      kind: op.kind,
      file,
      message: `the id ${value} could not be written to ${file}: ${(err as Error).message}`,
      stage: 'write_back',
    });
  }
}

/** Cases and step groups are written back by human id; fetch it when the create answer lacks it. */
async function fetchHumanId(state: RunState, op: CreateOp, id: string): Promise<string | undefined> {
  const read = CREATE_KINDS[op.kind].readHumanId;
  if (!read) return undefined;
  try {
    const humanId = await read(state.options.client, state.projectId, id);
    return typeof humanId === 'string' ? humanId : undefined;
  } catch {
    return undefined;
  }
}

/** The repository file an operation came from, for failure messages. */
function fileOf(op: Operation): string | undefined {
  if ('writeBack' in op && op.writeBack?.file) return op.writeBack.file;
  const m = /^[a-z_]+:(.+\.ya?ml)$/.exec(op.key);
  return m ? m[1] : undefined;
}

/** Folders are written back by id, cases and step groups by human id. */
function writeBackValue(op: Operation, id: string, humanId: string | undefined): string {
  return op.kind === 'create_folder' ? id : (humanId ?? id);
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
