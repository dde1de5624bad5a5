import { randomUUID } from 'node:crypto';
import type { DbContext, Page, PageRequest } from './common.js';

export interface ProjectRow {
  id: string;
  name: string;
  description: string;
  human_id_prefix: string;
  created_at: number;
  updated_at: number;
}

const COLS = 'id, name, description, prefix AS human_id_prefix, created_at, updated_at';

export interface ProjectFilter {
  nameNeq?: string;
  nameContains?: string;
}

export function listProjects(ctx: DbContext, f: ProjectFilter, page: PageRequest): Page<ProjectRow> {
  const where = `WHERE (@neq IS NULL OR name <> @neq) AND (@contains IS NULL OR instr(lower(name), lower(@contains)) > 0)`;
  const params = { neq: f.nameNeq ?? null, contains: f.nameContains ?? null };
  const total = (ctx.stmt(`SELECT count(*) AS n FROM projects ${where}`).get(params) as { n: number }).n;
  const items = ctx
    .stmt(`SELECT ${COLS} FROM projects ${where} ORDER BY seq LIMIT @limit OFFSET @offset`)
    .all({ ...params, ...page }) as ProjectRow[];
  return { items, total };
}

/** By id, or by human-id prefix (an emulator convenience). */
export function findProject(ctx: DbContext, idOrPrefix: string): ProjectRow | undefined {
  return ctx.stmt(`SELECT ${COLS} FROM projects WHERE id = ? OR prefix = ?`).get(idOrPrefix, idOrPrefix) as
    | ProjectRow
    | undefined;
}

export function prefixTaken(ctx: DbContext, prefix: string): boolean {
  return ctx.stmt('SELECT 1 FROM projects WHERE prefix = ?').get(prefix) !== undefined;
}

export function insertProject(ctx: DbContext, p: { name: string; description?: string; prefix: string }): ProjectRow {
  const t = ctx.nowSec();
  const id = randomUUID();
  ctx
    .stmt('INSERT INTO projects (id, name, description, prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(id, p.name, p.description ?? '', p.prefix, t, t);
  return findProject(ctx, id)!;
}

export function updateProject(ctx: DbContext, id: string, p: { name?: string; description?: string }): ProjectRow {
  ctx
    .stmt(
      `UPDATE projects SET name = coalesce(?, name), description = coalesce(?, description), updated_at = ? WHERE id = ?`,
    )
    .run(p.name ?? null, p.description ?? null, ctx.nowSec(), id);
  return findProject(ctx, id)!;
}

/** Deletes the project and, through ON DELETE CASCADE, everything in it. */
export function deleteProject(ctx: DbContext, id: string): void {
  ctx.tx(() => {
    // executions and imports hold no foreign key (they outlive runs); remove them by project
    ctx.stmt('DELETE FROM executions WHERE project_id = ?').run(id);
    // the folders, flattened first: through parent_id a chain of folders cascades one level of
    // trigger recursion per folder, and SQLite refuses more than 1,000 (the delete would fail)
    ctx.stmt('UPDATE folders SET parent_id = NULL WHERE project_id = ? AND parent_id IS NOT NULL').run(id);
    ctx.stmt('DELETE FROM projects WHERE id = ?').run(id);
  });
}
