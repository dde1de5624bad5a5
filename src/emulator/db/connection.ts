import Database from 'better-sqlite3';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { TmsyncError } from '../../errors.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

export type { SqliteDatabase };

/**
 * Opens (or creates) the emulator's database and brings its schema up to date.
 * A file database uses WAL; `synchronous = NORMAL` is durable across process crashes in WAL mode,
 * which is what an emulator needs.
 *
 * One process per file: a file database is opened in SQLite's exclusive locking mode and locked at
 * once, so a second emulator on the same `--db` fails to start with `emulator_db_in_use` instead of
 * serving alongside (each process keeps state in memory — list caches, rate limits, fault rolls —
 * that the other would not see, and concurrent writers answered 500s). The operating system
 * releases the lock when the process ends, however it ends, so a killed emulator leaves nothing
 * to clean up.
 */
export function openDatabase(file: string | undefined): SqliteDatabase {
  let db: SqliteDatabase;
  try {
    // a short wait for the lock: a previous emulator on the file may be closing right now
    db = file ? new Database(file, { timeout: LOCK_WAIT_MS }) : new Database(emptyImage());
  } catch (err) {
    throw unavailable(file, err);
  }
  if (file) {
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('journal_mode = WAL');
      // take the write lock now; in exclusive mode it is held until the connection closes
      db.exec('BEGIN EXCLUSIVE; COMMIT');
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code === 'SQLITE_BUSY') {
        throw new TmsyncError('emulator_db_in_use', `the database ${file} is in use by another emulator process`, {
          hint: 'one emulator per --db file: stop the other one (lsof or fuser on the file names it), or give this one another --db file or --memory',
          details: { file },
        });
      }
      throw unavailable(file, err);
    }
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db, file ?? ':memory:');
  return db;
}

/**
 * An empty database image. `--memory` opens one of these (SQLite's memdb, as `sqlite3_deserialize`
 * makes it) rather than `:memory:`: a `:memory:` database keeps every page in a page cache that
 * each commit walks whole, so a write there costs time in proportion to the size of the database
 * (a case create at 200,000 stored cases took ten times as long as at 1,000). A memdb image is a
 * file held in memory behind an ordinary bounded cache: a commit costs the same at any size. Its
 * size limit is SQLite's default for memdb, 1 GiB (a few hundred thousand cases with steps).
 */
function emptyImage(): Buffer {
  const scratch = new Database(':memory:');
  try {
    // page 1 written: a zero-length image is no database
    scratch.pragma('user_version = 0');
    scratch.exec('CREATE TABLE scratch (x); DROP TABLE scratch');
    return scratch.serialize();
  } finally {
    scratch.close();
  }
}

/** How long opening a file waits for another connection's lock before giving up. */
const LOCK_WAIT_MS = 1000;

function unavailable(file: string | undefined, err: unknown): TmsyncError {
  const message = err instanceof Error ? err.message : String(err);
  // better-sqlite3 loads its native addon on first use: missing (installed with --ignore-scripts)
  // or built for another Node, it fails here, and that is not the database file's fault
  if ((err as { code?: string }).code === 'ERR_DLOPEN_FAILED' || /better_sqlite3\.node|bindings file/.test(message)) {
    return new TmsyncError('emulator_unavailable', `the emulator cannot start: better-sqlite3's native addon is missing or not built for this Node (${message.split('\n')[0]})`, {
      hint: 'build it with `npm rebuild better-sqlite3` where tmsync is installed (it compiles, about two minutes), or reinstall tmsync without --ignore-scripts',
      cause: err,
    });
  }
  return new TmsyncError('emulator_db_unavailable', `cannot open the database ${file ?? 'in memory'}: ${message}`, {
    hint: 'check that the directory exists and is writable, or use --memory',
    cause: err,
  });
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
