/**
 * The two states the plan compares.
 *
 * `DesiredState` is what the tests repository says (built by `src/repository/` from YAML files);
 * `ActualState` is what the service holds (built by `src/remote/fetch-state.ts`). Both are plain,
 * immutable data: no class instances, no functions, so they can be logged, compared and saved.
 *
 * Field names are the repository's (camelCase in TypeScript), never the wire's; `src/remote/`
 * converts wire shapes into these.
 */

import { LOOKUP_FIELDS, type CaseFieldEntry, type CaseFieldValues, type CaseTemplate, type LookupFieldEntry, type LookupKind, type StepGroupFieldValues } from './fields.js';

export type { LookupKind } from './fields.js';

// ---------------------------------------------------------------------------------------------
// Desired (the repository)

/** A place in a file, for messages: `file` is relative to the repository root, 1-based line/col. */
export interface SourceRef {
  file: string;
  line: number;
  col: number;
}

/**
 * A step written in a case: either an individual step or a reference to a step group. A loaded
 * repository (`loadRepository`) keeps the position of `use:` steps only, where the rules between
 * files and the plan report problems; the parser of one file gives every step's.
 */
export type DesiredStep =
  | { kind: 'step'; action: string; expected: string; source?: SourceRef }
  | {
      kind: 'use';
      /** a step group's local key (file stem under step_groups/) or its human id (`SHOP-SG-3`) or id */
      use: string;
      source?: SourceRef;
    };

export interface DesiredFolder {
  /** folder names from the top (the cases_dir itself is not a folder); never empty */
  path: string[];
  /** the display name: `_folder.yaml` `name`, else the directory name */
  name: string;
  /** directory relative to the repository root, e.g. `cases/Checkout/Payments` */
  dir: string;
  /** from `_folder.yaml`: the remote folder id */
  id?: string;
  /** from `_folder.yaml`: order within the parent */
  order?: number;
  /** the `_folder.yaml` file when there is one (relative path), for write-back and messages */
  file?: string;
  /**
   * a level a file holding several items adds (a `.feature` file's feature): no directory and no
   * settings file hold it, so it is matched by name under its parent and its id is never written
   */
  inFile?: string;
}

/**
 * The fields of a test case the repository can manage, named and typed by the field table
 * (`src/fields.ts`): texts, the template, lookup names, user emails, label names, `steps` as a list
 * (template STEPS) or `stepsText` (template TCD). Absent means "leave as it is remotely".
 */
export type DesiredCaseFields = Partial<
  CaseFieldValues<'model', { text: string; template: CaseTemplate; lookup: string; user: string; labels: string[]; steps: DesiredStep[] }>
>;

export interface DesiredCase {
  /** the YAML file, relative to the repository root */
  file: string;
  /**
   * the case's address in a file holding several (a scenario of a `.feature` file: `3`, an
   * expanded examples row `3.2`); undefined: the file holds this case alone
   */
  at?: string;
  /** folder path (names) of the directory holding the file, and of the levels its file adds */
  folderPath: string[];
  /**
   * labels that name none on the service are left out (a plan warning counts them) instead of
   * being a problem: Gherkin tags, where execution tags (`@wip`) are common
   */
  softLabels?: boolean;
  /** `id:` as written: a human id (`SHOP-12`) or a uuid */
  id?: string;
  /** `source:` as written: where `tmsync import` took the case from (`testrail:C123`); local, never sent */
  source?: string;
  /** `automation:` as written: the automated tests that prove the case (`src/test-patterns.ts`); local, never sent */
  automation?: { tests: string[] };
  title: string;
  fields: DesiredCaseFields;
  /** 1-based line of each top-level key (`title`, `steps`, …) for messages */
  lines: Record<string, number>;
}

/** A step of a step group as written: an individual step (a step group cannot use another one). */
export interface DesiredGroupStep {
  action: string;
  expected: string;
  source?: SourceRef;
}

/**
 * The fields of a step group the repository manages, named and typed by the step group table
 * (`src/fields.ts`): texts and label names absent when the file leaves them out, the steps always.
 */
export type DesiredStepGroupFields = StepGroupFieldValues<'model', { text: string; labels: string[]; steps: DesiredGroupStep[] }, 'text' | 'labels'>;

export interface DesiredStepGroup extends DesiredStepGroupFields {
  /** the file stem under step_groups/, the local key `use:` refers to */
  key: string;
  file: string;
  /** the group's address in a file holding several items (a `.feature` file's `background`) */
  at?: string;
  /** `id:` as written: a human id (`SHOP-SG-3`) or a uuid */
  id?: string;
  title: string;
  lines: Record<string, number>;
}

/** Defaults applied when a new case leaves a required field out (the service requires them). */
export type CaseDefaults = { [F in CaseFieldEntry as F extends { required: true } ? F['model'] : never]?: string };

