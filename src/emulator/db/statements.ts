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

/**
 * One page of a list: the rows and the total before paging. A page asked for by key (`after`,
 * `before`) also says each row's key and whether the list goes on either side of the page.
 */
export interface Page<T> {
  items: T[];
  total: number;
  /** each item's sort key (its `seq`), for the live dialect's cursors */
  keys?: number[];
  /** whether items follow the page */
  more?: boolean;
  /** whether items come before the page */
  earlier?: boolean;
}

/**
 * A page by position (`offset`, the document's `page`) or by the sort key of an item (the live
 * dialect's cursors, as a real cursor is: an item deleted or added before the cursor's moves no
 * other item past it): `after` a key, the first `limit` items past it; `before` a key, the last
 * `limit` items ahead of it.
 */
export interface PageRequest {
  limit: number;
  offset: number;
  after?: number;
  before?: number;
}

/** What {@link pageOf} reads: `SELECT cols FROM from where ORDER BY key` (`where` starts with WHERE; `key` a number unique in the list). */
interface ListQuery {
  cols: string;
  from: string;
  where: string;
  key: string;
}

/**
 * A page of a list ordered by one number, by position or by key ({@link PageRequest}). By key,
 * one row more than the page is read to tell whether the list goes on, and one row on the other
 * side of the page to tell whether it goes on there.
 */
export function pageOf<R>(ctx: DbContext, q: ListQuery, params: Record<string, unknown>, page: PageRequest): Page<R> & { keys: number[] } {
  const total = (ctx.stmt(`SELECT count(*) AS n FROM ${q.from} ${q.where}`).get(params) as { n: number }).n;
  const head = `SELECT ${q.key} AS page_key, ${q.cols} FROM ${q.from} ${q.where}`;
  let rows: (R & { page_key: number })[];
  let more: boolean;
  let earlier: boolean;
  if (page.before !== undefined) {
    rows = ctx.stmt(`${head} AND ${q.key} < @before ORDER BY ${q.key} DESC LIMIT @limit`).all({ ...params, before: page.before, limit: page.limit + 1 }) as typeof rows;
    earlier = rows.length > page.limit;
    rows = rows.slice(0, page.limit).reverse();
    // the item of the key itself may be gone, and with it all that followed
    more = rows.length > 0 && ctx.stmt(`SELECT 1 FROM ${q.from} ${q.where} AND ${q.key} > @key LIMIT 1`).get({ ...params, key: rows[rows.length - 1].page_key }) !== undefined;
  } else if (page.after !== undefined) {
    rows = ctx.stmt(`${head} AND ${q.key} > @after ORDER BY ${q.key} LIMIT @limit`).all({ ...params, after: page.after, limit: page.limit < 0 ? -1 : page.limit + 1 }) as typeof rows;
    more = page.limit >= 0 && rows.length > page.limit;
    if (more) rows = rows.slice(0, page.limit);
    earlier = rows.length > 0 && ctx.stmt(`SELECT 1 FROM ${q.from} ${q.where} AND ${q.key} < @key LIMIT 1`).get({ ...params, key: rows[0].page_key }) !== undefined;
  } else {
    rows = ctx.stmt(`${head} ORDER BY ${q.key} LIMIT @limit OFFSET @offset`).all({ ...params, limit: page.limit, offset: page.offset }) as typeof rows;
    more = page.offset + rows.length < total;
    earlier = page.offset > 0 && total > 0;
  }
  const keys = rows.map((r) => r.page_key);
  const items = rows.map(({ page_key: _, ...r }) => r as unknown as R);
  return { items, total, keys, more, earlier };
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
