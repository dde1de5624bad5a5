import type { ParsedBodyOf } from '../../api/endpoints.js';
import * as db from '../db/index.js';
import type { RunFields, RunRow } from '../db/index.js';
import { isUuid, listPage, ok, projectOf, type HandlerTable, type RouteContext } from '../http.js';
import { RefChecker } from '../refs.js';
import { dynamicSelection, staticSelection, type Filter } from '../selection.js';
import { ServiceError, invalidField, notFound } from '../service-error.js';
import { uiPaths } from '../ui/links.js';
import { itemWebUrl } from '../web-url.js';

/**
 * The run as the notes show it. A DYNAMIC run also carries `dynamic_selection_excluded_test_case_ids`:
 * the excluded case ids in the document dialect, `null` in the live one (as the live GET answers).
 */
export function runWire(c: RouteContext, r: RunRow) {
  const excluded = r.selection_type === 'DYNAMIC' ? { dynamic_selection_excluded_test_case_ids: c.dialect === 'live' ? null : excludedOf(r) } : {};
  return {
    id: r.id,
    human_id: r.human_id,
    title: r.title,
    description: r.description,
    status: r.status,
    selection_type: r.selection_type,
    start_date: r.start_date,
    end_date: r.end_date,
    assignee_id: r.assignee_id,
    project_id: r.project_id,
    labels: r.labels,
    environment_ids: r.environment_ids,
    test_plan_id: r.test_plan_id,
    test_cases_count: r.test_cases_count,
    closed_by: r.status === 'CLOSED' ? closer(c) : null,
    ...excluded,
    created_at: r.created_at,
    updated_at: r.updated_at,
    ...itemWebUrl(c, r.project_id, (prefix) => uiPaths.testRun(prefix, r.human_id)),
  };
}

/**
 * Who closed a run: the live service fills `closed_by` with the user behind the key. The emulator's
 * keys belong to no user, so every key acts as the first user (null when there is none).
 */
function closer(c: RouteContext): string | null {
  return db.listUsers(c.db)[0]?.id ?? null;
}

function excludedOf(r: RunRow): string[] {
  const v = ((r.filters ?? {}) as { dynamic_selection_excluded_test_case_ids?: unknown }).dynamic_selection_excluded_test_case_ids;
  return Array.isArray(v) ? (v as string[]) : [];
}

/**
 * The document dialect's `attachments` extension of a run case: the files stored with its result,
 * each with its page in the web UI (`web_url`); none when it has no files (the live service's list
 * names no files, so the live dialect never adds them).
 */
function attachmentsOf(c: RouteContext, run: RunRow, files: readonly db.AttachmentRow[] | undefined): { attachments?: unknown[] } {
  if (!files || files.length === 0) return {};
  return {
    attachments: files.map((a) => ({
      id: a.id,
      file_name: a.file_name,
      media_type: a.media_type,
      size: a.size,
      ...itemWebUrl(c, run.project_id, (prefix) => uiPaths.attachment(prefix, run.human_id, a.id)),
    })),
  };
}

export function runOf(c: RouteContext): RunRow {
  const project = projectOf(c);
  const r = db.findRun(c.db, project.id, c.params.test_run_id);
  if (!r) throw notFound('Test run', c.params.test_run_id);
  return r;
}

/** `PASSED`, `FAILED`, `IN_PROGRESS`…: the status name as the run-case list reports it. */
function statusWord(name: string | null): string {
  return name ? name.toUpperCase().replace(/[^A-Z0-9]+/g, '_') : 'UNTESTED';
}

/** A create's or an update's body, as the update schema parses it. */
type RunBody = ParsedBodyOf<'updateTestRun'>;

