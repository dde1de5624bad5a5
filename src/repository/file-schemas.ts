import { z } from 'zod';
import { DURATION_PATTERN } from '../duration.js';
import { CASE_FIELD_KEYS, CASE_FIELDS, CASE_TEMPLATES, type CaseField, type CaseFieldEntry, type CaseTemplate, type FieldKind, STEP_GROUP_FIELDS, type StepGroupField, type StepGroupFieldEntry } from '../fields.js';
import { assertNever } from '../assert-never.js';

/**
 * The tests-as-code format as zod schemas: the single source of the JSON Schemas in `schemas/`
 * (`buildSpecJsonSchemas`) and of the first validation layer of the loader.
 *
 * The schemas describe the YAML as written (snake_case keys, no transforms), so that
 * `z.toJSONSchema` gives editors exactly what users type. Normalization to the camelCase model
 * happens in the file parsers; rules a JSON Schema cannot express (a list `steps` with a string
 * `expected_results`, references, duplicates) are checked there too.
 */

/** A human id (`SHOP-12`) or a uuid. */
const CASE_ID_PATTERN =
  /^(?:[A-Za-z0-9][A-Za-z0-9_]*-[0-9]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
/** A step group human id (`SHOP-SG-3`) or a uuid. */
export const STEP_GROUP_ID_PATTERN =
  /^(?:[A-Za-z0-9][A-Za-z0-9_]*-SG-[0-9]+|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;
/** Folders have no human id: a uuid. */
const FOLDER_ID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
/** `65536`, `512KiB`, `64MiB`, `1GiB` (binary units; KB/MB/GB are decimal) */
const SIZE_PATTERN = /^[0-9]+(?:\.[0-9]+)?\s*(?:B|KiB|MiB|GiB|KB|MB|GB)?$/i;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const NOT_BLANK = /\S/;

const text = (description: string) => z.string().meta({ description });
const title = (description: string) => z.string().regex(NOT_BLANK, 'must not be empty').meta({ description });

const labelsSchema = z.array(z.string()).meta({ description: 'label names or ids (GET /labels)' });

export const actionStepSchema = z
  .strictObject({
    action: text('what the tester does'),
    expected: text('the expected result (may be left out)').optional(),
  })
  .meta({ description: 'an individual step' });

const useStepSchema = z
  .strictObject({
    use: z
      .string()
      .regex(NOT_BLANK, 'must not be empty')
      .meta({ description: "a step group: its local key (file stem under step_groups/), human id (SHOP-SG-3) or id" }),
  })
  .meta({ description: "the steps of a step group, in order; a `use:` step has no other keys" });

export const caseStepSchema = z.union([actionStepSchema, useStepSchema]);

/** A case field's YAML schema, by its kind. */
function yamlValue(f: CaseField): z.ZodType {
  switch (f.kind) {
    case 'text':
    case 'lookup':
    case 'user':
      return text(f.about);
    case 'template':
      return z.enum(CASE_TEMPLATES).meta({ description: f.about });
    case 'labels':
      return labelsSchema;
    case 'steps':
      return z.array(caseStepSchema).meta({ description: f.about });
    default:
      return assertNever(f.kind);
  }
}

/** The value of each kind of field as a file writes it. */
interface YamlValues {
  text: string;
  template: CaseTemplate;
  lookup: string;
  user: string;
  labels: string[];
  steps: z.infer<typeof caseStepSchema>[];
}
/** Every YAML key of the table, optional, typed by the kinds of its entries (`steps`: a list or a text). */
type CaseFieldShape = { [K in CaseFieldEntry['key']]: z.ZodOptional<z.ZodType<YamlValues[Extract<CaseFieldEntry, { key: K }>['kind']]>> };

/** Every case field of the table as an optional key; a key with two forms (`steps`) takes either. */
function caseFieldShape(): CaseFieldShape {
  const shape: Record<string, z.ZodOptional<z.ZodType>> = {};
  for (const key of CASE_FIELD_KEYS) {
    const entries = CASE_FIELDS.filter((f) => f.key === key);
    const forms = entries.map(yamlValue);
    // a key with two forms: the union carries both descriptions, so an editor's hover shows them
    shape[key] = (forms.length === 1 ? forms[0] : z.union(forms).meta({ description: entries.map((f) => f.about).join('; or ') })).optional();
  }
  return shape as CaseFieldShape;
}

/** The value of each kind of step group field as a file writes it. */
interface GroupYamlValues {
  text: string;
  labels: string[];
  steps: z.infer<typeof actionStepSchema>[];
}
type StepGroupFieldShape = { [F in StepGroupFieldEntry as F['key']]: z.ZodOptional<z.ZodType<GroupYamlValues[F['kind']]>> };

/** A step group field's YAML schema, by its kind. */
function groupYamlValue(f: StepGroupField): z.ZodType {
  switch (f.kind) {
    case 'text':
      return text(f.about);
    case 'labels':
      return labelsSchema;
    case 'steps':
      return z.array(actionStepSchema).meta({ description: f.about });
    default:
      return assertNever(f.kind);
  }
}

/** Every step group field of its table as an optional key. */
function stepGroupFieldShape(): StepGroupFieldShape {
  const shape: Record<string, z.ZodOptional<z.ZodType>> = {};
  for (const f of STEP_GROUP_FIELDS) shape[f.key] = groupYamlValue(f).optional();
  return shape as StepGroupFieldShape;
}

/** What a kind of field may default to in tmsync.yaml (`defaults.<key>`), described for the JSON Schema. */
const DEFAULT_ABOUT: Partial<Record<FieldKind, string>> = { lookup: 'lookup name, alias or id', user: 'user email or id' };
type DefaultsShape = { [F in CaseFieldEntry as F extends { required: true } ? F['key'] : never]: z.ZodOptional<z.ZodString> };

/** `defaults` of tmsync.yaml: one optional key per `required` field of the table. */
function defaultsShape(): DefaultsShape {
  const shape: Record<string, z.ZodOptional<z.ZodString>> = {};
  for (const f of CASE_FIELDS) {
    if (f.required) shape[f.key] = text(DEFAULT_ABOUT[f.kind] ?? f.about).optional();
  }
  return shape as DefaultsShape;
}

/** `source:` of an imported item: local to the repository, never sent (docs/import.md). */
const sourceSchema = (kind: string) =>
  z
    .string()
    .regex(/^[a-z][a-z0-9-]*:\S/, 'must be <tool>:<id> as `tmsync import` writes it, like testrail:C123')
    .meta({ description: `where the ${kind} was imported from (\`testrail:C123\`, \`xray:CALC-7\`): a newer \`tmsync import\` of the same tool updates this file. Local to the repository: never sent to the service` })
    .optional();

/** `automation:` of a case: the automated tests that prove it. Local, never sent (docs/automation.md). */
const automationSchema = z
  .strictObject({
    tests: z
      .array(
        z
          .string()
          .regex(NOT_BLANK, 'must not be empty')
          .meta({ description: 'a test as the reports name it: `classname.name`, `name` or `file > suite > name`; `*` stands for any run of characters' }),
      )
      .meta({ description: 'the automated tests that prove this case; `results push` maps their results to it before names and properties' }),
  })
  .meta({
    description:
      'the automated tests that prove this case (`tests: [com.shop.CheckoutTest.paysWithCard, "checkout.spec.ts > pays with card"]`). Local to the repository: never sent to the service, never in a plan',
  })
  .optional();

export const testCaseSchema = z
  .strictObject({
    id: z
      .string()
      .regex(CASE_ID_PATTERN, 'must be a test case human id like SHOP-12 or a uuid')
      .meta({ description: 'the remote test case: human id (SHOP-12) or uuid; absent for a new case, apply writes it back' })
      .optional(),
    title: title('the title; unique within its folder for cases without id'),
    ...caseFieldShape(),
    source: sourceSchema('case'),
    automation: automationSchema,
  })
  .meta({ title: 'tmsync test case', description: 'One test case of a tmsync tests repository (cases/**/*.yaml).' });

export const stepGroupSchema = z
  .strictObject({
    id: z
      .string()
      .regex(STEP_GROUP_ID_PATTERN, 'must be a step group human id like SHOP-SG-3 or a uuid')
      .meta({ description: 'the remote step group: human id (SHOP-SG-3) or uuid; apply writes it back' })
      .optional(),
    title: title('the title; unique among step groups without id'),
    ...stepGroupFieldShape(),
    source: sourceSchema('step group'),
  })
  .meta({ title: 'tmsync step group', description: 'One reusable step group (step_groups/<key>.yaml).' });

export const folderSchema = z
  .strictObject({
    id: z
      .string()
      .regex(FOLDER_ID_PATTERN, 'must be a folder id (a uuid)')
      .meta({ description: 'the remote folder id; written by apply and pull' })
      .optional(),
    name: z
      .string()
      .meta({ description: 'the folder name when it differs from the directory name (e.g. it contains a /)' })
      .optional(),
    order: z.number().int().meta({ description: 'order within the parent folder' }).optional(),
  })
  .meta({ title: 'tmsync folder', description: 'Optional settings of the folder a directory stands for (_folder.yaml).' });

/** The lookups an import maps, by YAML key (src/import/value-map.ts). */
const IMPORT_VALUE_FIELDS = ['priority', 'type', 'status', 'automation_type', 'owner', 'reviewer'] as const;

/**
 * `import:` of tmsync.yaml, and the whole of a `tmsync import --map FILE`: how another tool's
 * export is read (docs/import.md).
 */
export const importMapSchema = z
  .strictObject({
    values: z
      .strictObject(
        Object.fromEntries(
          IMPORT_VALUE_FIELDS.map((key) => [
            key,
            z
              .record(z.string(), z.string().nullable())
              .meta({ description: `the source tool's ${key.replace('_', ' ')} values → the service's names (an empty value: not mapped yet; validate names the cases that hold it)` })
              .optional(),
          ]),
        ) as Record<(typeof IMPORT_VALUE_FIELDS)[number], z.ZodOptional<z.ZodRecord<z.ZodString, z.ZodNullable<z.ZodString>>>>,
      )
      .meta({ description: 'value maps per lookup field; `tmsync import` proposes one from the values it saw' })
      .optional(),
    columns: z
      .record(z.string(), z.union([z.string(), z.array(z.string())]))
      .meta({ description: 'CSV columns by field (title, folder, steps, expected, data, priority, …) → the header name or names that hold it' })
      .optional(),
  })
  .meta({ title: 'tmsync import map', description: 'How `tmsync import` maps another tool\'s columns and values (docs/import.md).' });

export type ImportMapInput = z.infer<typeof importMapSchema>;

const rateLimit = z.number().positive().meta({ description: 'requests per second' });
const concurrency = z.number().int().positive().meta({ description: 'requests in flight' });

const profileSchema = z.strictObject({
  base_url: text('service base URL ending in /api/v1').optional(),
  app_url: text('execution interface root').optional(),
  project: text('project id, human_id_prefix or exact name').optional(),
  api_key_env: z
    .string()
    .regex(ENV_NAME_PATTERN, 'must be the name of an environment variable')
    .meta({ description: 'the environment variable holding this target\'s API key' })
    .optional(),
  rate_limit: rateLimit.optional(),
  concurrency: concurrency.optional(),
});

/** The case fields a `gherkin.tag_fields` tag may set: one value each (texts, lookups, users). */
const TAG_FIELD_KEYS = CASE_FIELDS.filter((f) => f.kind === 'lookup' || f.kind === 'user' || (f.kind === 'text' && f.template === undefined)).map((f) => f.key);

const gherkinSchema = z
  .strictObject({
    folder: z
      .enum(['feature', 'stem', 'none'])
      .meta({ description: 'the folder level each feature adds below its file\'s directory: the feature\'s name (the default), the file stem, or none' })
      .optional(),
    rule: z.enum(['folder', 'label', 'none']).meta({ description: 'a Rule: adds a folder level (the default), becomes a label, or is ignored' }).optional(),
    expected: z
      .enum(['then', 'none'])
      .meta({ description: 'then (the default): Then steps, and And/But after them, are the expected result of the step before; none: every step is an action' })
      .optional(),
    background: z
      .enum(['step_group', 'preconditions'])
      .meta({ description: 'step_group (the default): a Background is one step group per file, the first step of each scenario; preconditions: its steps become each case\'s preconditions' })
      .optional(),
    outlines: z
      .enum(['one', 'expand'])
      .meta({ description: 'one (the default): a Scenario Outline is one case, its examples in the description; expand: one case per examples row' })
      .optional(),
    outline_title_column: text('with outlines: expand, the examples column whose value suffixes each row\'s title (default: the first column)').optional(),
    outline_id_column: text('with outlines: expand, the examples column holding each row\'s id, added on write-back (default: tc_id)').optional(),
    unknown_tags: z
      .enum(['keep', 'error'])
      .meta({ description: 'tags naming no label on the service: keep (the default: left in the file, not sent, counted in a plan warning) or error' })
      .optional(),
    tag_fields: z
      .record(z.string().regex(/^[^@\s]+$/, 'a tag prefix without @ or spaces, e.g. priority:'), z.enum(TAG_FIELD_KEYS as [string, ...string[]]))
      .meta({ description: 'tag prefix → case field: `priority: priority` (or `"priority:": priority`) maps @priority:High to the priority field' })
      .optional(),
    id_tag_prefix: z
      .string()
      .regex(/^[^@\s]*$/, 'no @ or spaces')
      .meta({ description: 'written before the human id in the id tag: tc: gives @tc:SHOP-12 (default: none, @SHOP-12)' })
      .optional(),
    new_scenarios: z
      .enum(['yaml', 'feature'])
      .meta({ description: 'where pull writes a case the repository lacks in a feature\'s folder: yaml (the default: a new YAML file) or feature (a scenario appended to the feature file)' })
      .optional(),
  })
  .meta({ description: 'how .feature files under cases_dir map to test cases (docs/gherkin.md)' });

export const configSchema = z
  .strictObject({
    project: text('project id, human_id_prefix or exact name').optional(),
    base_url: text('service base URL ending in /api/v1 (or env TMSYNC_BASE_URL)').optional(),
    app_url: text('execution interface root').optional(),
    cases_dir: text('the folder tree of test cases, relative to this file (default: cases)').optional(),
    step_groups_dir: text('step groups, one per file, relative to this file (default: step_groups)').optional(),
    scope: z
      .array(z.string())
      .meta({ description: 'only these folder subtrees are managed: top-level names or paths such as Checkout/Payments (default: all)' })
      .optional(),
    defaults: z
      .strictObject(defaultsShape())
      .meta({ description: 'used when a new case leaves a field out (the service requires them)' })
      .optional(),
    rate_limit: rateLimit.meta({ description: 'requests per second (default 8)' }).optional(),
    concurrency: concurrency.meta({ description: 'requests in flight (default 4)' }).optional(),
    page_size: z.number().int().positive().meta({ description: 'items per page on reads (default 100)' }).optional(),
    request_timeout: z
      .union([
        z.number().positive(),
        z.string().regex(DURATION_PATTERN, 'must be a duration like 30s, 2m, 1h30m or 500ms (a bare number is seconds)'),
      ])
      .meta({ description: 'per request: a duration like 30s, 2m, 1h30m or 500ms; a bare number is seconds (default 30s)' })
      .optional(),
    max_retries: z.number().int().nonnegative().meta({ description: 'retries of a retryable request (default 6)' }).optional(),
    max_pages: z
      .number()
      .int()
      .positive()
      .meta({ description: 'pages read at most from one list whose answers give no total_count, or whose total_count keeps growing while it is read (default 10000); with a steady total the bound is ceil(total_count / page_size) + 2' })
      .optional(),
    max_response_size: z
      .union([z.number().int().positive(), z.string().regex(SIZE_PATTERN, 'must be a size like 64MiB, 512KiB or a number of bytes')])
      .meta({ description: 'largest answer read from the service: bytes, or a size like 64MiB (default 64MiB)' })
      .optional(),
    results: z
      .strictObject({
        encoding: z
          .enum(['auto', 'json', 'multipart'])
          .meta({
            description:
              'how run-case results travel: auto (JSON, then multipart/form-data from the first time the service refuses JSON; the default), json, or multipart (what the live service needs; same as --multipart)',
          })
          .optional(),
        mark_automated: z
          .boolean()
          .meta({
            description:
              "results push: set automation_type to the service's automated type in the case files of the cases that received a result (same as --mark-automated); the files change, the service only with plan and apply (default false)",
          })
          .optional(),
      })
      .meta({ description: 'results push and run-case updates' })
      .optional(),
    import: importMapSchema.optional(),
    gherkin: gherkinSchema.optional(),
    profiles: z
      .record(z.string(), profileSchema)
      .meta({ description: 'named targets for --profile (migrations, staging)' })
      .optional(),
  })
  .meta({
    title: 'tmsync configuration',
    description: 'tmsync.yaml. API keys are never written here: they come from TMSYNC_API_KEY or a profile\'s api_key_env.',
  });

/** A case file as written: `id`, `title` and the YAML keys of the field table (src/fields.ts). */
export type TestCaseInput = z.infer<typeof testCaseSchema>;
export type StepGroupInput = z.infer<typeof stepGroupSchema>;
export type ConfigInput = z.infer<typeof configSchema>;

/** The words every schema file carries about its draft. */
const DRAFT_NOTE =
  'JSON Schema draft 2020-12 (see $schema). Editors with yaml-language-server read it as it is; a validator must use that draft (ajv: import Ajv2020 from "ajv/dist/2020"; its default class is draft-07 and refuses this file).';

/** The four JSON Schemas of `schemas/`, by file name. */
export function buildSpecJsonSchemas(): Record<string, unknown> {
  // draft 2020-12, said twice: in `$schema`, and in words for whoever reads the file (ajv's default
  // class is draft-07 and refuses these files; it needs `ajv/dist/2020`)
  const gen = (schema: z.ZodType) => ({
    ...z.toJSONSchema(schema, { target: 'draft-2020-12' }),
    $comment: DRAFT_NOTE,
  });
  return {
    'config.schema.json': gen(configSchema),
    'test-case.schema.json': gen(testCaseSchema),
    'step-group.schema.json': gen(stepGroupSchema),
    'folder.schema.json': gen(folderSchema),
  };
}

/** The text of a schema file as checked in (stable, newline-terminated). */
export function renderJsonSchemaFile(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
