import * as db from '../db/index.js';
import { liveBody } from '../dialect.js';
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

function folderWire(f: FolderRow, children: FolderWire[] = []): FolderWire {
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

const CHILDREN = '"children":[]';

/**
 * The answer of a folder GET, `{message, data: {folder}}` with the folder's whole subtree (children
 * in `order`), written as JSON text by a loop. A chain of folders a few thousand deep overflows the
 * stack of anything recursive, `JSON.stringify` of the nested object included. Each folder is
 * shaped alone (`shape` gets it without children) and its children are written inside its
 * `"children":[]`, which JSON.stringify writes once, as the key it is (a quote inside a name is escaped).
 */
function subtreeAnswer(all: FolderRow[], top: FolderRow, shape: (f: FolderRow) => unknown): Buffer {
  const kids = new Map<string, FolderRow[]>();
  for (const f of all) {
    if (f.parent_id === null) continue;
    const list = kids.get(f.parent_id);
    if (list) list.push(f);
    else kids.set(f.parent_id, [f]);
  }
  const out: string[] = ['{"message":"","data":{"folder":'];
  const todo: (FolderRow | string)[] = ['}}', top];
  while (todo.length) {
    const x = todo.pop()!;
    if (typeof x === 'string') {
      out.push(x);
      continue;
    }
    const text = JSON.stringify(shape(x));
    const at = text.indexOf(CHILDREN) + CHILDREN.length - 1;
    out.push(text.slice(0, at));
    todo.push(text.slice(at));
    const children = kids.get(x.id) ?? [];
    for (let i = children.length - 1; i >= 0; i--) {
      todo.push(children[i]);
      if (i > 0) todo.push(',');
    }
  }
  return Buffer.from(out.join(''));
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
    // the live dialect's shapes are applied per folder here (the app's rewrite of a whole answer recurses)
    const shape = c.dialect === 'live' ? (x: FolderRow) => liveBody('getFolder', folderWire(x), c.db) : (x: FolderRow) => folderWire(x);
    return { body: subtreeAnswer(db.allFolders(c.db, f.project_id), f, shape), contentType: 'application/json; charset=utf-8' };
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
