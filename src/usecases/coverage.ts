import type { LookupEntry } from '../api/resources.js';
import { TmsyncError, type Problem } from '../errors.js';
import type { DesiredCase } from '../model.js';
import type { TmsClient } from '../remote/client.js';
import { automatedCasesOf } from '../repository/automation-cases.js';
import type { TmsyncConfig } from '../repository/config.js';
import { loadRepository } from '../repository/loader.js';
import { loadReports, type ReportFormatOption } from '../results/load-reports.js';
import { automatedTypeName, DEFAULT_AUTOMATED_TYPE, isAutomatedType as isAutomatedValue } from '../results/automated-type.js';
import { refsOf } from '../results/map-results.js';
import type { TestRecord } from '../results/record.js';
import { primaryTestKey, testKeys } from '../results/test-key.js';
import { buildAutomationIndex, matchesTest, isTestPattern, type AutomationIndex } from '../test-patterns.js';

/**
 * `tmsync coverage`: how the repository's cases and the automated tests are linked (docs/automation.md).
 * The kinds of finding, each a list, and what `--fail-on` names them by.
 */
export const COVERAGE_KINDS = ['unproven-cases', 'unmapped-tests', 'missing-tests', 'unexecuted-cases'] as const;
export type CoverageKind = (typeof COVERAGE_KINDS)[number];

/** A case of the repository, where a finding about it is shown (its file and the line of the key concerned). */
export interface CoverageCase {
  file: string;
  line: number;
  id?: string;
  title: string;
}

export interface CoverageResult {
  /** cases in the repository, and those whose automation type is the automated one */
  cases: number;
  automated: number;
  /** tests read from the reports (suite-level entries aside); undefined without reports */
  tests?: number;
  /** the run whose cases were read (`--test-run`) */
  run?: { id: string; humanId?: string; title: string; cases: number };
  /** the kinds the inputs allowed to compute: unmapped and missing tests need reports, unexecuted cases a run */
  checked: CoverageKind[];
  /** automated cases no test proves: with reports, none of their tests maps to them; without, their `automation:` names none */
  unprovenCases: CoverageCase[];
  /** tests of the reports that map to no case; `notApplied`: cases without an id yet whose `automation:` names them */
  unmappedTests: { test: string; report: string; notApplied?: string[] }[];
  /** `automation.tests` entries no test of the reports answers to */
  missingTests: (CoverageCase & { test: string })[];
  /** cases of the run whose status is still untested; `file`/`line` when the repository holds the case */
  unexecutedCases: { id: string; humanId?: string; title: string; status: string; file?: string; line?: number }[];
}

/** A run case as `computeCoverage` needs it. */
export interface CoverageRunCase {
  id: string;
  humanId?: string;
  title: string;
  status: string;
}

export interface ComputeCoverageInput {
  cases: readonly DesiredCase[];
  /** `defaults.automation_type` of tmsync.yaml: the type of a case whose file names none */
  defaultAutomationType?: string;
  /** the service's automation types; without them the automated type is the one named `Automated` */
  automationTypes?: readonly LookupEntry[];
  /** the records of the reports; undefined: no reports were given */
  records?: readonly TestRecord[];
  /** the project's human id prefix, when known (narrows ids found in test names, as `results push`) */
  prefix?: string;
  run?: { id: string; humanId?: string; title: string; cases: readonly CoverageRunCase[] };
}

/** `Untested`, `UnTested`, `untested`: the word compared, case and spaces aside. */
const word = (s: string | null | undefined) => (s ?? '').toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Whether a case's `automation_type` value is the service's automated type: the entry it names (by
 * name, alias or id, as the plan resolves lookups) is called `Automated` by name or alias.
 */
export function isAutomatedType(value: string | undefined, types?: readonly LookupEntry[]): boolean {
  if (value === undefined) return false;
  if (!types || types.length === 0) return isAutomatedValue(value, DEFAULT_AUTOMATED_TYPE);
  const automated = automatedTypeName(types);
  // a case file may name its type by id too
  const named = types.find((t) => t.id === value.trim())?.name ?? value;
  return automated !== undefined && isAutomatedValue(named, automated, types);
}

/** A run status that means the case was not executed: `Untested`, the live `UnTested`, `untested`. */
function isUntested(status: string): boolean {
  return word(status) === 'untested';
}

const lineOf = (c: DesiredCase, ...keys: string[]) => keys.map((k) => c.lines[k]).find((l) => l !== undefined) ?? 1;
const caseAt = (c: DesiredCase, line: number): CoverageCase => ({ file: c.file, line, ...(c.id !== undefined ? { id: c.id } : {}), title: c.title });

