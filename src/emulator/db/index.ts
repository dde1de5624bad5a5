/**
 * The emulator's one database module: every SQL statement lives under this directory. Route files
 * call these functions and never see SQL.
 */
export { openDatabase } from './connection.js';
export { DbContext, type Page, type PageRequest } from './statements.js';
export * from './projects.js';
export * from './directory.js';
export * from './folders.js';
export * from './cases.js';
export * from './step-groups.js';
export * from './plans.js';
export * from './runs.js';
export * from './executions.js';
export * from './attachments.js';
