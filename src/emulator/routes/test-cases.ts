import type { ParsedBodyOf } from '../../api/endpoints.js';
import * as db from '../db/index.js';
import type { CaseFields, CaseRow, StepInput, StepRow } from '../db/index.js';
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

/** The case as the document shows it; `extra` adds list/update-only fields. */
function caseWire(
  r: CaseRow,
  opts: { humanId: boolean; labels: boolean; steps?: StepRow[] },
): Record<string, unknown> {
  return {
    id: r.id,
    ...(opts.humanId ? { human_id: r.human_id } : {}),
    title: r.title,
    description: r.description,
    template_type: r.template_type,
    preconditions: r.preconditions,
    steps: r.steps,
    expected_results: r.expected_results,
    type_id: r.type_id,
    status_id: r.status_id,
    automation_type_id: r.automation_type_id,
    priority_id: r.priority_id,
    owner_id: r.owner_id,
    reviewer_id: r.reviewer_id,
    folder_id: r.folder_id,
    project_id: r.project_id,
    ...(opts.labels ? { label_ids: r.label_ids } : {}),
    ...(opts.steps ? { individual_steps: opts.steps } : {}),
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
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
  const refs = new RefChecker(c.db, projectId)
    .folder('folder_id', b.folder_id)
    .lookup('type_id', 'types', b.type_id)
    .lookup('status_id', 'statuses', b.status_id)
    .lookup('priority_id', 'priorities', b.priority_id)
    .lookup('automation_type_id', 'automation_types', b.automation_type_id)
    .user('owner_id', b.owner_id)
    .user('reviewer_id', b.reviewer_id)
    .labels('label_ids', b.label_ids);
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
      const fields: CaseFields = {
        title: b.title,
        description: b.description ?? '',
        template_type: b.template_type ?? 'STEPS',
        preconditions: b.preconditions ?? '',
        steps: b.steps ?? '',
        expected_results: b.expected_results ?? '',
        type_id: b.type_id,
        status_id: b.status_id,
        automation_type_id: b.automation_type_id,
        priority_id: b.priority_id,
        owner_id: b.owner_id,
        reviewer_id: b.reviewer_id ?? '',
        folder_id: b.folder_id,
        label_ids: b.label_ids ?? [],
      };
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
      for (const k of ['title', 'template_type', 'type_id', 'status_id', 'automation_type_id', 'priority_id', 'owner_id', 'folder_id', 'label_ids'] as const) {
        if (b[k] !== undefined) (patch as Record<string, unknown>)[k] = b[k];
      }
      // text fields: null clears, undefined keeps
      for (const k of ['description', 'preconditions', 'steps', 'expected_results', 'reviewer_id'] as const) {
        if (b[k] !== undefined) patch[k] = b[k] ?? '';
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
