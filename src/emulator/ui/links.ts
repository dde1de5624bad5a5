import { seg } from './html.js';

/**
 * Where the web UI shows each item. The pages link to each other with these, and the API's
 * `web_url` extension (src/emulator/web-url.ts) and the execution interface's `app_url` point at
 * them, so a link tmsync prints opens the page that the UI itself would link to.
 */
export const uiPaths = {
  project: (prefix: string) => `/ui/projects/${seg(prefix)}`,
  folder: (prefix: string, folderId: string) => `${uiPaths.project(prefix)}/folders/${seg(folderId)}`,
  testCase: (prefix: string, humanId: string) => `${uiPaths.project(prefix)}/cases/${seg(humanId)}`,
  stepGroup: (prefix: string, humanId: string) => `${uiPaths.project(prefix)}/step-groups/${seg(humanId)}`,
  testPlan: (prefix: string, humanId: string) => `${uiPaths.project(prefix)}/plans/${seg(humanId)}`,
  testRun: (prefix: string, humanId: string) => `${uiPaths.project(prefix)}/runs/${seg(humanId)}`,
  /** a file stored with a run case's result (its bytes) */
  attachment: (prefix: string, runHumanId: string, id: string) => `${uiPaths.testRun(prefix, runHumanId)}/attachments/${seg(id)}`,
  /** a run of the execution interface (`run trigger`) */
  execution: (id: number) => `/ui/runs/${seg(id)}`,
} as const;
