/** Backup and restore: a project to one file and back. */
export { Backup, BACKUP_FORMAT_VERSION, BACKUP_KIND } from './backup-format.js';
export { writeBackup, writeBackupFile, type WriteBackupOptions } from './backup.js';
export { clientBackupSource, type BackupSource, type ClientBackupSourceOptions } from './backup-source.js';
export { readBackupFile, parseBackupText } from './backup-read.js';
export { buildRestoreMapping, type RestoreMapping, type RestoreMappingOptions, type RestoreTargetDirectory } from './restore-mapping.js';
export { restoreBackup, restoreJournalPath, type RestoreOptions, type RestoreResult } from './restore.js';
export { buildRestorePlan, type RestorePlan, type RestorePlanInput, type RestorePhase } from './restore-plan.js';
export { fetchRestoreDirectory } from './restore-target.js';
export { planAdoption, keyTargetItems, readTargetItems, type AdoptionPlan, type Adoption, type TargetItems } from './restore-adopt.js';
