import type { CaseFieldValues, CaseTemplate, StepGroupFieldValues } from './fields.js';

/**
 * The bodies of a plan's operations: an item's managed fields as the service needs them (ids resolved
 * from names), with references to items created in the same run. Below the plan (`plan/operations.ts`
 * re-exports them), so that the sync base's compare form (`base/field-values.ts`) reads them
 * without importing the plan.
 */

/**
 * A reference to a remote item that may not exist yet: its id, or the key of the operation in the
 * same plan that creates it (resolved at apply time).
 */
export type Ref = { id: string } | { op: string };

/** A step of a case body: `stepGroup` set when the step comes from a `use:`. */
export interface StepBody {
  description: string;
  expected: string;
  stepGroup: Ref | null;
  /** the service's step type, kept by a restore @default 'DEFAULT' */
  stepType?: string;
}

/**
 * The managed fields of a case as the service needs them (ids resolved from names), with refs for
 * items created in the same apply, named by the field table (`src/fields.ts`). Fields the repository
 * leaves out are absent (not sent on update).
 */
export interface CaseBody
  extends Partial<CaseFieldValues<'remote', { text: string; template: CaseTemplate; lookup: string; user: string; labels: string[]; steps: StepBody[] }>> {
  title: string;
  folder: Ref;
}

/** A step of a step group body. */
export interface GroupStepBody {
  description: string;
  expected: string;
}

/**
 * The managed fields of a step group as the service needs them (label ids resolved), named by the
 * step group table (`src/fields.ts`); a text or labels the file leaves out are absent.
 */
export interface StepGroupBody extends StepGroupFieldValues<'remote', { text: string; labels: string[]; steps: GroupStepBody[] }, 'text' | 'labels'> {
  title: string;
}