/** Checks references and works out the case list when the selection changes. */
function prepare(c: RouteContext, projectId: string, b: RunBody, current?: RunRow): { patch: Partial<RunFields>; caseIds?: string[] } {
  const refs = new RefChecker(c.db, projectId).user('assignee_id', b.assignee_id);
  const planId = b.test_plan_id === undefined ? undefined : refs.plan('test_plan_id', b.test_plan_id);
  refs.check();
  const patch: Partial<RunFields> = {};
  if (b.title !== undefined) patch.title = b.title;
  if (b.description !== undefined) patch.description = b.description ?? '';
  if (b.status !== undefined) patch.status = b.status;
  if (b.start_date !== undefined) patch.start_date = b.start_date;
  if (b.end_date !== undefined) patch.end_date = b.end_date;
  if (b.assignee_id !== undefined) patch.assignee_id = b.assignee_id || null;
  if (b.label_names !== undefined) patch.labels = b.label_names;
  if (b.environment_ids !== undefined) patch.environment_ids = b.environment_ids;
  if (planId !== undefined) patch.test_plan_id = planId;
  const excluded = b.dynamic_selection_excluded_test_case_ids;
  if (excluded === null && c.dialect === 'live') {
    // what the live service does to a client echoing its own GET back
    throw invalidField('dynamic_selection_excluded_test_case_ids', 'must be a list of test case ids; send only the fields being changed');
  }
  const selectionChanged =
    b.selection_type !== undefined || b.static_selection_filters !== undefined || b.dynamic_selection_filters !== undefined || excluded !== undefined;
  if (!selectionChanged && current) return { patch };
  const type = b.selection_type ?? (b.dynamic_selection_filters && !b.static_selection_filters ? 'DYNAMIC' : (current?.selection_type ?? 'STATIC'));
  patch.selection_type = type;
  const kept = (current?.selection_type === type ? current.filters : undefined) ?? {};
  if (type === 'STATIC') {
    const filters = b.static_selection_filters ?? (kept as { static_selection_filters?: Filter[] }).static_selection_filters ?? [];
    patch.filters = { static_selection_filters: filters };
    return { patch, caseIds: staticSelection(c.db, projectId, filters, 'static_selection_filters', c.dialect) };
  }
  const filters = b.dynamic_selection_filters ?? (kept as { dynamic_selection_filters?: Filter[] }).dynamic_selection_filters ?? [];
  const exclude = excluded === undefined ? (current && current.selection_type === 'DYNAMIC' ? excludedOf(current) : []) : (excluded ?? []);
  const excludedIds = resolveExcluded(c, projectId, exclude);
  patch.filters = { dynamic_selection_filters: filters, dynamic_selection_excluded_test_case_ids: excludedIds };
  const caseIds = dynamicSelection(c.db, projectId, filters, 'dynamic_selection_filters', c.dialect).filter((id) => !excludedIds.includes(id));
  return { patch, caseIds };
}

/** Excluded cases by id or human id, as ids; an unknown one is a field error. */
function resolveExcluded(c: RouteContext, projectId: string, refs: string[]): string[] {
  const checker = new RefChecker(c.db, projectId);
  const ids = refs.map((r, i) => {
    const field = `dynamic_selection_excluded_test_case_ids.${i}`;
    // the notes' list holds case ids; human ids are the document dialect's convenience
    if (c.dialect === 'live' && !isUuid(String(r))) {
      checker.problems.push({ field, message: `Invalid ID format: ${r}` });
      return null;
    }
    return checker.testCase(field, r);
  });
  checker.check();
  return ids.filter((x): x is string => typeof x === 'string');
}

