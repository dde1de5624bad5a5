import { createHash } from 'node:crypto';
import * as db from './db/index.js';
import type { DbContext } from './db/index.js';
import type { FieldProblem } from './service-error.js';
import { ServiceError } from './service-error.js';

/**
 * The live dialect's answer shapes, applied to a handler's JSON answer (real-service-notes.md,
 * "More behaviour seen live"). The handlers build the document's shapes; what differs only in form
 * is rewritten here, what differs in behaviour (cursors, run-case list, DYNAMIC filters, multipart
 * only, the `null` exclusion list) is decided in the handlers. docs/emulator.md lists them all.
 *
 * - `created_at`, `updated_at`, `completed_at` are milliseconds (a live database stores them so;
 *   seconds, from a database written before, are scaled);
 *   `start_date`/`end_date` are stored as the client sent them (milliseconds, in this dialect);
 * - a root folder's `parent_folder_id` `""` becomes `null`;
 * - a test case's `label_ids` become `labels: [{id, name, createdAt, updatedAt}]`;
 * - users carry `identity_user_uuid`.
 */
const SECOND_STAMPS = new Set(['created_at', 'updated_at', 'completed_at', 'createdAt', 'updatedAt']);

/** Below this a timestamp is in seconds (year 5138 in seconds; March 1973 in milliseconds). */
const MS_THRESHOLD = 100_000_000_000;

/**
 * A stored timestamp in milliseconds. A live database stores milliseconds already; seconds (a
 * database written by an older emulator) are scaled.
 */
const inMs = (t: number): number => (t < MS_THRESHOLD ? t * 1000 : t);

export function liveBody(endpoint: string, body: unknown, ctx: DbContext): unknown {
  if (body === null || typeof body !== 'object') return body;
  const labels = endpoint.includes('TestCase') ? labelObjects(ctx) : undefined;
  return rewrite(body, labels, endpoint === 'listUsers');
}

type LabelObjects = Map<string, { id: string; name: string; createdAt: number; updatedAt: number }>;

function labelObjects(ctx: DbContext): LabelObjects {
  return new Map(
    db.listLabels(ctx).map((l) => [l.id, { id: l.id, name: l.name, createdAt: inMs(l.created_at), updatedAt: inMs(l.updated_at) }]),
  );
}

function rewrite(v: unknown, labels: LabelObjects | undefined, users: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => rewrite(x, labels, users));
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  const o = v as Record<string, unknown>;
  for (const [k, x] of Object.entries(o)) {
    if (SECOND_STAMPS.has(k) && typeof x === 'number') out[k] = inMs(x);
    else if (k === 'parent_folder_id' && x === '') out[k] = null;
    else if (k === 'label_ids' && labels && Array.isArray(x) && 'title' in o) {
      out.labels = (x as unknown[]).map((id) => labels.get(String(id)) ?? { id, name: String(id) });
    } else out[k] = rewrite(x, labels, users);
  }
  if (users && typeof o.email === 'string' && typeof o.id === 'string') out.identity_user_uuid = identityUuid(o.id);
  return out;
}

/** A stable uuid per user, standing in for the identity provider's id. */
function identityUuid(id: string): string {
  const h = createHash('sha256').update(`identity:${id}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The live error: validation failures are 400 (not 422) with a string `errors.details`. */
export function liveError(e: ServiceError): ServiceError {
  if (e.status === 422) return new ServiceError(400, e.message, detailsText(e));
  // every live answer's `errors.details` is a string (the 404's "<entity> not found with ID: …")
  if (e.details !== undefined && typeof e.details !== 'string') return new ServiceError(e.status, e.message, detailsText(e));
  return e;
}

function detailsText(e: ServiceError): string {
  if (Array.isArray(e.details)) return (e.details as FieldProblem[]).map((p) => `${p.field}: ${p.message}`).join('; ');
  if (e.details !== null && typeof e.details === 'object') {
    return Object.entries(e.details as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join('; ');
  }
  return String(e.details ?? e.message);
}
