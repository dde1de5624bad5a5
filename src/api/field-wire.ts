import type { z } from 'zod';
import type { FieldKind, StepGroupFieldKind } from '../fields.js';

/**
 * The wire schemas' part that the field table (`src/fields.ts`) describes: one zod key per entry,
 * named by the entry's `wire` name and typed by its kind. `requests.ts` (bodies) and `resources.ts`
 * (answers) give the zod type of each kind on their side of the wire; a new field of an existing kind
 * gains its request and answer keys (and so its OpenAPI properties) from its table entry alone.
 */

/** The zod type of each kind of case field on one side of the wire (a factory: one instance per key). */
export type WireKinds = { readonly [K in FieldKind]: () => z.ZodType };
/** The zod type of each kind of step group field on one side of the wire. */
export type GroupWireKinds = { readonly [K in StepGroupFieldKind]: () => z.ZodType };

interface WireEntry {
  readonly wire: string;
  readonly kind: FieldKind | StepGroupFieldKind;
  readonly required?: boolean;
}

type Kinds = { readonly [K in FieldKind | StepGroupFieldKind]?: () => z.ZodType };

/** The shape of the table's keys: `required` entries take `required`'s type when one is given. */
type WireShape<E extends WireEntry, V extends Kinds, R extends (() => z.ZodType) | undefined = undefined> = {
  -readonly [F in E as F['wire']]: F extends { required: true } ? (R extends () => infer T ? T : KindType<V, F['kind']>) : KindType<V, F['kind']>;
};
type KindType<V extends Kinds, K extends keyof V> = V[K] extends () => infer T ? T : never;

/** The zod shape of a table's entries, in the table's order, for one side of the wire. */
export function wireShape<E extends WireEntry, V extends { readonly [K in E['kind']]: () => z.ZodType }, R extends (() => z.ZodType) | undefined = undefined>(
  entries: readonly E[],
  kinds: V,
  required?: R,
): WireShape<E, V, R> {
  const shape: Record<string, z.ZodType> = {};
  for (const f of entries) shape[f.wire] = f.required === true && required !== undefined ? required() : (kinds[f.kind as E['kind']] as () => z.ZodType)();
  return shape as WireShape<E, V, R>;
}