/** The findings of `tmsync coverage`, computed from what was read. Pure. */
export function computeCoverage(input: ComputeCoverageInput): CoverageResult {
  const cases = input.cases;
  const byId = new Map<string, DesiredCase>();
  for (const c of cases) if (c.id !== undefined) byId.set(c.id.toUpperCase(), c);
  // only single-case files (YAML) hold `automation:`, so a file names its case
  const byFile = new Map(cases.map((c) => [c.file, c]));
  const index = buildAutomationIndex(automatedCasesOf(cases));
  const records = input.records?.filter((r) => !r.suiteLevel);
  const automated = cases.filter((c) => isAutomatedType(c.fields.automationType ?? input.defaultAutomationType, input.automationTypes));
  const checked: CoverageKind[] = ['unproven-cases'];

  const proven = new Set<DesiredCase>();
  const unmappedTests: CoverageResult['unmappedTests'] = [];
  const missingTests: CoverageResult['missingTests'] = [];
  if (records) {
    checked.push('unmapped-tests', 'missing-tests');
    const seen = new Set<string>();
    for (const r of records) {
      const refs = refsOf(r, { automation: index, ...(input.prefix ? { prefix: input.prefix } : {}) });
      for (const ref of refs) {
        const c = byId.get(ref.toUpperCase());
        if (c) proven.add(c);
      }
      // a case `automation:` names is proven by the test even before it is applied (the test stays unmapped until then)
      const named = index.match(testKeys(r));
      for (const a of named) proven.add(byFile.get(a.file)!);
      if (refs.length > 0) continue;
      const test = primaryTestKey(r);
      if (seen.has(`${r.report}\0${test}`)) continue; // data-driven rows: one test
      seen.add(`${r.report}\0${test}`);
      const notApplied = named.map((c) => c.file);
      unmappedTests.push({ test, report: r.report, ...(notApplied.length > 0 ? { notApplied } : {}) });
    }
    missingTests.push(...missing(byFile, records, index));
  } else {
    for (const c of cases) if ((c.automation?.tests.length ?? 0) > 0) proven.add(c);
  }
  const unprovenCases = automated.filter((c) => !proven.has(c)).map((c) => caseAt(c, lineOf(c, 'automation', 'automation_type', 'title')));

  const unexecutedCases: CoverageResult['unexecutedCases'] = [];
  if (input.run) {
    checked.push('unexecuted-cases');
    for (const rc of input.run.cases) {
      if (!isUntested(rc.status)) continue;
      const c = byId.get(rc.id.toUpperCase()) ?? (rc.humanId !== undefined ? byId.get(rc.humanId.toUpperCase()) : undefined);
      unexecutedCases.push({ id: rc.id, ...(rc.humanId !== undefined ? { humanId: rc.humanId } : {}), title: rc.title, status: rc.status, ...(c ? { file: c.file, line: lineOf(c, 'id', 'title') } : {}) });
    }
  }
  return {
    cases: cases.length,
    automated: automated.length,
    ...(records ? { tests: records.length } : {}),
    ...(input.run ? { run: { id: input.run.id, ...(input.run.humanId !== undefined ? { humanId: input.run.humanId } : {}), title: input.run.title, cases: input.run.cases.length } } : {}),
    checked,
    unprovenCases,
    unmappedTests,
    missingTests,
    unexecutedCases,
  };
}

/** The `automation.tests` entries that no test of the reports answers to. */
function missing(byFile: ReadonlyMap<string, DesiredCase>, records: readonly TestRecord[], index: AutomationIndex): CoverageResult['missingTests'] {
  const keys = new Set<string>();
  for (const r of records) for (const k of testKeys(r)) keys.add(k);
  const out: CoverageResult['missingTests'] = [];
  for (const a of index.cases) {
    const c = byFile.get(a.file)!;
    for (const test of new Set(a.tests)) {
      const found = isTestPattern(test) ? [...keys].some((k) => matchesTest(test, k)) : keys.has(test);
      if (!found) out.push({ ...caseAt(c, lineOf(c, 'automation')), test });
    }
  }
  return out;
}

/** The findings of the kinds asked for (`--fail-on`), as counts; empty when none has any. */
export function coverageFailures(result: CoverageResult, kinds: readonly CoverageKind[]): Partial<Record<CoverageKind, number>> {
  const counts: Record<CoverageKind, number> = {
    'unproven-cases': result.unprovenCases.length,
    'unmapped-tests': result.unmappedTests.length,
    'missing-tests': result.missingTests.length,
    'unexecuted-cases': result.unexecutedCases.length,
  };
  const out: Partial<Record<CoverageKind, number>> = {};
  for (const k of kinds) if (counts[k] > 0) out[k] = counts[k];
  return out;
}

