import type { Operation, Ref } from '../plan/operations.js';
import { reconcilerFor, type ApplyClient, type ReconcileContext } from './finders.js';
import { fillSelf, requestsFor, type RefResolver, type RequestDescriptor } from './operation-requests.js';

/**
 * One operation sent on its own, outside a plan run: `tmsync test-plan create/complete` and
 * `results push` (the run it creates, its results, its closing). The requests come from the
 * operation table (`operation-requests.ts`) and a create's ambiguous failure is settled by the
 * engine's natural-key finder (`finders.ts`), as in `apply`: the create is confirmed by the lookup
 * and never sent twice blindly. No lock, no journal, no write-back: these commands keep no
 * repository state, and what the caller gets back is the service's item.
 */

interface SendOptions {
  client: ApplyClient;
  projectId: string;
  /** aborts the requests, in flight or not (a command's Ctrl-C) @default none */
  signal?: AbortSignal;
  /**
   * A lookup after an ambiguous create claims only a test plan or run created at or after this
   * time (Unix seconds; `ReconcileContext.createdSince`). @default none
   */
  createdSince?: number;
  /** ids a lookup never claims @default none */
  knownIds?: { has(id: string): boolean };
}

/** The item an answer holds under its request's result key (`test_plan`, `test_run`, …). */
type AnswerItem = { id: string; [key: string]: unknown };

/** Refs of an operation sent on its own are ids: there is no other operation to produce one. */
function resolveId(ref: Ref): string {
  if ('id' in ref) return ref.id;
  throw new Error(`operation ${ref.op} is not part of this request: give the id`);
}

/** The lookup context of a lone operation. */
function contextOf(options: SendOptions): ReconcileContext {
  return {
    client: options.client,
    projectId: options.projectId,
    knownIds: options.knownIds ?? { has: () => false },
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.createdSince !== undefined ? { createdSince: options.createdSince } : {}),
  };
}

/**
 * How every request of an operation is sent, in a plan run (`run-operation.ts`) or on its own: the
 * request as filled (`$self` replaced), the client's retries, and on the request that creates the
 * item the engine's finder as the lookup that settles an ambiguous failure. `signal` aborts the
 * request even in flight; `startSignal` only keeps it from starting (apply's Ctrl-C).
 */
export function callOperationRequest(
  client: ApplyClient,
  op: Operation,
  filled: RequestDescriptor,
  lookup: { ctx: ReconcileContext; resolve: RefResolver },
  signals: { signal?: AbortSignal; startSignal?: AbortSignal } = {},
): Promise<unknown> {
  const reconcile = reconcilerFor(op, filled, lookup.ctx, lookup.resolve);
  return client.call(filled.endpoint, {
    params: filled.params,
    ...(filled.body !== undefined ? { body: filled.body } : {}),
    ...(signals.signal ? { signal: signals.signal } : {}),
    ...(signals.startSignal ? { startSignal: signals.startSignal } : {}),
    ...(reconcile ? { reconcile } : {}),
  });
}

/**
 * Sends one request of an operation sent on its own; resolves the client's answer. `selfId`: the
 * id that fills the request's `$self` (the run a result goes to).
 */
export function sendRequest(op: Operation, req: RequestDescriptor, options: SendOptions, selfId?: string): Promise<unknown> {
  const signals = options.signal ? { signal: options.signal } : {};
  return callOperationRequest(options.client, op, fillSelf(req, selfId), { ctx: contextOf(options), resolve: resolveId }, signals);
}

/**
 * Sends every request of an operation in order (what a resumed item alone needs left out);
 * resolves the whole answer of the last request, and the item the creating request produced
 * (or the last request's item when nothing is created).
 */
export async function sendOperation(op: Operation, options: SendOptions): Promise<{ answer: unknown; item: AnswerItem | undefined }> {
  let selfId: string | undefined;
  let item: AnswerItem | undefined;
  let answer: unknown;
  for (const req of requestsFor(op, resolveId, options.projectId).filter((r) => !r.resumeOnly)) {
    answer = await sendRequest(op, req, options, selfId);
    const got = req.resultKey ? itemWithId(answer, req.resultKey) : undefined;
    if (req.produces) {
      if (!got) throw new Error(`the service's answer to ${req.endpoint} has no id`);
      selfId = got.id;
      item = got;
    } else if (got && selfId === undefined) item = got;
  }
  return { answer, item };
}

/** The item an answer holds under `data.<key>` (a create's: its id and human id), if it holds one. */
export function answerItem(answer: unknown, key: string): Record<string, unknown> | undefined {
  const data = isObject(answer) ? answer.data : undefined;
  const item = isObject(data) ? data[key] : undefined;
  return isObject(item) ? item : undefined;
}

/** The answer's item when it carries an id. */
function itemWithId(answer: unknown, key: string): AnswerItem | undefined {
  const item = answerItem(answer, key);
  return item && typeof item.id === 'string' ? (item as AnswerItem) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
