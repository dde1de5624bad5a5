/**
 * One copy of each repeated short text (lookup names and ids, labels, users, `use:` keys, file
 * paths), for one load of the repository or one read of a project: parsed items arrive as new
 * strings (worker copies, JSON pages), so the `priority: High` of 50,000 cases is 50,000 strings
 * otherwise; shared, a large state holds about a third less. Texts over 64 characters are kept as
 * they come (they rarely repeat).
 */
export function textSharer(): (s: string) => string {
  const pool = new Map<string, string>();
  return (s) => {
    if (s.length > 64) return s;
    const had = pool.get(s);
    if (had !== undefined) return had;
    pool.set(s, s);
    return s;
  };
}