/** `--fail-on unmapped-tests,unproven-cases` → the kinds; refuses a word that is none. */
export function parseCoverageKinds(values: readonly string[]): CoverageKind[] {
  const out: CoverageKind[] = [];
  for (const v of values.flatMap((x) => x.split(',')).map((x) => x.trim()).filter((x) => x !== '')) {
    if (!(COVERAGE_KINDS as readonly string[]).includes(v)) {
      throw new TmsyncError('invalid_option', `--fail-on ${v} is not a kind of finding`, { hint: `choose among ${COVERAGE_KINDS.join(', ')} (comma-separated)` });
    }
    if (!out.includes(v as CoverageKind)) out.push(v as CoverageKind);
  }
  return out;
}

export interface CoverageOptions {
  root: string;
  config: TmsyncConfig;
  /** report files (any format `results push` reads), relative to `cwd` */
  reports?: readonly string[];
  cwd: string;
  format?: ReportFormatOption;
  /** a run (id or human id) whose untested cases are listed; needs `client` and `projectId` */
  testRun?: string;
  client?: TmsClient;
  projectId?: string;
  prefix?: string;
  signal?: AbortSignal;
  /** the repository's files as `loadRepository` takes them */
  load?: Parameters<typeof loadRepository>[2];
}

/**
 * Reads the repository (and the reports, and the run's cases and the automation types when a
 * client is given) and computes the coverage. A repository with errors fails with
 * `invalid_repository`, as `plan` does: its broken files would be left out silently.
 */
export async function coverageOfRepository(options: CoverageOptions): Promise<CoverageResult> {
  const loaded = await loadRepository(options.root, options.config, options.load ?? {});
  const errors: Problem[] = loaded.problems.filter((p) => p.severity !== 'warning');
  if (errors.length > 0) {
    throw new TmsyncError('invalid_repository', `the tests repository has ${errors.length} problem${errors.length === 1 ? '' : 's'}`, {
      hint: 'run `tmsync validate` and fix the files it lists',
      details: { problems: errors },
    });
  }
  const records = options.reports && options.reports.length > 0 ? (await loadReports(options.reports, options.cwd, options.format ?? 'auto')).records : undefined;
  const { client, signal } = options;
  let automationTypes: LookupEntry[] | undefined;
  let run: ComputeCoverageInput['run'];
  if (client) {
    automationTypes = [];
    for await (const t of client.paginate('listAutomationTypes', { signal })) automationTypes.push(t);
  }
  if (options.testRun !== undefined) {
    if (!client || options.projectId === undefined) throw new TmsyncError('invalid_arguments', '--test-run needs the service', { hint: 'configure base_url and project, and set TMSYNC_API_KEY' });
    run = await readRun(client, options.projectId, options.testRun, signal);
  }
  const prefix = options.prefix ?? commonPrefix(loaded.state.cases);
  return computeCoverage({
    cases: loaded.state.cases,
    ...(options.config.defaults.automationType !== undefined ? { defaultAutomationType: options.config.defaults.automationType } : {}),
    ...(automationTypes ? { automationTypes } : {}),
    ...(records ? { records } : {}),
    ...(prefix ? { prefix } : {}),
    ...(run ? { run } : {}),
  });
}

/** The prefix every human id of the repository shares (`SHOP`), if they share one. */
function commonPrefix(cases: readonly DesiredCase[]): string | undefined {
  const prefixes = new Set(cases.flatMap((c) => (c.id !== undefined && /^[A-Za-z][A-Za-z0-9]*-\d+$/.test(c.id) ? [c.id.replace(/-\d+$/, '').toUpperCase()] : [])));
  return prefixes.size === 1 ? [...prefixes][0] : undefined;
}

/** The run and its cases with their statuses (both shapes of the list: the client reads the live one into the document's). */
async function readRun(client: TmsClient, projectId: string, ref: string, signal?: AbortSignal): Promise<NonNullable<ComputeCoverageInput['run']>> {
  let run;
  try {
    run = (await client.call('getTestRun', { params: { project_id: projectId, test_run_id: ref }, signal })).data.test_run;
  } catch (err) {
    if ((err as { code?: string }).code === 'not_found') {
      throw new TmsyncError('run_not_found', `no test run "${ref}" in the project`, { hint: 'pass a run id or human id (e.g. DEMO-R-3)', details: { ref } });
    }
    throw err;
  }
  const listed = await client.call('listRunCases', { params: { project_id: projectId, test_run_id: run.id }, signal });
  return {
    id: run.id,
    ...(run.human_id ? { humanId: run.human_id } : {}),
    title: run.title,
    cases: listed.data.test_cases.map((c) => ({ id: c.id, ...(typeof c.human_id === 'string' ? { humanId: c.human_id } : {}), title: c.name, status: c.status })),
  };
}
