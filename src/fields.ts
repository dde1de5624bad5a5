/**
 * The field tables: every field of a test case, and of a step group, described once. Everything
 * that handles a case field field by field is driven by it: the YAML schema (and so the JSON
 * Schema) and the loader (`src/repository/`), the one YAML renderer that pull and write-back share,
 * the normalisation of wire answers (`src/remote/to-actual.ts`), the plan's body, diff and display
 * (`src/plan/case-body.ts`, the saved plan's schema), request bodies (`src/apply/operation-requests.ts`), the
 * backup format and the emulator's route and web UI. docs/architecture.md shows how to add a field.
 *
 * `id`, `title` and the folder are not in the table: they identify a case rather than describe it
 * (natural keys, paths, write-back), and every module treats them on their own.
 */

/**
 * How a field is written, resolved, compared and shown:
 * - `text`: free text; compared after `normalizeText` (line ends, trailing blanks).
 * - `template`: `STEPS` or `TCD`; implied by which form of `steps` a file uses.
 * - `lookup`: a lookup name, alias or id in the file; a lookup id on the wire (`GET /test_cases/<list>`).
 * - `user`: an email or id in the file; a user id on the wire.
 * - `labels`: label names or ids in the file; label ids on the wire, compared as a set.
 * - `steps`: a list of individual steps and `use:` of step groups; the wire's individual steps.
 */
export type FieldKind = 'text' | 'template' | 'lookup' | 'user' | 'labels' | 'steps';

export type CaseTemplate = 'STEPS' | 'TCD';
export const CASE_TEMPLATES = ['STEPS', 'TCD'] as const satisfies readonly CaseTemplate[];

export interface CaseFieldSpec {
  /** the YAML key, also the field's name in plans (`FieldChange.field`), problems and `defaults.<key>` */
  readonly key: string;
  /** the key in `DesiredCaseFields` (the repository model) */
  readonly model: string;
  /** the key in `RemoteCase` and in the plan's `CaseBody` (ids resolved) */
  readonly remote: string;
  /** the key on the wire (requests, answers) and in backups */
  readonly wire: string;
  /** other wire keys a service answers with instead (the live service's `labels` objects) */
  readonly liveWire?: string;
  readonly kind: FieldKind;
  /** its description in the JSON Schema of test case files */
  readonly about: string;
  /** its label in the emulator's web UI */
  readonly label: string;
  /** lookups: the list it names an entry of (`GET /test_cases/<list>`, `Lookups`, backup lookups) */
  readonly list?: 'types' | 'statuses' | 'priorities' | 'automation_types';
  /** a new case needs it: it falls back to `defaults.<key>` of tmsync.yaml and is reported when missing */
  readonly required?: boolean;
  /** the field belongs to this template only (it is ignored, empty or not shown with the other) */
  readonly template?: CaseTemplate;
  /** the field's presence implies its template (the two forms of `steps`) */
  readonly implies?: boolean;
  /** often the same text on many cases: a fetched project keeps one copy (see `textSharer`) */
  readonly repeats?: boolean;
}

/**
 * Every managed field of a test case, in the order of the YAML file (the JSON Schema, pull's
 * output). Two entries share the YAML key `steps`: its list form (template STEPS) and its text form
 * (template TCD).
 */
const TABLE = [
  { key: 'description', model: 'description', remote: 'description', wire: 'description', kind: 'text', about: 'what the case checks and why (Markdown)', label: 'Description' },
  { key: 'preconditions', model: 'preconditions', remote: 'preconditions', wire: 'preconditions', kind: 'text', about: 'what must hold before the first step (Markdown)', label: 'Preconditions', repeats: true },
  { key: 'template', model: 'template', remote: 'templateType', wire: 'template_type', kind: 'template', about: 'implied by `steps`: STEPS for a list, TCD for a text', label: 'Template' },
  { key: 'type', model: 'type', remote: 'typeId', wire: 'type_id', kind: 'lookup', list: 'types', required: true, about: 'lookup name, alias or id (GET /test_cases/types)', label: 'Type' },
  { key: 'status', model: 'status', remote: 'statusId', wire: 'status_id', kind: 'lookup', list: 'statuses', required: true, about: 'lookup name, alias or id (GET /test_cases/statuses)', label: 'Status' },
  { key: 'priority', model: 'priority', remote: 'priorityId', wire: 'priority_id', kind: 'lookup', list: 'priorities', required: true, about: 'lookup name, alias or id (GET /test_cases/priorities)', label: 'Priority' },
  { key: 'automation_type', model: 'automationType', remote: 'automationTypeId', wire: 'automation_type_id', kind: 'lookup', list: 'automation_types', required: true, about: 'lookup name, alias or id (GET /test_cases/automation_types)', label: 'Automation' },
  { key: 'owner', model: 'owner', remote: 'ownerId', wire: 'owner_id', kind: 'user', required: true, about: 'user email or id (GET /users)', label: 'Owner' },
  { key: 'reviewer', model: 'reviewer', remote: 'reviewerId', wire: 'reviewer_id', kind: 'user', about: 'user email or id (GET /users)', label: 'Reviewer' },
  { key: 'labels', model: 'labels', remote: 'labelIds', wire: 'label_ids', liveWire: 'labels', kind: 'labels', about: 'label names or ids (GET /labels)', label: 'Labels' },
  { key: 'steps', model: 'steps', remote: 'individualSteps', wire: 'individual_steps', kind: 'steps', template: 'STEPS', implies: true, about: 'template STEPS: individual steps and `use:` of step groups', label: 'Steps' },
  { key: 'steps', model: 'stepsText', remote: 'steps', wire: 'steps', kind: 'text', template: 'TCD', implies: true, about: 'template TCD: the steps as free text, with `expected_results` beside it', label: 'Steps (text)' },
  { key: 'expected_results', model: 'expectedResults', remote: 'expectedResults', wire: 'expected_results', kind: 'text', template: 'TCD', about: 'template TCD: the expected results as free text', label: 'Expected results' },
] as const satisfies readonly CaseFieldSpec[];