export interface DesiredState {
  /** absolute path of the repository root (where tmsync.yaml is) */
  root: string;
  casesDir: string;
  stepGroupsDir: string;
  /** only these folder subtrees are managed (paths of names joined by `/`); undefined = everything */
  scope?: string[];
  defaults: CaseDefaults;
  /** every folder, parents before children */
  folders: DesiredFolder[];
  cases: DesiredCase[];
  stepGroups: DesiredStepGroup[];
  /** sha256 over the repository files the state was built from (for stale-plan checks) */
  contentHash: string;
}

/**
 * How plan operations, the journal and pull name an item of a file holding several: `file#at`
 * (`cases/Shop/cart.feature#3`); the file itself for a file holding one item. `splitItemRef`
 * (`repository/format.ts`) reads it back.
 */
export function itemRef(file: string, at: string | undefined): string {
  return at === undefined ? file : `${file}#${at}`;
}

// ---------------------------------------------------------------------------------------------
// Actual (the service)

export interface LookupEntry {
  id: string;
  name: string;
  alias?: string;
  order?: number;
}

export interface RemoteUser {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
}

export interface RemoteLabel {
  id: string;
  name: string;
}

export interface RemoteProject {
  id: string;
  name: string;
  humanIdPrefix: string;
  description?: string;
  /** the project's page in the service's web UI, when its answer gives one (`webLink`) */
  webUrl?: string;
}

export interface RemoteFolder {
  id: string;
  name: string;
  /** null for a top-level folder (the wire's `""` and `null` both become null) */
  parentId: string | null;
  order: number;
}

export interface RemoteStep {
  /** the step's own id: not kept by `fetchState` (nothing uses it; see `toRemoteStep`) */
  id?: string;
  description: string;
  expected: string;
  order: number;
  stepType?: string;
  stepGroupId: string | null;
}

/** The managed fields of a case as the service holds them (ids, not names), named by the field table. */
export type RemoteCaseFields = CaseFieldValues<
  'remote',
  { text: string; template: string; lookup: string; user: string; labels: string[] | undefined; steps: RemoteStep[] }
>;

export interface RemoteCase extends Omit<RemoteCaseFields, 'labelIds'> {
  id: string;
  humanId: string;
  title: string;
  folderId: string;
  /** undefined when the service did not report labels (it is not required to) */
  labelIds?: string[];
  /** Unix seconds (normalized from the live service's milliseconds) */
  createdAt: number;
  updatedAt: number;
}

/** A step of a step group as the service holds it. */
export interface RemoteGroupStep {
  id?: string;
  description: string;
  expected: string;
  order: number;
}

/** The managed fields of a step group as the service holds them, named by the step group table; labels undefined when not reported. */
export type RemoteStepGroupFields = StepGroupFieldValues<'remote', { text: string; labels: string[]; steps: RemoteGroupStep[] }, 'labels'>;

export interface RemoteStepGroup extends RemoteStepGroupFields {
  id: string;
  humanId: string;
  title: string;
  createdAt: number;
  updatedAt: number;
}

export interface RemoteTestPlan {
  id: string;
  humanId: string;
  title: string;
  description: string;
  status: string;
  startDate?: number;
  endDate?: number;
  createdAt: number;
  updatedAt: number;
}

/** `automation_types` → `automationTypes` */
type Camel<S extends string> = S extends `${infer A}_${infer B}` ? `${A}${Capitalize<Camel<B>>}` : S;
const camel = <S extends string>(s: S) => s.replace(/_(.)/g, (_, c: string) => c.toUpperCase()) as Camel<S>;

/** The lists the case lookups name an entry of, one per lookup field of the table (camelCase). */
export type CaseLookups = { [F in LookupFieldEntry as Camel<F['list']>]: LookupEntry[] };

export interface Lookups extends CaseLookups {
  runStatuses: LookupEntry[];
}

/** The list of {@link Lookups} each lookup field names. */
export const LOOKUP_LISTS: Readonly<Record<LookupKind, keyof CaseLookups>> = Object.fromEntries(LOOKUP_FIELDS.map((f) => [f.key, camel(f.list)])) as Record<LookupKind, keyof CaseLookups>;

/** The names of each lookup field's list, in the service's order (what an editor offers). */
export function lookupNames(lookups: Lookups): Record<LookupKind, string[]> {
  const names = (list: LookupEntry[]) => [...list].sort((a, b) => (a.order ?? 0) - (b.order ?? 0)).map((e) => e.name);
  return Object.fromEntries(LOOKUP_FIELDS.map((f) => [f.key, names(lookups[LOOKUP_LISTS[f.key]])])) as Record<LookupKind, string[]>;
}

export interface ActualState {
  project: RemoteProject;
  /** flat; rebuild the tree from parentId */
  folders: RemoteFolder[];
  cases: RemoteCase[];
  stepGroups: RemoteStepGroup[];
  testPlans: RemoteTestPlan[];
  lookups: Lookups;
  users: RemoteUser[];
  labels: RemoteLabel[];
  /** true when `labelIds` of cases could be read; false means labels cannot be compared */
  labelsReadable: boolean;
  /**
   * `id:`s the repository's files write that the service has outside what was read (a scope),
   * found by a GET (`confirmMissing`): never deleted on the service
   */
  elsewhere?: readonly string[];
}
