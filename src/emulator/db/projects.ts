import { randomUUID } from 'node:crypto';
import { pageOf, type DbContext, type Page, type PageRequest } from './statements.js';

export interface ProjectRow {
  id: string;
  name: string;
  description: string;
  human_id_prefix: string;
  created_at: number;
  updated_at: number;
}

const COLS = 'id, name, description, prefix AS human_id_prefix, created_at, updated_at';

interface ProjectFilter {
  nameNeq?: string;
  nameContains?: string;
}

export function listProjects(ctx: DbContext, f: ProjectFilter, page: PageRequest): Page<ProjectRow> {
  const where = `WHERE (@neq IS NULL OR name <> @neq) AND (@contains IS NULL OR instr(lower(name), lower(@contains)) > 0)`;
  const params = { neq: f.nameNeq ?? null, contains: f.nameContains ?? null };
  return pageOf<ProjectRow>(ctx, { cols: COLS, from: 'projects', where, key: 'seq' }, params, page);
}

/**
 * By id, or by human-id prefix (an emulator convenience). Every API request under a project
 * resolves it, so the projects found are kept per database by the text they were found by, until
 * a project is written (`insertProject`, `updateProject`, `deleteProject` are the only writers of
 * the table). Nothing read inside a transaction is kept: it may roll back. The rows kept are
 * shared, hence frozen.
 */
export function findProject(ctx: DbContext, idOrPrefix: string): ProjectRow | undefined {
  const known = foundProjects.get(ctx);
  const hit = known?.get(idOrPrefix);
  if (hit) return hit;
  // two indexed lookups: an OR across both columns may scan the table
  const row = (ctx.stmt(`SELECT ${COLS} FROM projects WHERE id = ?`).get(idOrPrefix) ??
    ctx.stmt(`SELECT ${COLS} FROM projects WHERE prefix = ?`).get(idOrPrefix)) as ProjectRow | undefined;
  if (!row || ctx.inTransaction) return row;
  let map = known;
  if (!map) foundProjects.set(ctx, (map = new Map<string, ProjectRow>()));
  // any text that finds nothing is never kept, so the bound only matters for many real projects
  if (map.size >= 1024) map.clear();
  map.set(idOrPrefix, Object.freeze(row));
  return row;
}

const foundProjects = new WeakMap<DbContext, Map<string, ProjectRow>>();

/** Forgets the projects found: called by every write of the projects table. */
function projectsChanged(ctx: DbContext): void {
  foundProjects.get(ctx)?.clear();
}

export function prefixTaken(ctx: DbContext, prefix: string): boolean {
  return ctx.stmt('SELECT 1 FROM projects WHERE prefix = ?').get(prefix) !== undefined;
}

export function insertProject(ctx: DbContext, p: { name: string; description?: string; prefix: string }): ProjectRow {
  projectsChanged(ctx);
  const t = ctx.nowSec();
  const id = randomUUID();
  ctx
    .stmt('INSERT INTO projects (id, name, description, prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(id, p.name, p.description ?? '', p.prefix, t, t);
  return findProject(ctx, id)!;
}

export function updateProject(ctx: DbContext, id: string, p: { name?: string; description?: string }): ProjectRow {
  projectsChanged(ctx);
  ctx
    .stmt(
      `UPDATE projects SET name = coalesce(?, name), description = coalesce(?, description), updated_at = ? WHERE id = ?`,
    )
    .run(p.name ?? null, p.description ?? null, ctx.nowSec(), id);
  return findProject(ctx, id)!;
}

/** Deletes the project and, through ON DELETE CASCADE, everything in it. */
export function deleteProject(ctx: DbContext, id: string): void {
  projectsChanged(ctx);
  ctx.tx(() => {
    // executions and imports hold no foreign key (they outlive runs); remove them by project
    ctx.stmt('DELETE FROM executions WHERE project_id = ?').run(id);
    // the folders, flattened first: through parent_id a chain of folders cascades one level of
    // trigger recursion per folder, and SQLite refuses more than 1,000 (the delete would fail)
    ctx.stmt('UPDATE folders SET parent_id = NULL WHERE project_id = ? AND parent_id IS NOT NULL').run(id);
    ctx.stmt('DELETE FROM projects WHERE id = ?').run(id);
  });
}
