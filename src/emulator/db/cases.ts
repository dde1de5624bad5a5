import { randomUUID } from 'node:crypto';
import type { CaseFieldEntry } from '../../fields.js';
import { nextNumber, pageOf, parseJsonArray, type DbContext, type Page, type PageRequest } from './statements.js';

export interface StepRow {
  id: string;
  step_description: string;
  expected_results: string;
  order: number;
  step_type: string;
  step_group_id: string | null;
}

export interface StepInput {
  step_description?: string | null;
  expected_results?: string | null;
  step_type?: string;
  step_group_id?: string | null;
}

/** A case field's column value, by kind: ids and texts as text, label ids as a JSON array (steps have a table of their own). */
interface ColumnValues {
  text: string;
  template: string;
  lookup: string;
  user: string;
  labels: string[];
}
/** The fields of the table (src/fields.ts) stored as columns of `cases`: all but the individual steps. */
type ColumnField = Exclude<CaseFieldEntry, { kind: 'steps' }>;

/**
 * The writable fields of a case; every one is optional on update. Typed from the field table: a
 * field added there is a column here, which `CASE_COLUMNS` and `caseOfColumns` must then name.
 */
export type CaseFields = { title: string; folder_id: string } & { [F in ColumnField as F['wire']]: ColumnValues[F['kind']] };

/** A stored case: its writable fields plus what the service assigns. */
export interface CaseRow extends CaseFields {
  id: string;
  human_id: string;
  project_id: string;
  created_at: number;
  updated_at: number;
}

/** The columns of a stored case, in the order the document shows a case's keys. */
export const CASE_COLUMNS = [
  'id', 'human_id', 'title', 'description', 'template_type', 'preconditions', 'steps', 'expected_results', 'type_id',
  'status_id', 'automation_type_id', 'priority_id', 'owner_id', 'reviewer_id', 'folder_id', 'project_id', 'label_ids',
  'created_at', 'updated_at',
] as const satisfies readonly (keyof CaseRow)[];
/** Every column of `CaseRow` is listed: a forgotten one fails to compile here, naming it. */
type UnlistedColumn = Exclude<keyof CaseRow, (typeof CASE_COLUMNS)[number]>;
const everyColumnListed: [UnlistedColumn] extends [never] ? true : UnlistedColumn = true;
void everyColumnListed;
const COLS = CASE_COLUMNS.join(', ');
/** The columns an update writes: all but what the service assigns. */
const WRITABLE = CASE_COLUMNS.filter(
  (k): k is keyof CaseFields => k !== 'id' && k !== 'human_id' && k !== 'project_id' && k !== 'created_at' && k !== 'updated_at',
);
const INSERT = `INSERT INTO cases (${COLS}) VALUES (${CASE_COLUMNS.map((k) => (k === 'created_at' || k === 'updated_at' ? '@t' : `@${k}`)).join(', ')})`;
const UPDATE = `UPDATE cases SET ${WRITABLE.map((k) => `${k} = @${k}`).join(', ')}, updated_at = @t WHERE id = @id`;

type RawCase = Omit<CaseRow, 'label_ids'> & { label_ids: string };
const toCase = (r: RawCase): CaseRow => ({ ...r, label_ids: parseJsonArray(r.label_ids) });

interface CaseFilter {
  folderId?: string;
  search?: string;
  titleContains?: string;
}

const WHERE = `WHERE project_id = @project
  AND (@folder IS NULL OR folder_id = @folder)
  AND (@title IS NULL OR instr(lower(title), lower(@title)) > 0)
  AND (@search IS NULL OR instr(lower(title), lower(@search)) > 0 OR lower(human_id) = lower(@search))`;

/**
 * A page of cases with their steps: two queries per page (cases, then all their steps), never one
 * per case. The whole project's list and a folder's list are paged through the list's order kept
 * in memory (`casePositions`): no count and no OFFSET walk per request, so a page costs the same at
 * any position in any size of project. Title and search filters count and page in SQL.
 */
