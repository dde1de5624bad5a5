import type { z } from 'zod';
import type * as R from '../api/resources.js';

/**
 * Types of the parsed answers, by endpoint name, so `client.call('getTestCase', …)` is typed.
 * Names not listed here (or a plain `string`) give `any`.
 */
type Env<K extends string, T> = { message: string; data: { [P in K]: T } & Record<string, unknown> } & Record<string, unknown>;
type Paged<K extends string, T> = Env<K, T[]> & { page_info: { page_size: number; total_count: number; next?: string | null; prev?: string | null } };
type Msg = { message: string } & Record<string, unknown>;

export interface ResponseTypes {
  listProjects: Paged<'projects', R.Project>;
  getProject: Env<'project', R.Project>;
  createProject: Env<'project', R.Project>;
  updateProject: Env<'project', R.Project>;
  deleteProject: Msg;
  listFolders: Paged<'folders', R.FolderWire>;
  getFolder: Env<'folder', R.FolderWire>;
  createFolder: Env<'folder', R.FolderWire>;
  updateFolder: Env<'folder', R.FolderWire>;
  moveFolder: Env<'folder', R.FolderWire>;
  deleteFolder: Msg;
  listTestCases: Paged<'test_cases', R.TestCase>;
  getTestCase: Env<'test_case', R.TestCase>;
  createTestCase: Env<'test_case', R.TestCase>;
  updateTestCase: Env<'test_case', R.TestCase>;
  deleteTestCase: Msg;
  listCaseTypes: Paged<'types', R.LookupEntry>;
  listCaseStatuses: Paged<'statuses', R.LookupEntry>;
  listPriorities: Paged<'priorities', R.LookupEntry>;
  listAutomationTypes: Paged<'automation_types', R.LookupEntry>;
  listStepGroups: Paged<'step_groups', R.StepGroup>;
  getStepGroup: Env<'step_group', R.StepGroup>;
  createStepGroup: Env<'step_group', R.StepGroup>;
  updateStepGroup: Env<'step_group', R.StepGroup>;
  deleteStepGroup: Msg;
  listTestPlans: Paged<'test_plans', R.TestPlan>;
  getTestPlan: Env<'test_plan', R.TestPlan>;
  createTestPlan: Env<'test_plan', R.TestPlan>;
  updateTestPlan: Env<'test_plan', R.TestPlan>;
  completeTestPlan: { status: string; message?: string; data: { test_plan: { id: string; status: string; completed_at: number } } };
  deleteTestPlan: Msg;
  listTestPlanRuns: Paged<'test_runs', R.TestRun>;
  listRunStatuses: Paged<'statuses', R.LookupEntry>;
  listTestRuns: Paged<'test_runs', R.TestRun>;
  getTestRun: Env<'test_run', R.TestRun>;
  createTestRun: Env<'test_run', R.TestRun>;
  updateTestRun: Env<'test_run', R.TestRun>;
  deleteTestRun: Msg;
  listRunCases: Env<'test_cases', R.RunCaseListItem[]>;
  updateRunCases: Env<'test_run_cases', z.infer<typeof R.RunCaseUpdateResult>[]>;
  assignRunCaseUser: Env<'test_run_case', z.infer<typeof R.AssignUserResult>>;
  importJunit: Env<'import', z.infer<typeof R.JunitImport>>;
  getJunitImport: Env<'import', z.infer<typeof R.JunitImport>>;
  listUsers: { message?: string; data: R.User[] };
  listLabels: Env<'labels', R.Label[]>;
  triggerExecution: z.infer<typeof R.ExecutionTriggerResult>;
  getExecution: R.ExecutionResult;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ResponseOf<N extends string> = N extends keyof ResponseTypes ? ResponseTypes[N] : any;

/** The item types of the paginated lists. */
export interface ListItemTypes {
  listProjects: R.Project;
  listFolders: R.FolderWire;
  listTestCases: R.TestCase;
  listCaseTypes: R.LookupEntry;
  listCaseStatuses: R.LookupEntry;
  listPriorities: R.LookupEntry;
  listAutomationTypes: R.LookupEntry;
  listStepGroups: R.StepGroup;
  listTestPlans: R.TestPlan;
  listTestPlanRuns: R.TestRun;
  listRunStatuses: R.LookupEntry;
  listTestRuns: R.TestRun;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ItemOf<N extends string> = N extends keyof ListItemTypes ? ListItemTypes[N] : any;
