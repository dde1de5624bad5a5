import type { CaseWireBody } from '../api/bodies.js';
import type { BodyOf, EndpointName } from '../api/endpoints.js';
import { CASE_FIELDS_BY_KIND, fieldOf, setField, STEP_GROUP_FIELDS } from '../fields.js';
import { actionOf, kindCreates } from '../plan/operation-kinds.js';
import type {
  CaseBody,
  CreateCaseOp,
  CreateFolderOp,
  CreateStepGroupOp,
  CreateTestPlanOp,
  CreateTestRunOp,
  GroupStepBody,
  Operation,
  OperationKind,
  Ref,
  RunCaseResult,
  StepBody,
  StepGroupBody,
} from '../plan/operations.js';
import { assertNever } from '../assert-never.js';

/** The operations that create a remote item. */
export type CreateOp = CreateFolderOp | CreateCaseOp | CreateStepGroupOp | CreateTestPlanOp | CreateTestRunOp;

/**
 * The one table from plan operation to service requests. Pure: no network, no disk, no clock.
 *
 * An operation becomes zero (adopt), one or several requests that run in sequence. A request whose
 * `produces` is `'id'` creates the item: its answer carries the item's id (and human id), which
 * later requests of the same operation use through the {@link SELF} placeholder.
 */

/** Placeholder, in `params` or `body` values, for the id produced by an earlier request of the same operation. */
export const SELF = '$self';

/**
 * The body each request carries: the endpoint's. A case create carries the case body tmsync builds
 * (the fields of the update schema): the plan gives every new case the lookups and owner a create
 * needs (from the file or tmsync.yaml defaults; `missing_required_field` otherwise), which no type
 * of the plan states.
 */
type RequestBody<N extends EndpointName> = N extends 'createTestCase' ? CaseWireBody : BodyOf<N>;

interface Request<N extends EndpointName> {
  /** name from `src/api/endpoints.ts` */
  endpoint: N;
  /** path parameters (`project_id`, `folder_id`, …); a value may be {@link SELF} */
  params: Record<string, string>;
  /** the endpoint's body, checked against its schema in `src/api/request-schemas.ts` by type */
  body?: RequestBody<N>;
  /** set on the request that creates the item */
  produces?: 'id';
  /** response data key holding the item (`folder`, `test_case`, `step_group`) */
  resultKey?: string;
  /**
   * sent only when the operation's create was made by an earlier run (resumed), not when this run
   * sent it: reopening a run a killed restore may have closed before its results are sent again
   */
  resumeOnly?: true;
}

/** One request of an operation: any endpoint, with that endpoint's body. */
export type RequestDescriptor = { [N in EndpointName]: Request<N> }[EndpointName];

/** Resolves a reference to an id: the id itself, or the id produced by another operation of the plan. */
export type RefResolver = (ref: Ref) => string;

type RequestsOf<K extends OperationKind> = (op: Extract<Operation, { kind: K }>, resolve: RefResolver, project_id: string) => RequestDescriptor[];

/**
 * The request column of the operation kinds' table (`src/plan/operation-kinds.ts` holds the
 * others; `plan/` stays free of wire names): every kind must have an entry, or this fails to compile.
 */
