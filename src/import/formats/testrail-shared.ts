import { TmsyncError } from '../../errors.js';

/**
 * What TestRail's two export formats (`testrail-xml.ts`, `testrail-csv.ts`) share, so that a CSV
 * and an XML export of the same project give the same sourceIds, folders and field names.
 */

/** The name TestRail gives the only suite of a single-repository project: it adds no folder level. */
const SINGLE_REPOSITORY_SUITE = 'master';

/** A case's identity as TestRail shows it: `C123` (exports write `C123` or `123`); other text as it is. */
export function caseSourceId(raw: string): string | undefined {
  const id = raw.trim();
  if (id === '') return undefined;
  const n = /^C?(\d+)$/i.exec(id);
  return n ? `C${Number(n[1])}` : id;
}

/** A case without an id (the ID column left out, an XML written by hand): its folder path and title. */
export function fallbackSourceId(folder: readonly string[], title: string): string {
  return [...folder, title].join(' / ');
}

/** A shared step set's identity: TestRail shows no prefix for them, `SS` keeps them apart from cases. */
export function sharedStepSourceId(raw: string): string {
  const n = /^(?:SS)?(\d+)$/i.exec(raw.trim());
  return n ? `SS${Number(n[1])}` : raw.trim();
}

/** The folder level a suite adds: none for a single-repository project's `Master`, else its name. */
export function suiteFolder(name: string): string[] {
  const n = name.trim();
  return n === '' || n.toLowerCase() === SINGLE_REPOSITORY_SUITE ? [] : [n];
}

const labels = new Map<string, string>();

/** A custom field's system name (`automation_type`, `custom_automation_type`) as a label (`Automation Type`). */
export function fieldLabel(systemName: string): string {
  let label = labels.get(systemName);
  if (label === undefined) {
    if (labels.size > 1000) labels.clear();
    labels.set(systemName, (label = labelOf(systemName)));
  }
  return label;
}

function labelOf(systemName: string): string {
  return systemName
    .replace(/^custom_/, '')
    .split('_')
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** TestRail's built-in templates whose layout the case model holds; any other is folded as a field. */
export const TEMPLATE_STEPS = 'Test Case (Steps)';
export const TEMPLATE_TEXT = 'Test Case (Text)';

export function isLayoutTemplate(name: string): boolean {
  return name === '' || name === TEMPLATE_STEPS || name === TEMPLATE_TEXT;
}

/** The field names both formats fold into the description's Fields block, as TestRail labels them. */
export const FIELD = {
  template: 'Template',
  estimate: 'Estimate',
  references: 'References',
  milestone: 'Milestone',
  goals: 'Goals',
} as const;

/** How a step's references join its additional info in the step's `data`. */
export function stepData(info: string, refs: string): string | undefined {
  const parts = [info, refs === '' ? '' : `References: ${refs}`].filter((p) => p !== '');
  return parts.length > 0 ? parts.join('\n') : undefined;
}

export function importError(file: string, line: number, message: string, hint: string): TmsyncError {
  return new TmsyncError('invalid_import', `${file}:${line}: ${message}`, { hint, details: { file, line } });
}
