import type { DesiredFolder, RemoteFolder } from '../model.js';
import { scopeMatcher } from '../scope.js';
import { claimById, foundElsewhere, problem, type PlanContext } from './context.js';
import { normalizeTitle, pathKey, showPath } from '../base/normalize-text.js';
import { matchNaturalKeys } from './natural-key.js';
import type { FieldChange, Operation, Ref } from './operations.js';
import { desiredFolderFieldValues, folderFieldValues, refValue } from '../base/field-values.js';
import { mergeItem } from './sync.js';
import type { BaseEntry } from '../base/base.js';
import { changedFromBase } from '../base/field-values.js';

/** A folder of the repository with the remote folder it is (when it exists). */
export interface FolderNode {
  desired: DesiredFolder;
  /** the repository's path (the key cases use in `folderPath`) */
  path: string[];
  /** display names from the top */
  displayPath: string[];
  parent?: FolderNode;
  remote?: RemoteFolder;
  /** matched by natural key (its id is written back) */
  adopted: boolean;
  /** key of the operation creating it */
  createKey?: string;
  /** keys of the operations that put it in its final place (its create or move) */
  placeKey?: string;
  /** its `id:` names a folder the service no longer has, which the sync base recorded */
  gone?: BaseEntry;
  /** deleted on the service (or inside such a folder) and not created again: nothing is planned in it */
  deleted?: boolean;
}

export interface FolderPlan {
  nodes: FolderNode[];
  byPath: Map<string, FolderNode>;
  /** create/move/update/adopt, top-down by the final tree */
  ops: Operation[];
  /** remote folder ids that a repository folder claims */
  claimed: Set<string>;
}

export function folderFile(f: DesiredFolder): string {
  return f.file ?? `${f.dir}/_folder.yaml`;
}

/** A folder without _folder.yaml is named by its directory. */
function nodeFile(node: FolderNode): string {
  return node.desired.file ?? node.desired.dir;
}

export function folderRef(node: FolderNode): Ref {
  return node.remote ? { id: node.remote.id } : { op: node.createKey! };
}

/** Every folder the repository implies, parents first (a case's directory is a folder too). */
function collectNodes(ctx: PlanContext): FolderNode[] {
  const byPath = new Map<string, DesiredFolder>();
  for (const f of ctx.desired.folders) if (f.path.length > 0 && !byPath.has(pathKey(f.path))) byPath.set(pathKey(f.path), f);
  const ensure = (path: string[]): void => {
    for (let i = 1; i <= path.length; i++) {
      const p = path.slice(0, i);
      if (!byPath.has(pathKey(p))) {
        byPath.set(pathKey(p), { path: p, name: p[p.length - 1], dir: [ctx.desired.casesDir, ...p].join('/') });
      }
    }
  };
  for (const f of ctx.desired.folders) ensure(f.path);
  for (const c of ctx.desired.cases) ensure(c.folderPath);
  const folders = [...byPath.values()].sort((a, b) => a.path.length - b.path.length);
  const nodes = new Map<string, FolderNode>();
  for (const f of folders) {
    const parent = f.path.length > 1 ? nodes.get(pathKey(f.path.slice(0, -1))) : undefined;
    const name = normalizeTitle(f.name);
    nodes.set(pathKey(f.path), {
      desired: f,
      path: f.path,
      displayPath: parent ? [...parent.displayPath, name] : [name],
      parent,
      adopted: false,
    });
  }
  return [...nodes.values()];
}

