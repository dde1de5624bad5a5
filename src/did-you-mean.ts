/** Edit distance counting a swap of two neighbours as one edit (`tilte` → `title`). */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

const squash = (s: string) => s.toLowerCase().replace(/[-_\s]/g, '');

/**
 * The closest candidate to a mistyped word, or undefined when none is close enough to be a
 * plausible typo. `automationType` and `Automation-Type` match `automation_type` (spelling
 * variants first), then an edit distance of about a third of the word.
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const w = squash(word);
  if (w.length === 0) return undefined;
  const same = candidates.find((c) => squash(c) === w);
  if (same !== undefined) return same;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, squash(c));
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  const limit = Math.max(1, Math.floor(Math.max(w.length, 3) / 3));
  if (best !== undefined && bestDistance <= limit) return best;
  // a truncated key (`automation` for `automation_type`)
  const prefixed = candidates.filter((c) => w.length >= 4 && squash(c).startsWith(w));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
