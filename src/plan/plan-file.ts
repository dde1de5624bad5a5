import { z } from 'zod';
import { TmsyncError } from '../errors.js';
import { camelKeys, snakeCase, snakeKeys, type CamelKeys, type SnakeCase } from '../json-keys.js';
import { CASE_FIELDS_BY_KIND, CASE_TEMPLATES, STEP_GROUP_FIELDS, type CaseFieldEntry, type CaseTemplate, type FieldKind, type StepGroupFieldEntry, type StepGroupFieldKind } from '../fields.js';
import { createCaseChanges, type PlanDisplay } from './display.js';
import { PLAN_FORMAT_VERSION, planDiffers, type AdoptOp, type CompleteTestPlanOp, type CreateTestPlanOp, type CreateTestRunOp, type Operation, type Plan, type StepBody } from './operations.js';

/**
 * The saved plan (`tmsync plan --out`, `--format json`): versioned and strictly parsed, so a plan
 * written by another version of tmsync is refused with a message saying which version it expected.
 */

const ref = z.union([z.strictObject({ id: z.string() }), z.strictObject({ op: z.string() })]);
const change = z.strictObject({ field: z.string(), from: z.string(), to: z.string() });
const write_back = z.strictObject({ file: z.string(), id: z.string().optional() });
const path = z.array(z.string());
const base = { key: z.string().min(1), depends_on: z.array(z.string()) };

const stepBody = z.strictObject({ description: z.string(), expected: z.string(), step_group: ref.nullable() });
/** A case body field's value in the file, by kind (the `CaseBody` of operations.ts, snake_case). */
interface BodyValues {
  text: string;
  template: CaseTemplate;
  lookup: string;
  user: string;
  labels: string[];
  steps: z.output<typeof stepBody>[];
}
const bodyValue: { [K in FieldKind]: z.ZodType<BodyValues[K]> } = {
  text: z.string(),
  template: z.enum(CASE_TEMPLATES),
  lookup: z.string(),
  user: z.string(),
  labels: z.array(z.string()),
  steps: z.array(stepBody),
};
/** The fields of a case body under their snake_case remote names (src/fields.ts), typed by kind. */
const caseFields = Object.fromEntries(CASE_FIELDS_BY_KIND.map((f) => [snakeCase(f.remote), bodyValue[f.kind].optional()])) as {
  [F in CaseFieldEntry as SnakeCase<F['remote']>]: z.ZodOptional<z.ZodType<BodyValues[F['kind']]>>;
};
const caseBody = z.strictObject({ title: z.string(), folder: ref, ...caseFields });

interface GroupBodyValues {
  text: string;
  labels: string[];
  steps: { description: string; expected: string }[];
}
const groupBodyValue: { [K in StepGroupFieldKind]: z.ZodType<GroupBodyValues[K]> } = {
  text: z.string(),
  labels: z.array(z.string()),
  steps: z.array(z.strictObject({ description: z.string(), expected: z.string() })),
};
/** The fields of a step group body (texts and labels optional, the steps always), typed by kind. */
const groupFields = Object.fromEntries(
  STEP_GROUP_FIELDS.map((f) => [snakeCase(f.remote), f.kind === 'steps' ? groupBodyValue[f.kind] : groupBodyValue[f.kind].optional()]),
) as {
  [F in StepGroupFieldEntry as SnakeCase<F['remote']>]: F['kind'] extends 'steps'
    ? z.ZodType<GroupBodyValues[F['kind']]>
    : z.ZodOptional<z.ZodType<GroupBodyValues[F['kind']]>>;
};
const groupBody = z.strictObject({ title: z.string(), ...groupFields });