function matchFolders(ctx: PlanContext, nodes: FolderNode[]): Set<string> {
  const claimedBy = new Map<string, FolderNode>();
  for (const node of nodes) {
    const id = node.desired.id;
    if (id === undefined) continue;
    const gone = ctx.sync && !ctx.remote.folder(id.trim()) && !foundElsewhere(ctx, id) ? ctx.sync.base.get('folder', id.trim()) : undefined;
    if (gone) {
      node.gone = gone;
      continue;
    }
    const remote = claimById(ctx, claimedBy, (o) => folderFile(o.desired), {
      claimant: node,
      id,
      remote: ctx.remote.folder(id.trim()),
      label: `folder "${showPath(node.displayPath)}"`,
      noun: 'folder id',
      file: folderFile(node.desired),
      line: 1,
    });
    if (!remote) continue;
    node.remote = remote;
  }
  // natural keys, top-down: a child can only match under its parent's remote folder
  matchNaturalKeys(nodes, claimedBy, {
    // a parent that is created has its children created too
    scopeOf: (node) => (node.desired.id !== undefined ? undefined : node.parent ? node.parent.remote?.id : null),
    remotesIn: (parentId) => ctx.remote.children(parentId),
    itemKey: (node) => normalizeTitle(node.desired.name),
    remoteKey: (f) => normalizeTitle(f.name),
    onAmbiguous: (node, candidates) =>
      problem(
        ctx,
        'ambiguous_match',
        nodeFile(node),
        1,
        `folder "${showPath(node.displayPath)}" matches ${candidates.length} folders on the service (ids ${candidates.map((c) => c.id).join(', ')})`,
        `add \`id:\` to ${folderFile(node.desired)} to say which one it is`,
      ),
    onDuplicate: (node, other, remote) =>
      problem(
        ctx,
        'duplicate_claim',
        nodeFile(node),
        1,
        `folders ${nodeFile(other)} and ${nodeFile(node)} both match the service folder "${showPath(node.displayPath)}" (${remote.id})`,
        'give the folders different names',
      ),
    onMatch: (node, remote) => {
      node.remote = remote;
      node.adopted = true;
    },
  });
  return new Set(claimedBy.keys());
}

/** Matches the repository's folders to the service's and plans creates, moves, renames, adopts. */
export function planFolders(ctx: PlanContext): FolderPlan {
  const nodes = collectNodes(ctx);
  const claimed = matchFolders(ctx, nodes);
  checkOrders(ctx, nodes, claimed);
  const relation = scopeMatcher(ctx.desired.scope);
  const ops: Operation[] = [];
  // nodes are sorted by depth in the final tree: moving in that order never puts a folder under
  // its own descendant, because every new parent already sits at its final place
  for (const node of nodes) {
    if (!node.remote && (node.gone || node.parent?.deleted) && !goneRecreated(ctx, node, relation(node.path) === 'ancestor')) {
      node.deleted = true;
      continue;
    }
    // a path scope's ancestor is a container named by the scope itself: it is never renamed
    if (!node.remote) ops.push(planCreateFolder(ctx, node));
    else ops.push(...planExistingFolder(ctx, node, node.remote, relation(node.path) === 'ancestor'));
  }
  return { nodes, byPath: new Map(nodes.map((n) => [pathKey(n.path), n])), ops, claimed };
}

/** A folder the service does not have: created (under its parent, once that exists). */
function planCreateFolder(ctx: PlanContext, node: FolderNode): Operation {
  const parentRef = node.parent ? folderRef(node.parent) : null;
  node.createKey = `create_folder:${showPath(node.path)}`;
  if (node.gone && ctx.sync?.collect) ctx.sync.forgets.push({ kind: 'folder', id: node.gone.id, op: node.createKey });
  node.placeKey = node.createKey;
  const name = normalizeTitle(node.desired.name);
  const order = node.desired.order !== undefined ? { order: node.desired.order } : {};
  if (ctx.sync?.collect) {
    ctx.sync.records.push({
      kind: 'folder',
      ref: { op: node.createKey },
      ops: [node.createKey],
      values: desiredFolderFieldValues({ name, parent: parentRef, ...order }),
      keep: [],
    });
  }
  return {
    kind: 'create_folder',
    key: node.createKey,
    dependsOn: node.parent?.createKey ? [node.parent.createKey] : [],
    path: node.displayPath,
    name,
    parent: parentRef,
    ...order,
    writeBack: { file: folderFile(node.desired) },
  };
}

/** What an existing folder is to become: its name, whether it moves, its order; the base fields kept. */
interface FolderTarget {
  name: string;
  moved: boolean;
  order: number | undefined;
  keepBase: string[];
}

/**
 * The three-way merge of an existing folder (with a sync base): a field changed only on the
 * service keeps the service's value.
 */