/** The entries of the table with their literal names (for the types derived from it). */
export type CaseFieldEntry = (typeof TABLE)[number];
export type CaseField = CaseFieldSpec;
export const CASE_FIELDS: readonly CaseField[] = TABLE;
/** `CASE_FIELDS` with each entry's literal names (for types and shapes derived from it). */
export const CASE_FIELD_ENTRIES: readonly CaseFieldEntry[] = TABLE;

const KIND_RANK: Record<FieldKind, number> = { text: 0, template: 0, lookup: 1, user: 2, labels: 3, steps: 4 };

/**
 * The fields in the order of plans and the service's model: plain values first (texts, template),
 * then lookups, users, labels and the steps last. Field changes are listed, and `RemoteCase`,
 * request bodies and backups are built, in this order.
 */
export const CASE_FIELDS_BY_KIND: readonly CaseField[] = [...CASE_FIELDS].sort((a, b) => KIND_RANK[a.kind] - KIND_RANK[b.kind]);
/** `CASE_FIELDS_BY_KIND` with each entry's literal names (for shapes derived from it: the wire schemas). */
export const CASE_FIELD_ENTRIES_BY_KIND = CASE_FIELDS_BY_KIND as readonly CaseFieldEntry[];

/** The YAML keys of a test case file, in the file's order (`steps` once). */
export const CASE_FIELD_KEYS: readonly string[] = [...new Set(CASE_FIELDS.map((f) => f.key))];

// ---------------------------------------------------------------------------------------------
// Lookups: a lookup is a table entry of kind `lookup`; everything below is derived from those.

/** A lookup field of a case: an entry of the table of kind `lookup`. */
export type LookupFieldEntry = Extract<CaseFieldEntry, { kind: 'lookup' }>;
/** The lookup fields of a case, by YAML key (`type`, `automation_type`). */
export type LookupKind = LookupFieldEntry['key'];
/** The list a case lookup names an entry of, as the wire and backups call it (`automation_types`). */
export type CaseLookupList = LookupFieldEntry['list'];
/** Every lookup list of the service: the case fields' and the run statuses (not a case field). */
export type LookupList = CaseLookupList | 'run_statuses';

/** `automation_type` → `automation type` */
type Spaced<S extends string> = S extends `${infer A}_${infer B}` ? `${A} ${Spaced<B>}` : S;
/** A lookup list's entry in words, for messages (`automation type`, `run status`). */
export type LookupWord = Spaced<LookupKind> | 'run status';

const isLookupField = (f: CaseFieldEntry): f is LookupFieldEntry => f.kind === 'lookup';
/** The lookup fields, in the table's order. */
export const LOOKUP_FIELDS: readonly LookupFieldEntry[] = CASE_FIELD_ENTRIES.filter(isLookupField);
/** Every lookup list, the case fields' first (the order of backups and of the reads of a project). */
export const LOOKUP_LISTS_ALL: readonly LookupList[] = [...LOOKUP_FIELDS.map((f) => f.list), 'run_statuses'];

/** A lookup field's entry in words: its key spaced (`automation type`). */
export const lookupFieldWord = <K extends LookupKind>(kind: K) => kind.replace(/_/g, ' ') as Spaced<K>;
/** The word for an entry of each lookup list (`no automation type named …`). */
export const LOOKUP_WORDS: Readonly<Record<LookupList, LookupWord>> = Object.fromEntries([
  ...LOOKUP_FIELDS.map((f) => [f.list, lookupFieldWord(f.key)] as const),
  ['run_statuses', 'run status'] as const,
]) as Record<LookupList, LookupWord>;

