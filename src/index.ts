/**
 * tmsync as a library: named re-exports only, no side effects. Nothing exported here prints or
 * exits; commands return result objects and the CLI owns stdout, stderr and the exit code.
 *
 * The emulator is a separate entry (`tmsync/emulator`) because it needs the optional
 * dependencies fastify and better-sqlite3.
 */
export { TmsyncError, ValidationError, formatProblem, toTmsyncError, type Problem } from './errors.js';
export { ERROR_CODES, isErrorCode, type ErrorCode } from './error-codes.js';
export type * from './model.js';
export { VERSION } from './version.js';

export { loadConfig, loadRepository, validateRepository, type TmsyncConfig } from './repository/index.js';
export {
  ApiError,
  createClient,
  fetchState,
  resolveProject,
  CLIENT_DEFAULTS,
  type ClientOptions,
  type TmsClient,
  type CallRequest,
  type CallPolicy,
  type RequestEvent,
} from './remote/index.js';
export {
  buildPlan,
  summaryLine,
  renderPlanText,
  renderPlanMarkdown,
  renderPlanJson,
  parsePlanFile,
  PLAN_FORMAT_VERSION,
  type BuildPlanOptions,
  type BuildPlanResult,
  type PlanDisplay,
} from './plan/index.js';
export type * from './plan/operations.js';
export type { ApplySkip, SkipCause } from './apply/skip-causes.js';
export { executePlan, type ApplyConflict, type ApplyMerge, type ApplyProgress, type ApplyResult, type ExecuteOptions } from './apply/executor.js';
export {
  applyPlan,
  openApplySession,
  type ApplyPlanOptions,
  type ApplyPlanResult,
  type ApplyRunOptions,
  type ApplySession,
  type ApplySessionOptions,
  type JournalFile,
  type SyncBaseOptions,
} from './apply/engine.js';
export { SyncBase, SYNC_BASE_FILE, type FieldStanding } from './base/base.js';
export { readSyncBase, writeSyncBase } from './base/base-file.js';
export { openConflicts, type SyncRecords } from './plan/index.js';
export { fileWriteBack } from './apply/write-back.js';
export {
  buildPullFiles,
  pullIntoRepository,
  preparePullMerge,
  recordPull,
  implicitKeys,
  type PullFile,
  type PullResult,
  type PreparedPullMerge,
  type KeepImplicit,
  type PullConflict,
} from './pull/index.js';
export {
  writeBackupFile,
  clientBackupSource,
  readBackupFile,
  restoreBackup,
  fetchRestoreDirectory,
  BACKUP_FORMAT_VERSION,
  type BackupSource,
  type RestoreOptions,
  type RestoreResult,
} from './backup/index.js';
export { actualToDesired, planMigration } from './migrate/index.js';
export { exportRepository, exportFormat, EXPORT_FORMATS, type ExportFormat, type ExportFormatInfo, type ExportOptions } from './export/export.js';

// the use cases: what `tmsync plan`, `apply` and `pull` do, as functions (docs/architecture.md, "Use cases")
export type { MemoryHook, RepositoryTarget, UseCaseContext, UseCaseNote } from './usecases/hooks.js';
export { planRepository, type PlanRepositoryOptions, type PlanRepositoryResult } from './usecases/plan-repository.js';
export { applyRepository, type ApplyRepositoryOptions, type ApplyRepositoryResult } from './usecases/apply-repository.js';
export { pullRepository, type PullRepositoryOptions, type PullRepositoryResult } from './usecases/pull-repository.js';
export { readRepository, type ReadRepositoryOptions, type RepositoryRead } from './usecases/read-repository.js';
export {
  computeCoverage,
  coverageOfRepository,
  COVERAGE_KINDS,
  type CoverageKind,
  type CoverageOptions,
  type CoverageResult,
} from './usecases/coverage.js';
export { buildAutomationIndex, matchesTest, type AutomatedCase, type AutomationIndex } from './test-patterns.js';
