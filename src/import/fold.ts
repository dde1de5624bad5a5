import type { ImportAt, ImportedActionStep, ImportedField } from './imported.js';
import type { ImportReport } from './report.js';

/**
 * The fold rules every format shares (docs/import.md, "Nothing dropped in silence"): what has no
 * slot in the case model becomes text, and the report counts it.
 */

/** The label of a step's data line. */
export const DATA_LABEL = 'Data';
/** The heading of the block that holds custom and other fields in a description. */
export const FIELDS_HEADING = '**Fields**';

/**
 * A step's action with its data (TestRail's, Xray's, Qase's third column) appended as a labelled
 * line: `Data: …`, or a block when the data spans lines.
 */
export function foldStepData(step: ImportedActionStep, report: ImportReport, at: ImportAt): string {
  const data = step.data?.trim() ?? '';
  if (data === '') return step.action;
  report.record('folded', 'step data', `appended to the step's action as a "${DATA_LABEL}:" line`, data, at);
  const line = data.includes('\n') ? `${DATA_LABEL}:\n${data}` : `${DATA_LABEL}: ${data}`;
  return step.action.trim() === '' ? line : `${step.action}\n\n${line}`;
}

/** One field as a list item: a multi-line value indented under its name. */
function fieldLine(f: ImportedField): string {
  const value = f.value.trim();
  return value.includes('\n') ? `- ${f.name}:\n${value.replace(/^/gm, '  ')}` : `- ${f.name}: ${value}`;
}

/**
 * The description with the fields that have no slot appended as a "Fields" block (a list of
 * `name: value`), each counted in the report. Blank values are left out.
 */
export function foldFields(description: string | undefined, fields: readonly ImportedField[] | undefined, report: ImportReport, at: ImportAt): string | undefined {
  const kept = (fields ?? []).filter((f) => f.value.trim() !== '');
  for (const f of kept) report.record('folded', f.name, 'into the description\'s "Fields" block', f.value, at);
  if (kept.length === 0) return description;
  const block = `${FIELDS_HEADING}\n\n${kept.map(fieldLine).join('\n')}`;
  return description && description.trim() !== '' ? `${description.trimEnd()}\n\n${block}` : block;
}
