import { randomUUID } from 'node:crypto';
import { pageOf, type DbContext, type Page, type PageRequest } from './statements.js';

/**
 * Folders form a tree per project. `ord` is the 0-based index among siblings and is kept dense:
 * every insert, move, reorder and delete renumbers the siblings it touches.
 */
export interface FolderRow {
  id: string;
  name: string;
  project_id: string;
  parent_id: string | null;
  ord: number;
  created_at: number;
  updated_at: number;
}

const COLS = 'id, name, project_id, parent_id, ord, created_at, updated_at';

export function listFolders(ctx: DbContext, projectId: string, page: PageRequest): Page<FolderRow> {
  return pageOf<FolderRow>(ctx, { cols: COLS, from: 'folders', where: 'WHERE project_id = @project', key: 'seq' }, { project: projectId }, page);
}

export function allFolders(ctx: DbContext, projectId: string): FolderRow[] {
  return ctx.stmt(`SELECT ${COLS} FROM folders WHERE project_id = ? ORDER BY ord, seq`).all(projectId) as FolderRow[];
}

export function findFolder(ctx: DbContext, projectId: string, id: string): FolderRow | undefined {
  return ctx.stmt(`SELECT ${COLS} FROM folders WHERE project_id = ? AND id = ?`).get(projectId, id) as
    | FolderRow
    | undefined;
}

function siblings(ctx: DbContext, projectId: string, parentId: string | null, exceptId: string): string[] {
  const rows = ctx
    .stmt('SELECT id FROM folders WHERE project_id = ? AND parent_id IS ? AND id <> ? ORDER BY ord, seq')
    .all(projectId, parentId, exceptId) as { id: string }[];
  return rows.map((r) => r.id);
}

/** Renumbers `ids` 0..n-1 in the given order. */
function renumber(ctx: DbContext, ids: string[]): void {
  const set = ctx.stmt('UPDATE folders SET ord = ? WHERE id = ?');
  ids.forEach((id, i) => set.run(i, id));
}

/** Places `id` at `index` (clamped; undefined or negative = last) among the siblings under `parentId`. */
function place(ctx: DbContext, projectId: string, id: string, parentId: string | null, index: number | undefined): void {
  const ids = siblings(ctx, projectId, parentId, id);
  const at = index === undefined || index < 0 || index > ids.length ? ids.length : index;
  ids.splice(at, 0, id);
  renumber(ctx, ids);
}

export function insertFolder(ctx: DbContext, projectId: string, name: string, order: number | undefined): FolderRow {
  return ctx.tx(() => {
    const id = randomUUID();
    const t = ctx.nowSec();
    ctx
      .stmt(`INSERT INTO folders (id, project_id, parent_id, name, ord, created_at, updated_at) VALUES (?, ?, NULL, ?, 0, ?, ?)`)
      .run(id, projectId, name, t, t);
    place(ctx, projectId, id, null, order);
    return findFolder(ctx, projectId, id)!;
  });
}

export function updateFolder(
  ctx: DbContext,
  folder: FolderRow,
  patch: { name?: string; order?: number },
): FolderRow {
  return ctx.tx(() => {
    ctx
      .stmt('UPDATE folders SET name = coalesce(?, name), updated_at = ? WHERE id = ?')
      .run(patch.name ?? null, ctx.nowSec(), folder.id);
    // `order: -1` means "unset" on the live service: the folder keeps its place
    if (patch.order !== undefined && patch.order >= 0) place(ctx, folder.project_id, folder.id, folder.parent_id, patch.order);
    return findFolder(ctx, folder.project_id, folder.id)!;
  });
}

/** True when `candidate` is `folderId` itself or lies under it. */
export function isSelfOrDescendant(ctx: DbContext, folderId: string, candidate: string): boolean {
  const row = ctx
    .stmt(
      `WITH RECURSIVE up(id, parent_id) AS (
         SELECT id, parent_id FROM folders WHERE id = ?
         UNION ALL SELECT f.id, f.parent_id FROM folders f JOIN up ON f.id = up.parent_id)
       SELECT 1 FROM up WHERE id = ? LIMIT 1`,
    )
    .get(candidate, folderId);
  return row !== undefined;
}

/**
 * `folderId` and the folders above it, the top one first, in one query: a loop of lookups would
 * cost one query per level of a chain that may be thousands deep. Moves refuse cycles; the depth
 * bound only keeps a damaged file from looping.
 */
export function folderAncestors(ctx: DbContext, projectId: string, folderId: string): FolderRow[] {
  return ctx
    .stmt(
      `WITH RECURSIVE up(id, parent_id, depth) AS (
         SELECT id, parent_id, 0 FROM folders WHERE project_id = ? AND id = ?
         UNION ALL SELECT f.id, f.parent_id, up.depth + 1 FROM folders f JOIN up ON f.id = up.parent_id WHERE up.depth < 1000000)
       SELECT ${COLS.split(', ').map((c) => `f.${c}`).join(', ')} FROM up JOIN folders f ON f.id = up.id ORDER BY up.depth DESC`,
    )
    .all(projectId, folderId) as FolderRow[];
}

export function moveFolder(ctx: DbContext, folder: FolderRow, parentId: string | null): FolderRow {
  return ctx.tx(() => {
    const oldSiblings = siblings(ctx, folder.project_id, folder.parent_id, folder.id);
    ctx.stmt('UPDATE folders SET parent_id = ?, updated_at = ? WHERE id = ?').run(parentId, ctx.nowSec(), folder.id);
    renumber(ctx, oldSiblings);
    place(ctx, folder.project_id, folder.id, parentId, undefined);
    return findFolder(ctx, folder.project_id, folder.id)!;
  });
}

export function folderContents(ctx: DbContext, projectId: string, folderId: string): { folders: number; cases: number } {
  const folders = (ctx.stmt('SELECT count(*) AS n FROM folders WHERE project_id = ? AND parent_id = ?').get(projectId, folderId) as { n: number }).n;
  const cases = (ctx.stmt('SELECT count(*) AS n FROM cases WHERE folder_id = ?').get(folderId) as { n: number }).n;
  return { folders, cases };
}

export function deleteFolder(ctx: DbContext, folder: FolderRow): void {
  ctx.tx(() => {
    ctx.stmt('DELETE FROM folders WHERE id = ?').run(folder.id);
    renumber(ctx, siblings(ctx, folder.project_id, folder.parent_id, folder.id));
  });
}

/** The number of cases directly in each folder of a project, in one grouped query (the web UI's tree). */
export function caseCountsByFolder(ctx: DbContext, projectId: string): Map<string, number> {
  const rows = ctx
    .stmt('SELECT folder_id, count(*) AS n FROM cases WHERE project_id = ? GROUP BY folder_id')
    .all(projectId) as { folder_id: string; n: number }[];
  return new Map(rows.map((r) => [r.folder_id, r.n]));
}
