/**
 * The natural-key match, written once for cases (folder + title), step groups (title) and folders
 * (parent + name): an item of the repository without `id:` is the remote item of its scope whose
 * key equals its own, when exactly one remote item carries that key and no other item took it
 * first. Remote items an `id:` claims are never matched by key.
 */
export interface NaturalKeySpec<D, R extends { id: string }, S> {
  /**
   * Where the item's twin would be (its folder, its parent folder; one scope for step groups).
   * Undefined: the item is not matched by key (it has an `id:`, or its place is not on the
   * service yet).
   */
  scopeOf(item: D): S | undefined;
  /** the remote items of a scope, read once per scope, when an item first needs it */
  remotesIn(scope: S): Iterable<R>;
  /** the key function, applied to each side */
  itemKey(item: D): string;
  remoteKey(remote: R): string;
  /** several remote items carry the item's key: it is not matched */
  onAmbiguous(item: D, candidates: readonly R[]): void;
  /** the one remote item with the key was matched by an earlier item: this one is not */
  onDuplicate(item: D, first: D, remote: R): void;
  /** matched */
  onMatch(item: D, remote: R): void;
}

/**
 * Matches the items in order (a folder's parent before it: its scope is what its parent
 * matched). `claimedBy` holds the remote ids an `id:` claims, with the item claiming each; the
 * items matched here are added to it.
 */
export function matchNaturalKeys<D, R extends { id: string }, S>(items: Iterable<D>, claimedBy: Map<string, D>, spec: NaturalKeySpec<D, R, S>): void {
  const indexes = new Map<S, Map<string, R[]>>();
  const indexOf = (scope: S): Map<string, R[]> => {
    let index = indexes.get(scope);
    if (index) return index;
    index = new Map();
    // built before any item of the scope is matched: only the claims of an `id:` are left out
    for (const r of spec.remotesIn(scope)) {
      if (claimedBy.has(r.id)) continue;
      const k = spec.remoteKey(r);
      const same = index.get(k);
      if (same) same.push(r);
      else index.set(k, [r]);
    }
    indexes.set(scope, index);
    return index;
  };
  for (const item of items) {
    const scope = spec.scopeOf(item);
    if (scope === undefined) continue;
    const candidates = indexOf(scope).get(spec.itemKey(item)) ?? [];
    if (candidates.length > 1) {
      spec.onAmbiguous(item, candidates);
      continue;
    }
    const remote = candidates[0];
    if (!remote) continue;
    const first = claimedBy.get(remote.id);
    if (first !== undefined) {
      spec.onDuplicate(item, first, remote);
      continue;
    }
    claimedBy.set(remote.id, item);
    spec.onMatch(item, remote);
  }
}
