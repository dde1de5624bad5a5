import { z } from 'zod';
import { MessageResponse, PageQuery, envelope, pagedEnvelope } from './envelope.js';
import * as R from './resources.js';
import * as B from './request-schemas.js';
import { CASE_FIELD_ENTRIES, type CaseFieldEntry } from '../fields.js';

/**
 * Every endpoint of the service, as data: the single table the emulator registers its routes from,
 * the client takes its paths and response schemas from, and `schemas/openapi.json` is generated from.
 * The table keeps each entry's own type, so the types of a call (its name, path parameters, query,
 * body, answer and list items) are derived from its schemas below instead of being written out.
 *
 * Paths use `:param` segments and are relative to `{base_url}` (management) or `{app_url}`
 * (execution, paths starting `/api/v1`).
 */
interface EndpointSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  iface: 'management' | 'execution';
  /** `document`: in service-interface.md; `notes`: in real-service-notes.md */
  source: 'document' | 'notes';
  summary: string;
  query?: z.ZodType;
  /**
   * Text fields of a list's items that take `<field>__EQ|NEQ|CONTAINS|IN` filters in the query
   * (IN: comma-separated values). Any other query parameter is refused (document) or ignored (live).
   */
  textFilters?: readonly string[];
  body?: z.ZodType;
  /** the body may also come as multipart/form-data with the JSON in a part named `data` */
  multipart?: boolean;
  /** success status */
  status: 200 | 201 | 204;
  response?: z.ZodType;
}

/** One entry of the table with its name, as code that walks every endpoint sees it. */
export interface Endpoint extends EndpointSpec {
  /** stable name, used as the emulator's handler key and the OpenAPI operationId */
  name: EndpointName;
}

const ListProjectsQuery = PageQuery.extend({
  name__NEQ: z.string().optional(),
  name__CONTAINS: z.string().optional(),
});
const ListCasesQuery = PageQuery.extend({
  folder_id: z.string().optional(),
  search: z.string().optional(),
  title__CONTAINS: z.string().optional(),
});
const ListPlansQuery = PageQuery.extend({
  name__NEQ: z.string().optional(),
  title__CONTAINS: z.string().optional(),
});
const ListRunsQuery = PageQuery.extend({
  test_plan_id: z.string().optional(),
  search: z.string().optional(),
});

const P = '/projects/:project_id';
type TextEntry = Extract<CaseFieldEntry, { kind: 'text' | 'template' }>;
const isTextEntry = (f: CaseFieldEntry): f is TextEntry => f.kind === 'text' || f.kind === 'template';
/** A case list's text filters: title, human id and the table's text and template fields (their wire names). */
const CASE_TEXT = ['title', 'human_id', ...CASE_FIELD_ENTRIES.filter(isTextEntry).map((f) => f.wire)] as const;
const LOOKUP_TEXT = ['name', 'alias'] as const;
const RUN_TEXT = ['title', 'human_id', 'description', 'status', 'selection_type'] as const;

