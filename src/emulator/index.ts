/**
 * The emulator's public API: start it, seed it. Importing this module loads fastify and
 * better-sqlite3; only `tmsync serve` and tests do.
 */
export { startEmulator } from './server.js';
export type { EmulatorOptions, RunningEmulator, RequestLogEntry, FaultOptions, Dialect, RunOutcome } from './emulator-options.js';
export { seedDemo, createProject, createUser, createLabel, LOOKUP_NAMES, LIVE_LOOKUP_NAMES, lookupNames, DEMO_USERS, DEMO_LABELS, type DemoSeed } from './seed.js';
