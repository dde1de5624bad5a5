import * as db from '../db/index.js';
import type { FolderRow } from '../db/index.js';
import { listPage, ok, projectOf, type HandlerTable, type RouteContext } from '../http.js';
import { ServiceError, invalidField, notFound } from '../service-error.js';

interface FolderWire {
  id: string;
  name: string;
  project_id: string;
  children: FolderWire[];
  parent_folder_id: string;
  order: number;
  created_at: number;
  updated_at: number;
}

export function folderWire(f: FolderRow, children: FolderWire[] = []): FolderWire {
  return {
    id: f.id,
    name: f.name,
    project_id: f.project_id,
    children,
    parent_folder_id: f.parent_id ?? '',
    order: f.ord,
    created_at: f.created_at,
    updated_at: f.updated_at,
  };
}

/** The folder with its whole subtree, children in `order`. */
function withChildren(all: FolderRow[], f: FolderRow): FolderWire {
  const kids = all.filter((x) => x.parent_id === f.id);
  return folderWire(f, kids.map((k) => withChildren(all, k)));
}

function folderOf(c: RouteContext): FolderRow {
  const project = projectOf(c);
  const f = db.findFolder(c.db, project.id, c.params.folder_id);
  if (!f) throw notFound('Folder', c.params.folder_id);
  return f;
}

export const folderRoutes = {
  listFolders(c) {
    const project = projectOf(c);
    return listPage(c, 'folders', (p) => db.listFolders(c.db, project.id, p), (f) => ({ ...folderWire(f) }));
  },
  getFolder(c) {
    const f = folderOf(c);
    return ok('folder', withChildren(db.allFolders(c.db, f.project_id), f));
  },
  createFolder(c) {
    const project = projectOf(c);
    const b = c.body;
    return ok('folder', folderWire(db.insertFolder(c.db, project.id, b.name, b.order)), 201);
  },
  updateFolder(c) {
    const f = folderOf(c);
    return ok('folder', folderWire(db.updateFolder(c.db, f, c.body)));
  },
  moveFolder(c) {
    const f = folderOf(c);
    const parentId = c.body.parent_folder_id || null;
    if (parentId !== null) {
      if (!db.findFolder(c.db, f.project_id, parentId)) {
        throw invalidField('parent_folder_id', 'no folder with this id in the project');
      }
      if (db.isSelfOrDescendant(c.db, f.id, parentId)) {
        throw invalidField('parent_folder_id', 'a folder cannot move under itself or one of its descendants');
      }
    }
    return ok('folder', folderWire(db.moveFolder(c.db, f, parentId)));
  },
  deleteFolder(c) {
    const f = folderOf(c);
    const n = db.folderContents(c.db, f.project_id, f.id);
    if (n.folders > 0 || n.cases > 0) {
      // Refused rather than cascading: a cascade would silently delete test cases.
      throw new ServiceError(
        409,
        `Folder is not empty: it holds ${n.folders} folder(s) and ${n.cases} test case(s); delete or move them first`,
        { folders: n.folders, test_cases: n.cases },
      );
    }
    db.deleteFolder(c.db, f);
    return { body: { message: 'Folder deleted' } };
  },
} satisfies Partial<HandlerTable>;
