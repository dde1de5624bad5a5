/** Projects in and out: pull, backup, restore, migrate (library side; the CLI prints). */
export { buildRepositoryModel, type BuildModelOptions, type ExistingRepository, type RepositoryModel, type GoneItem } from './repository-model.js';
export { buildPullFiles, type PullFile, type PullFilesResult, type BuildPullFilesOptions } from './pull-files.js';
export { pullIntoRepository, loadExistingRepository, type PullOptions, type PullResult, type PullMergeHooks } from './pull.js';
export { PullMerge, type Prefer, type PullConflict, type PullMergeInput, type PullMergeSummary } from './pull-merge.js';
export { preparePullMerge, recordPull, type PreparedPullMerge } from './pull-sync.js';
export { createPullStage, type PullStage, type PullStageOptions } from './pull-stage.js';
export { actualToDesired, type ActualToDesiredOptions } from './to-desired.js';
export { slugify, isPortableDirName, safeDirName } from './naming.js';
export { Backup, BACKUP_FORMAT_VERSION, BACKUP_KIND } from './backup-format.js';
export { writeBackup, writeBackupFile, type WriteBackupOptions } from './backup.js';
export { clientBackupSource, type BackupSource, type ClientBackupSourceOptions } from './backup-source.js';
export { readBackupFile, parseBackupText } from './backup-read.js';
export { buildRestoreMapping, type RestoreMapping, type RestoreMappingOptions, type RestoreTargetDirectory } from './restore-mapping.js';
export { restoreBackup, restoreJournalPath, type RestoreOptions, type RestoreResult } from './restore.js';
export { buildRestorePlan, type RestorePlan, type RestorePlanInput, type RestorePhase } from './restore-plan.js';
export { fetchRestoreDirectory } from './restore-target.js';
export { planAdoption, keyTargetItems, readTargetItems, type AdoptionPlan, type Adoption, type TargetItems } from './restore-adopt.js';
export { planMigration, pairTwins, settlePendingCreates, withoutAdopts, type PlanMigrationResult } from './migrate.js';