export function listCases(
  ctx: DbContext,
  projectId: string,
  f: CaseFilter,
  page: PageRequest,
): Page<CaseRow & { individual_steps: StepRow[] }> {
  const params = { project: projectId, folder: f.folderId ?? null, title: f.titleContains ?? null, search: f.search ?? null };
  if (params.title !== null || params.search !== null) {
    const p = pageOf<RawCase>(ctx, { cols: COLS, from: 'cases', where: WHERE, key: 'seq' }, params, page);
    const rows = p.items.map(toCase);
    const byCase = stepsOf(ctx, rows.map((r) => r.id));
    return { ...p, items: rows.map((r) => ({ ...r, individual_steps: byCase.get(r.id) ?? [] })) };
  }
  const { range: bounds, ...where } = pageRange(ctx, projectId, params.folder, page);
  if (!bounds) return { items: [], ...where };
  const range = { ...params, ...bounds };
  // rows as arrays, made into objects of one fixed shape here: a page is 100 cases and ~500 steps
  const rows = ctx.stmt(`SELECT ${COLS} FROM cases ${WHERE} AND seq BETWEEN @first AND @last ORDER BY seq`).raw(true).all(range) as unknown[][];
  const steps = ctx
    .stmt(
      `SELECT s.case_id, s.id, s.step_description, s.expected_results, s.ord, s.step_type, s.step_group_id
       FROM cases c JOIN case_steps s ON s.case_id = c.id
       WHERE c.project_id = @project AND (@folder IS NULL OR c.folder_id = @folder) AND c.seq BETWEEN @first AND @last
       ORDER BY c.seq, s.ord`,
    )
    .raw(true)
    .all({ project: range.project, folder: range.folder, first: range.first, last: range.last }) as unknown[][];
  const items: (CaseRow & { individual_steps: StepRow[] })[] = [];
  let k = 0;
  for (const r of rows) {
    const id = r[0] as string;
    // both queries walk the same positions in order: a case's steps follow the previous case's
    const individual_steps: StepRow[] = [];
    for (; k < steps.length && steps[k][0] === id; k++) {
      const s = steps[k];
      individual_steps.push({
        id: s[1] as string,
        step_description: s[2] as string,
        expected_results: s[3] as string,
        order: s[4] as number,
        step_type: s[5] as string,
        step_group_id: s[6] as string | null,
      });
    }
    items.push(caseOfColumns(r, individual_steps));
  }
  return { items, ...where };
}

/**
 * The total of a whole project's or one folder's case list, the positions (`seq`, the keys) of a
 * page's cases and the first and last of them (none past the end): the page's cases lie between
 * them, an index range however deep the page. A page after or before a key is found in the kept
 * order too, whether or not the case of the key is still there.
 */
function pageRange(
  ctx: DbContext,
  projectId: string,
  folderId: string | null,
  page: PageRequest,
): { total: number; keys: number[]; more: boolean; earlier: boolean; range?: { first: number; last: number } } {
  const { seqs } = casePositions(ctx, projectId, folderId);
  const total = seqs.length;
  let start: number;
  let end: number;
  if (page.before !== undefined) {
    end = lowerBound(seqs, page.before);
    start = Math.max(0, end - page.limit);
  } else {
    // positions are integers: past `after` is from `after + 1` on
    start = page.after !== undefined ? lowerBound(seqs, page.after + 1) : Math.min(page.offset, total);
    end = page.limit < 0 ? total : Math.min(total, start + page.limit);
  }
  const where = { total, keys: seqs.slice(start, end), more: end < total, earlier: start > 0 };
  return start >= end ? where : { ...where, range: { first: seqs[start], last: seqs[end - 1] } };
}

/**
 * The ids of the cases `listCases` would answer, in list order, and the list's total. A whole
 * project's or a folder's list comes from the order kept in memory, without a query per page;
 * a title or search filter counts and pages in SQL.
 */
export function listCaseIds(ctx: DbContext, projectId: string, f: CaseFilter, page: PageRequest): { ids: string[]; total: number } {
  const params = { project: projectId, folder: f.folderId ?? null, title: f.titleContains ?? null, search: f.search ?? null };
  if (params.title !== null || params.search !== null) {
    const total = (ctx.stmt(`SELECT count(*) AS n FROM cases ${WHERE}`).get(params) as { n: number }).n;
    const rows = ctx.stmt(`SELECT id FROM cases ${WHERE} ORDER BY seq LIMIT @limit OFFSET @offset`).raw(true).all({ ...params, ...page }) as [string][];
    return { ids: rows.map((r) => r[0]), total };
  }
  const { ids } = casePositions(ctx, projectId, params.folder);
  return { ids: ids.slice(page.offset, page.limit < 0 ? undefined : page.offset + page.limit), total: ids.length };
}

