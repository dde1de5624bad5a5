import type { HandlerTable } from '../http.js';
import { executionRoutes } from './execution.js';
import { folderRoutes } from './folders.js';
import { junitRoutes } from './junit-import.js';
import { lookupRoutes } from './lookups.js';
import { projectRoutes } from './projects.js';
import { stepGroupRoutes } from './step-groups.js';
import { testCaseRoutes } from './test-cases.js';
import { testPlanRoutes } from './test-plans.js';
import { testRunRoutes } from './test-runs.js';

/** Every handler, keyed by the endpoint name of `src/api/endpoints.ts`. */
export const handlers: HandlerTable = {
  ...projectRoutes,
  ...folderRoutes,
  ...testCaseRoutes,
  ...stepGroupRoutes,
  ...testPlanRoutes,
  ...testRunRoutes,
  ...junitRoutes,
  ...lookupRoutes,
  ...executionRoutes,
};
