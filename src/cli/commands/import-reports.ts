import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { TmsyncError } from '../../errors.js';
import { CONFIG_DEFAULTS } from '../../repository/config.js';
import { automatedTypeName } from '../../results/automated-type.js';
import { detectFormat } from '../../results/load-reports.js';
import { REPORT_FORMAT_NAMES, type ReportFormatOption } from '../../results/report-formats.js';
import { safeInline } from '../../safe-text.js';
import { importReports } from '../../usecases/import-reports.js';
import { EXIT } from '../exit-codes.js';
import type { CliIo, GlobalOptions } from '../io.js';
import type { TmsyncConfig } from '../../repository/config.js';
import type { KnownValues } from '../../import/value-map.js';
import { jsonOutput } from '../json.js';
import { useCaseContext } from '../use-case-context.js';
import { plural } from '../words.js';
import { parseFolderPath } from './pull.js';
import { loadMapping } from './results-push.js';

/**
 * `tmsync import junit|trx|… REPORT…`: the part of `tmsync import` that reads test reports
 * (docs/automation.md). The format word is required: without it `import` detects an export of
 * another tool, and a file that turns out to be a test report gets a hint naming the word.
 */

/** The options of `tmsync import` a report import reads. */
interface ReportImportOptions extends GlobalOptions {
  args: string[];
  dir?: string;
  folder?: string;
  mapping?: string;
  dryRun?: boolean;
  service?: boolean;
}

/** What import.ts lends (passed in: this module is imported by it). */
interface ImportShared {
  importRoot: (options: ReportImportOptions) => Promise<{ root: string; config?: TmsyncConfig; configFile?: string }>;
  serviceValues: (options: ReportImportOptions, configFile: string | undefined, io: CliIo) => Promise<{ known: KnownValues } | undefined>;
}

/** The words that name a report format for `import`: each format `results push` reads, `cucumber` (either Cucumber form) and `report` (told from the content). */
export const REPORT_IMPORT_WORDS = [...REPORT_FORMAT_NAMES, 'cucumber', 'report'] as const;

/** The report format a FORMAT word names (`auto` for `cucumber` and `report`), else undefined. */
export function reportImportFormat(word: string): ReportFormatOption | undefined {
  const w = word.toLowerCase();
  if (w === 'cucumber' || w === 'report') return 'auto';
  return (REPORT_FORMAT_NAMES as readonly string[]).includes(w) ? (w as ReportFormatOption) : undefined;
}

/**
 * Runs the export import; when it cannot tell the first file's format and that file is a test
 * report, the error says to name the report's format.
 */
export async function withReportHint<T>(files: readonly string[], cwd: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof TmsyncError) || err.code !== 'import_format_unknown' || files.length === 0) throw err;
    const bytes = await readFile(resolve(cwd, files[0])).catch(() => undefined);
    const report = bytes ? detectFormat(bytes, files[0]) : undefined;
    if (report === undefined) throw err;
    throw new TmsyncError('import_format_unknown', `${files[0]} is not an export of another tool; it may be a test report (${report})`, {
      hint: `to write cases for its automated tests, name the report's format: tmsync import ${report} ${files.join(' ')}`,
      details: { file: files[0], report },
    });
  }
}

/** Exit 0 when the files are written (or would be, with --dry-run); the next steps on stderr. */
/** `shared`: import.ts's repository root and service lookups, passed in (this module is imported by it). */
export async function runImportReports(
  options: ReportImportOptions,
  format: ReportFormatOption,
  files: string[],
  io: CliIo,
  shared: ImportShared,
): Promise<number> {
  if (files.length === 0) {
    throw new TmsyncError('invalid_arguments', 'no report file given', { hint: `tmsync import ${format === 'auto' ? 'junit' : format} REPORT…` });
  }
  const { root, config, configFile } = await shared.importRoot(options);
  if (!config) {
    throw new TmsyncError('config_not_found', 'cases from test reports go into a tests repository: no tmsync.yaml was found', {
      hint: 'run it inside a tests repository (tmsync init, or tmsync pull), or pass --dir DIR of one',
    });
  }
  const service = await shared.serviceValues(options, configFile, io);
  const types = service?.known.automation_type;
  const automatedType = types ? (types.get('automated') ?? automatedTypeName([...new Set(types.values())].map((name) => ({ name })))) : undefined;
  const folder = parseFolderPath(options.folder);
  const mapping = options.mapping !== undefined ? await loadMapping(resolve(options.cwd, options.mapping), options.mapping) : undefined;
  const projectPrefix = /^[A-Z][A-Z0-9]{0,9}$/.test(config.project ?? '') ? config.project : undefined;
  const result = await importReports(
    {
      root,
      casesDir: config.casesDir ?? CONFIG_DEFAULTS.casesDir,
      stepGroupsDir: config.stepGroupsDir ?? CONFIG_DEFAULTS.stepGroupsDir,
      files,
      cwd: options.cwd,
      format,
      ...(folder ? { folder } : {}),
      ...(automatedType ? { automatedType } : {}),
      ...(projectPrefix ? { prefix: projectPrefix } : {}),
      ...(mapping ? { mapping } : {}),
      ...(config.gherkin?.idTagPrefix !== undefined ? { idTagPrefix: config.gherkin.idTagPrefix } : {}),
      dryRun: options.dryRun === true,
    },
    useCaseContext(io),
  );
  const shown = (p: string) => relative(options.cwd, join(root, p)) || p;
  if (options.json) {
    io.stdout(
      jsonOutput({
        formats: result.formats,
        dry_run: options.dryRun === true,
        testcases: result.testcases,
        automation_type: result.automatedType,
        created: result.cases.map((c) => ({ path: shown(c.path), title: c.title, folder: c.folder, test: c.test })),
        folder_files: result.folderFiles.map(shown),
        skipped: result.skipped,
      }),
    );
  }
  const s = result.skipped;
  if (options.dryRun && !options.json) for (const c of result.cases) io.stderr(`  + ${safeInline(shown(c.path))}  (${safeInline(c.test)})`);
  io.stderr(
    `${options.dryRun ? 'Would write' : 'Wrote'} ${plural(result.cases.length, 'new case')} for the tests of ${plural(files.length, 'report')} that no case covers` +
      ` (automation_type ${safeInline(result.automatedType)}); ${plural(s.mapped, 'test')} already map by an id or the mapping file, ${s.named} named by a case's automation.tests.`,
  );
  if (result.cases.length > 0 && !options.dryRun) io.stderr(`Nothing was sent. Next: tmsync plan (shows the ${plural(result.cases.length, 'create')}), then tmsync apply; results push then maps these tests to them.`);
  return EXIT.OK;
}