/** Cases of a project by id, each with its steps (in no set order; ids not found left out): two queries. */
export function casesWithSteps(ctx: DbContext, projectId: string, ids: string[]): (CaseRow & { individual_steps: StepRow[] })[] {
  if (ids.length === 0) return [];
  // `+project_id`: through the id index; on the project's index SQLite would scan the whole project
  const rows = ctx
    .stmt(`SELECT ${COLS} FROM cases WHERE id IN (SELECT value FROM json_each(?)) AND +project_id = ?`)
    .raw(true)
    .all(JSON.stringify(ids), projectId) as unknown[][];
  const steps = stepsOf(ctx, ids);
  return rows.map((r) => caseOfColumns(r, steps.get(r[0] as string) ?? []));
}

/**
 * The log of changed cases (schema version 5): every change of a case's row or of its steps
 * appends the case's id, numbered in order; at least the last 4,096 entries are kept. `since` the
 * last number read: the ids changed after it, and `complete` false when entries after it were
 * already dropped (then anything may have changed).
 */
export function caseChangesSince(ctx: DbContext, since: number): { ids: string[]; last: number; complete: boolean } {
  const rows = ctx.stmt('SELECT seq, case_id FROM case_changes WHERE seq > ? ORDER BY seq').raw(true).all(since) as [number, string][];
  if (rows.length === 0) return { ids: [], last: since, complete: true };
  // numbers are given in order without gaps (a rolled back write's are given again)
  return { ids: rows.map((r) => r[1]), last: rows[rows.length - 1][0], complete: rows[0][0] === since + 1 };
}

/** The number of the last entry of the log of changed cases (0 when none). */
export function lastCaseChange(ctx: DbContext): number {
  return (ctx.stmt('SELECT coalesce(max(seq), 0) AS n FROM case_changes').get() as { n: number }).n;
}

/** A case from a raw row of `COLS` (in their order), with its steps. */
function caseOfColumns(r: unknown[], individual_steps: StepRow[]): CaseRow & { individual_steps: StepRow[] } {
  return {
    id: r[0] as string,
    human_id: r[1] as string,
    title: r[2] as string,
    description: r[3] as string,
    template_type: r[4] as string,
    preconditions: r[5] as string,
    steps: r[6] as string,
    expected_results: r[7] as string,
    type_id: r[8] as string,
    status_id: r[9] as string,
    automation_type_id: r[10] as string,
    priority_id: r[11] as string,
    owner_id: r[12] as string,
    reviewer_id: r[13] as string,
    folder_id: r[14] as string,
    project_id: r[15] as string,
    label_ids: parseJsonArray(r[16] as string),
    created_at: r[17] as number,
    updated_at: r[18] as number,
    individual_steps,
  };
}

/** A case list's order: the cases' positions (`seq`, ascending) and their ids, index by index. */
interface CaseList {
  seqs: number[];
  ids: string[];
}

/**
 * The case lists kept in memory for one database, as of entry `seen` of the log of the lists'
 * changes (`case_list_changes`, schema version 6), keyed by project and folder ('' for the
 * project's whole list).
 */
interface KeptLists {
  seen: number;
  lists: Map<string, CaseList>;
}

const kept = new WeakMap<DbContext, KeptLists>();

/** More log entries than this to apply, and the kept lists are dropped (read again when needed). */
const APPLY_AT_MOST = 1024;
/** A bound on the memory: past it, lists of many folders read in turn are read again when needed. */
const LISTS_AT_MOST = 64;

const listKey = (projectId: string, folderId: string | null) => `${projectId}\n${folderId ?? ''}`;

/**
 * The positions (`seq`) and ids of a project's cases, or of one folder's, in list order. Kept in
 * memory per database and kept current: every insert, delete (a folder's or project's cascade too)
 * and move of a case appends an entry to `case_list_changes` (migration 6's triggers, whatever
 * wrote it), and each call first applies the entries written since the last one to the kept lists
 * (removes the case from the lists it left, inserts it by position into those it joined). Nothing
 * else changes a list's membership or order; edits of a case's fields leave the lists as they are.
 * A list read inside a transaction is read from what the transaction sees and neither kept nor
 * used: a transaction that rolls back takes its log entries back, and the next write numbers its
 * own the same.
 */
