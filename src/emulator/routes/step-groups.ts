import type { ParsedBodyOf } from '../../api/endpoints.js';
import * as db from '../db/index.js';
import type { GroupStepInput, StepGroupRow } from '../db/index.js';
import { listPage, ok, projectOf, type HandlerTable, type RouteContext } from '../http.js';
import { RefChecker } from '../refs.js';
import { notFound } from '../service-error.js';

/** A create's or an update's body, as the update schema parses it. */
type StepGroupBody = ParsedBodyOf<'updateStepGroup'>;

/** `label_ids` is an extension (the document's step group has none); steps only when asked. */
function groupWire(c: RouteContext, g: StepGroupRow, withSteps: boolean) {
  return {
    id: g.id,
    title: g.title,
    description: g.description,
    human_id: g.human_id,
    ...(withSteps ? { steps: db.groupSteps(c.db, g.id) } : {}),
    label_ids: g.label_ids,
    project_id: g.project_id,
    created_at: g.created_at,
    updated_at: g.updated_at,
  };
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
  if (!g) throw notFound('Step group');
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
    new RefChecker(c.db, project.id).labels('label_ids', b.label_ids).check();
    const g = db.insertStepGroup(
      c.db,
      project.id,
      project.human_id_prefix,
      { title: b.title, description: b.description ?? '', label_ids: b.label_ids ?? [] },
      stepInputs(b.steps ?? []),
    );
    return ok('step_group', groupWire(c, g, true));
  },
  updateStepGroup(c) {
    const current = groupOf(c);
    const b = c.body;
    new RefChecker(c.db, current.project_id).labels('label_ids', b.label_ids).check();
    const patch: { title?: string; description?: string; label_ids?: string[] } = {};
    if (b.title !== undefined) patch.title = b.title;
    if (b.description !== undefined) patch.description = b.description ?? '';
    if (b.label_ids !== undefined) patch.label_ids = b.label_ids;
    const g = db.updateStepGroup(c.db, current, patch, b.steps && stepInputs(b.steps));
    return ok('step_group', groupWire(c, g, true));
  },
  deleteStepGroup(c) {
    db.deleteStepGroup(c.db, groupOf(c).id);
    return { status: 204 };
  },
} satisfies Partial<HandlerTable>;
