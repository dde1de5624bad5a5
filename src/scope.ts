/**
 * `scope` in tmsync.yaml: folder paths (names from the top joined by `/`; a top-level name is a
 * path of one segment). A path manages exactly its subtree. The folders above it are containers
 * only: matched or created to place the subtree, never unmanaged, renamed or deleted, and their
 * other children are outside the scope. Shared by the loader, fetchState and the plan so all
 * three draw the same line.
 */

/** Where a folder stands to the scope. */
export type ScopeRelation = 'inside' | 'ancestor' | 'outside';

/** `/Checkout//Payments/` → `Checkout/Payments` (empty segments mean nothing). */
export function normalizeScopeEntry(entry: string): string {
  return entry
    .split('/')
    .filter((s) => s.trim() !== '')
    .join('/');
}

/**
 * A function telling where a folder (its names from the top) stands to `scope`; every folder is
 * inside when there is no scope. Names are compared exactly, joined by `/`, so a folder whose own
 * name holds a `/` is scoped by writing that name as it is.
 */
export function scopeMatcher(scope: readonly string[] | undefined): (path: readonly string[]) => ScopeRelation {
  if (scope === undefined) return () => 'inside';
  const entries = new Set(scope.map(normalizeScopeEntry).filter((e) => e !== ''));
  return (path) => {
    if (path.length === 0) return 'outside';
    let joined = '';
    for (const name of path) {
      joined = joined === '' ? name : `${joined}/${name}`;
      if (entries.has(joined)) return 'inside';
    }
    const prefix = `${joined}/`;
    for (const e of entries) if (e.startsWith(prefix)) return 'ancestor';
    return 'outside';
  };
}

/** Where a folder stands to `scope` (see `scopeMatcher`; build one matcher for many folders). */
export function scopeRelation(path: readonly string[], scope: readonly string[] | undefined): ScopeRelation {
  return scopeMatcher(scope)(path);
}
