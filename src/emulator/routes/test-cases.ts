import type { ParsedBodyOf } from '../../api/endpoints.js';
import * as db from '../db/index.js';
import { CASE_COLUMNS, type CaseFields, type DbContext, type CaseRow, type StepInput, type StepRow } from '../db/index.js';
import { CASE_FIELDS, fieldOf, setField, type FieldKind } from '../../fields.js';
import { listPage, ok, pageInfo, pageRequest, projectOf, type HandlerTable, type RouteContext } from '../http.js';
import { RefChecker } from '../refs.js';
import { notFound } from '../service-error.js';
import { uiPaths } from '../ui/links.js';
import { itemWebUrl } from '../web-url.js';

/**
 * Each case's serialized list item, kept until the log of changed cases (`case_changes`, which
 * the database writes on every change of a case or its steps) names it: a page is then the ids
 * of the list's order kept in memory and a join of kept bytes, with no query per case and no JSON
 * built. Only what is read outside a transaction is kept or taken from the log (one that rolls
 * back takes its log entries back, and the next write numbers its own the same). Bounded in
 * bytes: past the bound the oldest half is dropped.
 */
class ItemCache {
  private readonly items = new Map<string, Buffer>();
  private bytes = 0;
  /** the last entry of the change log read */
  private seen: number;
  constructor(ctx: DbContext) {
    this.seen = db.lastCaseChange(ctx);
  }
  /** Drops the items the change log names since the last call (all of them when the log has dropped entries since). */
  follow(ctx: DbContext): void {
    const { ids, last, complete } = db.caseChangesSince(ctx, this.seen);
    this.seen = last;
    if (!complete) {
      this.items.clear();
      this.bytes = 0;
    }
    for (const id of ids) this.drop(id);
  }
  get(id: string): Buffer | undefined {
    return this.items.get(id);
  }
  set(id: string, json: Buffer): void {
    this.drop(id);
    if (this.bytes + json.length > ITEM_CACHE_BYTES) {
      for (const [key, v] of this.items) {
        this.items.delete(key);
        this.bytes -= v.length;
        if (this.bytes <= ITEM_CACHE_BYTES / 2) break;
      }
    }
    this.items.set(id, json);
    this.bytes += json.length;
  }
  private drop(id: string): void {
    const old = this.items.get(id);
    if (old) {
      this.bytes -= old.length;
      this.items.delete(id);
    }
  }
}
/** About 45,000 cases with 5 steps each. */
const ITEM_CACHE_BYTES = 64 * 1024 * 1024;
const LIST_HEAD = Buffer.from('{"message":"","data":{"test_cases":[');
/** Stands for an item not kept. */
const EMPTY_ITEM = Buffer.alloc(0);

/** One cache per emulator (several may run in one process). */
const caches = new WeakMap<object, ItemCache>();
function cacheOf(c: RouteContext): ItemCache {
  let cache = caches.get(c.db);
  if (!cache) caches.set(c.db, (cache = new ItemCache(c.db)));
  return cache;
}

/** A case as an item of the document's list, serialized: kept with the comma that comes before every item but a page's first (one part per item to join). */
const listItem = (r: CaseRow, steps: StepRow[]) => Buffer.from(`,${JSON.stringify(caseWire(r, { humanId: true, labels: true, steps }))}`);

/**
 * After a create or an update has committed: its case's list item, kept at once (the answer's
 * reads hold everything it needs), so that the next walk of the list builds none.
 */
function keepItem(c: RouteContext, r: CaseRow, steps: StepRow[]): void {
  if (c.dialect === 'live' || c.db.inTransaction) return;
  const cache = cacheOf(c);
  cache.follow(c.db);
  cache.set(r.id, listItem(r, steps));
}

/**
 * The buffers list pages are written into, lent per answer and given back once it is sent. A page
 * is over 100 kB: a buffer of its own per answer is memory the allocator maps and the kernel
 * zeroes page by page, and the garbage collector frees, every request; a lent one is written over.
 */
