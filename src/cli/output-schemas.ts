import { z } from 'zod';
import { PlanFileSchema } from '../plan/plan-file.js';
import { REPORT_FORMAT_NAMES } from '../results/report-formats.js';
import { RUNNER_FILTER_FORMATS } from '../runs/runner-filters.js';
import { OUTPUT_FORMAT_VERSION } from './json.js';
import { COVERAGE_KINDS } from '../usecases/coverage.js';

/**
 * The `--json` documents of the commands, as zod schemas: the source of schemas/output/*.schema.json
 * (`npm run schemas`) and what the tests check real output against. The CLI itself never loads
 * this module. Objects are open (`looseObject`): a new field keeps `format_version`; removing or
 * changing one raises it.
 */
const version = z
  .literal(OUTPUT_FORMAT_VERSION)
  .meta({ description: 'the shape of this document; raised when a field is removed or changes meaning (docs/cli.md says what changed in each)' });
const doc = (description: string, shape: z.ZodRawShape) => z.looseObject({ format_version: version, ...shape }).meta({ description });

const project = z.looseObject({ id: z.string(), name: z.string(), human_id_prefix: z.string() });
/** A line of an import's or an export's report: what had no slot, by which rule, how often, the first examples. */
const reportEntry = z.looseObject({
  action: z.enum(['folded', 'labelled', 'dropped']),
  field: z.string(),
  rule: z.string(),
  count: z.number().int(),
  examples: z.array(z.looseObject({ value: z.string(), at: z.looseObject({ file: z.string(), line: z.number().int().optional() }).optional() })),
});
const problem = z.looseObject({ file: z.string(), line: z.number(), col: z.number(), message: z.string(), severity: z.string().optional() });
const applyResult = z.looseObject({
  created: z.number().int(),
  updated: z.number().int(),
  moved: z.number().int(),
  adopted: z.number().int(),
  deleted: z.number().int().optional(),
  failed: z.array(z.looseObject({ key: z.string(), message: z.string() })),
  skipped: z.array(z.looseObject({ key: z.string(), reason: z.string() })),
  interrupted: z.boolean(),
});
/** A page in the service's web UI (`webLink`: the answer's web_url, html_url, app_url, run_url, link or url). */
const webUrl = z.string().meta({ format: 'uri' });
/** An execution-interface id: a number, as the service gives it (`executionId` in json.ts). */
const executionId = z.number().int().meta({ description: 'an id of the execution interface: a number, as the service gives it' });
/** The execution interface's status object of a run, its keys in snake_case (the service's answer is camelCase). */
const executionStatus = z.looseObject({
  id: executionId,
  execution_id: z
    .union([z.number().int(), z.string()])
    .optional()
    .meta({ description: 'the test plan the run started, as the service names it: its execution id, a number (the interface document gives the plan id, a string)' }),
  status: z.string(),
  result: z.string().nullish(),
  total_count: z.number().int().nullish(),
  passed_count: z.number().int().nullish(),
  failed_count: z.number().int().nullish(),
  app_url: webUrl.nullish(),
});
const executionRun = z.looseObject({
  id: executionId,
  url: webUrl.optional().meta({ description: "the run's page in the service's web UI, when the service's answer gave one" }),
});

/** A case of the repository a coverage finding is about: its file and the line of the key concerned. */
const coverageCase = z.looseObject({ file: z.string(), line: z.number().int(), id: z.string().optional(), title: z.string() });

