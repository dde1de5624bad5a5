import { TmsyncError } from '../errors.js';
import { CASE_FIELDS_BY_KIND, fieldOf, setField, STEP_GROUP_FIELDS, type CaseField } from '../fields.js';
import type { JournalSummary } from '../apply/journal.js';
import type { RemoteProject } from '../model.js';
import type { CaseBody, Operation, Plan, Ref, RunCaseResult, StepBody, StepGroupBody } from '../plan/operations.js';
import { PLAN_FORMAT_VERSION } from '../plan/operations.js';
import { summarize } from '../plan/summary.js';
import { withServiceDates } from '../remote/to-actual.js';
import type { Backup, BackupStep, BackupTestCase, BackupTestRun } from './backup-format.js';
import type { AdoptionPlan, RestoreItemType } from './restore-adopt.js';
import type { RestoreMapping } from './restore-mapping.js';
import { assertNever } from '../assert-never.js';

/**
 * A restore as a plan of the write engine (pure): every backup item becomes an operation of the
 * one operation table, its references to other backup items resolved at execution through the
 * engine's id remapping (`{ op: key }`, the way a new case refers to its new folder):
 *
 * - done by an earlier run (the journal): no operation, its id is used as it is;
 * - found in the target by natural key (`restore-adopt.ts`): an `adopt` operation, left as it is;
 * - begun by an earlier run without an answer and found in the target, or created by an earlier
 *   run that had more to send (a folder's move, a run's results): its create with the id resumed
 *   (the create is not sent again, the rest is);
 * - anything else: a create.
 *
 * Operation keys are the journal's keys, `type:old id` (`complete_plan:old id` for completing a
 * plan), so the journal of one restore is read by the next.
 */

export type RestorePhase = 'folders' | 'step_groups' | 'test_cases' | 'test_plans' | 'test_runs';

export const PHASES: readonly RestorePhase[] = ['folders', 'step_groups', 'test_cases', 'test_plans', 'test_runs'];

const PHASE_OF: Record<RestoreItemType, RestorePhase> = {
  folder: 'folders',
  step_group: 'step_groups',
  case: 'test_cases',
  plan: 'test_plans',
  run: 'test_runs',
};

interface RestorePlanInput {
  mapping: RestoreMapping;
  target: RemoteProject;
  /** what earlier runs of this restore left */
  journal: JournalSummary;
  /** target items paired by natural key (pending ones: begun by an earlier run without an answer) */
  adoption: AdoptionPlan;
  /** ids the target held before this run: a journal id among them is resumed */
  existingIds: ReadonlySet<string>;
  /** the unit of the service's timestamps, for dates @default seconds */
  timestampUnit: 'seconds' | 'milliseconds' | undefined;
  /** send runs' environment ids @default false */
  keepEnvironments?: boolean;
  /** run-case rows per update request */
  batchSize: number;
}

export interface RestorePlan {
  plan: Plan;
  /** creates whose item an earlier run made, by key: the create is not sent again */
  resumeIds: Map<string, { id: string }>;
  /** the phase of each operation that restores a backup item */
  phaseOf: Map<string, RestorePhase>;
  /** backup items per phase */
  totals: Record<RestorePhase, number>;
  /** items an earlier run finished, per phase (no operation) */
  finished: Record<RestorePhase, number>;
  /** items found in the target (adopted, or begun earlier and found) */
  adopted: number;
}

const key = (type: RestoreItemType, old: string) => `${type}:${old}`;
const NO_FILE = { file: '' };

type AdoptItemType = 'folder' | 'step_group' | 'case' | 'test_plan' | 'test_run';

/** The operations of a restore as they are added, phase by phase, and what each phase found done. */
class RestorePlanBuilder {
  readonly ops: Operation[] = [];
  private readonly opKeys = new Set<string>();
  private readonly known = new Map<string, string>();
  readonly resumeIds = new Map<string, { id: string }>();
  readonly phaseOf = new Map<string, RestorePhase>();
  readonly finished: Record<RestorePhase, number> = { folders: 0, step_groups: 0, test_cases: 0, test_plans: 0, test_runs: 0 };
  readonly adopted: Map<string, AdoptionPlan['adopt'][number]>;

