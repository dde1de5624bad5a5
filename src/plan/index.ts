/** The plan: desired × actual → operations, and their renderings. Pure throughout. */
export type * from './operations.js';
export { PLAN_FORMAT_VERSION, hasChanges } from './operations.js';
export type { BuildPlanOptions } from './context.js';
export type { PlanDisplay } from './display.js';
export { buildPlan, type BuildPlanResult } from './build-plan.js';
export { summarize, summaryLine } from './summary.js';
export { planTextChunks, renderPlanText } from './render-text.js';
export { renderPlanMarkdown, PLAN_COMMENT_MARKER } from './render-markdown.js';
export { renderPlanJson, renderPlanJsonLine, parsePlanFile, planDocument } from './plan-file.js';
export { openConflicts, planDiffers } from './operations.js';
export type { SyncRecords } from './sync.js';
