import { TmsyncError } from '../errors.js';
import type { LookupEntry } from '../api/resources.js';
import type { AutomationIndex } from '../test-patterns.js';
import { OUTCOMES as JUNIT_OUTCOMES, type Outcome as JunitOutcome, type TagLevel, type TestRecord as JunitTestcase } from './record.js';
import { testKeys } from './test-key.js';

/**
 * Pure mapping of report records (JUnit testcases, Cucumber scenarios: record.ts) to service test
 * cases and of outcomes to run statuses.
 *
 * How a record finds its case(s), first rule that gives an answer wins:
 * 1. the mapping file: key `<classname>.<name>`, then `<name>` (a Cucumber scenario's classname is
 *    its feature's name);
 * 2. the `automation:` key of the repository's case files (its tests by `testKeys`, `*` patterns:
 *    src/test-patterns.ts); a test it names only in cases without an id yet stays unmatched;
 * 3. a Cucumber scenario's id tag (`@SHOP-12`, or `@tc:SHOP-12` with the id tag prefix `tc:`): those
 *    of its Examples first (an outline expanded one case per row), else its own; a Feature's or
 *    Rule's id tag names no case;
 * 4. a `<property name="test_case" value="SHOP-12"/>` (several refs separated by commas or spaces);
 * 5. human ids in the name, else in the classname (`SHOP-12`; with a known project prefix also
 *    `SHOP_12`, the only spelling a Java or Python identifier allows, and ids of other prefixes —
 *    ticket keys such as `JIRA-7` — are ignored); a Cucumber scenario's name only;
 * 6. a Cucumber scenario's feature path and name, as looked up on the service (scenario-names.ts).
 * A record naming several cases reports to each of them.
 */

/** The property a reporter sets to name the case explicitly. */
const TEST_CASE_PROPERTY = 'test_case';

/** A mapping file's contents: JUnit `classname.name` or `name` → case ref(s). */
export type ResultMapping = Record<string, string | string[]>;

interface MapResultsOptions {
  /** from `--mapping FILE`; wins over properties and names */
  mapping?: ResultMapping;
  /** the repository's `automation:` keys: after the mapping file, before tags, properties and names */
  automation?: AutomationIndex;
  /** the project's `human_id_prefix`; narrows name matching to this project's ids */
  prefix?: string;
  /** what a Cucumber id tag holds between `@` and the human id (`tc:` for `@tc:SHOP-12`) @default '' */
  idTagPrefix?: string;
  /** Cucumber scenarios matched by feature path and name (scenario-names.ts): the last rule */
  byName?: ReadonlyMap<JunitTestcase, string>;
}

/** The results of one service test case, gathered from every testcase that maps to it. */
export interface CaseResult {
  /** as written in the report or mapping (human id or case id), upper-cased when a human id */
  ref: string;
  /** the worst outcome of its testcases ({@link OUTCOME_SEVERITY}) */
  outcome: JunitOutcome;
  testcases: JunitTestcase[];
}

interface MappedResults {
  /** in the order cases first appear in the reports */
  cases: CaseResult[];
  unmatched: JunitTestcase[];
}

/**
 * When several testcases report to one case, the worst outcome wins: a case is only Passed when
 * every test that covers it passed. An assertion failure ranks above an error (the product is known
 * to be wrong, not just untested), and a skip above a pass (the case was not fully exercised).
 */
const OUTCOME_SEVERITY: Readonly<Record<JunitOutcome, number>> = { failed: 3, error: 2, skipped: 1, passed: 0 };

const GENERIC_ID = /(?<![A-Za-z0-9_-])[A-Z][A-Z0-9]*-\d+(?![0-9A-Za-z])/g;

const prefixPatterns = new Map<string, RegExp>();