  constructor(readonly input: RestorePlanInput) {
    this.adopted = new Map(input.adoption.adopt.map((a) => [key(a.type, a.old), a]));
    for (const [k, rec] of input.journal.ids) if (rec.id !== undefined) this.known.set(k, rec.id);
  }

  /** Done earlier: no operation. A plan is done once created (its completion has a key of its own). */
  private isFinished(type: RestoreItemType, old: string): boolean {
    const k = key(type, old);
    return this.input.journal.done.has(k) || (type === 'plan' && this.known.has(k) && !this.adopted.has(k));
  }

  /** An adopted item the target holds as it is (not one begun by an earlier run without an answer). */
  isAdopted(k: string): boolean {
    const a = this.adopted.get(k);
    return a !== undefined && !a.pending;
  }

  /** A backup item's reference: its operation in this plan, or its id from an earlier run. */
  ref(type: RestoreItemType, old: string, by: string): Ref {
    const k = key(type, old);
    if (this.opKeys.has(k)) return { op: k };
    const id = this.known.get(k);
    if (id !== undefined) return { id };
    throw new TmsyncError('backup_invalid', `the backup's ${by} refers to ${type.replace('_', ' ')} ${old}, which the backup does not hold; nothing was written`, {
      hint: 'take the backup again',
    });
  }

  /**
   * Adds the item's operation: an adopt, a create (resumed when an earlier run made the item), or
   * none when it is finished. Returns whether it has one.
   */
  add(type: RestoreItemType, old: string, create: () => Operation, adoptAs: { itemType: AdoptItemType; path: string[]; title: string }): boolean {
    const k = key(type, old);
    const a = this.adopted.get(k);
    if (a && !a.pending) {
      this.push({ kind: 'adopt', key: k, dependsOn: [], itemType: adoptAs.itemType, id: a.id, path: adoptAs.path, title: adoptAs.title, writeBack: NO_FILE }, type);
      return true;
    }
    if (!a && this.isFinished(type, old)) {
      this.finished[PHASE_OF[type]] += 1;
      return false;
    }
    const op = create();
    if (a) this.resumeIds.set(k, { id: a.id });
    else if (this.known.has(k) && this.input.existingIds.has(this.known.get(k)!)) this.resumeIds.set(k, { id: this.known.get(k)! });
    this.push(op, type);
    return true;
  }

  /** Adds an operation; one that restores a backup item (`type`) counts in its phase. */
  push(op: Operation, type?: RestoreItemType): void {
    this.ops.push(op);
    this.opKeys.add(op.key);
    if (type) this.phaseOf.set(op.key, PHASE_OF[type]);
  }
}

const dep = (r: Ref) => ('op' in r ? [r.op] : []);

/** The plan of a restore (pure). */
export function buildRestorePlan(backup: Backup, input: RestorePlanInput): RestorePlan {
  const b = new RestorePlanBuilder(input);
  const folderPath = folderPaths(backup);
  addFolders(b, backup, folderPath);
  for (const g of backup.step_groups) {
    b.add(
      'step_group',
      g.id,
      () => ({ kind: 'create_step_group', key: key('step_group', g.id), dependsOn: [], localKey: g.id, body: stepGroupBody(g, input.mapping), writeBack: NO_FILE }),
      { itemType: 'step_group', path: [], title: g.title },
    );
  }
  addCases(b, backup, folderPath);
  for (const p of backup.test_plans) {
    const dates = withServiceDates({ start_date: p.start_date, end_date: p.end_date }, input.timestampUnit);
    b.add(
      'plan',
      p.id,
      () => ({ kind: 'create_test_plan', key: key('plan', p.id), dependsOn: [], title: p.title, description: p.description, startDate: dates.start_date, endDate: dates.end_date }),
      { itemType: 'test_plan', path: [], title: p.title },
    );
  }
  const runKeys: string[] = [];
  for (const r of backup.test_runs) {
    const has = b.add('run', r.id, () => runOp(r, input, (type, old) => b.ref(type, old, `test run ${r.human_id || r.id}`)), { itemType: 'test_run', path: [], title: r.title });
    if (has) runKeys.push(key('run', r.id));
  }
  addPlanCompletions(b, backup, runKeys);

  const plan: Plan = {
    format_version: PLAN_FORMAT_VERSION,
    project: { id: input.target.id, name: input.target.name, humanIdPrefix: input.target.humanIdPrefix },
    prune: false,
    operations: b.ops,
    unmanaged: [],
    warnings: [],
    summary: summarize(b.ops),
    contentHash: '',
    remoteVersions: {},
  };
  const totals: Record<RestorePhase, number> = {
    folders: backup.folders.length,
    step_groups: backup.step_groups.length,
    test_cases: backup.test_cases.length,
    test_plans: backup.test_plans.length,
    test_runs: backup.test_runs.length,
  };
  return { plan, resumeIds: b.resumeIds, phaseOf: b.phaseOf, totals, finished: b.finished, adopted: b.adopted.size };
}

