/** Backup and restore: a project to one file and back. */
export { BACKUP_FORMAT_VERSION } from './backup-format.js';
export { writeBackupFile } from './backup.js';
export { clientBackupSource, type BackupSource } from './backup-source.js';
export { readBackupFile } from './backup-read.js';
export { restoreBackup, type RestoreOptions, type RestoreResult } from './restore.js';
export { fetchRestoreDirectory } from './restore-target.js';
