import { assertNever } from '../assert-never.js';
import { TmsyncError } from '../errors.js';
import { ImportReport } from '../import/report.js';
import type { DesiredState } from '../model.js';
import { exportCsv } from './csv.js';
import { exportTestrailXml } from './testrail-xml.js';
import { EXPORT_FORMATS, isExportFormat, type ExportFormat } from './formats.js';
import { exportXrayCsv } from './xray-csv.js';

export { EXPORT_FORMATS, isExportFormat, type ExportFormat, type ExportFormatInfo } from './formats.js';

/**
 * `tmsync export FORMAT`: the repository in another tool's import format, so that nobody is
 * locked in. Each writer is pure (a loaded repository in, the file's text out); what a format
 * cannot hold (step groups, folders without cases, fields it has no slot for) is recorded in the
 * report, as an import's report records what it folded or dropped.
 */

export interface ExportOptions {
  /** collects what the format could not hold; a new one when left out */
  report?: ImportReport;
  /** testrail-xml: the suite's name (by default `Master`, the one suite of a single-repository project, which adds no folder when read back) */
  suiteName?: string;
}

/** The repository written as `format`: the file's whole text. */
export function exportRepository(format: ExportFormat, repository: DesiredState, options: ExportOptions = {}): string {
  const report = options.report ?? new ImportReport();
  switch (format) {
    case 'testrail-xml':
      return exportTestrailXml(repository, report, options.suiteName);
    case 'xray-csv':
      return exportXrayCsv(repository, report);
    case 'csv':
      return exportCsv(repository, report);
    default:
      return assertNever(format);
  }
}

/** A FORMAT given on the command line → the format, or an error listing the formats. */
export function exportFormat(name: string): ExportFormat {
  if (isExportFormat(name)) return name;
  throw new TmsyncError('invalid_export', `no export format "${name}"`, { hint: `the formats are ${EXPORT_FORMATS.map((f) => f.name).join(', ')}`, details: { format: name } });
}
