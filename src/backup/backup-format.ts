import { z } from 'zod';
import { CASE_FIELDS_BY_KIND, LOOKUP_LISTS_ALL, STEP_GROUP_FIELDS, type LookupList, type CaseFieldValues, type FieldKind, type StepGroupFieldEntry, type StepGroupFieldKind } from '../fields.js';

/**
 * The backup file (`tmsync backup`): one JSON object, written as a stream, read back strictly.
 * Documented in docs/backup.md; any change to a shape here is a new `format_version`.
 *
 * Items keep the service's own ids (the restore maps every one of them to the target's) and the
 * service's field names (snake_case). Texts are kept exactly as the service sent them.
 */

export const BACKUP_FORMAT_VERSION = 1;
export const BACKUP_KIND = 'tmsync-backup';

const id = z.string().min(1);
const nullableId = z.string().min(1).nullable();
const timestamp = z.number().int().nonnegative();

const BackupLookupEntry = z.strictObject({
  id,
  name: z.string(),
  alias: z.string().optional(),
  order: z.number().int().optional(),
});

/** Every lookup list of the service under its wire name: the case lookups' (the field table's) and the run statuses. */
export const BackupLookups = z.strictObject(
  Object.fromEntries(LOOKUP_LISTS_ALL.map((list) => [list, z.array(BackupLookupEntry)])) as Record<LookupList, z.ZodArray<typeof BackupLookupEntry>>,
);

const BackupUser = z.strictObject({
  id,
  email: z.string(),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
});

const BackupLabel = z.strictObject({ id, name: z.string() });

export const BackupFolder = z.strictObject({
  id,
  name: z.string(),
  /** null for a top-level folder */
  parent_id: nullableId,
  /** 0-based position among its siblings */
  order: z.number().int(),
});

const BackupGroupStep = z.strictObject({
  description: z.string(),
  expected: z.string(),
  order: z.number().int(),
});

/** A backed-up step group field, by kind (labels absent when the service did not report them). */
interface BackupGroupValues {
  text: string;
  labels: string[];
  steps: z.infer<typeof BackupGroupStep>[];
}
const backupGroupValue: { [K in StepGroupFieldKind]: z.ZodType<BackupGroupValues[K]> } = {
  text: z.string(),
  labels: z.array(id),
  steps: z.array(BackupGroupStep),
};
/** The fields of a backed-up step group under their wire names (src/fields.ts), typed by kind. */
const groupFields = Object.fromEntries(
  STEP_GROUP_FIELDS.map((f) => [f.wire, f.kind === 'labels' ? backupGroupValue[f.kind].optional() : backupGroupValue[f.kind]]),
) as {
  [F in StepGroupFieldEntry as F['wire']]: F['kind'] extends 'labels'
    ? z.ZodOptional<z.ZodType<BackupGroupValues[F['kind']]>>
    : z.ZodType<BackupGroupValues[F['kind']]>;
};

export const BackupStepGroup = z.strictObject({
  id,
  human_id: z.string(),
  title: z.string(),
  ...groupFields,
  created_at: timestamp,
  updated_at: timestamp,
});

export const BackupStep = z.strictObject({
  description: z.string(),
  expected: z.string(),
  order: z.number().int(),
  step_type: z.string().optional(),
  /** the step group the step comes from (an id of `step_groups`), or null */
  step_group_id: nullableId,
});

/** A backed-up case field, by kind (texts exactly as sent; labels absent when the service did not report them). */
const backupValue: Record<FieldKind, z.ZodType> = {
  text: z.string(),
  template: z.string(),
  lookup: z.string(),
  user: z.string(),
  labels: z.array(id).optional(),
  steps: z.array(BackupStep),
};

/** The fields of a backed-up case under their wire names (src/fields.ts), typed by kind. */
type BackupCaseFields = CaseFieldValues<
  'wire',
  { text: string; template: string; lookup: string; user: string; labels: string[] | undefined; steps: BackupStep[] }
>;