const KIND_REQUESTS: { readonly [K in OperationKind]: RequestsOf<K> } = {
  create_folder: (op, resolve, project_id) => {
    const create: RequestDescriptor = {
      endpoint: 'createFolder',
      params: { project_id },
      body: { name: op.name, ...(op.order !== undefined ? { order: op.order } : {}) },
      produces: 'id',
      resultKey: 'folder',
    };
    // The service creates folders at the top level only; a nested folder is moved afterwards.
    if (op.parent === null) return [create];
    const reqs: RequestDescriptor[] = [
      create,
      {
        endpoint: 'moveFolder',
        params: { project_id, folder_id: SELF },
        body: { parent_folder_id: resolve(op.parent) },
        resultKey: 'folder',
      },
    ];
    // A move places the folder at the end of its new parent: set the wanted order again.
    if (op.order !== undefined) {
      reqs.push({ endpoint: 'updateFolder', params: { project_id, folder_id: SELF }, body: { order: op.order }, resultKey: 'folder' });
    }
    return reqs;
  },
  update_folder: (op, _resolve, project_id) => [
    {
      endpoint: 'updateFolder',
      params: { project_id, folder_id: op.id },
      body: { ...(op.name !== undefined ? { name: op.name } : {}), ...(op.order !== undefined ? { order: op.order } : {}) },
      resultKey: 'folder',
    },
  ],
  move_folder: (op, resolve, project_id) => [
    {
      endpoint: 'moveFolder',
      params: { project_id, folder_id: op.id },
      // the document's top level is the empty string
      body: { parent_folder_id: op.parent === null ? '' : resolve(op.parent) },
      resultKey: 'folder',
    },
  ],
  delete_folder: (op, _resolve, project_id) => [{ endpoint: 'deleteFolder', params: { project_id, folder_id: op.id } }],
  create_step_group: (op, _resolve, project_id) => [
    { endpoint: 'createStepGroup', params: { project_id }, body: stepGroupBody(op.body), produces: 'id', resultKey: 'step_group' },
  ],
  update_step_group: (op, _resolve, project_id) => [
    { endpoint: 'updateStepGroup', params: { project_id, step_group_id: op.id }, body: stepGroupBody(op.body), resultKey: 'step_group' },
  ],
  delete_step_group: (op, _resolve, project_id) => [{ endpoint: 'deleteStepGroup', params: { project_id, step_group_id: op.id } }],
  create_case: (op, resolve, project_id) => [
    { endpoint: 'createTestCase', params: { project_id }, body: caseBody(op.body, resolve), produces: 'id', resultKey: 'test_case' },
  ],
  update_case: (op, resolve, project_id) => [
    { endpoint: 'updateTestCase', params: { project_id, test_case_id: op.id }, body: caseBody(op.body, resolve), resultKey: 'test_case' },
  ],
  move_case: (op, resolve, project_id) => [
    { endpoint: 'updateTestCase', params: { project_id, test_case_id: op.id }, body: { folder_id: resolve(op.folder) }, resultKey: 'test_case' },
  ],
  delete_case: (op, _resolve, project_id) => [{ endpoint: 'deleteTestCase', params: { project_id, test_case_id: op.id } }],
  create_test_plan: (op, _resolve, project_id) => [
    {
      endpoint: 'createTestPlan',
      params: { project_id },
      body: {
        title: op.title,
        description: op.description,
        ...(op.startDate !== undefined ? { start_date: op.startDate } : {}),
        ...(op.endDate !== undefined ? { end_date: op.endDate } : {}),
        ...(op.labelIds ? { label_ids: op.labelIds } : {}),
      },
      produces: 'id',
      resultKey: 'test_plan',
    },
  ],
  complete_test_plan: (op, resolve, project_id) => [{ endpoint: 'completeTestPlan', params: { project_id, test_plan_id: resolve(op.plan) } }],
  create_test_run: (op, resolve, project_id) => testRunRequests(op, resolve, project_id),
  adopt: () => [],
};

/** The requests that carry out one operation, in the order they must run. */
export function requestsFor(op: Operation, resolve: RefResolver, projectId: string): RequestDescriptor[] {
  // each entry accepts its own kind, which `op.kind` picks
  return (KIND_REQUESTS[op.kind] as RequestsOf<OperationKind>)(op, resolve, projectId);
}

/**
 * A run is created STATIC with exactly its cases; its results are idempotent PUTs (a resumed run
 * sends them again), in batches; a closed run is closed last, and reopened first when resumed.
 */
function testRunRequests(op: CreateTestRunOp, resolve: RefResolver, project_id: string): RequestDescriptor[] {
  const params = { project_id, test_run_id: SELF };
  const reqs: RequestDescriptor[] = [
    {
      endpoint: 'createTestRun',
      params: { project_id },
      body: {
        title: op.title,
        ...(op.description !== undefined ? { description: op.description } : {}),
        status: 'ACTIVE',
        selection_type: 'STATIC',
        static_selection_filters: [{ field: 'id', operator: 'IN', values: op.cases.map(resolve) }],
        ...(op.startDate !== undefined ? { start_date: op.startDate } : {}),
        ...(op.endDate !== undefined ? { end_date: op.endDate } : {}),
        ...(op.assigneeId !== undefined ? { assignee_id: op.assigneeId } : {}),
        ...(op.labelNames !== undefined ? { label_names: op.labelNames } : {}),
        ...(op.environmentIds ? { environment_ids: op.environmentIds } : {}),
        ...(op.plan !== undefined ? { test_plan_id: op.plan === null ? null : resolve(op.plan) } : {}),
      },
      produces: 'id',
      resultKey: 'test_run',
    },
  ];
  // results need the run open: an earlier run may have closed it already
  if (op.close) reqs.push({ ...runStatusRequest(params, 'ACTIVE'), resumeOnly: true });
  reqs.push(...runResultRequests(op.results, op.batchSize, resolve, params));
  if (op.close) reqs.push(runStatusRequest(params, 'CLOSED'));
  return reqs;
}

type RunParams = { project_id: string; test_run_id: string };