export const endpointTable = {
  // Projects
  listProjects: { method: 'GET', path: '/projects', iface: 'management', source: 'document', summary: 'List projects', query: ListProjectsQuery, textFilters: ['name', 'description', 'human_id_prefix'], status: 200, response: pagedEnvelope('projects', R.Project) },
  getProject: { method: 'GET', path: P, iface: 'management', source: 'document', summary: 'Get a project', status: 200, response: envelope('project', R.Project) },
  createProject: { method: 'POST', path: '/projects', iface: 'management', source: 'notes', summary: 'Create a project', body: B.CreateProjectBody, status: 200, response: envelope('project', R.Project) },
  updateProject: { method: 'PUT', path: P, iface: 'management', source: 'notes', summary: 'Update a project', body: B.UpdateProjectBody, status: 200, response: envelope('project', R.Project) },
  deleteProject: { method: 'DELETE', path: P, iface: 'management', source: 'notes', summary: 'Delete a project and everything in it', status: 200, response: MessageResponse },

  // Folders
  listFolders: { method: 'GET', path: `${P}/folders`, iface: 'management', source: 'document', summary: 'List folders (flat)', query: PageQuery, textFilters: ['name'], status: 200, response: pagedEnvelope('folders', R.Folder) },
  getFolder: { method: 'GET', path: `${P}/folders/:folder_id`, iface: 'management', source: 'document', summary: 'Get a folder with its children', status: 200, response: envelope('folder', R.Folder) },
  createFolder: { method: 'POST', path: `${P}/folders`, iface: 'management', source: 'notes', summary: 'Create a top-level folder (then move it)', body: B.CreateFolderBody, status: 201, response: envelope('folder', R.Folder) },
  updateFolder: { method: 'PUT', path: `${P}/folders/:folder_id`, iface: 'management', source: 'notes', summary: 'Rename or reorder a folder', body: B.UpdateFolderBody, status: 200, response: envelope('folder', R.Folder) },
  moveFolder: { method: 'POST', path: `${P}/folders/:folder_id/move`, iface: 'management', source: 'document', summary: 'Move a folder under another parent', body: B.MoveFolderBody, status: 200, response: envelope('folder', R.Folder) },
  deleteFolder: { method: 'DELETE', path: `${P}/folders/:folder_id`, iface: 'management', source: 'notes', summary: 'Delete an empty folder', status: 200, response: MessageResponse },

  // Test cases
  listTestCases: { method: 'GET', path: `${P}/test_cases`, iface: 'management', source: 'notes', summary: 'List test cases with their steps', query: ListCasesQuery, textFilters: CASE_TEXT, status: 200, response: pagedEnvelope('test_cases', R.TestCase) },
  getTestCase: { method: 'GET', path: `${P}/test_cases/:test_case_id`, iface: 'management', source: 'document', summary: 'Get a test case (id or human id)', status: 200, response: envelope('test_case', R.TestCase) },
  createTestCase: { method: 'POST', path: `${P}/test_cases`, iface: 'management', source: 'notes', summary: 'Create a test case', body: B.CreateTestCaseBody, status: 201, response: envelope('test_case', R.TestCase) },
  updateTestCase: { method: 'PUT', path: `${P}/test_cases/:test_case_id`, iface: 'management', source: 'document', summary: 'Update a test case (omitted fields kept)', body: B.UpdateTestCaseBody, status: 200, response: envelope('test_case', R.TestCase) },
  deleteTestCase: { method: 'DELETE', path: `${P}/test_cases/:test_case_id`, iface: 'management', source: 'notes', summary: 'Delete a test case', status: 200, response: MessageResponse },
  listCaseTypes: { method: 'GET', path: '/test_cases/types', iface: 'management', source: 'document', summary: 'Test case types', query: PageQuery, textFilters: LOOKUP_TEXT, status: 200, response: pagedEnvelope('types', R.LookupEntry) },
  listCaseStatuses: { method: 'GET', path: '/test_cases/statuses', iface: 'management', source: 'document', summary: 'Test case statuses', query: PageQuery, textFilters: LOOKUP_TEXT, status: 200, response: pagedEnvelope('statuses', R.LookupEntry) },
  listPriorities: { method: 'GET', path: '/test_cases/priorities', iface: 'management', source: 'notes', summary: 'Test case priorities', query: PageQuery, textFilters: LOOKUP_TEXT, status: 200, response: pagedEnvelope('priorities', R.LookupEntry) },
  listAutomationTypes: { method: 'GET', path: '/test_cases/automation_types', iface: 'management', source: 'notes', summary: 'Automation types', query: PageQuery, textFilters: LOOKUP_TEXT, status: 200, response: pagedEnvelope('automation_types', R.LookupEntry) },

  // Step groups
  listStepGroups: { method: 'GET', path: `${P}/step_groups`, iface: 'management', source: 'document', summary: 'List step groups (without steps)', query: PageQuery, textFilters: ['title', 'description', 'human_id'], status: 200, response: pagedEnvelope('step_groups', R.StepGroup) },
  getStepGroup: { method: 'GET', path: `${P}/step_groups/:step_group_id`, iface: 'management', source: 'document', summary: 'Get a step group with its steps', status: 200, response: envelope('step_group', R.StepGroup) },
  createStepGroup: { method: 'POST', path: `${P}/step_groups`, iface: 'management', source: 'document', summary: 'Create a step group', body: B.CreateStepGroupBody, status: 200, response: envelope('step_group', R.StepGroup) },
  updateStepGroup: { method: 'PUT', path: `${P}/step_groups/:step_group_id`, iface: 'management', source: 'notes', summary: 'Update a step group (steps replaced)', body: B.UpdateStepGroupBody, status: 200, response: envelope('step_group', R.StepGroup) },
  deleteStepGroup: { method: 'DELETE', path: `${P}/step_groups/:step_group_id`, iface: 'management', source: 'notes', summary: 'Delete a step group', status: 204 },

  // Test plans
  listTestPlans: { method: 'GET', path: `${P}/test_plans`, iface: 'management', source: 'notes', summary: 'List test plans', query: ListPlansQuery, textFilters: ['title', 'name', 'description', 'human_id', 'status'], status: 200, response: pagedEnvelope('test_plans', R.TestPlan) },
  getTestPlan: { method: 'GET', path: `${P}/test_plans/:test_plan_id`, iface: 'management', source: 'document', summary: 'Get a test plan', status: 200, response: envelope('test_plan', R.TestPlan) },
  createTestPlan: { method: 'POST', path: `${P}/test_plans`, iface: 'management', source: 'document', summary: 'Create a test plan (ACTIVE)', body: B.CreateTestPlanBody, status: 200, response: envelope('test_plan', R.TestPlan) },
  updateTestPlan: { method: 'PUT', path: `${P}/test_plans/:test_plan_id`, iface: 'management', source: 'notes', summary: 'Update a test plan', body: B.UpdateTestPlanBody, status: 200, response: envelope('test_plan', R.TestPlan) },
  completeTestPlan: { method: 'POST', path: `${P}/test_plans/:test_plan_id/complete`, iface: 'management', source: 'document', summary: 'Complete a test plan', status: 200, response: z.looseObject({ status: z.string(), message: z.string().optional(), data: z.looseObject({ test_plan: R.CompletedTestPlan }) }) },
  deleteTestPlan: { method: 'DELETE', path: `${P}/test_plans/:test_plan_id`, iface: 'management', source: 'notes', summary: 'Delete a test plan', status: 200, response: MessageResponse },
  listTestPlanRuns: { method: 'GET', path: `${P}/test_plans/:test_plan_id/test_runs`, iface: 'management', source: 'notes', summary: "A test plan's runs", query: PageQuery, textFilters: RUN_TEXT, status: 200, response: pagedEnvelope('test_runs', R.TestRun) },

  // Test runs
  listRunStatuses: { method: 'GET', path: '/test_runs/statuses', iface: 'management', source: 'document', summary: 'Test run statuses', query: PageQuery, textFilters: LOOKUP_TEXT, status: 200, response: pagedEnvelope('statuses', R.LookupEntry) },
  listTestRuns: { method: 'GET', path: `${P}/test_runs`, iface: 'management', source: 'notes', summary: 'List test runs', query: ListRunsQuery, textFilters: RUN_TEXT, status: 200, response: pagedEnvelope('test_runs', R.TestRun) },
  getTestRun: { method: 'GET', path: `${P}/test_runs/:test_run_id`, iface: 'management', source: 'notes', summary: 'Get a test run (id or human id)', status: 200, response: envelope('test_run', R.TestRun) },
  createTestRun: { method: 'POST', path: `${P}/test_runs`, iface: 'management', source: 'notes', summary: 'Create a test run', body: B.CreateTestRunBody, status: 200, response: envelope('test_run', R.TestRun) },
  updateTestRun: { method: 'PUT', path: `${P}/test_runs/:test_run_id`, iface: 'management', source: 'notes', summary: 'Update or close a test run', body: B.UpdateTestRunBody, status: 200, response: envelope('test_run', R.TestRun) },
  deleteTestRun: { method: 'DELETE', path: `${P}/test_runs/:test_run_id`, iface: 'management', source: 'notes', summary: 'Delete a test run', status: 204 },
  listRunCases: { method: 'GET', path: `${P}/test_runs/:test_run_id/test_cases`, iface: 'management', source: 'document', summary: "A run's cases with their statuses", status: 200, response: z.looseObject({ message: z.string().optional(), data: z.looseObject({ test_cases: z.array(R.RunCaseListItem) }) }) },
  updateRunCases: { method: 'PUT', path: `${P}/test_runs/:test_run_id/test_cases`, iface: 'management', source: 'document', summary: 'Set run-case statuses (JSON or multipart with a `data` part)', body: B.UpdateRunCasesBody, multipart: true, status: 200, response: envelope('test_run_cases', z.array(R.RunCaseUpdateResult)) },
  assignRunCaseUser: { method: 'PUT', path: `${P}/test_runs/:test_run_id/assign_user`, iface: 'management', source: 'document', summary: 'Assign a user to a run case', body: B.AssignUserBody, status: 200, response: envelope('test_run_case', R.AssignUserResult) },
  importJunit: { method: 'POST', path: `${P}/junit-import/test-run/:test_run_id`, iface: 'management', source: 'notes', summary: 'Import a JUnit report into a run (multipart, part `junit_xml`)', multipart: true, status: 200, response: envelope('import', R.JunitImport) },
  getJunitImport: { method: 'GET', path: `${P}/junit-imports/:import_id/status`, iface: 'management', source: 'notes', summary: 'Status of a JUnit import', status: 200, response: envelope('import', R.JunitImport) },

  // Users and labels
  listUsers: { method: 'GET', path: '/users', iface: 'management', source: 'notes', summary: 'Users (data is a bare array)', textFilters: ['email', 'first_name', 'last_name', 'status'], status: 200, response: z.looseObject({ message: z.string().optional(), data: z.array(R.User) }) },
  listLabels: { method: 'GET', path: '/labels', iface: 'management', source: 'notes', summary: 'Labels', textFilters: ['name'], status: 200, response: envelope('labels', z.array(R.Label)) },

  // Execution interface
  triggerExecution: { method: 'POST', path: '/api/v1/execution_results', iface: 'execution', source: 'document', summary: 'Start a test plan', body: B.ExecutionTriggerBody, status: 200, response: R.ExecutionTriggerResult },
  getExecution: { method: 'GET', path: '/api/v1/execution_results/:run_id', iface: 'execution', source: 'notes', summary: 'Status of a triggered run (flat object)', status: 200, response: R.ExecutionResult },
  getExecutionJunit: { method: 'GET', path: '/api/v1/reports/junit/:run_id', iface: 'execution', source: 'notes', summary: 'JUnit report of a finished run (application/xml)', status: 200 },
} as const satisfies Record<string, EndpointSpec>;

