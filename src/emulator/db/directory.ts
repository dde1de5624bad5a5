import { randomUUID } from 'node:crypto';
import { pageOf, type DbContext, type Page, type PageRequest } from './statements.js';
import type { LookupList } from '../../fields.js';

/** Global, read-only lists: lookup entries, users and labels. */

/** A lookup list, by its wire name (the field table's lookups and the run statuses). */
export type LookupKind = LookupList;

export interface LookupRow {
  id: string;
  name: string;
  order: number;
  alias: string;
  icon: string;
}

export function listLookups(ctx: DbContext, kind: LookupKind, page: PageRequest): Page<LookupRow> {
  // the list's order (ord, then seq) as one number, the key a cursor holds
  const key = `ord * ${2 ** 32} + seq`;
  return pageOf<LookupRow>(ctx, { cols: 'id, name, ord AS "order", alias, icon', from: 'lookups', where: 'WHERE kind = @kind', key }, { kind }, page);
}

export function allLookups(ctx: DbContext, kind: LookupKind): LookupRow[] {
  return ctx
    .stmt('SELECT id, name, ord AS "order", alias, icon FROM lookups WHERE kind = ? ORDER BY ord, seq')
    .all(kind) as LookupRow[];
}

export function lookupExists(ctx: DbContext, kind: LookupKind, id: string): boolean {
  return ctx.stmt('SELECT 1 FROM lookups WHERE kind = ? AND id = ?').get(kind, id) !== undefined;
}

export function findLookup(ctx: DbContext, kind: LookupKind, id: string): LookupRow | undefined {
  return ctx
    .stmt('SELECT id, name, ord AS "order", alias, icon FROM lookups WHERE kind = ? AND id = ?')
    .get(kind, id) as LookupRow | undefined;
}

export function insertLookup(ctx: DbContext, kind: LookupKind, name: string, order: number, icon: string): LookupRow {
  const id = randomUUID();
  const alias = name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
  ctx.stmt('INSERT INTO lookups (id, kind, name, ord, alias, icon) VALUES (?, ?, ?, ?, ?, ?)').run(id, kind, name, order, alias, icon);
  return { id, name, order, alias, icon };
}

export function countLookups(ctx: DbContext): number {
  return (ctx.stmt('SELECT count(*) AS n FROM lookups').get() as { n: number }).n;
}

export interface UserRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  status: string;
  created_at: number;
  updated_at: number;
}

export function listUsers(ctx: DbContext): UserRow[] {
  return ctx
    .stmt('SELECT id, email, first_name, last_name, status, created_at, updated_at FROM users ORDER BY seq')
    .all() as UserRow[];
}

export function userExists(ctx: DbContext, id: string): boolean {
  return ctx.stmt('SELECT 1 FROM users WHERE id = ?').get(id) !== undefined;
}

export function insertUser(ctx: DbContext, u: { email: string; first_name?: string; last_name?: string }): UserRow {
  const existing = ctx.stmt('SELECT id FROM users WHERE email = ?').get(u.email) as { id: string } | undefined;
  if (existing) return listUsers(ctx).find((x) => x.id === existing.id)!;
  const t = ctx.nowSec();
  const row: UserRow = {
    id: randomUUID(),
    email: u.email,
    first_name: u.first_name ?? '',
    last_name: u.last_name ?? '',
    status: 'ACTIVE',
    created_at: t,
    updated_at: t,
  };
  ctx
    .stmt('INSERT INTO users (id, email, first_name, last_name, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    .run(row.id, row.email, row.first_name, row.last_name, row.status, t, t);
  return row;
}

export interface LabelRow {
  id: string;
  name: string;
  created_at: number;
  updated_at: number;
}

export function listLabels(ctx: DbContext): LabelRow[] {
  return ctx.stmt('SELECT id, name, created_at, updated_at FROM labels ORDER BY seq').all() as LabelRow[];
}

export function labelExists(ctx: DbContext, id: string): boolean {
  return ctx.stmt('SELECT 1 FROM labels WHERE id = ?').get(id) !== undefined;
}

export function insertLabel(ctx: DbContext, name: string): LabelRow {
  const existing = ctx.stmt('SELECT id, name, created_at, updated_at FROM labels WHERE name = ?').get(name) as
    | LabelRow
    | undefined;
  if (existing) return existing;
  const t = ctx.nowSec();
  const row = { id: randomUUID(), name, created_at: t, updated_at: t };
  ctx.stmt('INSERT INTO labels (id, name, created_at, updated_at) VALUES (?, ?, ?, ?)').run(row.id, name, t, t);
  return row;
}
