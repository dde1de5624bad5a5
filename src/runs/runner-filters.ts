import { assertNever } from '../assert-never.js';

/**
 * The cases of a run (or a test plan's runs) written as a test runner's selection, so that CI runs
 * exactly the tests the service selected and `results push` maps every result back: every form
 * matches a human id where `results push` finds one (map-results.ts `findHumanIds`: `SHOP-12` or
 * `SHOP_12`, not inside a longer id or number, leading zeros allowed), so `SHOP-1` never selects
 * `SHOP-12`. Pure: docs/automation.md has the table.
 */

export const RUNNER_FILTER_FORMATS = ['list', 'grep', 'playwright', 'pytest', 'testplan-json', 'junit-filter'] as const;

export type RunnerFilterFormat = (typeof RUNNER_FILTER_FORMATS)[number];

/** One case of the selection: its human id, and the automated tests its case file names (selectors for Allure). */
export interface SelectedCase {
  humanId: string;
  tests?: readonly string[];
}

/**
 * What an empty selection prints. A filter that is left out or empty makes every runner run
 * everything, the opposite of "nothing was selected": so each form matches no test instead.
 */
const NEVER = {
  /** POSIX ERE, JavaScript, Python, Java: `$` then any character cannot match */
  grep: '$.^',
  playwright: '/(?!)/',
  pytest: 'tmsync_no_case and not tmsync_no_case',
  junit: 'tmsync-no-case & !tmsync-no-case',
} as const;

const ESCAPE = /[.*+?^${}()|[\]\\/]/g;
const escapeRegExp = (s: string) => s.replace(ESCAPE, '\\$&');

/** `SHOP-12` → `{ prefix: 'SHOP', number: '12' }`; anything else is not a human id a name can carry. */
function splitHumanId(humanId: string): { prefix: string; number: string } | undefined {
  const m = /^([A-Za-z][A-Za-z0-9]*)-0*(\d+)$/.exec(humanId.trim());
  return m ? { prefix: m[1].toUpperCase(), number: m[2] } : undefined;
}

/** Numbers by prefix, in the order first seen, without duplicates. */
function byPrefix(cases: readonly SelectedCase[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of cases) {
    const id = splitHumanId(c.humanId);
    if (!id) continue;
    const numbers = out.get(id.prefix) ?? [];
    if (!numbers.includes(id.number)) numbers.push(id.number);
    out.set(id.prefix, numbers);
  }
  return out;
}

/**
 * The portable regular expression (POSIX ERE, so `grep -E`, and JavaScript, Python, Java, .NET):
 * no lookaround, the boundaries as groups. Matches `SHOP-12`, `SHOP_12`, `SHOP-012`, `@SHOP-12`,
 * `test_SHOP_12_pays`; not `SHOP-120`, `XSHOP-12`.
 */
export function grepPattern(cases: readonly SelectedCase[]): string {
  const groups = [...byPrefix(cases)].map(([prefix, numbers]) => `${escapeRegExp(prefix)}[-_]0*(${numbers.join('|')})`);
  if (groups.length === 0) return NEVER.grep;
  return `(^|[^A-Za-z0-9])(${groups.join('|')})([^0-9]|$)`;
}

/**
 * Playwright's `--grep`: a `/…/` literal (Playwright then takes it as written, case-sensitive, and
 * not as a bare string it would compile with the `gi` flags) with the same lookarounds as
 * `results push`.
 */
export function playwrightPattern(cases: readonly SelectedCase[]): string {
  const groups = [...byPrefix(cases)].map(([prefix, numbers]) => `${escapeRegExp(prefix)}[-_]0*(?:${numbers.join('|')})`);
  if (groups.length === 0) return NEVER.playwright;
  return `/(?<![A-Za-z0-9])(?:${groups.join('|')})(?![0-9])/`;
}

/**
 * pytest's `-k`: names joined by `or`. Its expressions match case-insensitive substrings and an
 * identifier cannot hold `-` on every pytest version, so ids are written `SHOP_12` (the spelling a
 * Python name allows), and `SHOP_1` also selects a test named `SHOP_12` (docs/automation.md).
 */
export function pytestExpression(cases: readonly SelectedCase[]): string {
  const names = [...byPrefix(cases)].flatMap(([prefix, numbers]) => numbers.map((n) => `${prefix}_${n}`));
  return names.length === 0 ? NEVER.pytest : names.join(' or ');
}

/**
 * A JUnit 5 tag expression (`mvn -Dgroups=…`, Gradle `includeTags`, the console launcher's
 * `--include-tag`) for tests tagged `@Tag("SHOP-12")`: tags match whole, so `SHOP-1` never
 * selects `SHOP-12`.
 */
export function junitTagExpression(cases: readonly SelectedCase[]): string {
  const tags = [...byPrefix(cases)].flatMap(([prefix, numbers]) => numbers.map((n) => `${prefix}-${n}`));
  return tags.length === 0 ? NEVER.junit : tags.join(' | ');
}

/**
 * Allure's `testplan.json` (`ALLURE_TESTPLAN_PATH`): `id` the human id (as `@AllureId("SHOP-12")`
 * or the `AS_ID` label gives it), and one entry more with a `selector` per test the case file's
 * `automation.tests` names (the full name Allure adapters compare).
 */
export function allureTestPlan(cases: readonly SelectedCase[]): { version: '1.0'; tests: { id: string; selector?: string }[] } {
  const tests: { id: string; selector?: string }[] = [];
  for (const c of cases) {
    if (!c.tests || c.tests.length === 0) tests.push({ id: c.humanId });
    else for (const selector of c.tests) tests.push({ id: c.humanId, selector });
  }
  return { version: '1.0', tests };
}

/** The selection in the format asked for, as printed (no trailing newline). */
export function formatSelection(format: RunnerFilterFormat, cases: readonly SelectedCase[]): string {
  switch (format) {
    case 'list':
      return [...new Set(cases.map((c) => c.humanId))].join('\n');
    case 'grep':
      return grepPattern(cases);
    case 'playwright':
      return playwrightPattern(cases);
    case 'pytest':
      return pytestExpression(cases);
    case 'junit-filter':
      return junitTagExpression(cases);
    case 'testplan-json':
      return JSON.stringify(allureTestPlan(cases), null, 2);
    default:
      return assertNever(format);
  }
}