class BufferPool {
  private readonly free: Buffer[] = [];
  /** The parts joined in a lent buffer, and the call that gives it back. */
  join(parts: Buffer[]): { body: Buffer; done: () => void } {
    let size = 0;
    for (const part of parts) size += part.length;
    let buf = this.free.pop();
    // a buffer too small is dropped: the next one lent is large enough for pages of this size
    if (!buf || buf.length < size) buf = Buffer.allocUnsafeSlow(Math.max(POOLED_BUFFER_MIN, Math.ceil(size * 1.25)));
    let at = 0;
    for (const part of parts) at += part.copy(buf, at);
    const lent = buf;
    return {
      body: lent.subarray(0, size),
      done: () => {
        if (this.free.length < POOLED_BUFFERS_MAX) this.free.push(lent);
      },
    };
  }
}
const POOLED_BUFFER_MIN = 256 * 1024;
/** More answers than this in flight at once get buffers of their own, freed after use. */
const POOLED_BUFFERS_MAX = 32;
const pageBuffers = new BufferPool();

/** A list page builds the items of changed cases one by one up to this many; more, and it reads the whole page in order (two range queries). */
const BUILD_BY_ID = 16;

/** A create's or an update's body, as the update schema parses it (the create's is the same with more required). */
type CaseBody = ParsedBodyOf<'updateTestCase'>;

/** What a created case holds for a field the body leaves out. */
const EMPTY: Record<FieldKind, unknown> = { text: '', template: 'STEPS', lookup: '', user: '', labels: [], steps: [] };

/**
 * The case as the document shows it: the stored row's columns in their order (the document's),
 * `human_id` and `label_ids` when asked, and `individual_steps` before the timestamps.
 */
function caseWire(
  r: CaseRow,
  opts: { humanId: boolean; labels: boolean; steps?: StepRow[] },
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of CASE_COLUMNS) {
    if (key === 'created_at' && opts.steps) out.individual_steps = opts.steps;
    if ((key === 'human_id' && !opts.humanId) || (key === 'label_ids' && !opts.labels)) continue;
    out[key] = r[key];
  }
  return out;
}

