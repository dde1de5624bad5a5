import type { TestRecord } from './record.js';

/**
 * The last rule for a Cucumber scenario without an id tag: its case is the one whose title is the
 * scenario's name and whose folder path ends like the scenario's feature path. A `.feature` file's
 * cases live in its directory plus one folder per feature (named after the feature, or the file
 * stem), plus one per Rule when rules are folders; the report names the file
 * from wherever the runner ran (`features/cart/checkout.feature`,
 * `classpath:shop/checkout.feature`), so the two are compared from the end: the case whose folder
 * path shares the longest tail with the feature's path wins (names compared case aside), the
 * feature level (its name or stem) at least. Two cases that tie are ambiguous: the scenario maps to neither and the candidates are
 * listed. Pure: push-results reads the project's folders and cases and calls it.
 */

/** A case of the project as the lookup needs it. */
export interface NamedCase {
  id: string;
  humanId?: string;
  title: string;
  /** folder names from the project's root to the case's folder */
  folderPath: readonly string[];
}

export interface ScenarioNameMatches {
  /** record → the ref (human id, else id) of the one case it names */
  refs: Map<TestRecord, string>;
  /** record → the refs of the cases that tie */
  ambiguous: Map<TestRecord, string[]>;
}

export function matchScenarioNames(records: readonly TestRecord[], cases: readonly NamedCase[]): ScenarioNameMatches {
  const byTitle = new Map<string, NamedCase[]>();
  for (const c of cases) {
    const key = c.title.trim();
    const list = byTitle.get(key);
    if (list) list.push(c);
    else byTitle.set(key, [c]);
  }
  const refs = new Map<TestRecord, string>();
  const ambiguous = new Map<TestRecord, string[]>();
  for (const record of records) {
    const g = record.gherkin;
    if (!g) continue;
    const candidates = byTitle.get(g.scenario.trim()) ?? [];
    if (candidates.length === 0) continue;
    const variants = featurePaths(g.uri, g.feature, g.rule);
    let best = 0;
    let winners: NamedCase[] = [];
    for (const c of candidates) {
      const score = Math.max(0, ...variants.map((v) => commonTail(c.folderPath, v)));
      if (score === 0 || score < best) continue;
      if (score > best) {
        best = score;
        winners = [c];
      } else winners.push(c);
    }
    const ref = (c: NamedCase) => c.humanId ?? c.id;
    if (winners.length === 1) refs.set(record, ref(winners[0]));
    else if (winners.length > 1) ambiguous.set(record, winners.map(ref));
  }
  return { refs, ambiguous };
}

/** The folder paths a feature's cases may sit in: its directories, then the feature's name or the file stem, then the rule. */
function featurePaths(uri: string, feature: string, rule: string | undefined): string[][] {
  const parts = uri.split('/').filter((p) => p !== '' && p !== '.');
  const file = parts.pop() ?? '';
  const stem = file.replace(/\.feature$/i, '');
  const levels = [...new Set([feature.trim(), stem].filter((n) => n !== ''))];
  const out: string[][] = [];
  for (const level of levels) {
    out.push([...parts, level]);
    if (rule !== undefined && rule.trim() !== '') out.push([...parts, level, rule.trim()]);
  }
  return out;
}

/** How many trailing names two paths share, case aside (a file stem is often the folder's name in lower case). */
function commonTail(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n].trim().toLowerCase() === b[b.length - 1 - n].toLowerCase()) n++;
  return n;
}