/**
 * A run's results: the rows with a status in batches of `batchSize` (one `updateRunCases` each),
 * then one `assignRunCaseUser` per row that only names a user. `results push` sends these into an
 * existing run too.
 */
export function runResultRequests(results: readonly RunCaseResult[], batchSize: number, resolve: RefResolver, params: RunParams): RequestDescriptor[] {
  const reqs: RequestDescriptor[] = [];
  const rows: { test_case_id: string; test_run_status_id: string; description?: string; user_id?: string }[] = [];
  const assignOnly: { test_case_id: string; user_id: string }[] = [];
  for (const r of results) {
    const caseId = resolve(r.case);
    if (r.statusId !== undefined) {
      rows.push({
        test_case_id: caseId,
        test_run_status_id: r.statusId,
        ...(r.description !== undefined ? { description: r.description } : {}),
        ...(r.userId ? { user_id: r.userId } : {}),
      });
    } else if (r.userId !== undefined) assignOnly.push({ test_case_id: caseId, user_id: r.userId });
  }
  const size = Math.max(1, batchSize);
  for (let i = 0; i < rows.length; i += size) reqs.push({ endpoint: 'updateRunCases', params, body: { test_run_cases: rows.slice(i, i + size) } });
  for (const a of assignOnly) reqs.push({ endpoint: 'assignRunCaseUser', params, body: a });
  return reqs;
}

/** Opens (`ACTIVE`) or closes (`CLOSED`) a run. */
export function runStatusRequest(params: RunParams, status: 'ACTIVE' | 'CLOSED'): RequestDescriptor {
  return { endpoint: 'updateTestRun', params, body: { status } };
}

/** The wire body of a step group create or (full-replacement) update. */
export function stepGroupBody(body: StepGroupBody): BodyOf<'createStepGroup'> {
  const out: BodyOf<'createStepGroup'> = { title: body.title };
  for (const f of STEP_GROUP_FIELDS) {
    const value = fieldOf<unknown>(body, f, 'remote');
    switch (f.kind) {
      case 'text':
        // the update replaces the group: a text the file leaves out is sent empty
        setField(out, f, 'wire', value ?? '');
        break;
      case 'labels':
        if (value !== undefined) setField(out, f, 'wire', value);
        break;
      case 'steps':
        // the create request names the expected outcome in the singular (service-interface.md)
        setField(out, f, 'wire', (value as GroupStepBody[]).map((s, i) => ({ step_description: s.description, expected_result: s.expected, order: i + 1 })));
        break;
      default:
        assertNever(f.kind);
    }
  }
  return out;
}

/** The wire body of a case create or update: only the fields the repository manages (the field table's wire names). */
export function caseBody(body: CaseBody, resolve: RefResolver): CaseWireBody {
  const out: CaseWireBody = { title: body.title, folder_id: resolve(body.folder) };
  for (const f of CASE_FIELDS_BY_KIND) {
    const value = fieldOf(body, f, 'remote');
    if (value === undefined) continue;
    setField(
      out,
      f,
      'wire',
      f.kind === 'steps'
        ? (value as StepBody[]).map((s, i) => ({
            step_description: s.description,
            expected_results: s.expected,
            order: i + 1,
            step_type: s.stepType ?? 'DEFAULT',
            step_group_id: s.stepGroup === null ? null : resolve(s.stepGroup),
          }))
        : value,
    );
  }
  return out;
}

/** Replaces {@link SELF} in params and top-level body values with the produced id. */
export function fillSelf<R extends RequestDescriptor>(req: R, selfId: string | undefined): R {
  if (!Object.values(req.params).includes(SELF) && !(req.body && Object.values(req.body).includes(SELF))) return req;
  if (selfId === undefined) throw new Error(`request ${req.endpoint} needs the id of an item not created yet`);
  return {
    ...req,
    params: Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, v === SELF ? selfId : v])),
    ...(req.body ? { body: withSelf(req.body, selfId) } : {}),
  };
}

/** The body with every top-level {@link SELF} replaced by the id (an id where the body holds an id). */
function withSelf<B extends object>(body: B, selfId: string): B {
  const out = { ...body };
  for (const k of Object.keys(out) as (keyof B & string)[]) if (out[k] === SELF) Object.assign(out, { [k]: selfId });
  return out;
}

/** Whether an operation creates a remote item (its POST is never repeated blindly). */
export function isCreate(op: Operation): op is CreateOp {
  return kindCreates(op.kind);
}

/** Whether an operation deletes a remote item. */
export function isDelete(op: Operation): op is Extract<Operation, { kind: 'delete_case' | 'delete_folder' | 'delete_step_group' }> {
  return actionOf(op) === 'delete';
}
