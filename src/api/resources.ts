import { z } from 'zod';
import { OptionalId, Text, Timestamp } from './envelope.js';
import { CASE_FIELD_ENTRIES_BY_KIND, STEP_GROUP_FIELD_ENTRIES } from '../fields.js';
import { wireShape, type GroupWireKinds, type WireKinds } from './field-wire.js';

/**
 * Every resource of the service as it travels on the wire (snake_case, as the document shows).
 * Loose objects: unknown fields are kept. Live variants are accepted where the notes name them.
 */

export const Project = z.looseObject({
  id: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  name: z.string(),
  description: Text,
  human_id_prefix: z.string(),
  /** emulator extension (document dialect): the item's page in the emulator's web UI */
  web_url: z.string().optional(),
});
export type Project = z.infer<typeof Project>;

export interface FolderWire {
  id: string;
  name: string;
  project_id: string;
  children: FolderWire[];
  parent_folder_id?: string | null;
  order: number;
  [key: string]: unknown;
}
export const Folder: z.ZodType<FolderWire, unknown> = z.looseObject({
  id: z.string(),
  name: z.string(),
  project_id: z.string(),
  get children() {
    return z.array(Folder).optional().default([]);
  },
  /** `""` for a top-level folder (document) or null (live) */
  parent_folder_id: OptionalId,
  order: z.number().int(),
});

export const IndividualStep = z.looseObject({
  id: z.string().optional(),
  step_description: Text,
  expected_results: Text,
  order: z.number().int(),
  step_type: z.string().optional(),
  step_group_id: OptionalId,
});
export type IndividualStep = z.infer<typeof IndividualStep>;

/**
 * A case field's answer type, by its kind (`CASE_FIELDS`). Labels: `label_ids` is not returned by get
 * or update (document), it is by list in the emulator; the live service answers `labels` objects
 * instead (`liveWire`, read by `reportedLabelIds`; the loose object keeps them). Steps:
 * `individual_steps` is returned by update and list, not by get.
 */
const CASE_FIELD_ANSWER = {
  text: () => Text,
  template: () => Text,
  lookup: () => OptionalId,
  user: () => OptionalId,
  labels: () => z.array(z.string()).optional(),
  steps: () => z.array(IndividualStep).optional(),
} as const satisfies WireKinds;

export const TestCase = z.looseObject({
  id: z.string(),
  /** returned by get, create and (in the emulator and live) list; not by update */
  human_id: z.string().optional(),
  title: z.string(),
  ...wireShape(CASE_FIELD_ENTRIES_BY_KIND, CASE_FIELD_ANSWER),
  folder_id: OptionalId,
  project_id: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
  /** emulator extension (document dialect): the item's page (on its own answers, not in the list) in the emulator's web UI */
  web_url: z.string().optional(),
});
export type TestCase = z.infer<typeof TestCase>;

export const StepGroupStep = z.looseObject({
  id: z.string(),
  step_description: Text,
  expected_results: Text,
  order: z.number().int(),
  step_group_id: z.string(),
  created_at: Timestamp.optional(),
  updated_at: Timestamp.optional(),
});
export type StepGroupStep = z.infer<typeof StepGroupStep>;

/**
 * A step group field's answer type, by its kind (`STEP_GROUP_FIELDS`). `steps` is returned by
 * create, get and update, omitted in list; `label_ids` is not in the document, the emulator returns
 * it so labels can be compared.
 */
const STEP_GROUP_FIELD_ANSWER = {
  text: () => Text,
  labels: () => z.array(z.string()).optional(),
  steps: () => z.array(StepGroupStep).optional(),
} as const satisfies GroupWireKinds;

