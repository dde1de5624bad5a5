import type { ParsedBodyOf } from '../../api/endpoints.js';
import * as db from '../db/index.js';
import { CASE_COLUMNS, type CaseFields, type CaseRow, type StepInput, type StepRow } from '../db/index.js';
import { CASE_FIELDS, fieldOf, setField, type FieldKind } from '../../fields.js';
import { listPage, ok, pageInfo, pageRequest, projectOf, type HandlerTable, type RouteContext } from '../http.js';
import { RefChecker } from '../refs.js';
import { notFound } from '../service-error.js';
import { uiPaths } from '../ui/links.js';
import { itemWebUrl } from '../web-url.js';

/**
 * Serialized list pages, valid for one database generation (any write empties it). A 100-case
 * page with steps is ~150 kB of JSON; building it once per change instead of once per request is
 * what lets the emulator serve a full list page well over 1,000 times a second.
 */
class ListCache {
  private generation = -1;
  private readonly pages = new Map<string, { json: Buffer; total: number }>();
  get(generation: number, key: string) {
    if (generation !== this.generation) return undefined;
    return this.pages.get(key);
  }
  set(generation: number, key: string, page: { json: Buffer; total: number }) {
    if (generation !== this.generation) {
      this.pages.clear();
      this.generation = generation;
    }
    if (this.pages.size >= 256) this.pages.clear();
    this.pages.set(key, page);
  }
}
const LIST_HEAD = Buffer.from('{"message":"","data":{"test_cases":');

/** One cache per emulator (several may run in one process). */
const caches = new WeakMap<object, ListCache>();
function cacheOf(c: RouteContext): ListCache {
  let cache = caches.get(c.db);
  if (!cache) caches.set(c.db, (cache = new ListCache()));
  return cache;
}

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

/** The case's own answers link to its UI page; list items do not (the list is the hot path, its pages cached). */
const caseWebUrl = (c: RouteContext, r: CaseRow) => itemWebUrl(c, r.project_id, (prefix) => uiPaths.testCase(prefix, r.human_id));

function caseOf(c: RouteContext): CaseRow {
  const project = projectOf(c);
  const r = db.findCase(c.db, project.id, c.params.test_case_id);
  if (!r) throw notFound('Test case');
  return r;
}

export const testCaseRoutes = {
  listTestCases(c) {
    const project = projectOf(c);
    const filter = { folderId: c.query.folder_id, search: c.query.search };
    // list extension: human_id and label_ids too, so clients need no GET per case
    const wire = (r: CaseRow & { individual_steps: StepRow[] }) => caseWire(r, { humanId: true, labels: true, steps: r.individual_steps });
    if (c.filters.length > 0 || c.dialect === 'live') return listPage(c, 'test_cases', (p) => db.listCases(c.db, project.id, filter, p), wire);
    const p = pageRequest(c);
    const key = JSON.stringify([project.id, filter, p.limit, p.offset]);
    const listCache = cacheOf(c);
    let page = listCache.get(c.db.generation, key);
    if (!page) {
      const { items, total } = db.listCases(c.db, project.id, filter, p);
      page = { json: Buffer.from(JSON.stringify(items.map(wire))), total };
      listCache.set(c.db.generation, key, page);
    }
    // the page_info URLs follow the request's Host, so only the items are cached
    // kept as bytes: encoding 150 kB of text on every send is what the socket write would cost
    const body = Buffer.concat([
      LIST_HEAD,
      page.json,
      Buffer.from(`},"page_info":${JSON.stringify(pageInfo(c, p, page.total))}}`),
    ]);
    return { body, contentType: 'application/json; charset=utf-8' };
  },
  getTestCase(c) {
    // the live GET carries the labels (as objects; see dialect.ts)
    const r = caseOf(c);
    return ok('test_case', { ...caseWire(r, { humanId: true, labels: c.dialect === 'live' }), ...caseWebUrl(c, r) });
  },
  createTestCase(c) {
    const project = projectOf(c);
    const b = c.body;
    return c.db.tx(() => {
      const steps = checkBody(c, project.id, b) ?? [];
      const fields = { title: b.title, folder_id: b.folder_id } as CaseFields;
      for (const f of CASE_FIELDS) if (f.kind !== 'steps') setField(fields, f, 'wire', fieldOf(b, f, 'wire') ?? EMPTY[f.kind]);
      const r = db.insertCase(c.db, project.id, project.human_id_prefix, fields, steps);
      return ok('test_case', { ...caseWire(r, { humanId: true, labels: true, steps: db.caseSteps(c.db, r.id) }), ...caseWebUrl(c, r) }, 201);
    });
  },
  updateTestCase(c) {
    const current = caseOf(c);
    const b = c.body;
    return c.db.tx(() => {
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
      return ok('test_case', { ...caseWire(r, { humanId: false, labels: false, steps: db.caseSteps(c.db, r.id) }), ...caseWebUrl(c, r) });
    });
  },
  deleteTestCase(c) {
    const r = caseOf(c);
    db.deleteCase(c.db, r.id);
    return { body: { message: 'Test case deleted' } };
  },
} satisfies Partial<HandlerTable>;