/** Every endpoint with its name, in the table's order (routes, OpenAPI paths). */
export const endpoints: readonly Endpoint[] = Object.entries(endpointTable).map(([name, spec]) => ({ name: name as EndpointName, ...spec }));
const byName = new Map(endpoints.map((e) => [e.name as string, e]));

/** Whether `name` is an endpoint of the table (names that come from outside: tests, saved data). */
export function isEndpointName(name: string): name is EndpointName {
  return byName.has(name);
}

export function endpoint(name: string): Endpoint {
  const e = byName.get(name);
  if (!e) throw new Error(`unknown endpoint ${name}`);
  return e;
}

type Table = typeof endpointTable;
/** The name of an endpoint: a misspelt one does not compile. */
export type EndpointName = keyof Table;
/** The name of a POST endpoint of the table. */
export type PostEndpointName = { [N in EndpointName]: Table[N]['method'] extends 'POST' ? N : never }[EndpointName];
type SchemaOf<N extends EndpointName, K extends 'query' | 'body' | 'response'> = Table[N] extends { [P in K]: infer S extends z.ZodType } ? S : undefined;

/** The parsed answer of an endpoint (what its response schema outputs); `undefined` when it has none. */
export type ResponseOf<N extends EndpointName> = N extends unknown ? ResponseOf1<N> : never;
type ResponseOf1<N extends EndpointName> = SchemaOf<N, 'response'> extends infer S extends z.ZodType ? z.output<S> : undefined;
/** The body a caller may send (what the body schema accepts); `never` for endpoints without a JSON body. */
export type BodyOf<N extends EndpointName> = N extends unknown ? BodyOf1<N> : never;
type BodyOf1<N extends EndpointName> = SchemaOf<N, 'body'> extends infer S extends z.ZodType ? z.input<S> : never;
/** The body a handler receives once the body schema has parsed it. */
export type ParsedBodyOf<N extends EndpointName> = SchemaOf<N, 'body'> extends infer S extends z.ZodType ? z.output<S> : unknown;
/** `<field>__EQ|NEQ|CONTAINS|IN` on the list's text fields. */
type TextFilterQuery<N extends EndpointName> = Table[N] extends { textFilters: readonly (infer F extends string)[] }
  ? { [K in `${F}__${'EQ' | 'NEQ' | 'CONTAINS' | 'IN'}`]?: string }
  : unknown;