export const StepGroup = z.looseObject({
  id: z.string(),
  title: z.string(),
  human_id: z.string(),
  ...wireShape(STEP_GROUP_FIELD_ENTRIES, STEP_GROUP_FIELD_ANSWER),
  project_id: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type StepGroup = z.infer<typeof StepGroup>;

export const TestPlanStatus = z.string(); // ACTIVE | COMPLETED (others not shown: keep open)

export const TestPlan = z.looseObject({
  id: z.string(),
  /** emulator extension: the plan's integer id on the execution interface (`executionId`) */
  execution_id: z.number().int().optional(),
  human_id: z.string().optional(),
  title: z.string(),
  description: Text,
  status: TestPlanStatus,
  start_date: Timestamp.nullish(),
  end_date: Timestamp.nullish(),
  /** returned by create only */
  label_ids: z.array(z.string()).optional(),
  created_at: Timestamp,
  updated_at: Timestamp,
  completed_at: Timestamp.optional(),
  /** emulator extension (document dialect): the item's page in the emulator's web UI */
  web_url: z.string().optional(),
});
export type TestPlan = z.infer<typeof TestPlan>;

/** The complete call's answer: only id, status, completed_at are promised. */
export const CompletedTestPlan = z.looseObject({
  id: z.string(),
  status: z.string(),
  completed_at: Timestamp,
});

/** Test run (seen live; not in the document). */
export const TestRun = z.looseObject({
  id: z.string(),
  human_id: z.string().optional(),
  title: z.string(),
  description: Text,
  status: z.string(), // ACTIVE | CLOSED
  selection_type: z.string().optional(),
  start_date: Timestamp.nullish(),
  end_date: Timestamp.nullish(),
  assignee_id: OptionalId,
  project_id: z.string(),
  labels: z.array(z.unknown()).optional(),
  test_plan_id: OptionalId,
  test_cases_count: z.number().int().optional(),
  /** the user who closed the run (the live service fills it on close); null while it is open */
  closed_by: OptionalId,
  created_at: Timestamp,
  updated_at: Timestamp,
  /** emulator extension (document dialect): the item's page in the emulator's web UI */
  web_url: z.string().optional(),
});
export type TestRun = z.infer<typeof TestRun>;

/** A case in the list of a run's cases, as the document shows it. */
export const RunCaseListItem = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: z.string(),
  assignee_id: OptionalId,
});
export type RunCaseListItem = z.infer<typeof RunCaseListItem>;

/** A case in the list of a run's cases, as the live service sent it (`data.test_run_cases[]`). */
export const LiveRunCaseListItem = z.looseObject({
  status_id: OptionalId,
  status: z.string().nullish(),
  assignee_id: OptionalId,
  test_case: z.looseObject({ id: z.string(), title: z.string().optional(), human_id: z.string().optional() }),
});

/** One row of the run-case update answer. */
export const RunCaseUpdateResult = z.looseObject({
  test_case_id: z.string(),
  test_run_status_id: OptionalId,
  user_id: OptionalId,
  updated_at: Timestamp,
});

export const AssignUserResult = z.looseObject({
  test_case_id: z.string(),
  user_id: z.string(),
  updated_at: Timestamp,
});

export const LookupEntry = z.looseObject({
  id: z.string(),
  name: z.string(),
  order: z.number().int().optional(),
  alias: z.string().nullish(),
  icon_url: z.string().nullish(),
});
export type LookupEntry = z.infer<typeof LookupEntry>;

export const User = z.looseObject({
  id: z.string(),
  email: z.string(),
  first_name: Text,
  last_name: Text,
  status: z.string().nullish(),
  created_at: Timestamp.optional(),
  updated_at: Timestamp.optional(),
});
export type User = z.infer<typeof User>;

/** Label (seen live, camelCase timestamps). */
export const Label = z.looseObject({
  id: z.string(),
  name: z.string(),
  createdAt: Timestamp.optional(),
  updatedAt: Timestamp.optional(),
});
export type Label = z.infer<typeof Label>;

export const JunitImport = z.looseObject({
  id: z.string(),
  status: z.enum(['pending', 'in_progress', 'completed', 'failed']),
});

/** Execution interface: the flat status object of a triggered run (no envelope). */
export const ExecutionResult = z.looseObject({
  id: z.union([z.number(), z.string()]),
  executionId: z.union([z.string(), z.number()]).optional(),
  status: z.string(),
  result: z.string().nullish(),
  message: z.string().nullish(),
  startTime: z.number().nullish(),
  endTime: z.number().nullish(),
  duration: z.number().nullish(),
  buildNo: z.string().nullish(),
  environmentId: z.union([z.number(), z.string()]).nullish(),
  totalCount: z.number().int().nullish(),
  passedCount: z.number().int().nullish(),
  failedCount: z.number().int().nullish(),
  abortedCount: z.number().int().nullish(),
  stoppedCount: z.number().int().nullish(),
  notExecutedCount: z.number().int().nullish(),
  queuedCount: z.number().int().nullish(),
  app_url: z.string().nullish(),
});
export type ExecutionResult = z.infer<typeof ExecutionResult>;

/** Execution interface: the trigger's answer. */
export const ExecutionTriggerResult = z.looseObject({ id: z.union([z.number(), z.string()]) });
