/**
 * What an importer reads from another tool's export: a neutral model between the export's format
 * (`formats/*.ts`, one reader per format) and the tests repository (`write-import.ts`). Values are
 * as the source tool wrote them (lookups by the tool's names; texts already Markdown); the writer
 * maps lookups through the value map and folds what has no slot (`fold.ts`).
 */

/** Where a value came from in the export: the file as named to the user and a 1-based line. */
export interface ImportAt {
  file: string;
  line?: number;
}

/** One step as the export holds it. `data` (the third column of TestRail, Xray, Qase, Zephyr) is folded into the action. */
export interface ImportedActionStep {
  action: string;
  expected?: string;
  data?: string;
}

/** A step that calls reusable steps: TestRail/Qase/Azure shared steps, Xray called tests. */
export interface ImportedUseStep {
  /** the step group's `sourceId` */
  use: string;
}

export type ImportedStep = ImportedActionStep | ImportedUseStep;

/** A value with no slot in the case model: folded into the description's "Fields" block. */
export interface ImportedField {
  name: string;
  value: string;
}

/**
 * The lookups a case can carry, by the repository's YAML key (src/fields.ts), as the source tool
 * names them (`High`, `3`, `Functional`, `Automated`, a user's e-mail or display name).
 */
export interface ImportedLookups {
  priority?: string;
  type?: string;
  status?: string;
  automation_type?: string;
  owner?: string;
  reviewer?: string;
}

export interface ImportedCase {
  /**
   * The case's identity in the source tool, stable across exports (TestRail `C123`, Xray `CALC-7`,
   * TestLink's external id). Written as `source: <tool>:<sourceId>` so a newer export updates the
   * same file. A format without ids uses the folder path and title (documented per format).
   */
  sourceId: string;
  /** folder names from the top: suite, sections, folder path */
  folder: string[];
  title: string;
  description?: string;
  preconditions?: string;
  /** template STEPS */
  steps?: ImportedStep[];
  /** template TCD: the steps as one text, with `expectedResults` beside it */
  stepsText?: string;
  expectedResults?: string;
  lookups?: ImportedLookups;
  labels?: string[];
  /** custom fields and other values with no slot, in the export's order */
  fields?: ImportedField[];
  at: ImportAt;
}

export interface ImportedStepGroup {
  /** the group's identity in the source tool; `use` steps name it */
  sourceId: string;
  title: string;
  description?: string;
  steps: ImportedActionStep[];
  at: ImportAt;
}

/** What one export file gives. */
export interface ImportedProject {
  /** folder paths the export declares, including empty ones (cases' folders need not be listed) */
  folders: string[][];
  stepGroups: ImportedStepGroup[];
  cases: ImportedCase[];
}

export function isUseStep(step: ImportedStep): step is ImportedUseStep {
  return 'use' in step;
}