/** The query a caller may send: the query schema's parameters and the text filters (`never`: it takes none). */
export type QueryOf<N extends EndpointName> = N extends unknown ? QueryOf1<N> : never;
type QueryOf1<N extends EndpointName> = SchemaOf<N, 'query'> extends infer S extends z.ZodType
  ? { [K in keyof z.output<S>]?: z.output<S>[K] | string } & TextFilterQuery<N>
  : Table[N] extends { textFilters: readonly string[] }
    ? TextFilterQuery<N>
    : never;
/** The query a handler receives once the query schema has parsed it. */
export type ParsedQueryOf<N extends EndpointName> = SchemaOf<N, 'query'> extends infer S extends z.ZodType ? z.output<S> : Record<string, unknown>;
type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | PathParams<`/${Rest}`> : P extends `${string}:${infer Name}` ? Name : never;
/** The `:param` names of an endpoint's path. */
export type ParamName<N extends EndpointName> = PathParams<Table[N]['path']>;
/** The endpoints whose answer is one page of a list (`data.<key>[]` and `page_info`). */
export type ListEndpointName = { [N in EndpointName]: SchemaOf<N, 'response'> extends z.ZodObject<{ page_info: z.ZodType }> ? N : never }[EndpointName];
/** The item of a paginated list. */
export type ItemOf<N extends ListEndpointName> = N extends unknown ? ItemOf1<N> : never;
type ItemOf1<N extends ListEndpointName> = ListData<SchemaOf<N, 'response'>> extends z.ZodObject<infer Shape>
  ? Shape[keyof Shape] extends z.ZodArray<infer I> ? z.output<I> : never
  : never;
/** The lists of lookup entries (types, statuses, priorities, automation types, run statuses). */
export type LookupListName = { [N in ListEndpointName]: ListData<SchemaOf<N, 'response'>> extends z.ZodObject<infer S> ? (S[keyof S] extends z.ZodArray<typeof R.LookupEntry> ? N : never) : never }[ListEndpointName];
/** The endpoints whose body may come as multipart/form-data. */
export type MultipartEndpointName = { [N in EndpointName]: Table[N] extends { multipart: true } ? N : never }[EndpointName];
type ListData<S> = S extends z.ZodObject<infer Shape> ? (Shape extends { data: infer D } ? D : never) : never;

/** Fills `:param` segments, URL-encoding each value. */
export function fillPath(path: string, params: Record<string, string | number>): string {
  return path.replace(/:([a-z_]+)/g, (_, k: string) => {
    const v = params[k];
    if (v === undefined) throw new Error(`missing path parameter ${k} for ${path}`);
    return encodeURIComponent(String(v));
  });
}
