/**
 * The `automation.tests` entries of case files: each names automated tests by one of the names a
 * test is known by (`classname.name`, `name`, `file > suites > name`: results/test-key.ts), where
 * `*` stands for any run of characters (none included, dots, spaces and `>` too). Nothing else is
 * special: `?`, `[`, `.` and `\` are themselves, so a Java name or a sentence needs no escaping.
 * The whole name must match, case-sensitively, as runners name tests.
 */

/** Whether an entry is a pattern (holds `*`) rather than one test's exact name. */
export function isTestPattern(entry: string): boolean {
  return entry.includes('*');
}

const compiled = new Map<string, RegExp>();

/** The entry as an anchored regular expression, compiled once per entry. */
export function testPatternRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (!re) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    re = new RegExp(`^${body}$`, 's');
    compiled.set(pattern, re);
  }
  return re;
}

/** Whether the entry names the test known by `key`. */
export function matchesTest(entry: string, key: string): boolean {
  return isTestPattern(entry) ? testPatternRegExp(entry).test(key) : entry === key;
}

/** A case that names automated tests in its file. */
export interface AutomatedCase {
  /** `id:` as written; undefined: the case is not applied yet and cannot receive results */
  id?: string;
  file: string;
  title: string;
  /** `automation.tests` as written */
  tests: readonly string[];
  /** the 1-based line of the `automation:` key */
  line?: number;
}

/**
 * Which cases name a test: exact names in a map, patterns tried one by one (a repository has few).
 * Built once per push or coverage run from the repository's cases.
 */
export interface AutomationIndex {
  /** the cases naming a test known by any of `keys`, each once, in the order of the repository */
  match(keys: readonly string[]): AutomatedCase[];
  readonly cases: readonly AutomatedCase[];
}

export function buildAutomationIndex(cases: readonly AutomatedCase[]): AutomationIndex {
  const exact = new Map<string, AutomatedCase[]>();
  const patterns: { re: RegExp; c: AutomatedCase }[] = [];
  for (const c of cases) {
    for (const entry of c.tests) {
      if (isTestPattern(entry)) {
        patterns.push({ re: testPatternRegExp(entry), c });
        continue;
      }
      const list = exact.get(entry);
      if (!list) exact.set(entry, [c]);
      else if (!list.includes(c)) list.push(c);
    }
  }
  const order = new Map(cases.map((c, i) => [c, i]));
  return {
    cases,
    match(keys) {
      const found = new Set<AutomatedCase>();
      for (const key of keys) {
        for (const c of exact.get(key) ?? []) found.add(c);
        for (const p of patterns) if (!found.has(p.c) && p.re.test(key)) found.add(p.c);
      }
      return found.size <= 1 ? [...found] : [...found].sort((a, b) => order.get(a)! - order.get(b)!);
    },
  };
}