export const testRunRoutes = {
  listTestRuns(c) {
    const project = projectOf(c);
    return listPage(c, 'test_runs', (p) => db.listRuns(c.db, project.id, { planId: c.query.test_plan_id, search: c.query.search }, p), (r) => runWire(c, r));
  },
  getTestRun(c) {
    return ok('test_run', runWire(c, runOf(c)));
  },
  createTestRun(c) {
    const project = projectOf(c);
    const b = c.body;
    return c.db.tx(() => {
      const { patch, caseIds } = prepare(c, project.id, b);
      const fields: RunFields = {
        title: b.title,
        description: '',
        status: 'ACTIVE',
        selection_type: 'STATIC',
        filters: {},
        start_date: null,
        end_date: null,
        assignee_id: null,
        labels: [],
        environment_ids: [],
        test_plan_id: null,
        ...patch,
      };
      return ok('test_run', runWire(c, db.insertRun(c.db, project.id, project.human_id_prefix, fields, caseIds ?? [])));
    });
  },
  updateTestRun(c) {
    const current = runOf(c);
    return c.db.tx(() => {
      const { patch, caseIds } = prepare(c, current.project_id, c.body, current);
      return ok('test_run', runWire(c, db.updateRun(c.db, current, patch, caseIds)));
    });
  },
  deleteTestRun(c) {
    db.deleteRun(c.db, runOf(c).id);
    return { status: 204 };
  },
  listRunCases(c) {
    const run = runOf(c);
    const rows = db.runCases(c.db, run.id);
    if (c.dialect === 'live') {
      // the live shape: `test_run_cases[]` with the status id and name and the case embedded
      const cases = new Map(rows.map((r) => [r.case_id, db.findCase(c.db, run.project_id, r.case_id)]));
      const test_run_cases = rows.map((r) => {
        const tc = cases.get(r.case_id);
        return {
          test_case_id: r.case_id,
          status_id: r.status_id,
          status: r.status_name,
          assignee_id: r.user_id,
          test_case: { id: r.case_id, human_id: r.human_id, title: r.title, folder_id: tc?.folder_id ?? null },
        };
      });
      return { body: { message: '', data: { test_run_cases } } };
    }
    const files = db.runAttachments(c.db, run.id);
    const test_cases = rows.map((r) => ({
      id: r.case_id,
      name: r.title,
      status: statusWord(r.status_name),
      assignee_id: r.user_id,
      human_id: r.human_id,
      status_id: r.status_id,
      ...attachmentsOf(c, run, files.get(r.case_id)),
    }));
    return { body: { message: '', data: { test_cases } } };
  },
  updateRunCases(c) {
    const run = runOf(c);
    if (run.status === 'CLOSED') throw new ServiceError(409, 'Test run is closed: reopen it with {"status":"ACTIVE"} first');
    const rows = c.body.test_run_cases;
    return c.db.tx(() => {
      const refs = new RefChecker(c.db, run.project_id);
      const inRun = new Set(db.runCases(c.db, run.id).map((r) => r.case_id));
      const resolved = rows.map((r, i) => {
        const caseId = refs.testCase(`test_run_cases.${i}.test_case_id`, r.test_case_id);
        if (caseId && !inRun.has(caseId)) refs.problems.push({ field: `test_run_cases.${i}.test_case_id`, message: 'this test case is not in the run' });
        refs.lookup(`test_run_cases.${i}.test_run_status_id`, 'run_statuses', r.test_run_status_id);
        refs.user(`test_run_cases.${i}.user_id`, r.user_id);
        return { ...r, caseId: caseId ?? '' };
      });
      refs.check();
      const files = c.request.tmsFiles ?? [];
      const stray = files.find((f) => f.caseIndex >= rows.length);
      if (stray) {
        throw new ServiceError(400, `Bad request: the file part "${stray.part}" names test_run_cases[${stray.caseIndex}], but the update has ${rows.length} row${rows.length === 1 ? '' : 's'}`);
      }
      for (const f of files) db.addRunCaseAttachment(c.db, run.id, resolved[f.caseIndex].caseId, f);
      const out = resolved.map((r) => {
        const updated_at = db.setRunCaseStatus(c.db, run.id, r.caseId, r.test_run_status_id, r.user_id, r.description);
        const row = db.findRunCase(c.db, run.id, r.caseId)!;
        return { test_case_id: r.caseId, test_run_status_id: r.test_run_status_id, user_id: row.user_id, updated_at };
      });
      return { body: { message: `${out.length} test run case(s) updated`, data: { test_run_cases: out } } };
    });
  },
  assignRunCaseUser(c) {
    const run = runOf(c);
    const b = c.body;
    const refs = new RefChecker(c.db, run.project_id).user('user_id', b.user_id);
    const caseId = refs.testCase('test_case_id', b.test_case_id);
    if (caseId && !db.findRunCase(c.db, run.id, caseId)) refs.problems.push({ field: 'test_case_id', message: 'this test case is not in the run' });
    refs.check();
    const updated_at = db.assignRunCase(c.db, run.id, caseId!, b.user_id);
    return { body: { message: 'User assigned', data: { test_run_case: { test_case_id: caseId, user_id: b.user_id, updated_at } } } };
  },
} satisfies Partial<HandlerTable>;
