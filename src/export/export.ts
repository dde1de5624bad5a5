import { assertNever } from '../assert-never.js';
import { TmsyncError } from '../errors.js';
import { ImportReport } from '../import/report.js';
import type { DesiredState } from '../model.js';
import { exportCsv } from './csv.js';
import { exportTestrailXml } from './testrail-xml.js';
import { exportXrayCsv } from './xray-csv.js';

/**
 * `tmsync export FORMAT`: the repository in another tool's import format, so that nobody is
 * locked in. Each writer is pure (a loaded repository in, the file's text out); what a format
 * cannot hold (step groups, folders without cases, fields it has no slot for) is recorded in the
 * report, as an import's report records what it folded or dropped.
 */

export type ExportFormat = 'testrail-xml' | 'xray-csv' | 'csv';

export interface ExportFormatInfo {
  name: ExportFormat;
  /** one line for --help and docs */
  about: string;
  /** the file name extension the written file usually has */
  extension: string;
}

/** Every format, in the order --help lists them. */
export const EXPORT_FORMATS: readonly ExportFormatInfo[] = [
  { name: 'testrail-xml', about: "TestRail's suite XML (Import from XML): sections from folders, step groups inlined", extension: 'xml' },
  { name: 'xray-csv', about: "Xray's Test Case Importer CSV: one row per step, grouped by TCID, step groups inlined", extension: 'csv' },
  { name: 'csv', about: 'the generic CSV `tmsync import csv` reads back: one row per step, step groups inlined', extension: 'csv' },
];

export function isExportFormat(name: string): name is ExportFormat {
  return EXPORT_FORMATS.some((f) => f.name === name);
}

export interface ExportOptions {
  /** collects what the format could not hold; a new one when left out */
  report?: ImportReport;
  /** testrail-xml: the suite's name (the project's, by default `tmsync export`) */
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
