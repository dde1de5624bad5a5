import type { CaseBody, Ref, StepGroupBody } from '../item-bodies.js';

/**
 * A plan is an ordered list of small, typed operations (a discriminated union on `kind`).
 * One table in `src/apply/operation-requests.ts` turns each kind into requests; another in
 * `src/plan/render-*.ts` turns each into text. Everything here is plain JSON-safe data: a plan is
 * saved to disk with `tmsync plan --out` and applied later.
 */

export type { CaseBody, GroupStepBody, Ref, StepBody, StepGroupBody } from '../item-bodies.js';

/** One field that changes, with display values (names, emails, not ids) for people. */
export interface FieldChange {
  /** repository field name: title, a YAML key of the field table (src/fields.ts), name, order */
  field: string;
  /** display value before (for steps: the steps rendered one per line) */
  from: string;
  /** display value after */
  to: string;
}

interface OpBase {
  /** unique within the plan, e.g. `folder:Checkout/Payments`, `case:cases/a.yaml` */
  key: string;
  /** keys of operations that must finish first */
  dependsOn: string[];
}

/** Where an id is written back once known: a YAML file and the value to write. */
export interface WriteBack {
  /** path relative to the repository root; for folders the `_folder.yaml` to create or update */
  file: string;
  /** the value written into `id:` (human id when the item has one, else the id) — unknown for creates */
  id?: string;
}

export interface CreateFolderOp extends OpBase {
  kind: 'create_folder';
  path: string[];
  name: string;
  /** null: a top-level folder */
  parent: Ref | null;
  order?: number;
  writeBack: WriteBack;
}
/** Rename and/or reorder. */
export interface UpdateFolderOp extends OpBase {
  kind: 'update_folder';
  id: string;
  path: string[];
  name?: string;
  order?: number;
  changes: FieldChange[];
  writeBack?: WriteBack;
}
export interface MoveFolderOp extends OpBase {
  kind: 'move_folder';
  id: string;
  fromPath: string[];
  path: string[];
  parent: Ref | null;
  writeBack?: WriteBack;
}
export interface DeleteFolderOp extends OpBase {
  kind: 'delete_folder';
  id: string;
  path: string[];
}

export interface CreateStepGroupOp extends OpBase {
  kind: 'create_step_group';
  localKey: string;
  body: StepGroupBody;
  writeBack: WriteBack;
  /** display values of the fields set (`from` is empty), for the renderers */
  changes?: FieldChange[];
}
export interface UpdateStepGroupOp extends OpBase {
  kind: 'update_step_group';
  id: string;
  humanId: string;
  localKey: string;
  body: StepGroupBody;
  changes: FieldChange[];
  writeBack?: WriteBack;
}
export interface DeleteStepGroupOp extends OpBase {
  kind: 'delete_step_group';
  id: string;
  humanId: string;
  title: string;
}

export interface CreateCaseOp extends OpBase {
  kind: 'create_case';
  /** folder path of the case */
  path: string[];
  body: CaseBody;
  writeBack: WriteBack;
  /**
   * display values of the fields set (`from` is empty): held by a plan read back from its file; a
   * plan `buildPlan` returns holds none, the renderers compute them from its `PlanDisplay`
   */
  changes?: FieldChange[];
}
/** Field changes, possibly with a move to another folder (one PUT). */
export interface UpdateCaseOp extends OpBase {
  kind: 'update_case';
  id: string;
  humanId: string;
  path: string[];
  /** set when the case also moves: the old folder path */
  fromPath?: string[];
  body: CaseBody;
  changes: FieldChange[];
  writeBack?: WriteBack;
}
/** Only the folder changes. */
export interface MoveCaseOp extends OpBase {
  kind: 'move_case';
  id: string;
  humanId: string;
  title: string;
  fromPath: string[];
  path: string[];
  folder: Ref;
  writeBack?: WriteBack;
}
export interface DeleteCaseOp extends OpBase {
  kind: 'delete_case';
  id: string;
  humanId: string;
  title: string;
  path: string[];
}

/**
 * A test plan to create (restore: a backup's plan; `tmsync test-plan create`). Dates are already
 * in the service's unit. Plans and runs come only from backups and the commands that make one
 * (`test-plan create`, `results push`): `tmsync plan` never makes these operations, and saved
 * plans do not hold them.
 */
export interface CreateTestPlanOp extends OpBase {
  kind: 'create_test_plan';
  title: string;
  description: string;
  /** absent: not sent (`tmsync test-plan create` without `--start`); null: sent empty (a restore) */
  startDate?: number | null;
  endDate?: number | null;
  /** `tmsync test-plan create --label` @default none sent */
  labelIds?: string[];
}
/** Completes a test plan (last: a completed plan may refuse new runs). */
export interface CompleteTestPlanOp extends OpBase {
  kind: 'complete_test_plan';
  plan: Ref;
  title: string;
}
/** One result of a run case: a status (and its user), or only an assignee (the update needs a status). */
export interface RunCaseResult {
  case: Ref;
  statusId?: string;
  userId?: string;
  /** the run case's comment (`results push`: what the testcases reported) @default none sent */
  description?: string;
}
/**
 * A STATIC test run holding exactly `cases`, then its results in batches of `batchSize` rows, the
 * assignees of untested cases, and its closing when `close` is set.
 */
export interface CreateTestRunOp extends OpBase {
  kind: 'create_test_run';
  title: string;
  /**
   * The optional fields, absent, are not sent (`results push --new-run` sends only what it was
   * given); a restore sets every one (null: sent empty).
   */
  description?: string;
  cases: Ref[];
  plan?: Ref | null;
  startDate?: number | null;
  endDate?: number | null;
  assigneeId?: string | null;
  labelNames?: string[];
  /** ids of the instance the backup came from: only set when the target is that instance */
  environmentIds?: (string | number)[];
  results: RunCaseResult[];
  batchSize: number;
  close: boolean;
}

