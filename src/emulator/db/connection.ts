import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { TmsyncError } from '../../errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export type { SqliteDatabase };

/**
 * Opens (or creates) the emulator's database and brings its schema up to date.
 * A file database uses WAL so reads never wait for a write; `synchronous = NORMAL` is durable
 * across process crashes in WAL mode, which is what an emulator needs.
 */
export function openDatabase(file: string | undefined): SqliteDatabase {
  let db: SqliteDatabase;
  try {
    db = new Database(file ?? ':memory:');
    if (file) db.pragma('journal_mode = WAL');
  } catch (err) {
    throw new TmsyncError('emulator_db_unavailable', `cannot open the database ${file}: ${err instanceof Error ? err.message : String(err)}`, {
      hint: 'check that the directory exists and is writable, or use --memory',
      cause: err,
    });
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, file ?? ':memory:');
  return db;
}

function migrate(db: SqliteDatabase, file: string): void {
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current > SCHEMA_VERSION) {
    db.close();
    throw new TmsyncError(
      'emulator_db_too_new',
      `the database ${file} has schema version ${current}, this emulator knows up to ${SCHEMA_VERSION}`,
      { hint: 'use a newer tmsync, or start with another --db file' },
    );
  }
  const run = db.transaction(() => {
    for (let v = current; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  });
  if (current < SCHEMA_VERSION) run();
}