/** Folders: parents first; siblings one after another so they keep their order. */
function addFolders(b: RestorePlanBuilder, backup: Backup, folderPath: (id: string) => string[]): void {
  const children = new Map<string | null, Backup['folders']>();
  for (const f of backup.folders) children.set(f.parent_id, [...(children.get(f.parent_id) ?? []), f]);
  for (const list of children.values()) list.sort((a, b) => a.order - b.order);
  let level: (string | null)[] = [null];
  while (level.length > 0) {
    const next: string[] = [];
    for (const parent of level) {
      let previous: string | undefined;
      for (const f of children.get(parent) ?? []) {
        const path = folderPath(f.id);
        const has = b.add(
          'folder',
          f.id,
          () => {
            const parentRef = f.parent_id === null ? null : b.ref('folder', f.parent_id, `folder "${f.name}"`);
            return {
              kind: 'create_folder',
              key: key('folder', f.id),
              dependsOn: [...(parentRef ? dep(parentRef) : []), ...(previous ? [previous] : [])],
              path,
              name: f.name,
              parent: parentRef,
              writeBack: NO_FILE,
            };
          },
          { itemType: 'folder', path, title: f.name },
        );
        if (has) previous = key('folder', f.id);
        next.push(f.id);
      }
    }
    level = next;
  }
}

function addCases(b: RestorePlanBuilder, backup: Backup, folderPath: (id: string) => string[]): void {
  for (const c of backup.test_cases) {
    b.add(
      'case',
      c.id,
      () => {
        const deps = new Set<string>();
        const body = caseBody(c, b.input.mapping, (type, old) => {
          const r = b.ref(type, old, `test case ${c.human_id || c.id}`);
          for (const d of dep(r)) deps.add(d);
          return r;
        });
        return { kind: 'create_case', key: key('case', c.id), dependsOn: [...deps], path: folderPath(c.folder_id), body, writeBack: NO_FILE };
      },
      { itemType: 'case', path: folderPath(c.folder_id), title: c.title },
    );
  }
}

/** Completing a plan comes last (a completed plan may refuse new runs); an adopted plan is left as it is. */
function addPlanCompletions(b: RestorePlanBuilder, backup: Backup, runKeys: readonly string[]): void {
  for (const p of backup.test_plans) {
    const completeKey = `complete_plan:${p.id}`;
    if (p.status !== 'COMPLETED' || b.input.journal.done.has(completeKey) || b.isAdopted(key('plan', p.id))) continue;
    const plan = b.ref('plan', p.id, `test plan ${p.human_id || p.id}`);
    b.push({ kind: 'complete_test_plan', key: completeKey, dependsOn: [...dep(plan), ...runKeys], plan, title: p.title });
  }
}

/** Folder paths (names from the top) by backup folder id. */
function folderPaths(backup: Backup): (id: string) => string[] {
  const byId = new Map(backup.folders.map((f) => [f.id, f]));
  const memo = new Map<string, string[]>();
  const path = (id: string, depth = 0): string[] => {
    const hit = memo.get(id);
    if (hit) return hit;
    const f = byId.get(id);
    const p = !f || depth > 1000 ? [] : f.parent_id === null ? [f.name] : [...path(f.parent_id, depth + 1), f.name];
    memo.set(id, p);
    return p;
  };
  return path;
}

