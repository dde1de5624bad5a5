/** The plan: desired × actual → operations, and their renderings. Pure throughout. */
export type * from './operations.js';
export { PLAN_FORMAT_VERSION, hasChanges } from './operations.js';
export type { BuildPlanOptions } from './context.js';
export type { PlanDisplay } from './display.js';
export { buildPlan, folderFingerprint, type BuildPlanResult } from './build-plan.js';
export { summarize, summaryLine } from './summary.js';
export { normalizeText } from '../base/normalize-text.js';
export { planTextChunks, renderPlanText, type RenderTextOptions } from './render-text.js';
export { renderPlanMarkdown, PLAN_COMMENT_MARKER, type RenderMarkdownOptions } from './render-markdown.js';
export { renderPlanJson, renderPlanJsonLine, parsePlanFile, planDocument, PlanFileSchema } from './plan-file.js';
export { openConflicts, planDiffers } from './operations.js';
export type { SyncRecord, SyncRecords, SyncForget } from './sync.js';
