import type * as W from '../api/resources.js';
import { CASE_FIELDS_BY_KIND, fieldOf, setField, STEP_GROUP_FIELDS, type CaseField } from '../fields.js';
import type {
  LookupEntry,
  RemoteCase,
  RemoteFolder,
  RemoteGroupStep,
  RemoteLabel,
  RemoteProject,
  RemoteStep,
  RemoteStepGroup,
  RemoteTestPlan,
  RemoteUser,
} from '../model.js';
import { webLink } from './web-link.js';
import { textSharer } from '../text-sharer.js';
import { assertNever } from '../assert-never.js';

export { textSharer };

/**
 * Wire shapes (snake_case, live variants) to the model (camelCase, one form). Pure functions.
 * Optional model fields are left out rather than set to undefined, so states compare and print
 * cleanly.
 */

/** Unix seconds. The live service sent milliseconds; anything past 1e11 (year 5138 in seconds) is ms. */
export function normalizeTimestamp(n: number): number {
  return n > 1e11 ? Math.floor(n / 1000) : n;
}

/**
 * A date held in Unix seconds, written in the unit the service answers in: milliseconds when the
 * timestamps it has sent are (the live service), else seconds (the document).
 */
export function toServiceTime(sec: number, unit: 'seconds' | 'milliseconds' | undefined): number {
  const s = normalizeTimestamp(sec);
  return unit === 'milliseconds' ? s * 1000 : s;
}

/** `start_date`/`end_date` of a plan or run body (seconds, or null) in the service's unit. */
export function withServiceDates<T extends Record<string, unknown>>(body: T, unit: 'seconds' | 'milliseconds' | undefined): T {
  const out: Record<string, unknown> = { ...body };
  for (const k of ['start_date', 'end_date']) {
    if (typeof out[k] === 'number') out[k] = toServiceTime(out[k], unit);
  }
  return out as T;
}

function ts(n: number | null | undefined): number | undefined {
  return n === null || n === undefined ? undefined : normalizeTimestamp(n);
}

/**
 * Drops keys whose value is undefined, into a new object: `delete` would turn each object into a
 * slow, several times larger dictionary.
 */
