import type * as W from '../api/resources.js';
import type {
  LookupEntry,
  RemoteCase,
  RemoteFolder,
  RemoteLabel,
  RemoteProject,
  RemoteStep,
  RemoteStepGroup,
  RemoteTestPlan,
  RemoteUser,
} from '../model.js';

/**
 * Wire shapes (snake_case, live variants) to the model (camelCase, one form). Pure functions.
 * Optional model fields are left out rather than set to undefined, so states compare and print
 * cleanly.
 */

/** Unix seconds. The live service sent milliseconds; anything past 1e11 (year 5138 in seconds) is ms. */
export function normalizeTimestamp(n: number): number {
  return n > 1e11 ? Math.floor(n / 1000) : n;
}

function ts(n: number | null | undefined): number | undefined {
  return n === null || n === undefined ? undefined : normalizeTimestamp(n);
}

/** Drops keys whose value is undefined. */
function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

const text = (s: string | null | undefined): string => s ?? '';
const idOrNull = (s: string | null | undefined): string | null => (s ? s : null);

export function toRemoteProject(w: W.Project): RemoteProject {
  return compact({ id: w.id, name: w.name, humanIdPrefix: w.human_id_prefix, description: w.description ?? undefined });
}

export function toRemoteFolder(w: W.FolderWire): RemoteFolder {
  return { id: w.id, name: w.name, parentId: idOrNull(w.parent_folder_id), order: w.order };
}

export function toRemoteStep(w: W.IndividualStep): RemoteStep {
  return compact({
    id: w.id,
    description: text(w.step_description),
    expected: text(w.expected_results),
    order: w.order,
    stepType: w.step_type,
    stepGroupId: idOrNull(w.step_group_id),
  });
}

export function toRemoteCase(w: W.TestCase): RemoteCase {
  const steps = [...(w.individual_steps ?? [])].sort((a, b) => a.order - b.order).map(toRemoteStep);
  return compact({
    id: w.id,
    humanId: w.human_id ?? '',
    title: w.title,
    folderId: text(w.folder_id),
    description: text(w.description),
    preconditions: text(w.preconditions),
    templateType: text(w.template_type),
    steps: text(w.steps),
    expectedResults: text(w.expected_results),
    typeId: text(w.type_id),
    statusId: text(w.status_id),
    priorityId: text(w.priority_id),
    automationTypeId: text(w.automation_type_id),
    ownerId: text(w.owner_id),
    reviewerId: text(w.reviewer_id),
    labelIds: w.label_ids ? [...w.label_ids] : undefined,
    individualSteps: steps,
    createdAt: normalizeTimestamp(w.created_at),
    updatedAt: normalizeTimestamp(w.updated_at),
  });
}

export function toRemoteStepGroup(w: W.StepGroup): RemoteStepGroup {
  const steps = [...(w.steps ?? [])]
    .sort((a, b) => a.order - b.order)
    .map((s) => {
      // responses use `expected_results`; tolerate the create request's singular echoed back
      const expected = s.expected_results ?? (s as { expected_result?: string | null }).expected_result;
      return compact({ id: s.id, description: text(s.step_description), expected: text(expected), order: s.order });
    });
  return compact({
    id: w.id,
    humanId: w.human_id,
    title: w.title,
    description: text(w.description),
    labelIds: w.label_ids ? [...w.label_ids] : undefined,
    steps,
    createdAt: normalizeTimestamp(w.created_at),
    updatedAt: normalizeTimestamp(w.updated_at),
  });
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
