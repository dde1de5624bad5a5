/**
 * The formats of `tmsync export`, apart from their writers: the CLI's program lists them in
 * --help and completions without loading a writer.
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

/** The names, for the CLI's choices. */
export const EXPORT_FORMAT_NAMES: readonly ExportFormat[] = EXPORT_FORMATS.map((f) => f.name);

/** One line per format, for --help. */
export const EXPORT_FORMAT_HELP: string = EXPORT_FORMATS.map((f) => `  ${f.name.padEnd(14)}${f.about}`).join('\n');
