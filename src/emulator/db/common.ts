import type { Statement } from 'better-sqlite3';
import type { SqliteDatabase } from './connection.js';

/**
 * What every repository gets: the connection, the injectable clock (milliseconds) and a cache of
 * prepared statements keyed by their SQL text, so each statement is compiled once per process.
 */
export class DbContext {
  private readonly cache = new Map<string, Statement>();
  constructor(
    readonly db: SqliteDatabase,
    readonly now: () => number,
    /** the unit of stored timestamps: the live dialect's are milliseconds, as the live service's @default 'seconds' */
    readonly stampUnit: 'seconds' | 'milliseconds' = 'seconds',
  ) {}

  stmt(sql: string): Statement {
    let s = this.cache.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.cache.set(sql, s);
    }
    return s;
  }

  /**
   * Now as a stored timestamp: Unix seconds (the document's unit), or milliseconds in a database of
   * the live dialect, whose answers carry real milliseconds (`1766395575161`, not `…000`).
   */
  nowSec(): number {
    return this.stampUnit === 'milliseconds' ? Math.floor(this.now()) : Math.floor(this.now() / 1000);
  }

  /**
   * Whether a transaction is open. What is kept in memory between requests is kept only from
   * committed data: a transaction may still roll back, and the versions it counted up with it.
   */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /** Runs `fn` in one transaction (nested calls join the outer one). */
  tx<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}

/** One page of a list: the rows and the total before paging. */
export interface Page<T> {
  items: T[];
  total: number;
}

export interface PageRequest {
  limit: number;
  offset: number;
}

export function parseJsonArray<T = string>(text: string | null | undefined): T[] {
  if (!text) return [];
  const v: unknown = JSON.parse(text);
  return Array.isArray(v) ? (v as T[]) : [];
}

/** Takes the next human-id number of a kind in a project; numbers are never handed out twice. */
export function nextNumber(ctx: DbContext, projectId: string, kind: 'case' | 'sg' | 'plan' | 'run'): number {
  const row = ctx
    .stmt(
      `INSERT INTO counters (project_id, kind, last) VALUES (?, ?, 1)
       ON CONFLICT (project_id, kind) DO UPDATE SET last = last + 1 RETURNING last`,
    )
    .get(projectId, kind) as { last: number };
  return row.last;
}