const caseFields = Object.fromEntries(CASE_FIELDS_BY_KIND.map((f) => [f.wire, backupValue[f.kind]])) as {
  [K in keyof BackupCaseFields]-?: K extends 'label_ids' ? z.ZodOptional<z.ZodType<string[]>> : z.ZodType<BackupCaseFields[K]>;
};

export const BackupTestCase = z.strictObject({
  id,
  human_id: z.string(),
  folder_id: id,
  title: z.string(),
  ...caseFields,
  created_at: timestamp,
  updated_at: timestamp,
});

export const BackupTestPlan = z.strictObject({
  id,
  human_id: z.string(),
  title: z.string(),
  description: z.string(),
  /** ACTIVE or COMPLETED */
  status: z.string(),
  start_date: timestamp.nullable(),
  end_date: timestamp.nullable(),
  created_at: timestamp,
  updated_at: timestamp,
});

export const BackupRunCase = z.strictObject({
  /** an id of `test_cases` */
  case_id: id,
  /** the run status as the list names it (e.g. PASSED), null when untested */
  status: z.string().nullable(),
  /** the run status id, when the service reported it */
  status_id: nullableId.optional(),
  assignee_id: nullableId,
});

export const BackupTestRun = z.strictObject({
  id,
  human_id: z.string(),
  title: z.string(),
  description: z.string(),
  /** ACTIVE or CLOSED */
  status: z.string(),
  selection_type: z.string().nullable(),
  start_date: timestamp.nullable(),
  end_date: timestamp.nullable(),
  assignee_id: nullableId,
  /** an id of `test_plans`, or null */
  test_plan_id: nullableId,
  /** label names (runs take names, not ids) */
  label_names: z.array(z.string()),
  environment_ids: z.array(z.union([z.string(), z.number()])),
  created_at: timestamp,
  updated_at: timestamp,
  cases: z.array(BackupRunCase),
});

export const BackupCounts = z.strictObject({
  folders: z.number().int().nonnegative(),
  step_groups: z.number().int().nonnegative(),
  test_cases: z.number().int().nonnegative(),
  test_plans: z.number().int().nonnegative(),
  test_runs: z.number().int().nonnegative(),
});

export const BackupHeader = z.strictObject({
  format_version: z.literal(BACKUP_FORMAT_VERSION),
  kind: z.literal(BACKUP_KIND),
  /** ISO 8601 */
  created_at: z.string(),
  tool: z.strictObject({ name: z.literal('tmsync'), version: z.string() }),
  source: z.strictObject({
    /** never carries a key */
    base_url: z.string(),
    project: z.strictObject({ id, name: z.string(), human_id_prefix: z.string(), description: z.string() }),
  }),
  lookups: BackupLookups,
  users: z.array(BackupUser),
  labels: z.array(BackupLabel),
});

export const Backup = BackupHeader.extend({
  folders: z.array(BackupFolder),
  step_groups: z.array(BackupStepGroup),
  test_cases: z.array(BackupTestCase),
  test_plans: z.array(BackupTestPlan),
  test_runs: z.array(BackupTestRun),
  /** written last: a file that has it was not cut short */
  end: z.strictObject({ counts: BackupCounts }),
});

export type BackupHeader = z.infer<typeof BackupHeader>;
export type Backup = z.infer<typeof Backup>;
export type BackupFolder = z.infer<typeof BackupFolder>;
export type BackupStepGroup = z.infer<typeof BackupStepGroup>;
export type BackupTestCase = z.infer<typeof BackupTestCase>;
export type BackupStep = z.infer<typeof BackupStep>;
export type BackupTestPlan = z.infer<typeof BackupTestPlan>;
export type BackupTestRun = z.infer<typeof BackupTestRun>;
export type BackupRunCase = z.infer<typeof BackupRunCase>;
export type BackupCounts = z.infer<typeof BackupCounts>;

/** The sections after the header, in file order (restore creates in this order too). */
export const BACKUP_SECTIONS = ['folders', 'step_groups', 'test_cases', 'test_plans', 'test_runs'] as const;
export type BackupSection = (typeof BACKUP_SECTIONS)[number];