function casePositions(ctx: DbContext, projectId: string, folderId: string | null): CaseList {
  if (ctx.inTransaction) return readCaseList(ctx, projectId, folderId);
  let memo = kept.get(ctx);
  if (!memo) kept.set(ctx, (memo = { seen: lastListChange(ctx), lists: new Map() }));
  else followListChanges(ctx, memo);
  const key = listKey(projectId, folderId);
  let list = memo.lists.get(key);
  if (!list) {
    list = readCaseList(ctx, projectId, folderId);
    if (memo.lists.size >= LISTS_AT_MOST) memo.lists.clear();
    memo.lists.set(key, list);
  }
  return list;
}

function readCaseList(ctx: DbContext, projectId: string, folderId: string | null): CaseList {
  const rows = (
    folderId === null
      ? ctx.stmt('SELECT seq, id FROM cases WHERE project_id = ? ORDER BY seq').raw(true).all(projectId)
      : ctx.stmt('SELECT seq, id FROM cases WHERE folder_id = ? AND project_id = ? ORDER BY seq').raw(true).all(folderId, projectId)
  ) as [number, string][];
  return { seqs: rows.map((r) => r[0]), ids: rows.map((r) => r[1]) };
}

function lastListChange(ctx: DbContext): number {
  return (ctx.stmt('SELECT coalesce(max(seq), 0) AS n FROM case_list_changes').get() as { n: number }).n;
}

type ListChange = [seq: number, caseId: string, oldSeq: number | null, oldProject: string | null, oldFolder: string | null, newSeq: number | null, newProject: string | null, newFolder: string | null];

/** Applies the log entries after `memo.seen` to the kept lists (or drops them all: too many, or entries already trimmed). */
function followListChanges(ctx: DbContext, memo: KeptLists): void {
  const rows = ctx
    .stmt(
      `SELECT seq, case_id, old_seq, old_project, old_folder, new_seq, new_project, new_folder
       FROM case_list_changes WHERE seq > ? ORDER BY seq LIMIT ${APPLY_AT_MOST + 1}`,
    )
    .raw(true)
    .all(memo.seen) as ListChange[];
  if (rows.length === 0) return;
  // entries are numbered without gaps: a first one past `seen + 1` means some were trimmed unread
  if (rows.length > APPLY_AT_MOST || rows[0][0] !== memo.seen + 1) {
    memo.lists.clear();
    memo.seen = rows.length > APPLY_AT_MOST ? lastListChange(ctx) : rows[rows.length - 1][0];
    return;
  }
  memo.seen = rows[rows.length - 1][0];
  if (memo.lists.size === 0) return;
  for (const [, caseId, oldSeq, oldProject, oldFolder, newSeq, newProject, newFolder] of rows) {
    if (oldSeq !== null && oldProject !== null) {
      removeAt(memo.lists.get(listKey(oldProject, null)), oldSeq);
      removeAt(memo.lists.get(listKey(oldProject, oldFolder)), oldSeq);
    }
    if (newSeq !== null && newProject !== null) {
      insertAt(memo.lists.get(listKey(newProject, null)), newSeq, caseId);
      insertAt(memo.lists.get(listKey(newProject, newFolder)), newSeq, caseId);
    }
  }
}

