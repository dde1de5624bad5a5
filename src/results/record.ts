/**
 * The one record every report reader produces (JUnit, Cucumber JSON, Cucumber messages, and the
 * formats to come): what one test ended as, where it came from, and what it carries to find its
 * case. Mapping (map-results.ts) and sending (push-results.ts) read only this.
 */

/** What a test ended as. `error` is an unexpected exception (or a test that could not run as written), `failed` an assertion. */
export type Outcome = 'passed' | 'failed' | 'error' | 'skipped';

export const OUTCOMES: readonly Outcome[] = ['passed', 'failed', 'error', 'skipped'];

/** Where a Gherkin tag was written: tags of a Feature or Rule apply to every scenario under it. */
export type TagLevel = 'feature' | 'rule' | 'scenario' | 'examples';

/** The Gherkin side of a result read from a Cucumber report. */
export interface GherkinSource {
  /** the feature file as the report names it, `/`-separated, scheme (`classpath:`, `file:`) removed */
  uri: string;
  feature: string;
  rule?: string;
  /** the Scenario's (or Scenario Outline's) name as written, before an Examples row's values are put in where the report tells them apart */
  scenario: string;
  /** every tag that applies, `@` included, with where it was written (`scenario` when the report does not say) */
  tags: { name: string; level: TagLevel }[];
  /** set for a Scenario Outline's row: the Examples' name and the row's values, where the report gives them */
  row?: { examples?: string; cells?: string[] };
  /** the scenario's (or row's) line in the feature file */
  line?: number;
}

/**
 * A file a test attached. Either the report names a file (`path`: as written in the report, a
 * `file://` URL or a path relative to the report's directory; results/attachments.ts resolves it)
 * or it holds the bytes (`body`, a Cucumber embedding or a base64 attachment).
 */
export type RecordAttachment = { mediaType?: string; fileName?: string } & (
  | { path: string; body?: undefined }
  | {
      /** the body as the report holds it: base64 unless `encoding` is `identity` (text) */
      body: string;
      encoding: 'base64' | 'identity';
      path?: undefined;
    }
);

/** One test's result, dialect and format differences smoothed out. */
export interface TestRecord {
  name: string;
  /** JUnit `classname`; a Cucumber scenario's feature name; empty when the report has none */
  classname: string;
  /** source file: the `file` attribute (pytest, some jest-junit setups), the suite's `file`, or a classname that is a path (playwright); a Cucumber feature's uri */
  file?: string;
  outcome: Outcome;
  /** first line of the failure/error/skip message */
  message?: string;
  durationMs?: number;
  /** `<properties><property name value/>` of the testcase (not of its suites) */
  properties: Record<string, string>;
  /** names of the enclosing `<testsuite>` elements, outermost first (Cucumber: the feature, then its rule) */
  suites: string[];
  /** the report file this record came from (as given to the loader) */
  report: string;
  /**
   * Set on the entry that stands for a `<failure>` or `<error>` of a `<testsuite>` itself (a class
   * whose set-up failed): `name` is the suite's name, `suites` its path, `outcome` failed or error.
   * It is not a testcase: it fails every case its suite maps to (see map-results).
   */
  suiteLevel?: {
    /** the testcases inside the suite (nested suites included), in report order */
    members: TestRecord[];
  };
  /** a Cucumber scenario: its feature, tags and outline row, which map it to its case */
  gherkin?: GherkinSource;
  attachments?: RecordAttachment[];
  /**
   * Labels the runner attached to the test: TRX `TestCategory`, NUnit `Category`, TestNG groups,
   * Robot tags, CTRF/Playwright tags. A tag that is a human id (`SHOP-12`, `tc:SHOP-12`) names a case.
   */
  tags?: string[];
}

/** The records of a list, without the suite-level entries. */
export function countTestcases(entries: readonly TestRecord[]): number {
  let n = 0;
  for (const e of entries) if (!e.suiteLevel) n++;
  return n;
}
