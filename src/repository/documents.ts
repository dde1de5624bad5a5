import { CASE_FIELDS, fieldOf, impliedTemplate, STEP_GROUP_FIELDS, type StepGroupFieldValues } from '../fields.js';
import type { DesiredCaseFields, DesiredGroupStep, DesiredStep } from '../model.js';

/**
 * An item as the data of its file, whatever the file format: the top-level keys of the field
 * tables (`key`), in their order, after `id` and `title`. Every format renders these documents and
 * edits files key by key from them (`RepositoryFormat`); pull and write-back speak only in them.
 */

function renderSteps(steps: readonly DesiredStep[]): unknown[] {
  return steps.map((s) =>
    s.kind === 'use' ? { use: s.use } : s.expected === '' ? { action: s.action } : { action: s.action, expected: s.expected },
  );
}

/**
 * A test case as the YAML document's data, keys in the order people read them (the field table's,
 * after `id` and `title`); `template` only when the other keys do not imply it. Absent fields are
 * present with the value undefined: pull updates an existing file key by key from this, and removes
 * such keys; {@link renderCaseYaml} leaves them out.
 */
export function caseDocument(c: { id?: string; title: string; fields: DesiredCaseFields }): Record<string, unknown> {
  const f = c.fields;
  const implied = impliedTemplate((x) => fieldOf(f, x, 'model') !== undefined);
  const o: Record<string, unknown> = { id: c.id, title: c.title };
  for (const field of CASE_FIELDS) {
    const value = fieldOf<unknown>(f, field, 'model');
    // the first form of a key that has a value wins (`steps` as a list, else as a text)
    if (o[field.key] !== undefined) continue;
    o[field.key] =
      value === undefined || (field.kind === 'template' && value === implied)
        ? undefined
        : field.kind === 'labels'
          ? [...(value as string[])]
          : field.kind === 'steps'
            ? renderSteps(value as DesiredStep[])
            : value;
  }
  return o;
}

/** A step group as the YAML document's data (id, title, description, labels, steps); absent keys undefined. */
export function stepGroupDocument(g: StepGroupDocumentInput): Record<string, unknown> {
  const o: Record<string, unknown> = { id: g.id, title: g.title };
  for (const f of STEP_GROUP_FIELDS) {
    const value = fieldOf<unknown>(g, f, 'model');
    o[f.key] =
      value === undefined
        ? undefined
        : f.kind === 'labels'
          ? [...(value as string[])]
          : f.kind === 'steps'
            ? renderSteps((value as DesiredGroupStep[]).map((s) => ({ kind: 'step' as const, action: s.action, expected: s.expected })))
            : value;
  }
  return o;
}

/** A step group as pull and write-back give it: its identity and the fields of the step group table. */
export type StepGroupDocumentInput = { id?: string; title: string } & StepGroupFieldValues<
  'model',
  { text: string; labels: string[]; steps: readonly { action: string; expected: string }[] },
  'text' | 'labels'
>;

/** A document without its absent keys: what a new file holds. */
export function defined(doc: Record<string, unknown>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) if (value !== undefined) o[key] = value;
  return o;
}