/** The pattern of one prefix's ids, compiled once (a million testcases ask for it). */
function prefixPattern(prefix: string): RegExp {
  let re = prefixPatterns.get(prefix);
  if (!re) {
    re = new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(prefix)}[-_](\\d+)(?![0-9])`, 'g');
    prefixPatterns.set(prefix, re);
  }
  return re;
}

/** Human ids in a piece of text, in order, without duplicates. */
export function findHumanIds(text: string, prefix?: string): string[] {
  const found: string[] = [];
  if (prefix) {
    const re = prefixPattern(prefix);
    for (const m of text.matchAll(re)) found.push(`${prefix}-${Number(m[1])}`);
  } else {
    for (const m of text.matchAll(GENERIC_ID)) found.push(m[0]);
  }
  return [...new Set(found)];
}

/** The case refs one testcase reports to (empty when it matches nothing). */
export function refsOf(tc: JunitTestcase, options: MapResultsOptions = {}): string[] {
  const { mapping, prefix } = options;
  if (mapping) {
    const fromMapping = mapping[`${tc.classname}.${tc.name}`] ?? mapping[tc.name];
    if (fromMapping !== undefined) return normalizeRefs(Array.isArray(fromMapping) ? fromMapping : [fromMapping]);
  }
  if (options.automation) {
    const named = options.automation.match(testKeys(tc));
    // named only by cases not applied yet: unmatched (the push says which files)
    if (named.length > 0) return normalizeRefs(named.flatMap((c) => (c.id !== undefined ? [c.id] : [])));
  }
  if (tc.gherkin) {
    const tagged = idTagRefs(tc.gherkin.tags, options.idTagPrefix ?? '', prefix);
    if (tagged.length > 0) return tagged;
  }
  const prop = tc.properties[TEST_CASE_PROPERTY];
  if (prop !== undefined && prop.trim() !== '') return normalizeRefs(prop.split(/[\s,]+/));
  if (tc.tags !== undefined) {
    const tagged = [...new Set(tc.tags.flatMap((t) => findHumanIds(t, prefix)))];
    if (tagged.length > 0) return tagged;
  }
  const inName = findHumanIds(tc.name, prefix);
  if (inName.length > 0) return inName;
  if (tc.gherkin) {
    const named = options.byName?.get(tc);
    return named !== undefined ? [named] : [];
  }
  // jest-junit's classname repeats the name; looking again finds nothing new, which is harmless
  return findHumanIds(tc.classname, prefix);
}

/** Where an id tag may name the scenario's case, most specific first: an Examples' tag names its rows' case. */
const ID_TAG_LEVELS: readonly TagLevel[] = ['examples', 'scenario'];

/**
 * The human ids a scenario's id tags name: `@<idTagPrefix><ID>`, the id one of the project's when
 * its prefix is known (`@JIRA-7` is a ticket, not a case), upper-cased; from the most specific
 * level that has any.
 */
export function idTagRefs(tags: readonly { name: string; level: TagLevel }[], idTagPrefix: string, prefix?: string): string[] {
  const lead = `@${idTagPrefix}`.toLowerCase();
  for (const level of ID_TAG_LEVELS) {
    const found: string[] = [];
    for (const t of tags) {
      if (t.level !== level || !t.name.toLowerCase().startsWith(lead)) continue;
      const id = t.name.slice(lead.length);
      const m = /^([A-Za-z][A-Za-z0-9]*)-(\d+)$/.exec(id);
      if (!m || (prefix !== undefined && m[1].toUpperCase() !== prefix.toUpperCase())) continue;
      found.push(`${m[1].toUpperCase()}-${Number(m[2])}`);
    }
    if (found.length > 0) return [...new Set(found)];
  }
  return [];
}

/**
 * Groups testcases by the case they report to; the worst outcome of each group wins.
 *
 * A suite-level entry (a `<failure>`/`<error>` of a `<testsuite>` itself, see
 * {@link JunitTestcase.suiteLevel}) reports to every case its suite maps to: the mapping file's
 * entry for the suite name and its `<suite>.<name>` entries, human ids in the suite name, the
 * cases of the testcases inside the suite, and those of testcases anywhere whose classname is the
 * suite name (surefire names a suite after its class). When nothing maps it is unmatched, like a
 * testcase, so it is listed and never dropped.
 */
export function mapResults(testcases: readonly JunitTestcase[], options: MapResultsOptions = {}): MappedResults {
  const byRef = new Map<string, CaseResult>();
  const unmatched: JunitTestcase[] = [];
  const add = (tc: JunitTestcase, refs: readonly string[]) => {
    for (const ref of refs) {
      const key = ref.toUpperCase();
      const existing = byRef.get(key);
      if (!existing) {
        byRef.set(key, { ref, outcome: tc.outcome, testcases: [tc] });
      } else {
        existing.testcases.push(tc);
        if (OUTCOME_SEVERITY[tc.outcome] > OUTCOME_SEVERITY[existing.outcome]) existing.outcome = tc.outcome;
      }
    }
  };
  const suiteEntries: JunitTestcase[] = [];
  // the refs of each testcase, kept only when a suite-level entry will ask for them again
  const anySuiteLevel = testcases.some((t) => t.suiteLevel !== undefined);
  const refsCache = new Map<JunitTestcase, string[]>();
  for (const tc of testcases) {
    if (tc.suiteLevel) {
      suiteEntries.push(tc);
      continue;
    }
    const refs = refsOf(tc, options);
    if (anySuiteLevel) refsCache.set(tc, refs);
    if (refs.length === 0) {
      unmatched.push(tc);
      continue;
    }
    add(tc, refs);
  }
  if (suiteEntries.length === 0) return { cases: [...byRef.values()], unmatched };

  // classname → testcases, built only when a suite failed
  const byClassname = new Map<string, JunitTestcase[]>();
  for (const tc of testcases) {
    if (tc.suiteLevel || tc.classname === '') continue;
    const list = byClassname.get(tc.classname);
    if (list) list.push(tc);
    else byClassname.set(tc.classname, [tc]);
  }
  for (const entry of suiteEntries) {
    const refs = suiteRefs(entry, options, byClassname, (tc) => refsCache.get(tc) ?? refsOf(tc, options));
    if (refs.length === 0) unmatched.push(entry);
    else add(entry, refs);
  }
  return { cases: [...byRef.values()], unmatched };
}

/** The case refs a suite-level failure reports to (see {@link mapResults}). */
function suiteRefs(
  entry: JunitTestcase,
  options: MapResultsOptions,
  byClassname: ReadonlyMap<string, readonly JunitTestcase[]>,
  refsOfTestcase: (tc: JunitTestcase) => string[],
): string[] {
  const suite = entry.name;
  const refs: string[] = [];
  const { mapping, prefix } = options;
  if (mapping && suite !== '') {
    const direct = mapping[suite];
    if (direct !== undefined) refs.push(...normalizeRefs(Array.isArray(direct) ? direct : [direct]));
    for (const [key, value] of Object.entries(mapping)) {
      if (key.startsWith(`${suite}.`)) refs.push(...normalizeRefs(Array.isArray(value) ? value : [value]));
    }
  }
  if (options.automation && suite !== '') refs.push(...suiteAutomationRefs(suite, options.automation));
  refs.push(...findHumanIds(suite, prefix));
  for (const tc of entry.suiteLevel?.members ?? []) refs.push(...refsOfTestcase(tc));
  if (suite !== '') for (const tc of byClassname.get(suite) ?? []) refs.push(...refsOfTestcase(tc));
  const seen = new Set<string>();
  return refs.filter((r) => {
    const key = r.toUpperCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The applied cases whose `automation:` names the suite or a test in it, as the mapping file's
 * `<suite>.<name>` keys do: an entry `<suite>.…`, or a pattern whose text before its first `*`
 * agrees with `<suite>.` (`com.shop.Refund*` for the suite `com.shop.RefundTest`).
 */
function suiteAutomationRefs(suite: string, index: AutomationIndex): string[] {
  const inSuite = `${suite}.`;
  const named = (entry: string): boolean => {
    const star = entry.indexOf('*');
    if (star < 0) return entry === suite || entry.startsWith(inSuite);
    const lead = entry.slice(0, star);
    return inSuite.startsWith(lead) || lead.startsWith(inSuite);
  };
  return index.cases.filter((c) => c.id !== undefined && c.tests.some(named)).map((c) => c.id!);
}

/** Default run status names per outcome (looked up by name or alias, case-insensitive). */
const DEFAULT_STATUS_NAMES: Readonly<Record<JunitOutcome, string>> = {
  passed: 'Passed',
  failed: 'Failed',
  error: 'Failed',
  skipped: 'Skipped',
};

/** `["skipped=Blocked", "error=Retest"]` or `["skipped=Blocked,error=Retest"]` (from `--status-map`) → overrides; rejects unknown outcomes. */
export function parseStatusMap(entries: readonly string[] = []): Partial<Record<JunitOutcome, string>> {
  const out: Partial<Record<JunitOutcome, string>> = {};
  for (const entry of entries.flatMap((e) => e.split(','))) {
    const eq = entry.indexOf('=');
    const outcome = (eq < 0 ? entry : entry.slice(0, eq)).trim().toLowerCase();
    const status = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (!(JUNIT_OUTCOMES as readonly string[]).includes(outcome) || status === '') {
      throw new TmsyncError('invalid_status_map', `\`${entry}\` is not outcome=status`, {
        hint: `write e.g. --status-map skipped=Blocked; outcomes are ${JUNIT_OUTCOMES.join(', ')}`,
      });
    }
    out[outcome as JunitOutcome] = status;
  }
  return out;
}