function mergeFolder(ctx: PlanContext, node: FolderNode, remote: RemoteFolder, currentParent: string | null, container: boolean, target: FolderTarget): FolderTarget {
  if (!ctx.sync) return target;
  const parentRef = node.parent ? folderRef(node.parent) : null;
  const { name, order } = target;
  const local = desiredFolderFieldValues({ ...(container ? {} : { name }), parent: parentRef, ...(order !== undefined ? { order } : {}) });
  const parentPath = (id: unknown) => (typeof id === 'string' && ctx.remote.folder(id) ? showPath(ctx.remote.folderPath(id)) : '(top level)');
  const shown = (field: string): FieldChange | undefined =>
    field === 'name'
      ? { field, from: remote.name, to: name }
      : field === 'order'
        ? { field, from: String(remote.order), to: String(order) }
        : { field, from: parentPath(currentParent), to: node.parent ? showPath(node.parent.displayPath) : '(top level)' };
  const merge = mergeItem(
    ctx.sync,
    { itemType: 'folder', id: remote.id, path: ctx.remote.folderPath(remote.id), title: remote.name, ...(node.desired.file ? { file: node.desired.file } : {}) },
    'folder',
    local,
    { ...folderFieldValues(remote), parent: currentParent },
    shown,
  );
  return {
    name: merge.keepRemote.has('name') ? normalizeTitle(remote.name) : name,
    moved: merge.keepRemote.has('parent') ? false : target.moved,
    order: merge.keepRemote.has('order') ? undefined : order,
    keepBase: merge.keepBase,
  };
}

/** A folder the service has: moved, renamed or reordered as the repository says, or adopted. */
function planExistingFolder(ctx: PlanContext, node: FolderNode, remote: RemoteFolder, container: boolean): Operation[] {
  const key = showPath(node.path);
  const parentRef = node.parent ? folderRef(node.parent) : null;
  const currentParent = remote.parentId !== null && ctx.remote.folder(remote.parentId) ? remote.parentId : null;
  const wantedParent = node.parent ? (node.parent.remote?.id ?? undefined) : null;
  // a container's order is still set when its _folder.yaml gives one
  const { name, moved, order, keepBase } = mergeFolder(ctx, node, remote, currentParent, container, {
    name: normalizeTitle(node.desired.name),
    moved: wantedParent === undefined || wantedParent !== currentParent,
    order: node.desired.order,
    keepBase: [],
  });
  const changes: FieldChange[] = [];
  if (!container && normalizeTitle(remote.name) !== name) changes.push({ field: 'name', from: remote.name, to: name });
  // a move appends the folder to its new parent, so a wanted order is set again after it
  if (order !== undefined && (moved || order !== remote.order)) {
    changes.push({ field: 'order', from: String(remote.order), to: String(order) });
  }
  const folderOps: string[] = [];
  if (ctx.sync?.collect) {
    ctx.sync.records.push({
      kind: 'folder',
      ref: { id: remote.id },
      ops: folderOps,
      values: {
        name: container ? normalizeTitle(remote.name) : name,
        parent: moved ? refValue(parentRef) : currentParent,
        // a move without a wanted order puts the folder last: its order is known after the next read
        ...(order !== undefined ? { order } : moved ? {} : { order: remote.order }),
      },
      keep: keepBase,
    });
  }
  const ops: Operation[] = [];
  // a folder a file's items add has nowhere to keep its id: matched by name every time, not adopted
  const writeBack = node.adopted && node.desired.inFile === undefined ? { file: folderFile(node.desired), id: remote.id } : undefined;
  if (moved) {
    node.placeKey = `move_folder:${key}`;
    folderOps.push(node.placeKey);
    const deps: string[] = [];
    for (let p = node.parent; p; p = p.parent) if (p.placeKey) deps.push(p.placeKey);
    ops.push({
      kind: 'move_folder',
      key: node.placeKey,
      dependsOn: deps.reverse(),
      id: remote.id,
      fromPath: ctx.remote.folderPath(remote.id),
      path: node.displayPath,
      parent: parentRef,
      // an adopted folder that only moves gets its id written back by the move
      ...(writeBack && changes.length === 0 ? { writeBack } : {}),
    });
  }
  if (changes.length > 0) {
    folderOps.push(`update_folder:${key}`);
    ops.push({
      kind: 'update_folder',
      key: `update_folder:${key}`,
      dependsOn: moved ? [node.placeKey!] : [],
      id: remote.id,
      path: node.displayPath,
      ...(changes.some((c) => c.field === 'name') ? { name } : {}),
      ...(changes.some((c) => c.field === 'order') ? { order } : {}),
      changes,
      ...(writeBack ? { writeBack } : {}),
    });
  } else if (writeBack && !moved) {
    folderOps.push(`adopt_folder:${key}`);
    ops.push({ kind: 'adopt', key: `adopt_folder:${key}`, dependsOn: [], itemType: 'folder', id: remote.id, path: node.displayPath, title: name, writeBack });
  }
  return ops;
}

