import { CASE_FIELDS } from '../fields.js';
import * as db from './db/index.js';
import type { CaseRow, DbContext } from './db/index.js';
import { invalid, isUuid } from './http.js';
import type { Dialect } from './emulator-options.js';
import type { FieldProblem } from './service-error.js';

/**
 * Which cases a test run holds. STATIC: `static_selection_filters` `[{field: "id", operator: "IN",
 * values: [case ids or human ids]}]`. DYNAMIC: every case of the project matching all
 * `dynamic_selection_filters` at the time the run is created or its filters are updated (a
 * snapshot, not a live query).
 */
export interface Filter {
  field: string;
  operator: string;
  values: string[];
}

/** A dynamic selection filters on the case's identity, its folder and every field that holds ids (lookups, users, labels). */
const DYNAMIC_FIELDS = new Set([
  'id',
  'human_id',
  'title',
  'folder_id',
  ...CASE_FIELDS.filter((f) => f.kind === 'lookup' || f.kind === 'user' || f.kind === 'labels').map((f) => f.wire),
]);
const OPERATORS = new Set(['IN', 'NOT_IN', 'EQ', 'EQUALS', 'NEQ', 'CONTAINS']);

export function staticSelection(ctx: DbContext, projectId: string, filters: Filter[], path: string, dialect: Dialect = 'document'): string[] {
  const problems: FieldProblem[] = [];
  const ids: string[] = [];
  filters.forEach((f, i) => {
    if (f.field !== 'id' || f.operator.toUpperCase() !== 'IN') {
      problems.push({ field: `${path}.${i}`, message: 'static selection supports only {field: "id", operator: "IN"}' });
      return;
    }
    f.values.forEach((v, j) => {
      if (dialect === 'live' && !isUuid(String(v))) {
        // the notes' filter takes case ids; human ids are the document dialect's convenience
        problems.push({ field: `${path}.${i}.values.${j}`, message: `Invalid ID format: ${v}` });
        return;
      }
      const c = db.findCase(ctx, projectId, v);
      if (!c) problems.push({ field: `${path}.${i}.values.${j}`, message: 'no test case with this id in the project' });
      else if (!ids.includes(c.id)) ids.push(c.id);
    });
  });
  if (problems.length) throw invalid(problems);
  return ids;
}

function matches(c: CaseRow, f: Filter): boolean {
  const raw: unknown = Reflect.get(c, f.field);
  const have = Array.isArray(raw) ? raw.map(String) : [String(raw ?? '')];
  const op = f.operator.toUpperCase();
  if (op === 'CONTAINS') return have.some((h) => f.values.some((v) => h.toLowerCase().includes(v.toLowerCase())));
  const hit = have.some((h) => f.values.includes(h));
  return op === 'NOT_IN' || op === 'NEQ' ? !hit : hit;
}

/**
 * DYNAMIC: the cases matching every filter (none: every case). In the live dialect only `IN` filters
 * filter; any other operator selects everything, as the live service did with `EQUALS`.
 */
export function dynamicSelection(ctx: DbContext, projectId: string, all: Filter[], path: string, dialect: Dialect = 'document'): string[] {
  const filters = dialect === 'live' ? all.filter((f) => f.operator.toUpperCase() === 'IN') : all;
  const problems: FieldProblem[] = [];
  filters.forEach((f, i) => {
    if (!DYNAMIC_FIELDS.has(f.field)) problems.push({ field: `${path}.${i}.field`, message: `unsupported field; use one of ${[...DYNAMIC_FIELDS].join(', ')}` });
    if (!OPERATORS.has(f.operator.toUpperCase())) problems.push({ field: `${path}.${i}.operator`, message: `unsupported operator; use one of ${[...OPERATORS].join(', ')}` });
  });
  if (problems.length) throw invalid(problems);
  return db.allCases(ctx, projectId).filter((c) => filters.every((f) => matches(c, f))).map((c) => c.id);
}