type RefOf = (type: RestoreItemType, old: string) => Ref;

/** A step group's body under the plan's names: every field of the step group table, its labels mapped. */
function stepGroupBody(g: Backup['step_groups'][number], m: RestoreMapping): StepGroupBody {
  const out: StepGroupBody = { title: g.title, steps: [] };
  for (const f of STEP_GROUP_FIELDS) {
    const value = fieldOf<unknown>(g, f, 'wire');
    switch (f.kind) {
      case 'text':
        setField(out, f, 'remote', value);
        break;
      case 'labels':
        if (value) setField(out, f, 'remote', m.labels(value as string[]));
        break;
      case 'steps':
        setField(
          out,
          f,
          'remote',
          [...((value as { description: string; expected: string; order: number }[] | undefined) ?? [])]
            .sort((a, b) => a.order - b.order)
            .map((s) => ({ description: s.description, expected: s.expected })),
        );
        break;
      default:
        assertNever(f.kind);
    }
  }
  return out;
}

const CASE_TEMPLATES = new Set(['STEPS', 'TCD']);

/** A case's body under the plan's names: every field of the table, its references mapped to the target's. */
function caseBody(c: BackupTestCase, m: RestoreMapping, ref: RefOf): CaseBody {
  const out: CaseBody = { title: c.title, folder: ref('folder', c.folder_id) };
  const set = (f: CaseField, value: unknown) => setField(out, f, 'remote', value);
  for (const f of CASE_FIELDS_BY_KIND) {
    const value = fieldOf<unknown>(c, f, 'wire');
    switch (f.kind) {
      case 'text':
        set(f, value);
        break;
      case 'template': {
        const template = (value as string).toUpperCase();
        if (CASE_TEMPLATES.has(template)) set(f, template);
        break;
      }
      case 'lookup':
        set(f, m.lookup(f.list!, value as string));
        break;
      case 'user':
        set(f, f.required ? (m.user(value as string) ?? m.fallbackUser) : value ? (m.user(value as string) ?? '') : '');
        break;
      case 'labels':
        if (value) set(f, m.labels(value as string[]));
        break;
      case 'steps':
        set(
          f,
          [...(value as BackupStep[])].sort((a, b) => a.order - b.order).map(
            (s): StepBody => ({
              description: s.description,
              expected: s.expected,
              stepGroup: s.step_group_id === null ? null : ref('step_group', s.step_group_id),
              stepType: s.step_type ?? 'DEFAULT',
            }),
          ),
        );
        break;
      default:
        assertNever(f.kind);
    }
  }
  return out;
}

/** A run is recreated STATIC with exactly the cases it held, whatever its selection was. */
function runOp(r: BackupTestRun, input: RestorePlanInput, ref: RefOf): Operation {
  const m = input.mapping;
  const dates = withServiceDates({ start_date: r.start_date, end_date: r.end_date }, input.timestampUnit);
  const cases = r.cases.map((rc) => ref('case', rc.case_id));
  const plan = r.test_plan_id === null ? null : ref('plan', r.test_plan_id);
  const results: RunCaseResult[] = [];
  r.cases.forEach((rc, i) => {
    const statusId = m.runStatus(rc.status_id, rc.status);
    const userId = rc.assignee_id ? m.user(rc.assignee_id) : undefined;
    if (statusId !== undefined || userId !== undefined) results.push({ case: cases[i], ...(statusId !== undefined ? { statusId } : {}), ...(userId !== undefined ? { userId } : {}) });
  });
  const deps = new Set<string>();
  for (const x of [...cases, ...(plan ? [plan] : [])]) if ('op' in x) deps.add(x.op);
  return {
    kind: 'create_test_run',
    key: key('run', r.id),
    dependsOn: [...deps],
    title: r.title,
    description: r.description,
    cases,
    plan,
    startDate: dates.start_date,
    endDate: dates.end_date,
    assigneeId: r.assignee_id ? (m.user(r.assignee_id) ?? null) : null,
    labelNames: r.label_names,
    ...(input.keepEnvironments ? { environmentIds: r.environment_ids } : {}),
    results,
    batchSize: input.batchSize,
    close: r.status === 'CLOSED',
  };
}
