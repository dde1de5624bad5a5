import { caseDocument } from '../repository/documents.js';
import { defaultFormat } from '../repository/format.js';
import { slugify } from '../pull/naming.js';
import type { AutomationEntry } from '../results/automation-scan.js';
import { matchesTest } from '../test-patterns.js';
import { refsOf, type ResultMapping } from '../results/map-results.js';
import type { TestRecord } from '../results/record.js';
import { primaryTestKey, testKeys } from '../results/test-key.js';
import { Folders, Names, type ImportFile } from './import-files.js';
import type { ScannedRepository } from './scan-repository.js';

/**
 * Cases for the automated tests of reports that no case covers yet (`tmsync import junit|trx|…`,
 * docs/automation.md), as files to write (pure: tested without a disk). A test is left alone when
 * `results push` would already map it: a human id in its name, classname, tags or `test_case`
 * property (of any project, or of the repository's prefix when its case ids show one), a mapping
 * file entry, or a case file's `automation.tests` naming one of its keys. Each new case gets the
 * test's name as its title, the automated `automation_type` and `automation: { tests: [key] }`
 * with the test's first key (test-key.ts), so that a second import finds it and writes nothing.
 */

export interface ReportCasesOptions {
  casesDir: string;
  /** `--folder PATH`: every new case goes into this folder; else each test's own (see {@link testFolder}) */
  folder?: readonly string[];
  /** the automation type new cases get (the service's name for it) */
  automatedType: string;
  mapping?: ResultMapping;
  /** the project's human id prefix: only its ids in names count (others are ticket keys) */
  prefix?: string;
  idTagPrefix?: string;
}

export interface ReportCase {
  path: string;
  title: string;
  folder: string[];
  /** the test key written into `automation.tests` */
  test: string;
}

export interface ReportCasesResult {
  files: ImportFile[];
  cases: ReportCase[];
  /** tests left alone: mapped by an id or the mapping file, named by a case's `automation.tests`, or seen before in these reports */
  skipped: { mapped: number; named: number; repeated: number };
}

/**
 * The folder of a test without `--folder`: a scenario's feature; else the class or file it is in,
 * by its last name (`com.shop.CheckoutTest` → `CheckoutTest`, `tests/checkout.spec.ts` →
 * `checkout`, `tests.test_cart` → `test_cart`); a test with neither goes into `Automated tests`.
 */
export function testFolder(record: TestRecord): string[] {
  if (record.gherkin?.feature) return [record.gherkin.feature];
  const where = (record.classname || record.suites[record.suites.length - 1] || record.file || '').trim();
  if (where === '') return ['Automated tests'];
  if (/[/\\]/.test(where)) {
    const base = where.split(/[/\\]/).filter((s) => s !== '').pop() ?? where;
    return [base.split('.')[0] || base];
  }
  const last = where.split('.').filter((s) => s !== '').pop();
  return [last ?? where];
}

/** The files for the tests of `records` that no case covers. */
export function buildReportCases(records: readonly TestRecord[], entries: readonly AutomationEntry[], scanned: ScannedRepository, options: ReportCasesOptions): ReportCasesResult {
  const result: ReportCasesResult = { files: [], cases: [], skipped: { mapped: 0, named: 0, repeated: 0 } };
  const patterns = entries.flatMap((e) => e.tests);
  const exact = new Set(patterns.filter((p) => !p.includes('*')));
  const globs = patterns.filter((p) => p.includes('*'));
  const named = (keys: readonly string[]) => keys.some((k) => exact.has(k) || globs.some((g) => matchesTest(g, k)));
  const names = new Names(scanned);
  const folders = new Folders(scanned, names, options.casesDir, result.files);
  // titles per directory: a case without an id needs a title unique in its folder
  const titles = new Map<string, Set<string>>();
  for (const e of entries) {
    const dir = e.path.slice(0, e.path.lastIndexOf('/'));
    if (e.title !== undefined) (titles.get(dir) ?? titles.set(dir, new Set()).get(dir)!).add(e.title.toLowerCase());
  }
  const seen = new Set<string>();
  const format = defaultFormat();
  for (const record of records) {
    if (record.suiteLevel) continue;
    if (refsOf(record, { ...(options.mapping ? { mapping: options.mapping } : {}), ...(options.prefix ? { prefix: options.prefix } : {}), idTagPrefix: options.idTagPrefix ?? '' }).length > 0) {
      result.skipped.mapped++;
      continue;
    }
    const key = primaryTestKey(record);
    if (seen.has(key)) {
      // a retried test or a data-driven row of one name: one case
      result.skipped.repeated++;
      continue;
    }
    seen.add(key);
    if (named(testKeys(record))) {
      result.skipped.named++;
      continue;
    }
    const folder = options.folder && options.folder.length > 0 ? [...options.folder] : testFolder(record);
    const dir = folders.dirFor(folder);
    const taken = titles.get(dir) ?? titles.set(dir, new Set()).get(dir)!;
    const title = uniqueTitle(record, taken);
    taken.add(title.toLowerCase());
    const path = `${dir}/${names.in(dir).allocate(slugify(title), format.extensions[0])}`;
    const doc = { ...caseDocument({ title, fields: { automationType: options.automatedType } }), automation: { tests: [key] } };
    result.files.push({
      action: 'create',
      kind: 'case',
      path,
      get content() {
        return format.render('case', doc, { path });
      },
    });
    result.cases.push({ path, title, folder, test: key });
  }
  return result;
}

/** The test's name as the title; a name its folder already holds gets its class, then a number. */
function uniqueTitle(record: TestRecord, taken: ReadonlySet<string>): string {
  const base = record.name.trim().replace(/\s+/g, ' ') || primaryTestKey(record);
  if (!taken.has(base.toLowerCase())) return base;
  const withClass = record.classname ? `${base} (${record.classname})` : base;
  if (!taken.has(withClass.toLowerCase())) return withClass;
  for (let n = 2; ; n++) if (!taken.has(`${withClass} (${n})`.toLowerCase())) return `${withClass} (${n})`;
}
