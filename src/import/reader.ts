import type { ImportedProject } from './imported.js';
import type { ImportReport } from './report.js';

/**
 * The interface of one export format's reader (`formats/*.ts`; the registry is `readers.ts`).
 * A reader turns the decoded text of one export file into the neutral model (`imported.ts`):
 * texts converted to Markdown (`text/*.ts`), values with no slot listed as `fields` or recorded in
 * the report, attachment links kept in the text and recorded. It never writes files.
 */

/** The tool a format comes from: the prefix of `source:` (`testrail:C123`). Formats of one tool share it. */
export type SourceTool = 'testrail' | 'xray' | 'zephyr-scale' | 'zephyr-squad' | 'qase' | 'testlink' | 'testomatio' | 'azure-devops' | 'csv';

export interface ReadImportContext {
  /** the file as messages name it (relative to the working directory) */
  file: string;
  report: ImportReport;
  /** the generic CSV's column map, and any format's column aliases (`--map FILE`, `import.columns`) */
  columns?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * The directory the user named when a format keeps its tree in directories (testomatio-md: one
   * file per suite, parent suites as directories): the file's directories below it are folders
   * (`file` and `root` both relative to the working directory). Absent: no directory is a folder.
   */
  root?: string;
}

export interface ImportReader {
  /** the FORMAT of `tmsync import FORMAT` */
  readonly name: string;
  readonly tool: SourceTool;
  /** one line for --help and docs */
  readonly about: string;
  /**
   * How sure the reader is that `head` (the first 64 KiB of the decoded text) is its format: 0
   * not at all, 1 the file name only, 2 the structure (root element, header names), 3 a marker
   * only this format has. The highest wins; a tie is an error that lists the candidates.
   */
  detect(head: string, file: string): number;
  /**
   * The whole file → the model. Throws `TmsyncError('invalid_import', …)` naming `file:line` for
   * a file it cannot read (malformed, truncated, wrong format); an empty export gives an empty
   * project and a note.
   */
  read(text: string, context: ReadImportContext): ImportedProject;
}
