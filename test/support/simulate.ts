import type { ActualState, DesiredState, RemoteCase, RemoteFolder, RemoteStepGroup } from '../../src/model.js';
import { answersQuery, type CaseQuery } from '../../src/case-query.js';
import type { Plan, Ref } from '../../src/plan/operations.js';

/**
 * Applies a plan to an ActualState in memory, the way the service would: for tests (the
 * convergence property: plan, apply, plan again is empty) and for the apply engine's own tests.
 * Pure: ids come from `idFactory`, timestamps from a counter.
 */

export type IdFactory = (itemType: 'folder' | 'case' | 'step_group') => string;

export interface CreatedItem {
  id: string;
  humanId?: string;
}

export interface SimulationResult {
  actual: ActualState;
  /** what each create operation made, by operation key */
  created: Record<string, CreatedItem>;
}

/** Sequential ids `00000000-0000-4000-8000-<n>`, deterministic for tests. */
export function counterIdFactory(start = 1): IdFactory {
  let n = start;
  return () => `00000000-0000-4000-8000-${(n++).toString(16).padStart(12, '0')}`;
}

function nextHumanNumber(ids: string[], prefix: string): number {
  let max = 0;
  const re = new RegExp(`^${prefix}-(\\d+)$`);
  for (const h of ids) {
    const m = re.exec(h);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

export function simulatePlan(actual: ActualState, plan: Plan, idFactory: IdFactory): SimulationResult {
  const folders = new Map<string, RemoteFolder>(actual.folders.map((f) => [f.id, { ...f }]));
  const cases = new Map<string, RemoteCase>(actual.cases.map((c) => [c.id, { ...c }]));
  const groups = new Map<string, RemoteStepGroup>(actual.stepGroups.map((g) => [g.id, { ...g }]));
  const prefix = actual.project.humanIdPrefix;
  let caseNo = nextHumanNumber(actual.cases.map((c) => c.humanId), prefix);
  let groupNo = nextHumanNumber(actual.stepGroups.map((g) => g.humanId), `${prefix}-SG`);
  const maxTime = Math.max(0, ...actual.cases.map((c) => c.updatedAt), ...actual.stepGroups.map((g) => g.updatedAt));
  let clock = maxTime;
  const created: Record<string, CreatedItem> = {};
  const resolve = (ref: Ref): string => {
    if ('id' in ref) return ref.id;
    const c = created[ref.op];
    if (!c) throw new Error(`simulate: operation ${ref.op} has not run yet`);
    return c.id;
  };
  const appendOrder = (parentId: string | null) =>
    Math.max(-1, ...[...folders.values()].filter((f) => f.parentId === parentId).map((f) => f.order)) + 1;

  for (const op of plan.operations) {
    switch (op.kind) {
      case 'create_folder': {
        const id = idFactory('folder');
        const parentId = op.parent ? resolve(op.parent) : null;
        folders.set(id, { id, name: op.name, parentId, order: op.order ?? appendOrder(parentId) });
        created[op.key] = { id };
        break;
      }
      case 'update_folder': {
        const f = folders.get(op.id)!;
        if (op.name !== undefined) f.name = op.name;
        if (op.order !== undefined) f.order = op.order;
        break;
      }
      case 'move_folder': {
        const parentId = op.parent ? resolve(op.parent) : null;
        // the service would refuse (or corrupt its tree): a plan must never ask for this
        for (let p = parentId; p !== null; p = folders.get(p)?.parentId ?? null) {
          if (p === op.id) throw new Error(`simulate: ${op.key} would put folder ${op.id} under its own descendant`);
        }
        folders.get(op.id)!.parentId = parentId;
        break;
      }
      case 'delete_folder': {
        // what the service does with a non-empty folder is undocumented: a plan empties it first
        const busy = [...folders.values()].some((f) => f.parentId === op.id) || [...cases.values()].some((c) => c.folderId === op.id);
        if (busy) throw new Error(`simulate: ${op.key} deletes a folder that still holds folders or cases`);
        folders.delete(op.id);
        break;
      }
      case 'create_step_group': {
        const id = idFactory('step_group');
        const humanId = `${prefix}-SG-${groupNo++}`;
        clock++;
        groups.set(id, {
          id,
          humanId,
          title: op.body.title,
          description: op.body.description ?? '',
          labelIds: op.body.labelIds ?? [],
          steps: op.body.steps.map((s, i) => ({ description: s.description, expected: s.expected, order: i + 1 })),
          createdAt: clock,
          updatedAt: clock,
        });
        created[op.key] = { id, humanId };
        break;
      }
      case 'update_step_group': {
        const g = groups.get(op.id)!;
        g.title = op.body.title;
        if (op.body.description !== undefined) g.description = op.body.description;
        if (op.body.labelIds !== undefined) g.labelIds = op.body.labelIds;
        g.steps = op.body.steps.map((s, i) => ({ description: s.description, expected: s.expected, order: i + 1 }));
        g.updatedAt = ++clock;
        break;
      }
      case 'delete_step_group': {
        const user = [...cases.values()].find((c) => c.individualSteps.some((st) => st.stepGroupId === op.id));
        if (user) throw new Error(`simulate: ${op.key} deletes a step group that ${user.humanId} still uses`);
        groups.delete(op.id);
        break;
      }
      case 'create_case': {
        const id = idFactory('case');
        const humanId = `${prefix}-${caseNo++}`;
        clock++;
        const c: RemoteCase = {
          id,
          humanId,
          title: op.body.title,
          folderId: resolve(op.body.folder),
          description: '',
          preconditions: '',
          templateType: 'STEPS',
          steps: '',
          expectedResults: '',
          typeId: '',
          statusId: '',
          priorityId: '',
          automationTypeId: '',
          ownerId: '',
          reviewerId: '',
          labelIds: actual.labelsReadable ? [] : undefined,
          individualSteps: [],
          createdAt: clock,
          updatedAt: clock,
        };
        applyCaseBody(c, op.body, resolve, actual.labelsReadable);
        cases.set(id, c);
        created[op.key] = { id, humanId };
        break;
      }
      case 'update_case': {
        const c = cases.get(op.id)!;
        applyCaseBody(c, op.body, resolve, actual.labelsReadable);
        c.updatedAt = ++clock;
        break;
      }
      case 'move_case': {
        const c = cases.get(op.id)!;
        c.folderId = resolve(op.folder);
        c.updatedAt = ++clock;
        break;
      }
      case 'delete_case':
        cases.delete(op.id);
        break;
      // test plans and runs are not part of the simulated state
      case 'adopt':
      case 'create_test_plan':
      case 'complete_test_plan':
      case 'create_test_run':
        break;
    }
  }
  return {
    actual: {
      ...actual,
      folders: [...folders.values()],
      cases: [...cases.values()],
      stepGroups: [...groups.values()],
    },
    created,
  };
}

function applyCaseBody(c: RemoteCase, b: import('../../src/plan/operations.js').CaseBody, resolve: (r: Ref) => string, labelsReadable: boolean): void {
  c.title = b.title;
  c.folderId = resolve(b.folder);
  if (b.description !== undefined) c.description = b.description;
  if (b.preconditions !== undefined) c.preconditions = b.preconditions;
  if (b.templateType !== undefined) c.templateType = b.templateType;
  if (b.steps !== undefined) c.steps = b.steps;
  if (b.expectedResults !== undefined) c.expectedResults = b.expectedResults;
  if (b.typeId !== undefined) c.typeId = b.typeId;
  if (b.statusId !== undefined) c.statusId = b.statusId;
  if (b.priorityId !== undefined) c.priorityId = b.priorityId;
  if (b.automationTypeId !== undefined) c.automationTypeId = b.automationTypeId;
  if (b.ownerId !== undefined) c.ownerId = b.ownerId;
  if (b.reviewerId !== undefined) c.reviewerId = b.reviewerId;
  if (b.labelIds !== undefined && labelsReadable) c.labelIds = b.labelIds;
  if (b.individualSteps !== undefined) {
    c.individualSteps = b.individualSteps.map((s, i) => ({
      description: s.description,
      expected: s.expected,
      order: i + 1,
      stepType: 'DEFAULT',
      stepGroupId: s.stepGroup ? resolve(s.stepGroup) : null,
    }));
  }
}

/** `simulatePlan(...).actual`. */
export function applyPlanInMemory(actual: ActualState, plan: Plan, idFactory: IdFactory): ActualState {
  return simulatePlan(actual, plan, idFactory).actual;
}

/**
 * What apply writes back into the repository: the id of every created or adopted item, in the
 * file named by the operation's `writeBack` (human ids for cases and step groups).
 */
export function applyWriteBacksInMemory(desired: DesiredState, plan: Plan, created: Record<string, CreatedItem>): DesiredState {
  const ids = new Map<string, string>();
  for (const op of plan.operations) {
    const wb = 'writeBack' in op ? op.writeBack : undefined;
    if (!wb) continue;
    const id = wb.id ?? created[op.key]?.humanId ?? created[op.key]?.id;
    if (id !== undefined) ids.set(wb.file, id);
  }
  const folders = desired.folders.map((f) => {
    const file = f.file ?? `${f.dir}/_folder.yaml`;
    const id = ids.get(file);
    if (id !== undefined) ids.delete(file);
    return id !== undefined ? { ...f, id, file } : f;
  });
  // folders the repository only implied (a directory holding cases): the write-back creates
  // their _folder.yaml, so the next load lists them
  for (const op of plan.operations) {
    if (op.kind !== 'create_folder' && !(op.kind === 'adopt' && op.itemType === 'folder')) continue;
    const id = ids.get(op.writeBack.file);
    if (id === undefined) continue;
    ids.delete(op.writeBack.file);
    folders.push({ path: op.path, name: op.path[op.path.length - 1], dir: op.writeBack.file.replace(/\/_folder\.yaml$/, ''), id, file: op.writeBack.file });
  }
  folders.sort((a, b) => a.path.length - b.path.length);
  return {
    ...desired,
    folders,
    cases: desired.cases.map((c) => (ids.has(c.file) ? { ...c, id: ids.get(c.file) } : c)),
    stepGroups: desired.stepGroups.map((g) => (ids.has(g.file) ? { ...g, id: ids.get(g.file) } : g)),
  };
}

/** The cases of `actual` the queries read (each once, in `actual`'s order): what the service's
 * filtered case lists would answer, for `--changed-since` tests. */
export function simulateCaseQueries(actual: ActualState, queries: readonly CaseQuery[]): RemoteCase[] {
  return actual.cases.filter((c) => queries.some((q) => answersQuery(c, q)));
}
