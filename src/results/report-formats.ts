/**
 * The names of the report formats `results push` reads (load-reports.ts has a reader for each),
 * apart from the readers so that the CLI's option list costs no import of them.
 */
export const REPORT_FORMAT_NAMES = ['junit', 'cucumber-json', 'cucumber-messages', 'trx', 'nunit', 'xunit', 'testng', 'robot', 'ctrf', 'playwright'] as const;

export type ReportFormat = (typeof REPORT_FORMAT_NAMES)[number];

/** `auto` tells each file's format from its content. */
export type ReportFormatOption = ReportFormat | 'auto';

export const REPORT_FORMAT_OPTIONS: readonly ReportFormatOption[] = ['auto', ...REPORT_FORMAT_NAMES];