/** The run status chosen for each outcome. */
type StatusChoice = Record<JunitOutcome, { id: string; name: string }>;

/**
 * Resolves each outcome's status name against the service's run statuses (by name or alias,
 * case-insensitive, or by id). Throws `unknown_run_status` listing what the service offers.
 */
export function resolveRunStatuses(
  statuses: readonly LookupEntry[],
  overrides: Partial<Record<JunitOutcome, string>> = {},
): StatusChoice {
  const find = (wanted: string) => {
    const w = wanted.trim().toLowerCase();
    return (
      statuses.find((s) => s.name.toLowerCase() === w) ??
      statuses.find((s) => (s.alias ?? '').toLowerCase() === w) ??
      statuses.find((s) => s.id === wanted)
    );
  };
  const out = {} as StatusChoice;
  for (const outcome of JUNIT_OUTCOMES) {
    const wanted = overrides[outcome] ?? DEFAULT_STATUS_NAMES[outcome];
    const hit = find(wanted);
    if (!hit) {
      throw new TmsyncError('unknown_run_status', `the service has no run status "${wanted}" (for ${outcome} testcases)`, {
        hint: `choose one of ${statuses.map((s) => s.name).join(', ')} with --status-map ${outcome}=<name>`,
        details: { outcome, wanted, available: statuses.map((s) => s.name) },
      });
    }
    out[outcome] = { id: hit.id, name: hit.name };
  }
  return out;
}

/** Execution notes for a case: one line per testcase that reported to it, capped. */
export function describeCaseResult(result: CaseResult, maxLength = 2000): string {
  const lines = result.testcases.map((tc) => {
    const where = tc.suiteLevel ? `suite ${tc.name || '(unnamed)'}` : tc.classname && !tc.name.startsWith(tc.classname) ? `${tc.classname} › ${tc.name}` : tc.name;
    return `${tc.outcome}: ${where}${tc.message ? ` — ${tc.message}` : ''}`;
  });
  const text = lines.join('\n');
  return text.length > maxLength ? `${text.slice(0, maxLength - 3)}...` : text;
}

const HUMAN_ID = /^[A-Za-z][A-Za-z0-9]*-\d+$/;

function normalizeRefs(refs: readonly string[]): string[] {
  const out = refs.map((r) => r.trim()).filter((r) => r !== '').map((r) => (HUMAN_ID.test(r) ? r.toUpperCase() : r));
  return [...new Set(out)];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