export const outputSchemas = {
  error: doc('every command under --json when it fails (also usage errors): stdout holds this, stderr the message', {
    error: z.looseObject({
      code: z.string().meta({ description: 'snake_case, stable' }),
      message: z.string(),
      hint: z.string().optional(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  }),
  validate: doc('`tmsync validate --json`', { valid: z.boolean(), problems: z.array(problem) }),
  'plan-problems': doc('`tmsync plan --json` when the repository or the plan has problems (exit 1)', { problems: z.array(problem) }),
  plan: PlanFileSchema.meta({ description: '`tmsync plan --json`, `tmsync show --json` and the file of `plan --out` (the plan file format; its own format_version)' }),
  apply: doc('`tmsync apply --json` and `tmsync migrate --json`; result is null when there was nothing to do', {
    plan: PlanFileSchema,
    result: applyResult.nullable(),
    project_url: webUrl.optional().meta({ description: "apply: the project's page in the service's web UI, when the service's answer gave one" }),
  }),
  init: doc('`tmsync init --json`', { created: z.array(z.string()), updated: z.array(z.string()) }),
  pull: doc('`tmsync pull --json`', {
    project,
    root: z.string(),
    counts: z.looseObject({ folders: z.number().int(), step_groups: z.number().int(), test_cases: z.number().int() }).meta({ description: 'items written to the repository, by kind (the names of `backup`)' }),
    created: z.array(z.string()),
    updated: z.array(z.string()),
    unchanged: z.number().int(),
    conflicts: z
      .array(
        z.looseObject({
          kind: z.enum(['case', 'step_group', 'folder']),
          id: z.string().meta({ description: "the service's id of the item" }),
          file: z.string(),
          field: z.string().meta({ description: 'the YAML key; `folder` for where the file sits; `deleted` for a deletion on one side against an edit on the other' }),
          local: z.unknown().meta({ description: "the file's value" }),
          remote: z.unknown().meta({ description: "the service's value" }),
          settled: z.enum(['local', 'remote']).optional().meta({ description: '--prefer: remote wrote the service value, local kept the file; absent: left as it is (exit 1)' }),
        }),
      )
      .optional()
      .meta({ description: 'fields changed both in the repository and on the service since the last sync (docs/sync.md)' }),
    kept_local: z.number().int().optional().meta({ description: 'fields changed only in the repository, left for the next apply' }),
    without_base: z.number().int().optional().meta({ description: 'items with a file and no entry in tmsync.base: pulled as before' }),
    uncompared: z.array(z.string()).optional().meta({ description: 'files of items tmsync.base knows that could not be compared (a problem in the file): left as they are' }),
  }),
  import: doc('`tmsync import --json`', {
    format: z.string().meta({ description: 'the FORMAT read' }),
    detected: z.boolean().meta({ description: 'true when FORMAT was left out and chosen from the content' }),
    dry_run: z.boolean(),
    encodings: z.array(z.looseObject({ file: z.string(), encoding: z.string(), how: z.enum(['bom', 'declared', 'given', 'detected']) })),
    counts: z.looseObject({ created: z.number().int(), updated: z.number().int(), moved: z.number().int(), unchanged: z.number().int(), folders: z.number().int() }),
    files: z.array(z.looseObject({ action: z.enum(['create', 'update', 'move']), kind: z.enum(['case', 'step_group', 'folder']), path: z.string(), from: z.string().optional() })),
    report: z.looseObject({
      entries: z.array(reportEntry),
      attachments: z.looseObject({ count: z.number().int(), examples: z.array(z.looseObject({ value: z.string() })) }),
      notes: z.array(z.string()),
    }),
    unmapped: z.array(z.looseObject({ path: z.string(), field: z.string(), value: z.string() })),
    vanished: z.array(z.looseObject({ path: z.string(), source: z.string() })),
    proposed_map: z.record(z.string(), z.record(z.string(), z.string().nullable())).meta({ description: 'per lookup field: each value the export holds → the service\'s name, or null when none is known' }),
    report_file: z.string().optional().meta({ description: 'import-report.md as written (absent with --dry-run)' }),
  }),
  'import-reports': doc('`tmsync import junit|trx|…|report REPORT… --json`: cases written for the tests no case covers', {
    formats: z.array(z.enum(REPORT_FORMAT_NAMES)).meta({ description: 'the format each report was read as, in the order given' }),
    dry_run: z.boolean(),
    testcases: z.number().int(),
    automation_type: z.string().meta({ description: "the automation type the new cases got: the service's name for automated, else Automated" }),
    created: z.array(z.looseObject({ path: z.string(), title: z.string(), folder: z.array(z.string()), test: z.string().meta({ description: 'the test key written into automation.tests' }) })),
    folder_files: z.array(z.string()).meta({ description: '_folder.yaml files written for folder names a directory cannot spell' }),
    skipped: z.looseObject({
      mapped: z.number().int().meta({ description: 'tests results push maps already: a human id in the name, a property or tag, or the mapping file' }),
      named: z.number().int().meta({ description: "tests a case file's automation.tests names" }),
      repeated: z.number().int().meta({ description: 'retries and repeated names of a test already counted' }),
    }),
  }),
  backup: doc('`tmsync backup --json`', {
    file: z.string(),
    bytes: z.number().int(),
    project,
    counts: z.looseObject({ folders: z.number().int(), step_groups: z.number().int(), test_cases: z.number().int() }),
  }),
  export: doc('`tmsync export --json`', {
    file: z.string(),
    format: z.string(),
    counts: z.looseObject({ folders: z.number().int(), step_groups: z.number().int(), test_cases: z.number().int() }).meta({ description: 'what the repository holds (step groups are written inlined)' }),
    report: z.looseObject({
      entries: z
        .array(reportEntry)
        .meta({ description: 'what the format could not hold as the repository does, per field and rule, with the first examples' }),
      notes: z.array(z.string()),
    }),
  }),
  restore: doc('`tmsync restore --json`', {
    project,
    created: z.record(z.string(), z.number()),
    skipped: z.number().int(),
    adopted: z.number().int(),
    notes: z.array(z.string()),
  }),
  'results-push': doc('`tmsync results push --json`', {
    dry_run: z.boolean(),
    run: z.looseObject({
      id: z.string().optional(),
      human_id: z.string().optional(),
      title: z.string(),
      created: z.boolean(),
      /** --close closed the run */
      closed: z.boolean().optional(),
      /** --close was asked for and the run was left open: why */
      not_closed_reason: z.string().optional(),
      url: webUrl.optional().meta({ description: "the run's page in the service's web UI, when the service's answer gave one" }),
    }),
    /** --assign-failed: the user the failed rows were given to */
    assigned_to: z.object({ id: z.string(), email: z.string().optional(), rows: z.number().int() }).optional(),
    rows: z.array(z.looseObject({})),
    sent_case_ids: z.array(z.string()),
    failed_batches: z.array(z.looseObject({})),
    counts: z
      .record(z.string(), z.number().int())
      .optional()
      .meta({ description: "rows by the run status they set, keyed by the service's status names as it spells them (`Passed`): data, not snake_case" }),
    not_in_run: z.array(z.looseObject({ ref: z.string(), case_id: z.string() })).optional().meta({ description: 'known cases the run does not hold: their results were not sent' }),
    not_in_run_hint: z.string().optional().meta({ description: 'why the cases not in the run were not added, and what to do' }),
    added_to_run: z.array(z.looseObject({ ref: z.string(), case_id: z.string() })).optional().meta({ description: 'cases a STATIC run lacked, added to its selection before the results were sent' }),
    shard: z
      .looseObject({ name: z.string(), shards: z.array(z.string()), worse_elsewhere: z.number().int(), damaged: z.literal(true).optional() })
      .optional()
      .meta({ description: "--shard (or the CI job's): this push's shard, every shard the run's record names, and how many rows keep another shard's worse outcome" }),
    attachments: z
      .object({
        scope: z.enum(['failed', 'all', 'none']),
        planned: z.number().int().meta({ description: 'files chosen to go with the rows (each row lists its own under `attachments`)' }),
        sent: z.number().int().meta({ description: 'of them, the files of rows the service confirmed' }),
        bytes: z.number().int(),
        skipped: z
          .array(z.looseObject({ case_id: z.string(), source: z.string(), reason: z.string(), bytes: z.number().int().optional() }))
          .meta({ description: 'files not sent: `type` (not a type sent), `too_large` (over --attachment-max-size), `batch_limit` (the case\'s files pass --attachment-batch-max-size)' }),
        missing: z.array(z.looseObject({ case_id: z.string(), source: z.string(), reason: z.string() })).meta({ description: 'files not found or not readable; never fatal' }),
        not_selected: z.number().int().meta({ description: 'files of cases --attachments leaves out (passed cases under `failed`)' }),
      })
      .meta({ description: 'the files the reports attach to tests, and what became of them' }),
    testcases: z.number().int(),
    /** the format each report file was read as, in the order given */
    formats: z.array(z.enum(REPORT_FORMAT_NAMES)).optional(),
    ok: z.boolean(),
    mark_automated: z
      .looseObject({
        automated_type: z.string(),
        edited: z.array(z.looseObject({ path: z.string(), ref: z.string(), from: z.string().optional() })),
        already: z.number().int(),
        not_in_repository: z.array(z.string()),
      })
      .optional()
      .meta({ description: '--mark-automated (or results.mark_automated): the case files whose automation_type was set (a dry run: would be); sent only by plan and apply' }),
  }),
  'run-cases': doc('`tmsync run cases --json`', {
    source: z.looseObject({
      kind: z.enum(['test_run', 'test_plan']),
      id: z.string(),
      human_id: z.string().optional(),
      title: z.string().optional(),
      runs: z.array(z.looseObject({ id: z.string(), human_id: z.string().optional(), title: z.string() })).meta({ description: 'the runs read: the run itself, or every run of the test plan' }),
    }),
    statuses: z.array(z.string()).meta({ description: "the run statuses --status resolved to (the service's names); empty: every case" }),
    format: z.enum(RUNNER_FILTER_FORMATS),
    cases: z.array(z.looseObject({ id: z.string(), human_id: z.string().optional(), title: z.string(), status: z.string() })),
    output: z.string().meta({ description: 'what the command prints on stdout without --json: the filter in the format asked for' }),
  }),
  coverage: doc('`tmsync coverage --format json` (or --json)', {
    cases: z.number().int(),
    automated: z.number().int().meta({ description: "cases whose automation type is the service's automated one" }),
    tests: z.number().int().optional().meta({ description: 'tests read from the reports; absent without reports' }),
    run: z.looseObject({ id: z.string(), human_id: z.string().optional(), title: z.string(), cases: z.number().int() }).optional(),
    checked: z.array(z.enum(COVERAGE_KINDS)).meta({ description: 'the kinds the inputs allowed to compute: unmapped and missing tests need reports, unexecuted cases --test-run' }),
    unproven_cases: z.array(coverageCase),
    unmapped_tests: z.array(
      z.looseObject({
        test: z.string(),
        report: z.string(),
        not_applied: z.array(z.string()).optional().meta({ description: 'case files without an id yet whose `automation:` names the test' }),
      }),
    ),
    missing_tests: z.array(coverageCase.extend({ test: z.string() })),
    unexecuted_cases: z.array(
      z.looseObject({ id: z.string(), human_id: z.string().optional(), title: z.string(), status: z.string(), file: z.string().optional(), line: z.number().int().optional() }),
    ),
    fail_on: z.array(z.enum(COVERAGE_KINDS)),
    ok: z.boolean().meta({ description: 'false when a kind --fail-on names has findings (the exit status is 1)' }),
  }),
  'run-trigger': doc('`tmsync run trigger --json` (without --wait only `run`)', {
    run: executionRun,
    outcome: z.enum(['passed', 'failed', 'timeout']).optional(),
    status: executionStatus.nullable().optional(),
    polls: z.number().int().optional(),
    transient_errors: z.number().int().optional(),
    elapsed_ms: z.number().int().optional(),
    junit: z.string().optional(),
  }),
  'run-status': doc("`tmsync run status --json`: the service's status object, flat, its keys in snake_case", executionStatus.shape),
  'run-report': doc('`tmsync run report --json`', {
    run_id: executionId,
    status: z.string(),
    result: z.string().nullable(),
    outcome: z.enum(['passed', 'failed']),
    junit: z.string(),
  }),
  project: doc('`tmsync project create --json`', { project }),
  'test-run': doc('`tmsync test-run create|close --json`', {
    test_run: z.looseObject({
      id: z.string(),
      human_id: z.string().nullable(),
      title: z.string(),
      description: z.string().optional().meta({ description: 'create: the description written (the CI pipeline, commit and branch on GitHub Actions and GitLab CI)' }),
      status: z.literal('CLOSED').optional().meta({ description: 'close: the run is closed' }),
      url: webUrl.optional(),
    }),
    cases: z.number().int().optional().meta({ description: 'create: how many cases the selection chose' }),
    selection: z.string().optional().meta({ description: 'create: the --cases selection (all, label:NAME or a folder path)' }),
    already_closed: z.boolean().optional().meta({ description: 'close: the run was closed before; nothing was sent' }),
    repaired: z
      .array(z.looseObject({ case_id: z.string(), human_id: z.string().optional(), outcome: z.string(), shards: z.array(z.string()) }))
      .optional()
      .meta({ description: "close: rows set to the worst outcome the shards' record holds before the run was closed" }),
  }),
  'test-plan': doc('`tmsync test-plan create|get|complete --json`', { test_plan: z.looseObject({ id: z.string() }) }),
  version: doc('`tmsync --version --json`', { version: z.string().meta({ description: "tmsync's version (package.json)" }) }),
  serve: doc('`tmsync serve --json`: the first stdout line once it listens', {
    base_url: z.string(),
    app_url: z.string(),
    storage: z.string(),
    api_key: z.string().optional().meta({ description: 'only when the emulator generated a key (no --api-key)' }),
  }),
} as const;

export type OutputName = keyof typeof outputSchemas;

/** schemas/output/<name>.schema.json, generated from {@link outputSchemas}. */
export function buildOutputJsonSchemas(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(outputSchemas)) {
    out[`${name}.schema.json`] = z.toJSONSchema(schema as z.ZodType, { target: 'draft-2020-12', io: 'output' });
  }
  return out;
}
