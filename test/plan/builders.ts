import type {
  ActualState,
  DesiredCase,
  DesiredCaseFields,
  DesiredFolder,
  DesiredState,
  DesiredStep,
  DesiredStepGroup,
  RemoteCase,
  RemoteFolder,
  RemoteStepGroup,
} from '../../src/model.js';
import type { Operation, Plan } from '../../src/plan/operations.js';

/** Builders for plan tests: small, readable states with the service's lookups and users. */

export const LOOKUPS = {
  types: [
    { id: 'type-functional', name: 'Functional', alias: 'func' },
    { id: 'type-regression', name: 'Regression' },
  ],
  statuses: [
    { id: 'status-draft', name: 'Draft' },
    { id: 'status-ready', name: 'Ready' },
    { id: 'status-outdated', name: 'Outdated' },
  ],
  priorities: [
    { id: 'priority-high', name: 'High' },
    { id: 'priority-medium', name: 'Medium' },
    { id: 'priority-low', name: 'Low' },
  ],
  automationTypes: [
    { id: 'automation-yes', name: 'Automated' },
    { id: 'automation-no', name: 'Not Automated' },
  ],
  runStatuses: [],
};

export const USERS = [
  { id: 'user-ana', email: 'ana@example.com' },
  { id: 'user-ben', email: 'ben@example.com' },
];
export const LABELS = [
  { id: 'label-smoke', name: 'smoke' },
  { id: 'label-payments', name: 'payments' },
];

export function actualState(partial: Partial<ActualState> = {}): ActualState {
  return {
    project: { id: 'project-1', name: 'Shop', humanIdPrefix: 'SHOP' },
    folders: [],
    cases: [],
    stepGroups: [],
    testPlans: [],
    lookups: LOOKUPS,
    users: USERS,
    labels: LABELS,
    labelsReadable: true,
    ...partial,
  };
}

export function remoteFolder(id: string, name: string, parentId: string | null = null, order = 0): RemoteFolder {
  return { id, name, parentId, order };
}

/** A remote case whose managed fields equal what `desiredCase` with the state defaults sends. */
export function remoteCase(humanId: string, title: string, folderId: string, partial: Partial<RemoteCase> = {}): RemoteCase {
  return {
    id: `case-${humanId}`,
    humanId,
    title,
    folderId,
    description: '',
    preconditions: '',
    templateType: 'STEPS',
    steps: '',
    expectedResults: '',
    typeId: 'type-functional',
    statusId: 'status-draft',
    priorityId: 'priority-medium',
    automationTypeId: 'automation-no',
    ownerId: 'user-ana',
    reviewerId: '',
    labelIds: [],
    individualSteps: [],
    createdAt: 100,
    updatedAt: 200,
    ...partial,
  };
}

export function remoteGroup(humanId: string, title: string, steps: [string, string][] = [], partial: Partial<RemoteStepGroup> = {}): RemoteStepGroup {
  return {
    id: `group-${humanId}`,
    humanId,
    title,
    description: '',
    labelIds: [],
    steps: steps.map(([description, expected], i) => ({ description, expected, order: i + 1 })),
    createdAt: 100,
    updatedAt: 300,
    ...partial,
  };
}

export function remoteSteps(steps: [string, string, string?][]): RemoteCase['individualSteps'] {
  return steps.map(([description, expected, group], i) => ({
    description,
    expected,
    order: i + 1,
    stepType: 'DEFAULT',
    stepGroupId: group ?? null,
  }));
}

export function desiredState(partial: Partial<DesiredState> = {}): DesiredState {
  return {
    root: '/repo',
    casesDir: 'cases',
    stepGroupsDir: 'step_groups',
    defaults: { type: 'Functional', status: 'Draft', priority: 'Medium', automationType: 'Not Automated', owner: 'ana@example.com' },
    folders: [],
    cases: [],
    stepGroups: [],
    contentHash: 'sha256:test',
    ...partial,
  };
}

/** `path` as `A/B`; `id`, `name` and `order` as `_folder.yaml` would give them. */
export function desiredFolder(path: string, extra: { id?: string; name?: string; order?: number } = {}): DesiredFolder {
  const parts = path.split('/');
  const dir = `cases/${path}`;
  return {
    path: parts,
    name: extra.name ?? parts[parts.length - 1],
    dir,
    ...(extra.id !== undefined ? { id: extra.id } : {}),
    ...(extra.order !== undefined ? { order: extra.order } : {}),
    ...(extra.id !== undefined || extra.name !== undefined || extra.order !== undefined ? { file: `${dir}/_folder.yaml` } : {}),
  };
}

/** Every folder of the given paths and their parents, parents first. */
export function desiredFolders(...paths: string[]): DesiredFolder[] {
  const all = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let i = 1; i <= parts.length; i++) all.add(parts.slice(0, i).join('/'));
  }
  return [...all].sort((a, b) => a.split('/').length - b.split('/').length).map((p) => desiredFolder(p));
}

export const LINES: Record<string, number> = {
  id: 1,
  title: 2,
  description: 3,
  preconditions: 4,
  type: 5,
  status: 6,
  priority: 7,
  automation_type: 8,
  owner: 9,
  reviewer: 10,
  labels: 11,
  steps: 12,
  expected_results: 13,
};

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'case';

export function desiredCase(
  path: string,
  title: string,
  fields: DesiredCaseFields = {},
  extra: { id?: string; file?: string } = {},
): DesiredCase {
  return {
    file: extra.file ?? `cases/${path}/${slug(title)}.yaml`,
    folderPath: path === '' ? [] : path.split('/'),
    ...(extra.id !== undefined ? { id: extra.id } : {}),
    title,
    fields,
    lines: LINES,
  };
}

export function step(action: string, expected = ''): DesiredStep {
  return { kind: 'step', action, expected };
}
export function use(ref: string): DesiredStep {
  return { kind: 'use', use: ref, source: { file: 'x', line: 20, col: 5 } };
}

export function desiredGroup(key: string, title: string, steps: [string, string][], extra: Partial<DesiredStepGroup> = {}): DesiredStepGroup {
  return {
    key,
    file: `step_groups/${key}.yaml`,
    title,
    steps: steps.map(([action, expected]) => ({ action, expected })),
    lines: { id: 1, title: 2, description: 3, labels: 4, steps: 5 },
    ...extra,
  };
}

/** `kind key` of every operation, in plan order. */
export function opList(plan: Plan): string[] {
  return plan.operations.map((o) => `${o.kind} ${o.key}`);
}

export function findOp<K extends Operation['kind']>(plan: Plan, kind: K, keyPart = ''): Extract<Operation, { kind: K }> {
  const op = plan.operations.find((o) => o.kind === kind && o.key.includes(keyPart));
  if (!op) throw new Error(`no ${kind} ${keyPart} in plan: ${opList(plan).join(', ')}`);
  return op as Extract<Operation, { kind: K }>;
}

/** Every dependency names an operation that comes earlier in the plan. */
export function dependencyViolations(plan: Plan): string[] {
  const seen = new Set<string>();
  const bad: string[] = [];
  const keys = new Set(plan.operations.map((o) => o.key));
  if (keys.size !== plan.operations.length) bad.push('duplicate operation keys');
  for (const op of plan.operations) {
    for (const d of op.dependsOn) if (!seen.has(d)) bad.push(`${op.key} depends on ${d}, which does not come before it`);
    seen.add(op.key);
  }
  return bad;
}