const operation = z.discriminatedUnion('kind', [
  z.strictObject({ ...base, kind: z.literal('create_folder'), path, name: z.string(), parent: ref.nullable(), order: z.number().int().optional(), write_back }),
  z.strictObject({
    ...base,
    kind: z.literal('update_folder'),
    id: z.string(),
    path,
    name: z.string().optional(),
    order: z.number().int().optional(),
    changes: z.array(change),
    write_back: write_back.optional(),
  }),
  z.strictObject({ ...base, kind: z.literal('move_folder'), id: z.string(), from_path: path, path, parent: ref.nullable(), write_back: write_back.optional() }),
  z.strictObject({ ...base, kind: z.literal('delete_folder'), id: z.string(), path }),
  z.strictObject({ ...base, kind: z.literal('create_step_group'), local_key: z.string(), body: groupBody, write_back, changes: z.array(change).optional() }),
  z.strictObject({
    ...base,
    kind: z.literal('update_step_group'),
    id: z.string(),
    human_id: z.string(),
    local_key: z.string(),
    body: groupBody,
    changes: z.array(change),
    write_back: write_back.optional(),
  }),
  z.strictObject({ ...base, kind: z.literal('delete_step_group'), id: z.string(), human_id: z.string(), title: z.string() }),
  z.strictObject({ ...base, kind: z.literal('create_case'), path, body: caseBody, write_back, changes: z.array(change).optional() }),
  z.strictObject({
    ...base,
    kind: z.literal('update_case'),
    id: z.string(),
    human_id: z.string(),
    path,
    from_path: path.optional(),
    body: caseBody,
    changes: z.array(change),
    write_back: write_back.optional(),
  }),
  z.strictObject({
    ...base,
    kind: z.literal('move_case'),
    id: z.string(),
    human_id: z.string(),
    title: z.string(),
    from_path: path,
    path,
    folder: ref,
    write_back: write_back.optional(),
  }),
  z.strictObject({ ...base, kind: z.literal('delete_case'), id: z.string(), human_id: z.string(), title: z.string(), path }),
  z.strictObject({
    ...base,
    kind: z.literal('adopt'),
    item_type: z.enum(['case', 'folder', 'step_group']),
    id: z.string(),
    human_id: z.string().optional(),
    path,
    title: z.string(),
    write_back,
  }),
]);

const count = z.number().int().nonnegative();
const syncItem = {
  item_type: z.enum(['case', 'folder', 'step_group']),
  id: z.string(),
  human_id: z.string().optional(),
  path,
  title: z.string(),
  file: z.string().optional(),
  field: z.string(),
};
const sync = z.strictObject({
  remote_changes: z.array(z.strictObject({ ...syncItem, from: z.string(), to: z.string() })),
  conflicts: z.array(z.strictObject({ ...syncItem, local: z.string(), remote: z.string() })),
  without_base: count,
  prefer: z.enum(['local', 'remote']).optional(),
});
export const PlanFileSchema = z.strictObject({
  format_version: z.literal(PLAN_FORMAT_VERSION),
  project: z.strictObject({ id: z.string(), name: z.string(), human_id_prefix: z.string() }),
  prune: z.boolean(),
  operations: z.array(operation),
  unmanaged: z.array(
    z.strictObject({
      item_type: z.enum(['case', 'folder', 'step_group']),
      id: z.string(),
      human_id: z.string().optional(),
      path,
      title: z.string(),
      pruned: z.boolean(),
    }),
  ),
  warnings: z.array(z.strictObject({ code: z.string(), message: z.string(), file: z.string().optional(), line: z.number().int().optional() })),
  summary: z.strictObject({ create: count, update: count, move: count, delete: count, adopt: count }),
  content_hash: z.string(),
  remote_versions: z.record(z.string(), z.string()),
  sync: sync.optional(),
  differs: z
    .strictObject({ send: z.boolean(), service: z.boolean() })
    .optional()
    .meta({
      description:
        'how the repository and the service differ (what `plan --detailed-exitcode` exits 2 on): `send`, the plan sends something; `service`, the service holds changes the files do not have yet (`tmsync pull` takes them in). Derived from `operations` and `sync`; written by every plan, not read back',
    }),
});

/**
 * The operations a saved plan holds: a repository's. Restore and migrate plan test plans and runs
 * too, adopt those, and keep a step's type (`StepBody.stepType`); their plans are never saved.
 */