/** Steps in the order their `order` fields give (stable for ties and missing values), renumbered from 1. */
function orderedSteps(steps: (StepInput & { order?: number })[]): (StepInput & { order?: number })[] {
  return steps
    .map((s, i) => ({ s, key: s.order ?? Number.MAX_SAFE_INTEGER, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map((x) => x.s);
}

/** Checks every reference in the body; returns the steps with step group human ids resolved. */
function checkBody(c: RouteContext, projectId: string, b: CaseBody): StepInput[] | undefined {
  const refs = new RefChecker(c.db, projectId).folder('folder_id', b.folder_id);
  for (const f of CASE_FIELDS) {
    const value = fieldOf<string | null>(b, f, 'wire');
    if (f.kind === 'lookup') refs.lookup(f.wire, f.list!, value);
    else if (f.kind === 'user') refs.user(f.wire, value);
    else if (f.kind === 'labels') refs.labels(f.wire, b.label_ids);
  }
  const steps = b.individual_steps?.map((s, i) => ({
    ...s,
    step_group_id: refs.stepGroup(`individual_steps.${i}.step_group_id`, s.step_group_id),
  }));
  refs.check();
  return steps && orderedSteps(steps);
}

/** The case's own answers link to its UI page; list items do not (the list is the hot path, its items kept serialized). */
const caseWebUrl = (c: RouteContext, r: CaseRow) => itemWebUrl(c, r.project_id, (prefix) => uiPaths.testCase(prefix, r.human_id));

function caseOf(c: RouteContext): CaseRow {
  const project = projectOf(c);
  const r = db.findCase(c.db, project.id, c.params.test_case_id);
  if (!r) throw notFound('Test case', c.params.test_case_id);
  return r;
}

export const testCaseRoutes = {
  listTestCases(c) {
    const project = projectOf(c);
    const filter = { folderId: c.query.folder_id, search: c.query.search };
    // list extension: human_id and label_ids too, so clients need no GET per case
    const wire = (r: CaseRow & { individual_steps: StepRow[] }) => caseWire(r, { humanId: true, labels: true, steps: r.individual_steps });
    // the live dialect rewrites every item (milliseconds, label objects); `__` filters page the whole list
    if (c.filters.length > 0 || c.dialect === 'live') return listPage(c, 'test_cases', (p) => db.listCases(c.db, project.id, filter, p), wire);
    const p = pageRequest(c);
    const { ids, total } = db.listCaseIds(c.db, project.id, filter, p);
    // inside a transaction (never, for a request) the items are built from what it sees
    const cache = c.db.inTransaction ? undefined : cacheOf(c);
    cache?.follow(c.db);
    const items: Buffer[] = ids.map((id) => cache?.get(id) ?? EMPTY_ITEM);
    const missing = ids.filter((_, i) => items[i] === EMPTY_ITEM);
    if (missing.length > 0) {
      const at = new Map(ids.map((id, i) => [id, i]));
      // a few by id; many (a first walk) through the page's range, as fast per case as one by id is slow
      const rows = missing.length <= BUILD_BY_ID ? db.casesWithSteps(c.db, project.id, missing) : db.listCases(c.db, project.id, filter, p).items;
      for (const r of rows) {
        const i = at.get(r.id)!;
        if (items[i] !== EMPTY_ITEM) continue;
        items[i] = listItem(r, r.individual_steps);
        cache?.set(ids[i], items[i]);
      }
    }
    // the page_info URLs follow the request's Host
    const parts: Buffer[] = [LIST_HEAD, ...items];
    if (items.length > 0) parts[1] = items[0].subarray(1);
    parts.push(Buffer.from(`]},"page_info":${JSON.stringify(pageInfo(c, p, total))}}`));
    const { body, done } = pageBuffers.join(parts);
    return { body, done, contentType: 'application/json; charset=utf-8' };
  },
  getTestCase(c) {
    // the live GET carries the labels (as objects; see dialect.ts)
    const r = caseOf(c);
    return ok('test_case', { ...caseWire(r, { humanId: true, labels: c.dialect === 'live' }), ...caseWebUrl(c, r) });
  },
  createTestCase(c) {
    const project = projectOf(c);
    const b = c.body;
    const { r, steps } = c.db.tx(() => {
      const steps = checkBody(c, project.id, b) ?? [];
      const fields = { title: b.title, folder_id: b.folder_id } as CaseFields;
      for (const f of CASE_FIELDS) if (f.kind !== 'steps') setField(fields, f, 'wire', fieldOf(b, f, 'wire') ?? EMPTY[f.kind]);
      const r = db.insertCase(c.db, project.id, project.human_id_prefix, fields, steps);
      return { r, steps: db.caseSteps(c.db, r.id) };
    });
    keepItem(c, r, steps);
    return ok('test_case', { ...caseWire(r, { humanId: true, labels: true, steps }), ...caseWebUrl(c, r) }, 201);
  },
  updateTestCase(c) {
    const current = caseOf(c);
    const b = c.body;
    const { r, steps: stored } = c.db.tx(() => {
      const steps = checkBody(c, current.project_id, b);
      const patch: Partial<CaseFields> = {};
      if (b.title !== undefined) patch.title = b.title;
      if (b.folder_id !== undefined) patch.folder_id = b.folder_id;
      // omitted fields keep their values; null clears a text or the reviewer
      for (const f of CASE_FIELDS) {
        const value = fieldOf(b, f, 'wire');
        if (f.kind !== 'steps' && value !== undefined) setField(patch, f, 'wire', value ?? EMPTY[f.kind]);
      }
      const r = db.updateCase(c.db, current, patch, steps);
      return { r, steps: db.caseSteps(c.db, r.id) };
    });
    keepItem(c, r, stored);
    // the live update answer carries the labels (as objects; dialect.ts turns the ids into them)
    return ok('test_case', { ...caseWire(r, { humanId: false, labels: c.dialect === 'live', steps: stored }), ...caseWebUrl(c, r) });
  },
  deleteTestCase(c) {
    const r = caseOf(c);
    db.deleteCase(c.db, r.id);
    return { body: { message: 'Test case deleted' } };
  },
} satisfies Partial<HandlerTable>;