/** A natural-key match with nothing else to change: only the id is written back (no request). */
export interface AdoptOp extends OpBase {
  kind: 'adopt';
  itemType: 'case' | 'folder' | 'step_group' | 'test_plan' | 'test_run';
  id: string;
  humanId?: string;
  /** path of the folder, or of the case's folder */
  path: string[];
  title: string;
  writeBack: WriteBack;
}

export type Operation =
  | CreateFolderOp
  | UpdateFolderOp
  | MoveFolderOp
  | DeleteFolderOp
  | CreateStepGroupOp
  | UpdateStepGroupOp
  | DeleteStepGroupOp
  | CreateCaseOp
  | UpdateCaseOp
  | MoveCaseOp
  | DeleteCaseOp
  | CreateTestPlanOp
  | CompleteTestPlanOp
  | CreateTestRunOp
  | AdoptOp;

export type OperationKind = Operation['kind'];

/** A remote item inside scope that the repository does not describe. */
export interface UnmanagedItem {
  itemType: 'case' | 'folder' | 'step_group';
  id: string;
  humanId?: string;
  path: string[];
  title: string;
  /** true when the plan deletes it (`--prune`) */
  pruned: boolean;
}

export interface PlanWarning {
  code: string;
  message: string;
  file?: string;
  line?: number;
}

export interface PlanSummary {
  create: number;
  update: number;
  move: number;
  delete: number;
  adopt: number;
}

/**
 * Three-way sync (docs/sync.md): what the plan found by comparing the repository and the service
 * with the sync base, field by field. Display values, as in `FieldChange`.
 */
export type Prefer = 'local' | 'remote';

/** An item the plan names in its sync sections. */
export interface SyncItem {
  itemType: 'case' | 'folder' | 'step_group';
  id: string;
  humanId?: string;
  /** path of the folder, or of the case's folder */
  path: string[];
  title: string;
  /** the repository file, when there is one */
  file?: string;
}

/** A field changed only on the service since the last sync: kept (not overwritten); `tmsync pull` takes it into the files. */
export interface SyncRemoteChange extends SyncItem {
  /** the field (`deleted` when the item was deleted on the service) */
  field: string;
  /** the value at the last sync (the repository's) */
  from: string;
  /** the service's value now */
  to: string;
}

/** A field changed on both sides, to different values, since the last sync (or a deletion against an edit). */
export interface SyncConflict extends SyncItem {
  /** the field (`deleted` for a deletion on one side against an edit on the other) */
  field: string;
  /** the repository's value */
  local: string;
  /** the service's value */
  remote: string;
}

export interface PlanSync {
  /** changed only on the service: kept */
  remoteChanges: SyncRemoteChange[];
  /** changed on both sides: the plan cannot be applied unless `prefer` settles them */
  conflicts: SyncConflict[];
  /** items compared that have no base yet (compared two ways: the repository wins) */
  withoutBase: number;
  /** how the conflicts are settled in this plan (`--prefer`); absent: they are not */
  prefer?: Prefer;
}

export const PLAN_FORMAT_VERSION = 3;

export interface Plan {
  format_version: typeof PLAN_FORMAT_VERSION;
  project: { id: string; name: string; humanIdPrefix: string };
  prune: boolean;
  /** topologically ordered: every operation after the ones it depends on */
  operations: Operation[];
  unmanaged: UnmanagedItem[];
  warnings: PlanWarning[];
  summary: PlanSummary;
  /** sha256 of the repository files the plan was built from */
  contentHash: string;
  /**
   * Version of every remote item the plan touches, for `apply PLANFILE` to refuse a stale plan:
   * `updated_at` for cases and step groups, a fingerprint of name/parent/order for folders.
   */
  remoteVersions: Record<string, string>;
  /** three-way sync against `tmsync.base`; absent when the plan was built without a base (and nothing to say) */
  sync?: PlanSync;
  /**
   * How the repository and the service differ ({@link planDiffers}): written in the plan's JSON for
   * scripts (a drift check reads it), derived from `operations` and `sync`, never read back.
   */
  differs?: PlanDiffers;
}

/**
 * Whether the repository and the service differ, and on which side: what `plan
 * --detailed-exitcode` exits 2 on (either is true).
 */
export interface PlanDiffers {
  /** the plan sends something: applying it changes the service (or writes ids back) */
  send: boolean;
  /**
   * the service holds changes the files do not have yet (`tmsync pull` takes them in): fields
   * changed only on the service since the last sync, and conflicts not settled with `--prefer local`
   */
  service: boolean;
}

/** {@link PlanDiffers} of a plan. */
export function planDiffers(plan: Pick<Plan, 'operations' | 'sync'>): PlanDiffers {
  const sync = plan.sync;
  return {
    send: plan.operations.length > 0,
    service: sync !== undefined && (sync.remoteChanges.length > 0 || (sync.conflicts.length > 0 && sync.prefer !== 'local')),
  };
}

/** Conflicts the plan leaves open: it must not be applied until `--prefer` settles them or the files change. */
export function openConflicts(plan: Pick<Plan, 'sync'>): number {
  return plan.sync && plan.sync.prefer === undefined ? plan.sync.conflicts.length : 0;
}

/** True when applying the plan changes anything on the service or in the repository. */
export function hasChanges(plan: Plan): boolean {
  return plan.operations.length > 0;
}