type SavedOperation =
  | Exclude<Operation, CreateTestPlanOp | CompleteTestPlanOp | CreateTestRunOp | AdoptOp>
  | (Omit<AdoptOp, 'itemType'> & { itemType: 'case' | 'folder' | 'step_group' });
/** A saved plan as the code holds it. */
type SavedPlan = Omit<Plan, 'operations'> & { operations: SavedOperation[] };

/** A type spelled out (intersections flattened, arrays and unions walked), a step without `stepType`, for comparing. */
type Shape<T> = T extends readonly (infer U)[]
  ? Shape<U>[]
  : T extends StepBody
    ? { [K in keyof Omit<T, 'stepType'>]: Shape<T[K]> }
    : T extends object
      ? { [K in keyof T]: Shape<T[K]> }
      : T;
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/**
 * The schema reads back exactly the plan the types describe: a field added to (or dropped from) an
 * operation, a body or the plan and not to its schema above fails to compile here.
 */
const schemaMatchesPlan: Same<Shape<CamelKeys<z.output<typeof PlanFileSchema>>>, Shape<SavedPlan>> = true;
void schemaMatchesPlan;

/**
 * The plan file: JSON with `format_version` first and every other key sorted, so equal plans are
 * equal bytes; indented, for a person to read it (`plan --json` and `show --json` print it on one
 * line, as every `--json` document). `display` (what `buildPlan` returned beside the plan) gives
 * a new case's `changes`, the values it sets, which the file holds for a person and `show`.
 */
export function renderPlanJson(plan: Plan, display?: PlanDisplay): string {
  return `${JSON.stringify(planDocument(plan, display), null, 2)}\n`;
}

/** The plan file on one line: what `plan --json` and `show --json` print. */
export function renderPlanJsonLine(plan: Plan, display?: PlanDisplay): string {
  return JSON.stringify(planDocument(plan, display));
}

/**
 * The plan as its JSON carries it: keys in snake_case (`json-keys.ts`), `format_version` first and
 * the rest sorted, with `differs` derived afresh (an edited plan never keeps a stale one) and a new
 * case's display `changes` from `display` where its operation holds none.
 */
export function planDocument(plan: Plan, display?: PlanDisplay): Record<string, unknown> {
  const operations = display === undefined ? plan.operations : plan.operations.map((op) => withDisplayValues(op, display));
  const { format_version, ...rest } = snakeKeys({ ...plan, operations, differs: planDiffers(plan) }) as Record<string, unknown>;
  return { format_version, ...(sortKeys(rest) as object) };
}

function withDisplayValues(op: Operation, display: PlanDisplay): Operation {
  return op.kind === 'create_case' && op.changes === undefined ? { ...op, changes: createCaseChanges(op, display) } : op;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/**
 * Reads a saved plan: JSON, `format_version` 3 (2 had camelCase keys, 1 was before three-way sync),
 * and exactly the shape this version writes. Older plans are refused: a saved plan is short-lived
 * and its remote versions are checked at apply anyway, so planning again is the safe way forward.
 */
export function parsePlanFile(text: string): Plan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new TmsyncError('plan_invalid', `the plan file is not JSON: ${(err as Error).message}`, {
      hint: 'save a plan with `tmsync plan --out FILE`',
    });
  }
  const version = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).format_version : undefined;
  if (version !== PLAN_FORMAT_VERSION) {
    throw new TmsyncError(
      'plan_format_version',
      `the plan file has format_version ${JSON.stringify(version ?? null)}; this tmsync reads format_version ${PLAN_FORMAT_VERSION}`,
      { hint: 'run `tmsync plan --out FILE` again with this version of tmsync', details: { expected: PLAN_FORMAT_VERSION, found: version ?? null } },
    );
  }
  const parsed = PlanFileSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new TmsyncError('plan_invalid', `the plan file is not a valid tmsync plan: ${issues.join('; ')}`, {
      hint: 'do not edit saved plans; run `tmsync plan --out FILE` again',
      details: { issues: parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join('.'), message: i.message })) },
    });
  }
  // derived, not an input: dropped so nothing trusts a copy that an edit could have made stale
  const { differs: _differs, ...plan } = camelKeys(parsed.data);
  return plan;
}