function compact<T extends object>(o: T): T {
  const out = {} as T;
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** Gives one copy of each equal short text: see `textSharer` (src/text-sharer.ts). */
type Share = (s: string) => string;
const unshared: Share = (s) => s;

const text = (s: string | null | undefined): string => s ?? '';
const idOrNull = (s: string | null | undefined): string | null => (s ? s : null);

export function toRemoteProject(w: W.Project): RemoteProject {
  return compact({ id: w.id, name: w.name, humanIdPrefix: w.human_id_prefix, description: w.description ?? undefined, webUrl: webLink(w) });
}

export function toRemoteFolder(w: W.FolderWire): RemoteFolder {
  return { id: w.id, name: w.name, parentId: idOrNull(w.parent_folder_id), order: w.order };
}

/**
 * A case's step in the model. Its own id is not kept: nothing compares, sends or writes it (a case's
 * steps are sent whole), and a large project's step ids add up (issue 15).
 */
function toRemoteStep(w: W.IndividualStep, share: Share = unshared): RemoteStep {
  const groupId = idOrNull(w.step_group_id);
  const description = share(text(w.step_description));
  const expected = share(text(w.expected_results));
  const stepGroupId = groupId === null ? null : share(groupId);
  // literals, not `compact`: an object built key by key from `{}` keeps its fifth key outside
  // itself, a larger object per step (issue 15; docs/performance.md)
  return w.step_type === undefined
    ? { description, expected, order: w.order, stepGroupId }
    : { description, expected, order: w.order, stepType: share(w.step_type), stepGroupId };
}

/**
 * The label ids an item reports: `label_ids` (the emulator's document dialect), or `labels` as
 * objects `{id, name, createdAt, updatedAt}` (the live GET and list) or bare ids. Undefined when it
 * reports neither: its labels are unknown, not empty.
 */
export function reportedLabelIds(w: { label_ids?: readonly string[] | null; labels?: unknown }): string[] | undefined {
  if (Array.isArray(w.label_ids)) return [...(w.label_ids as readonly string[])];
  if (!Array.isArray(w.labels)) return undefined;
  const ids: string[] = [];
  for (const l of w.labels as unknown[]) {
    if (typeof l === 'string') ids.push(l);
    else if (l && typeof l === 'object' && typeof (l as { id?: unknown }).id === 'string') ids.push((l as { id: string }).id);
    else return undefined;
  }
  return ids;
}

/**
 * A wire case in the model, field by field as the field table says: texts and ids default to `""`,
 * ids, lookups, users and texts that repeat are shared (`share`: see `textSharer`; a read of many
 * cases passes one), labels come from `label_ids` or the live `labels` (`reportedLabelIds`), steps
 * are put in order.
 */
export function toRemoteCase(w: W.TestCase, share: Share = unshared): RemoteCase {
  const c = { id: w.id, humanId: w.human_id ?? '', title: w.title, folderId: share(text(w.folder_id)) } as RemoteCase;
  const set = (f: CaseField, value: unknown) => setField(c, f, 'remote', value);
  for (const f of CASE_FIELDS_BY_KIND) {
    const value = fieldOf<string | null>(w, f, 'wire');
    switch (f.kind) {
      case 'text':
        set(f, f.repeats ? share(text(value)) : text(value));
        break;
      case 'template':
      case 'lookup':
      case 'user':
        set(f, share(text(value)));
        break;
      case 'labels': {
        const ids = reportedLabelIds(w)?.map(share);
        if (ids !== undefined) set(f, ids);
        break;
      }
      case 'steps':
        set(f, [...(fieldOf<W.IndividualStep[]>(w, f, 'wire') ?? [])].sort((a, b) => a.order - b.order).map((s) => toRemoteStep(s, share)));
        break;
      default:
        assertNever(f.kind);
    }
  }
  c.createdAt = normalizeTimestamp(w.created_at);
  c.updatedAt = normalizeTimestamp(w.updated_at);
  return c;
}

/** A step group's step in the model; responses use `expected_results`, the create request's singular echoed back is tolerated. */
function toRemoteGroupStep(s: W.StepGroupStep): RemoteGroupStep {
  const expected = s.expected_results ?? (s as { expected_result?: string | null }).expected_result;
  return compact({ id: s.id, description: text(s.step_description), expected: text(expected), order: s.order });
}

/** A wire step group in the model, field by field as the step group table says (texts default to `""`, steps in order). */
export function toRemoteStepGroup(w: W.StepGroup): RemoteStepGroup {
  const g = { id: w.id, humanId: w.human_id, title: w.title } as RemoteStepGroup;
  for (const f of STEP_GROUP_FIELDS) {
    switch (f.kind) {
      case 'text':
        setField(g, f, 'remote', text(fieldOf<string | null>(w, f, 'wire')));
        break;
      case 'labels':
        setField(g, f, 'remote', reportedLabelIds(w));
        break;
      case 'steps':
        setField(g, f, 'remote', [...(fieldOf<W.StepGroupStep[]>(w, f, 'wire') ?? [])].sort((a, b) => a.order - b.order).map(toRemoteGroupStep));
        break;
      default:
        assertNever(f.kind);
    }
  }
  g.createdAt = normalizeTimestamp(w.created_at);
  g.updatedAt = normalizeTimestamp(w.updated_at);
  return compact(g);
}

export function toRemoteTestPlan(w: W.TestPlan): RemoteTestPlan {
  return compact({
    id: w.id,
    humanId: w.human_id ?? '',
    title: w.title,
    description: text(w.description),
    status: w.status,
    startDate: ts(w.start_date),
    endDate: ts(w.end_date),
    createdAt: normalizeTimestamp(w.created_at),
    updatedAt: normalizeTimestamp(w.updated_at),
  });
}

export function toLookup(w: W.LookupEntry): LookupEntry {
  return compact({ id: w.id, name: w.name, alias: w.alias ?? undefined, order: w.order });
}

export function toUser(w: W.User): RemoteUser {
  return compact({ id: w.id, email: w.email, firstName: w.first_name ?? undefined, lastName: w.last_name ?? undefined });
}

export function toLabel(w: W.Label): RemoteLabel {
  return { id: w.id, name: w.name };
}
