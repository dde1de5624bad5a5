import { join } from 'node:path';
import { TmsyncError } from '../errors.js';
import { buildReportCases, type ReportCase } from '../import/report-cases.js';
import { scanRepository } from '../import/scan-repository.js';
import { writeFilesAtomic } from '../repository/atomic-write.js';
import { repositoryPrefix, scanAutomation } from '../results/automation-scan.js';
import { DEFAULT_AUTOMATED_TYPE } from '../results/automated-type.js';
import { loadReports, type ReportFormat, type ReportFormatOption } from '../results/load-reports.js';
import type { ResultMapping } from '../results/map-results.js';
import { countTestcases } from '../results/record.js';
import type { UseCaseContext } from './hooks.js';

/**
 * `tmsync import junit|trx|… REPORT…`: cases for the automated tests of test reports that no case
 * covers (docs/automation.md). Reads the reports as `results push` does, scans the repository for
 * the tests its cases name (`automation.tests`), and writes one new YAML case per new test; never
 * an existing file. Nothing on the service is touched: `plan` shows the creates, `apply` sends
 * them. A second import after more tests were added writes only those.
 */

export interface ImportReportsOptions {
  root: string;
  casesDir: string;
  stepGroupsDir: string;
  files: readonly string[];
  cwd: string;
  /** the reports' format; `auto` tells each file's from its content */
  format: ReportFormatOption;
  /** `--folder PATH` */
  folder?: readonly string[];
  /** the service's name of the automated type (else `Automated`) */
  automatedType?: string;
  /** the project's human id prefix when the service told it (else the repository's ids tell it) */
  prefix?: string;
  mapping?: ResultMapping;
  idTagPrefix?: string;
  dryRun?: boolean;
}

export interface ImportReportsResult {
  formats: ReportFormat[];
  testcases: number;
  automatedType: string;
  cases: ReportCase[];
  /** `_folder.yaml` files written for folder names a directory cannot spell */
  folderFiles: string[];
  skipped: { mapped: number; named: number; repeated: number };
}

/** New files written durably at a time. */
const WRITE_CHUNK = 2_000;

export async function importReports(options: ImportReportsOptions, context: UseCaseContext = {}): Promise<ImportReportsResult> {
  if (options.files.length === 0) {
    throw new TmsyncError('invalid_arguments', 'no report file given', { hint: 'tmsync import junit REPORT.xml… (or trx, nunit, testng, robot, cucumber-json, …)' });
  }
  const { records, formats } = await loadReports(options.files, options.cwd, options.format);
  const entries = await scanAutomation(options.root, options.casesDir);
  const scanned = await scanRepository(options.root, options.casesDir, options.stepGroupsDir);
  const prefix = options.prefix ?? repositoryPrefix(entries);
  const automatedType = options.automatedType ?? DEFAULT_AUTOMATED_TYPE;
  const built = buildReportCases(records, entries, scanned, {
    casesDir: options.casesDir,
    automatedType,
    ...(options.folder ? { folder: options.folder } : {}),
    ...(options.mapping ? { mapping: options.mapping } : {}),
    ...(prefix ? { prefix } : {}),
    ...(options.idTagPrefix !== undefined ? { idTagPrefix: options.idTagPrefix } : {}),
  });
  if (!options.dryRun) {
    for (let start = 0; start < built.files.length; start += WRITE_CHUNK) {
      const chunk = built.files.slice(start, start + WRITE_CHUNK);
      // no existing file is written: each path was allocated against every name in its directory
      await writeFilesAtomic(
        chunk.map((f) => ({ file: join(options.root, f.path), content: () => (f.action === 'create' ? f.content : '') })),
        { root: options.root },
      );
      context.memory?.check();
    }
  }
  context.memory?.finish();
  return {
    formats,
    testcases: countTestcases(records),
    automatedType,
    cases: built.cases,
    folderFiles: built.files.filter((f) => f.kind === 'folder').map((f) => f.path),
    skipped: built.skipped,
  };
}