/**
 * The values of every case field under one of its names (`model`, `remote` or `wire`), typed by kind:
 * `V` gives the type of each kind. The model types of the repository, the service and the plan are
 * written this way instead of field by field.
 */
export type CaseFieldValues<Name extends 'model' | 'remote' | 'wire', V extends Record<FieldKind, unknown>> = {
  [F in CaseFieldEntry as F[Name]]: V[F['kind']];
};

/** The template a set of values implies (`has` tells whether a field has a value), if any. */
export function impliedTemplate(has: (f: CaseField) => boolean, onlyImplying = false): CaseTemplate | undefined {
  for (const f of CASE_FIELDS) {
    if (f.template !== undefined && (!onlyImplying || f.implies) && has(f)) return f.template;
  }
  return undefined;
}

/** Whether a field holds something for a case of `template` (a field of the other template does not). */
export function belongsTo(f: CaseField, template: CaseTemplate | undefined): boolean {
  return f.template === undefined || template === undefined || f.template === template;
}

/** The names of a field (of either table). */
type FieldNames = Pick<CaseFieldSpec, 'model' | 'remote' | 'wire'>;

/** Reads a field of an object keyed by one of the field's names. */
export function fieldOf<T>(values: object, f: FieldNames, name: 'model' | 'remote' | 'wire'): T | undefined {
  return (values as Record<string, unknown>)[f[name]] as T | undefined;
}

/** Sets a field of an object keyed by one of the field's names. */
export function setField(values: object, f: FieldNames, name: 'model' | 'remote' | 'wire', value: unknown): void {
  (values as Record<string, unknown>)[f[name]] = value;
}

// ---------------------------------------------------------------------------------------------
// Step groups

/**
 * How a step group field is written, compared and shown:
 * - `text`: free text, as a case's; a step group create or update sends it (empty when not written).
 * - `labels`: label names or ids in the file, label ids on the wire, compared as a set, as a case's.
 * - `steps`: a list of individual steps (no `use:`: a step group cannot use another one); always
 *   compared, none written means none.
 */
export type StepGroupFieldKind = 'text' | 'labels' | 'steps';

/** A step group field: the names and columns of a case field where they apply (`CaseFieldSpec`). */
export interface StepGroupFieldSpec extends Pick<CaseFieldSpec, 'key' | 'model' | 'remote' | 'wire' | 'liveWire' | 'about'> {
  readonly kind: StepGroupFieldKind;
}

/**
 * Every managed field of a step group, in the order of the YAML file, plans, request bodies and
 * backups. Like a case's, the `id` and `title` are not in the table: they identify the group (`use:`
 * by key or human id, matching by title) and every module treats them on their own.
 */
const GROUP_TABLE = [
  { key: 'description', model: 'description', remote: 'description', wire: 'description', kind: 'text', about: 'what the steps do, for the cases that use the group (Markdown)' },
  { key: 'labels', model: 'labels', remote: 'labelIds', wire: 'label_ids', liveWire: 'labels', kind: 'labels', about: 'label names or ids (GET /labels)' },
  { key: 'steps', model: 'steps', remote: 'steps', wire: 'steps', kind: 'steps', about: 'the steps; a step group cannot use another one' },
] as const satisfies readonly StepGroupFieldSpec[];

/** The entries of the step group table with their literal names (for the types derived from it). */
export type StepGroupFieldEntry = (typeof GROUP_TABLE)[number];
export type StepGroupField = StepGroupFieldSpec;
export const STEP_GROUP_FIELDS: readonly StepGroupField[] = GROUP_TABLE;
/** `STEP_GROUP_FIELDS` with each entry's literal names (for types and shapes derived from it). */
export const STEP_GROUP_FIELD_ENTRIES: readonly StepGroupFieldEntry[] = GROUP_TABLE;
/** The YAML keys of a step group file, in the file's order. */
export const STEP_GROUP_FIELD_KEYS: readonly string[] = STEP_GROUP_FIELDS.map((f) => f.key);

/**
 * The values of every step group field under one of its names, typed by kind (`V`); the fields of
 * the kinds in `Optional` may be absent (left out of the file, or not reported).
 */
export type StepGroupFieldValues<
  Name extends 'model' | 'remote' | 'wire',
  V extends Record<StepGroupFieldKind, unknown>,
  Optional extends StepGroupFieldKind = never,
> = {
  [F in StepGroupFieldEntry as F['kind'] extends Optional ? F[Name] : never]?: V[F['kind']];
} & {
  [F in StepGroupFieldEntry as F['kind'] extends Optional ? never : F[Name]]: V[F['kind']];
};
