import type { HandlerTable } from '../http.js';
import { folderRoutes } from './folders.js';
import { lookupRoutes } from './lookups.js';
import { projectRoutes } from './projects.js';
import { testCaseRoutes } from './test-cases.js';

/** Every handler, keyed by the endpoint name of `src/api/endpoints.ts`. */
export const handlers: HandlerTable = {
  ...projectRoutes,
  ...folderRoutes,
  ...testCaseRoutes,
  ...lookupRoutes,
};
