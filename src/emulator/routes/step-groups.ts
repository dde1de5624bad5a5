import type { ParsedBodyOf } from '../../api/endpoints.js';
import * as db from '../db/index.js';
import type { GroupStepInput, StepGroupRow } from '../db/index.js';
import { fieldOf, STEP_GROUP_FIELDS, type StepGroupFieldKind } from '../../fields.js';
import { listPage, ok, projectOf, type HandlerTable, type RouteContext } from '../http.js';
import { RefChecker } from '../refs.js';
import { notFound } from '../service-error.js';

/** A create's or an update's body, as the update schema parses it. */
type StepGroupBody = ParsedBodyOf<'updateStepGroup'>;
/** The stored fields of the step group table (the steps are rows of their own). */
type StepGroupFieldsRow = Omit<StepGroupRow, 'id' | 'title' | 'human_id' | 'project_id' | 'created_at' | 'updated_at'>;

/**
 * A step group as answered: every field of the step group table as stored (`label_ids` is an
 * extension: the document's step group has none); steps only when asked.
 */
function groupWire(c: RouteContext, g: StepGroupRow, withSteps: boolean) {
  const out: Record<string, unknown> = { id: g.id, title: g.title, human_id: g.human_id };
  for (const f of STEP_GROUP_FIELDS) {
    if (f.kind !== 'steps') out[f.wire] = fieldOf(g, f, 'wire');
    else if (withSteps) out[f.wire] = db.groupSteps(c.db, g.id);
  }
  return { ...out, project_id: g.project_id, created_at: g.created_at, updated_at: g.updated_at };
}

/** What a create stores for a field its body leaves out, by kind. */
const EMPTY: Record<Exclude<StepGroupFieldKind, 'steps'>, string | string[]> = { text: '', labels: [] };

/** The body's fields of the step group table (steps apart), its labels checked; `fill`: a left-out field stored empty. */
function groupFields(c: RouteContext, projectId: string, b: StepGroupBody, fill: boolean): Partial<StepGroupFieldsRow> {
  const refs = new RefChecker(c.db, projectId);
  const out: Record<string, unknown> = {};
  for (const f of STEP_GROUP_FIELDS) {
    if (f.kind === 'steps') continue;
    const value = fieldOf<string | string[] | null>(b, f, 'wire');
    if (f.kind === 'labels') refs.labels(f.wire, value as string[] | undefined);
    if (value !== undefined || fill) out[f.wire] = value ?? EMPTY[f.kind];
  }
  refs.check();
  return out;
}

/** The request names it `expected_result` (singular); the plural is accepted too. */
function stepInputs(steps: NonNullable<StepGroupBody['steps']>): GroupStepInput[] {
  return steps
    .map((s, i) => ({ s, key: s.order ?? Number.MAX_SAFE_INTEGER, i }))
    .sort((a, b) => a.key - b.key || a.i - b.i)
    .map(({ s }) => ({ step_description: s.step_description ?? '', expected_results: s.expected_result ?? s.expected_results ?? '' }));
}

function groupOf(c: RouteContext): StepGroupRow {
  const project = projectOf(c);
  const g = db.findStepGroup(c.db, project.id, c.params.step_group_id);
  if (!g) throw notFound('Step group', c.params.step_group_id);
  return g;
}

export const stepGroupRoutes = {
  listStepGroups(c) {
    const project = projectOf(c);
    return listPage(c, 'step_groups', (p) => db.listStepGroups(c.db, project.id, p), (g) => groupWire(c, g, false));
  },
  getStepGroup(c) {
    return ok('step_group', groupWire(c, groupOf(c), true));
  },
  createStepGroup(c) {
    const project = projectOf(c);
    const b = c.body;
    const fields = groupFields(c, project.id, b, true) as StepGroupFieldsRow;
    const g = db.insertStepGroup(c.db, project.id, project.human_id_prefix, { title: b.title, ...fields }, stepInputs(b.steps ?? []));
    return ok('step_group', groupWire(c, g, true));
  },
  updateStepGroup(c) {
    const current = groupOf(c);
    const b = c.body;
    // omitted fields keep their values; null clears a text
    const patch: Partial<StepGroupFieldsRow> & { title?: string } = groupFields(c, current.project_id, b, false);
    if (b.title !== undefined) patch.title = b.title;
    const g = db.updateStepGroup(c.db, current, patch, b.steps && stepInputs(b.steps));
    return ok('step_group', groupWire(c, g, true));
  },
  deleteStepGroup(c) {
    db.deleteStepGroup(c.db, groupOf(c).id);
    return { status: 204 };
  },
} satisfies Partial<HandlerTable>;
