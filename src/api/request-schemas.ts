import { z } from 'zod';
import { CASE_FIELD_ENTRIES_BY_KIND, CASE_TEMPLATES, STEP_GROUP_FIELD_ENTRIES } from '../fields.js';
import { wireShape, type GroupWireKinds, type WireKinds } from './field-wire.js';

/**
 * Request bodies. Unknown keys are dropped (not rejected), as services commonly do; required
 * fields follow the live service where the document is silent (`real-service-notes.md`).
 */

const id = z.string().min(1);
const text = z.string().max(100_000);
const timestamp = z.number().int().nonnegative();

export const CreateProjectBody = z.object({
  name: z.string().min(1).max(255),
  description: text.optional(),
  human_id_prefix: z
    .string()
    .regex(/^[A-Z][A-Z0-9]{0,9}$/, 'must be 1 to 10 upper-case letters or digits, starting with a letter'),
});
export const UpdateProjectBody = z.object({
  name: z.string().min(1).max(255).optional(),
  description: text.optional(),
});

export const CreateFolderBody = z.object({
  name: z.string().min(1).max(255),
  order: z.number().int().optional(),
});
/** partial bodies work; `order: -1` means unset (append) */
export const UpdateFolderBody = z.object({
  name: z.string().min(1).max(255).optional(),
  order: z.number().int().min(-1).optional(),
});
/** `""` or null moves the folder to the top level */
export const MoveFolderBody = z.object({
  parent_folder_id: z.string().nullable(),
});

export const IndividualStepInput = z.object({
  step_description: text.nullish(),
  expected_results: text.nullish(),
  order: z.number().int().optional(),
  step_type: z.string().optional(),
  step_group_id: z.string().nullish(),
});

/** A case field's request type, by its kind (`CASE_FIELDS`); a required field is an `id` (create needs it). */
const CASE_FIELD_INPUT = {
  text: () => text.nullish(),
  template: () => z.enum(CASE_TEMPLATES).optional(),
  lookup: () => z.string().nullish(),
  user: () => z.string().nullish(),
  labels: () => z.array(id).max(1000).optional(),
  steps: () => z.array(IndividualStepInput).max(1000).optional(),
} as const satisfies WireKinds;

const testCaseFields = {
  title: z.string().min(1).max(1000),
  ...wireShape(CASE_FIELD_ENTRIES_BY_KIND, CASE_FIELD_INPUT, () => id),
  project_id: z.string().optional(),
  folder_id: id,
};
/** Create needs the lookups, owner and folder in practice (the live service answers 400 otherwise). */
export const CreateTestCaseBody = z.object(testCaseFields);
/** Omitted fields keep their values; a given `individual_steps` replaces the list. */
export const UpdateTestCaseBody = z.object(testCaseFields).partial();

export const StepGroupStepInput = z.object({
  step_description: text.nullish(),
  /** the document's create request uses the singular */
  expected_result: text.nullish(),
  /** accepted too: responses use the plural and clients mix them up */
  expected_results: text.nullish(),
  order: z.number().int().optional(),
});
/** A step group field's request type, by its kind (`STEP_GROUP_FIELDS`). */
const STEP_GROUP_FIELD_INPUT = {
  text: () => text.nullish(),
  labels: () => z.array(id).max(1000).optional(),
  steps: () => z.array(StepGroupStepInput).max(1000).optional(),
} as const satisfies GroupWireKinds;

export const CreateStepGroupBody = z.object({
  title: z.string().min(1).max(1000),
  ...wireShape(STEP_GROUP_FIELD_ENTRIES, STEP_GROUP_FIELD_INPUT),
});
/** Full replacement of the steps when given. */
export const UpdateStepGroupBody = CreateStepGroupBody.partial();

export const CreateTestPlanBody = z.object({
  title: z.string().min(1).max(1000),
  description: text.nullish(),
  start_date: timestamp.nullish(),
  end_date: timestamp.nullish(),
  label_ids: z.array(id).max(1000).optional(),
});
export const UpdateTestPlanBody = CreateTestPlanBody.partial();

export const SelectionFilter = z.object({
  field: z.string(),
  operator: z.string(),
  values: z.array(z.string()).max(100_000),
});
export const CreateTestRunBody = z.object({
  title: z.string().min(1).max(1000),
  description: text.nullish(),
  status: z.enum(['ACTIVE', 'CLOSED']).optional(),
  selection_type: z.enum(['STATIC', 'DYNAMIC']).optional(),
  static_selection_filters: z.array(SelectionFilter).optional(),
  dynamic_selection_filters: z.array(SelectionFilter).optional(),
  start_date: timestamp.nullish(),
  end_date: timestamp.nullish(),
  assignee_id: z.string().nullish(),
  label_names: z.array(z.string()).max(1000).optional(),
  environment_ids: z.array(z.union([z.string(), z.number()])).optional(),
  test_plan_id: z.string().nullish(),
  /** DYNAMIC runs: cases (ids or human ids) removed from what the filters select */
  dynamic_selection_excluded_test_case_ids: z.array(z.string()).max(100_000).nullish(),
});
export const UpdateTestRunBody = CreateTestRunBody.partial();

export const RunCaseInput = z.object({
  test_case_id: id,
  test_run_status_id: id,
  user_id: z.string().nullish(),
  description: text.nullish(),
});
export const UpdateRunCasesBody = z.object({
  test_run_cases: z.array(RunCaseInput).min(1).max(1000),
});
export const AssignUserBody = z.object({
  user_id: id,
  test_case_id: id,
});

/** Execution interface trigger. */
export const ExecutionTriggerBody = z.object({
  /** the plan: its integer execution id (number or numeric string), uuid or human id */
  executionId: z.union([z.string().min(1), z.number().int().nonnegative()]),
  environmentId: z.union([z.number(), z.string()]).optional(),
  /** a string or a number (the vendor's CI script sends a number) */
  buildNo: z.union([z.string(), z.number()]).optional(),
  runtimeData: z.record(z.string(), z.unknown()).optional(),
  executionConfig: z.object({ id: z.string().optional(), name: z.string().optional() }).optional(),
});
