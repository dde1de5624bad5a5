import type { ActualState, RemoteCase, RemoteFolder, RemoteStepGroup } from '../model.js';
import { scopeMatcher } from '../scope.js';

/**
 * The service's flat lists indexed for the diff: folder paths rebuilt from `parentId`, lookups by
 * id and human id, and which folders lie inside `scope` (remote items outside it are ignored; the
 * folders above a path scope are containers, neither managed nor ignored).
 */
export interface RemoteIndex {
  folder(id: string): RemoteFolder | undefined;
  /** names from the top; a dangling parent ends the path */
  folderPath(id: string): string[];
  children(parentId: string | null): RemoteFolder[];
  /** inside `scope` (every folder when there is no scope); a path scope's ancestors are not */
  inScope(folderId: string): boolean;
  /** above a path scope: a container the plan may place the subtree in, never manages */
  isScopeAncestor(folderId: string): boolean;
  /** a case by uuid or human id (case-insensitive) */
  caseByRef(ref: string): RemoteCase | undefined;
  casesIn(folderId: string): RemoteCase[];
  stepGroupByRef(ref: string): RemoteStepGroup | undefined;
  /** folders inside scope, parents before children (a path scope's ancestors are not) */
  scopedFolders: RemoteFolder[];
  scopedCases: RemoteCase[];
}

export function indexRemote(actual: ActualState, scope: readonly string[] | undefined): RemoteIndex {
  const folders = new Map(actual.folders.map((f) => [f.id, f]));
  const children = new Map<string | null, RemoteFolder[]>();
  for (const f of actual.folders) {
    const parent = f.parentId !== null && folders.has(f.parentId) ? f.parentId : null;
    const list = children.get(parent) ?? [];
    list.push(f);
    children.set(parent, list);
  }
  const paths = new Map<string, string[]>();
  const folderPath = (id: string): string[] => {
    const cached = paths.get(id);
    if (cached) return cached;
    const chain: string[] = [];
    const seen = new Set<string>();
    let cur = folders.get(id);
    // a corrupt tree with a cycle must not hang the plan
    while (cur && !seen.has(cur.id)) {
      seen.add(cur.id);
      chain.unshift(cur.name);
      cur = cur.parentId !== null ? folders.get(cur.parentId) : undefined;
    }
    paths.set(id, chain);
    return chain;
  };
  const relation = scopeMatcher(scope);
  const inScope = (folderId: string): boolean => folders.has(folderId) && relation(folderPath(folderId)) === 'inside';
  const isScopeAncestor = (folderId: string): boolean => folders.has(folderId) && relation(folderPath(folderId)) === 'ancestor';

  const scopedFolders: RemoteFolder[] = [];
  const walk = (parent: string | null): void => {
    for (const f of children.get(parent) ?? []) {
      const r = relation(folderPath(f.id));
      // outside: neither it nor anything below it is managed
      if (r === 'outside') continue;
      if (r === 'inside') scopedFolders.push(f);
      walk(f.id);
    }
  };
  walk(null);

  const casesById = new Map<string, RemoteCase>();
  const casesByHumanId = new Map<string, RemoteCase>();
  const casesByFolder = new Map<string, RemoteCase[]>();
  for (const c of actual.cases) {
    casesById.set(c.id, c);
    if (c.humanId) casesByHumanId.set(c.humanId.toUpperCase(), c);
    const list = casesByFolder.get(c.folderId);
    if (list) list.push(c);
    else casesByFolder.set(c.folderId, [c]);
  }
  const groupsById = new Map<string, RemoteStepGroup>();
  const groupsByHumanId = new Map<string, RemoteStepGroup>();
  for (const g of actual.stepGroups) {
    groupsById.set(g.id, g);
    if (g.humanId) groupsByHumanId.set(g.humanId.toUpperCase(), g);
  }
  const scopedIds = new Set(scopedFolders.map((f) => f.id));
  return {
    folder: (id) => folders.get(id),
    folderPath,
    children: (parentId) => children.get(parentId) ?? [],
    inScope,
    isScopeAncestor,
    caseByRef: (ref) => casesById.get(ref.trim()) ?? casesByHumanId.get(ref.trim().toUpperCase()),
    casesIn: (folderId) => casesByFolder.get(folderId) ?? [],
    stepGroupByRef: (ref) => groupsById.get(ref.trim()) ?? groupsByHumanId.get(ref.trim().toUpperCase()),
    scopedFolders,
    scopedCases: actual.cases.filter((c) => scopedIds.has(c.folderId)),
  };
}
