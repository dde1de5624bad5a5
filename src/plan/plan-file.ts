import { z } from 'zod';
import { TmsyncError } from '../errors.js';
import { CASE_FIELDS_BY_KIND, CASE_TEMPLATES, STEP_GROUP_FIELDS, type FieldKind, type StepGroupFieldKind } from '../fields.js';
import { PLAN_FORMAT_VERSION, planDiffers, type Plan } from './operations.js';

/**
 * The saved plan (`tmsync plan --out`, `--format json`): versioned and strictly parsed, so a plan
 * written by another version of tmsync is refused with a message saying which version it expected.
 */

const ref = z.union([z.strictObject({ id: z.string() }), z.strictObject({ op: z.string() })]);
const change = z.strictObject({ field: z.string(), from: z.string(), to: z.string() });
const writeBack = z.strictObject({ file: z.string(), id: z.string().optional() });
const path = z.array(z.string());
const base = { key: z.string().min(1), dependsOn: z.array(z.string()) };

const stepBody = z.strictObject({ description: z.string(), expected: z.string(), stepGroup: ref.nullable() });
const bodyValue: Record<FieldKind, z.ZodType> = {
  text: z.string(),
  template: z.enum(CASE_TEMPLATES),
  lookup: z.string(),
  user: z.string(),
  labels: z.array(z.string()),
  steps: z.array(stepBody),
};
const caseBody = z.strictObject({
  title: z.string(),
  folder: ref,
  ...Object.fromEntries(CASE_FIELDS_BY_KIND.map((f) => [f.remote, bodyValue[f.kind].optional()])),
});
const groupBodyValue: Record<StepGroupFieldKind, z.ZodType> = {
  text: z.string().optional(),
  labels: z.array(z.string()).optional(),
  steps: z.array(z.strictObject({ description: z.string(), expected: z.string() })),
};
const groupBody = z.strictObject({
  title: z.string(),
  ...Object.fromEntries(STEP_GROUP_FIELDS.map((f) => [f.remote, groupBodyValue[f.kind]])),
});

const operation = z.discriminatedUnion('kind', [
  z.strictObject({ ...base, kind: z.literal('create_folder'), path, name: z.string(), parent: ref.nullable(), order: z.number().int().optional(), writeBack }),
  z.strictObject({
    ...base,
    kind: z.literal('update_folder'),
    id: z.string(),
    path,
    name: z.string().optional(),
    order: z.number().int().optional(),
    changes: z.array(change),
    writeBack: writeBack.optional(),
  }),
  z.strictObject({ ...base, kind: z.literal('move_folder'), id: z.string(), fromPath: path, path, parent: ref.nullable(), writeBack: writeBack.optional() }),
  z.strictObject({ ...base, kind: z.literal('delete_folder'), id: z.string(), path }),
  z.strictObject({ ...base, kind: z.literal('create_step_group'), localKey: z.string(), body: groupBody, writeBack, changes: z.array(change).optional() }),
  z.strictObject({
    ...base,
    kind: z.literal('update_step_group'),
    id: z.string(),
    humanId: z.string(),
    localKey: z.string(),
    body: groupBody,
    changes: z.array(change),
    writeBack: writeBack.optional(),
  }),
  z.strictObject({ ...base, kind: z.literal('delete_step_group'), id: z.string(), humanId: z.string(), title: z.string() }),
  z.strictObject({ ...base, kind: z.literal('create_case'), path, body: caseBody, writeBack, changes: z.array(change).optional() }),
  z.strictObject({
    ...base,
    kind: z.literal('update_case'),
    id: z.string(),
    humanId: z.string(),
    path,
    fromPath: path.optional(),
    body: caseBody,
    changes: z.array(change),
    writeBack: writeBack.optional(),
  }),
  z.strictObject({
    ...base,
    kind: z.literal('move_case'),
    id: z.string(),
    humanId: z.string(),
    title: z.string(),
    fromPath: path,
    path,
    folder: ref,
    writeBack: writeBack.optional(),
  }),
  z.strictObject({ ...base, kind: z.literal('delete_case'), id: z.string(), humanId: z.string(), title: z.string(), path }),
  z.strictObject({
    ...base,
    kind: z.literal('adopt'),
    itemType: z.enum(['case', 'folder', 'step_group']),
    id: z.string(),
    humanId: z.string().optional(),
    path,
    title: z.string(),
    writeBack,
  }),
]);

const count = z.number().int().nonnegative();
const syncItem = {
  itemType: z.enum(['case', 'folder', 'step_group']),
  id: z.string(),
  humanId: z.string().optional(),
  path,
  title: z.string(),
  file: z.string().optional(),
  field: z.string(),
};
const sync = z.strictObject({
  remoteChanges: z.array(z.strictObject({ ...syncItem, from: z.string(), to: z.string() })),
  conflicts: z.array(z.strictObject({ ...syncItem, local: z.string(), remote: z.string() })),
  withoutBase: count,
  prefer: z.enum(['local', 'remote']).optional(),
});
export const PlanFileSchema = z.strictObject({
  format_version: z.literal(PLAN_FORMAT_VERSION),
  project: z.strictObject({ id: z.string(), name: z.string(), humanIdPrefix: z.string() }),
  prune: z.boolean(),
  operations: z.array(operation),
  unmanaged: z.array(
    z.strictObject({
      itemType: z.enum(['case', 'folder', 'step_group']),
      id: z.string(),
      humanId: z.string().optional(),
      path,
      title: z.string(),
      pruned: z.boolean(),
    }),
  ),
  warnings: z.array(z.strictObject({ code: z.string(), message: z.string(), file: z.string().optional(), line: z.number().int().optional() })),
  summary: z.strictObject({ create: count, update: count, move: count, delete: count, adopt: count }),
  contentHash: z.string(),
  remoteVersions: z.record(z.string(), z.string()),
  sync: sync.optional(),
  differs: z
    .strictObject({ send: z.boolean(), service: z.boolean() })
    .optional()
    .meta({
      description:
        'how the repository and the service differ (what `plan --detailed-exitcode` exits 2 on): `send`, the plan sends something; `service`, the service holds changes the files do not have yet (`tmsync pull` takes them in). Derived from `operations` and `sync`; written by every plan, not read back',
    }),
});

/** JSON with `format_version` first and every other key sorted, so equal plans are equal bytes. */
export function renderPlanJson(plan: Plan): string {
  const { format_version, ...rest } = planDocument(plan);
  return `${JSON.stringify({ format_version, ...(sortKeys(rest) as object) }, null, 2)}\n`;
}

/** The plan as its JSON carries it: with `differs` derived afresh (an edited plan never keeps a stale one). */
export function planDocument(plan: Plan): Plan {
  return { ...plan, differs: planDiffers(plan) };
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

/** Reads a saved plan: JSON, `format_version` 2 (1 before three-way sync), and exactly the shape this version writes. */
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
  const { differs: _differs, ...plan } = parsed.data;
  return plan as Plan;
}