/** The index of the first position in `seqs` not below `seq`. */
function lowerBound(seqs: number[], seq: number): number {
  let lo = 0;
  let hi = seqs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (seqs[mid] < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function removeAt(list: CaseList | undefined, seq: number): void {
  if (!list) return;
  const i = lowerBound(list.seqs, seq);
  if (list.seqs[i] !== seq) return;
  list.seqs.splice(i, 1);
  list.ids.splice(i, 1);
}

function insertAt(list: CaseList | undefined, seq: number, id: string): void {
  if (!list) return;
  const n = list.seqs.length;
  // a create: a new position is past every other
  if (n === 0 || list.seqs[n - 1] < seq) {
    list.seqs.push(seq);
    list.ids.push(id);
    return;
  }
  const i = lowerBound(list.seqs, seq);
  if (list.seqs[i] === seq) {
    list.ids[i] = id;
    return;
  }
  list.seqs.splice(i, 0, seq);
  list.ids.splice(i, 0, id);
}

/** Steps of many cases in one query. */
function stepsOf(ctx: DbContext, caseIds: string[]): Map<string, StepRow[]> {
  const out = new Map<string, StepRow[]>();
  if (caseIds.length === 0) return out;
  const rows = ctx
    .stmt(
      `SELECT case_id, id, step_description, expected_results, ord AS "order", step_type, step_group_id
       FROM case_steps WHERE case_id IN (SELECT value FROM json_each(?)) ORDER BY case_id, ord`,
    )
    .all(JSON.stringify(caseIds)) as (StepRow & { case_id: string })[];
  for (const { case_id, ...step } of rows) {
    let list = out.get(case_id);
    if (!list) out.set(case_id, (list = []));
    list.push(step);
  }
  return out;
}

/** By id or human id, within the project. */
export function findCase(ctx: DbContext, projectId: string, idOrHuman: string): CaseRow | undefined {
  // two indexed lookups: an OR across both columns makes SQLite scan the project's cases
  const r = (ctx.stmt(`SELECT ${COLS} FROM cases WHERE id = ? AND project_id = ?`).get(idOrHuman, projectId) ??
    ctx.stmt(`SELECT ${COLS} FROM cases WHERE project_id = ? AND human_id = ?`).get(projectId, idOrHuman)) as RawCase | undefined;
  return r && toCase(r);
}

export function caseSteps(ctx: DbContext, caseId: string): StepRow[] {
  return stepsOf(ctx, [caseId]).get(caseId) ?? [];
}

function writeSteps(ctx: DbContext, caseId: string, steps: StepInput[]): void {
  ctx.stmt('DELETE FROM case_steps WHERE case_id = ?').run(caseId);
  const ins = ctx.stmt(
    `INSERT INTO case_steps (id, case_id, ord, step_description, expected_results, step_type, step_group_id)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  steps.forEach((s, i) =>
    ins.run(randomUUID(), caseId, i + 1, s.step_description ?? '', s.expected_results ?? '', s.step_type ?? 'DEFAULT', s.step_group_id || null),
  );
}

export function insertCase(ctx: DbContext, projectId: string, prefix: string, f: CaseFields, steps: StepInput[]): CaseRow {
  return ctx.tx(() => {
    const id = randomUUID();
    const t = ctx.nowSec();
    const humanId = `${prefix}-${nextNumber(ctx, projectId, 'case')}`;
    ctx
      .stmt(INSERT)
      .run({ ...f, id, project_id: projectId, human_id: humanId, label_ids: JSON.stringify(f.label_ids), t });
    writeSteps(ctx, id, steps);
    return findCase(ctx, projectId, id)!;
  });
}

/** Omitted fields keep their values; given `steps` replace the list (with new step ids). */
export function updateCase(ctx: DbContext, current: CaseRow, patch: Partial<CaseFields>, steps: StepInput[] | undefined): CaseRow {
  return ctx.tx(() => {
    const next = { ...current, ...patch };
    const values: Record<string, unknown> = { id: current.id, t: ctx.nowSec() };
    for (const k of WRITABLE) values[k] = k === 'label_ids' ? JSON.stringify(next.label_ids) : next[k];
    ctx.stmt(UPDATE).run(values);
    if (steps) writeSteps(ctx, current.id, steps);
    return findCase(ctx, current.project_id, current.id)!;
  });
}

export function deleteCase(ctx: DbContext, id: string): void {
  ctx.stmt('DELETE FROM cases WHERE id = ?').run(id);
}

export function caseIdsOfProject(ctx: DbContext, projectId: string): string[] {
  return (ctx.stmt('SELECT id FROM cases WHERE project_id = ? ORDER BY seq').all(projectId) as { id: string }[]).map((r) => r.id);
}

/** All cases of a project, for dynamic run selection (filters are applied in code). */
export function allCases(ctx: DbContext, projectId: string): CaseRow[] {
  return (ctx.stmt(`SELECT ${COLS} FROM cases WHERE project_id = ? ORDER BY seq`).all(projectId) as RawCase[]).map(toCase);
}

/**
 * One page of the cases directly in a folder, with their step counts (the web UI). Through the
 * folder index: `listCases`' optional filters make SQLite walk the whole project instead.
 */
export function listFolderCases(ctx: DbContext, folderId: string, page: PageRequest): Page<CaseRow & { step_count: number }> {
  const total = (ctx.stmt('SELECT count(*) AS n FROM cases WHERE folder_id = ?').get(folderId) as { n: number }).n;
  const rows = ctx
    .stmt(
      `SELECT ${COLS}, (SELECT count(*) FROM case_steps s WHERE s.case_id = cases.id) AS step_count
       FROM cases WHERE folder_id = ? ORDER BY seq LIMIT ? OFFSET ?`,
    )
    .all(folderId, page.limit, page.offset) as (RawCase & { step_count: number })[];
  return { items: rows.map((r) => ({ ...toCase(r), step_count: r.step_count })), total };
}