/**
 * The service keeps `order` as a folder's 0-based index among its siblings, without gaps. An order
 * that no position can satisfy (past the last sibling, or two siblings wanting one place) would be
 * planned again after every apply, so it is refused here with the range that works.
 */
function checkOrders(ctx: PlanContext, nodes: FolderNode[], claimed: ReadonlySet<string>): void {
  const siblings = new Map<string, FolderNode[]>();
  for (const node of nodes) {
    const k = node.parent ? pathKey(node.parent.path) : '';
    siblings.set(k, [...(siblings.get(k) ?? []), node]);
  }
  for (const group of siblings.values()) {
    const parent = group[0].parent;
    const parentId = parent ? parent.remote?.id : null;
    // remote folders in that parent that no repository folder claims stay there, unless --prune
    // deletes them (never those outside the scope, such as a path scope's siblings)
    const known = parentId === undefined ? [] : ctx.remote.children(parentId);
    const others = known.filter((f) => !claimed.has(f.id) && !(ctx.prune && ctx.remote.inScope(f.id))).length;
    // with a scope, siblings outside it were not read (fetchState leaves them out), but they
    // hold places: the highest order read proves the parent holds at least that many folders
    let highest = -1;
    if (ctx.desired.scope !== undefined) for (const f of known) highest = Math.max(highest, f.order);
    const unread = Math.max(0, highest + 1 - known.length);
    const count = group.length + others + unread;
    const seen = new Map<number, FolderNode>();
    for (const node of group) {
      const order = node.desired.order;
      if (order === undefined) continue;
      const file = folderFile(node.desired);
      if (order < 0 || order >= count) {
        problem(
          ctx,
          'invalid_order',
          file,
          1,
          `folder "${showPath(node.displayPath)}" has order ${order}, but its parent will hold ${count} folder${count === 1 ? '' : 's'}`,
          `order is the 0-based position among sibling folders: use 0 to ${count - 1}, or remove it`,
        );
        continue;
      }
      const twin = seen.get(order);
      if (twin) {
        problem(ctx, 'duplicate_order', file, 1, `folders ${folderFile(twin.desired)} and ${file} both have order ${order}`, 'give sibling folders different orders');
        continue;
      }
      seen.set(order, node);
    }
  }
}

/**
 * A folder deleted on the service since the last sync (its `_folder.yaml` names it by `id:`), or a
 * folder of the repository inside one. Unchanged in the repository: a change on the service
 * (listed; nothing is planned in it). Its name or order changed: a conflict; `--prefer local`
 * creates it again (true: plan its create), unless its parent stays deleted.
 */
function goneRecreated(ctx: PlanContext, node: FolderNode, container: boolean): boolean {
  const sync = ctx.sync!;
  const gone = node.gone;
  if (!gone) return false;
  const name = normalizeTitle(node.desired.name);
  const changed = changedFromBase(gone, desiredFolderFieldValues({ ...(container ? {} : { name }), ...(node.desired.order !== undefined ? { order: node.desired.order } : {}) }));
  const item = { itemType: 'folder' as const, id: gone.id, path: node.displayPath, title: name, file: folderFile(node.desired) };
  if (changed.length === 0) {
    sync.remoteChanges.push({ ...item, field: 'deleted', from: 'in the repository', to: 'deleted on the service' });
    return false;
  }
  sync.conflicts.push({ ...item, field: 'deleted', local: `changed in the repository: ${changed.join(', ')}`, remote: 'deleted on the service' });
  return sync.prefer === 'local' && !node.parent?.deleted;
}
