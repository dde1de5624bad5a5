import fc from 'fast-check';
import type { ActualState, DesiredCase, DesiredFolder, DesiredState, DesiredStep, DesiredStepGroup, RemoteCase, RemoteFolder, RemoteStepGroup } from '../../src/model.js';
import { LINES, LOOKUPS, USERS, LABELS, actualState, desiredGroup, desiredState } from './builders.js';

/**
 * Generated repositories and services for the plan's property tests (convergence.test.ts,
 * changed.test.ts): small worlds of folders A/B/C, a few titles, step groups, ids picked from the
 * service or not.
 */

const NAMES = ['A', 'B', 'C'];
const TITLES = ['login', 'logout', 'pay', 'refund', 'search'];
const TEXTS = ['', 'one', 'two\nlines', 'trailing  \n', 'crlf\r\ntext'];
const pick = <T,>(list: readonly T[], n: number): T => list[n % list.length];

export const remoteWorld = fc.record({
  folders: fc.array(fc.tuple(fc.nat(2), fc.nat(8), fc.nat(5)), { maxLength: 7 }),
  cases: fc.array(fc.tuple(fc.nat(7), fc.nat(4), fc.array(fc.nat(9), { minLength: 10, maxLength: 10 })), { maxLength: 10 }),
  groups: fc.array(fc.tuple(fc.nat(4), fc.nat(4)), { maxLength: 3 }),
});

export const desiredWorld = fc.record({
  folders: fc.array(fc.tuple(fc.nat(2), fc.nat(8), fc.option(fc.nat(20)), fc.option(fc.nat(3))), { maxLength: 7 }),
  cases: fc.array(
    fc.tuple(fc.nat(7), fc.nat(4), fc.option(fc.nat(20)), fc.array(fc.option(fc.nat(9)), { minLength: 12, maxLength: 12 })),
    { maxLength: 10 },
  ),
  groups: fc.array(fc.tuple(fc.nat(4), fc.nat(4), fc.option(fc.nat(20))), { maxLength: 3 }),
});

export type RemoteWorld = typeof remoteWorld extends fc.Arbitrary<infer T> ? T : never;
export type DesiredWorld = typeof desiredWorld extends fc.Arbitrary<infer T> ? T : never;

export function buildActual(w: RemoteWorld, labelsReadable: boolean): ActualState {
  const folders: RemoteFolder[] = [];
  for (const [name, parent, order] of w.folders) {
    const parentId = parent < folders.length ? folders[parent].id : null;
    const n = pick(NAMES, name);
    if (folders.some((f) => f.parentId === parentId && f.name === n)) continue;
    folders.push({ id: `rf${folders.length}`, name: n, parentId, order });
  }
  const groups: RemoteStepGroup[] = [];
  for (const [title, steps] of w.groups) {
    const t = `group ${pick(TITLES, title)}`;
    if (groups.some((g) => g.title === t)) continue;
    const i = groups.length + 1;
    groups.push({
      id: `rg${i}`,
      humanId: `SHOP-SG-${i}`,
      title: t,
      description: '',
      labelIds: [],
      steps: Array.from({ length: steps }, (_, k) => ({ description: `g${i} step ${k}`, expected: k % 2 ? 'ok' : '', order: k + 1 })),
      createdAt: 1,
      updatedAt: 1,
    });
  }
  const cases: RemoteCase[] = [];
  if (folders.length > 0) {
    for (const [folder, title, f] of w.cases) {
      const folderId = pick(folders, folder).id;
      const t = pick(TITLES, title);
      if (cases.some((c) => c.folderId === folderId && c.title === t)) continue;
      const n = cases.length + 1;
      const group = groups.length > 0 && f[9] % 2 ? pick(groups, f[9]) : undefined;
      cases.push({
        id: `rc${n}`,
        humanId: `SHOP-${n}`,
        title: t,
        folderId,
        description: pick(TEXTS, f[0]),
        preconditions: pick(TEXTS, f[1]),
        templateType: f[2] % 2 ? 'TCD' : 'STEPS',
        steps: f[2] % 2 ? pick(TEXTS, f[3]) : '',
        expectedResults: '',
        typeId: pick(LOOKUPS.types, f[4]).id,
        statusId: pick(LOOKUPS.statuses, f[5]).id,
        priorityId: pick(LOOKUPS.priorities, f[6]).id,
        automationTypeId: pick(LOOKUPS.automationTypes, f[7]).id,
        ownerId: pick(USERS, f[8]).id,
        reviewerId: '',
        labelIds: labelsReadable ? (f[8] % 2 ? [LABELS[0].id] : []) : undefined,
        individualSteps: group
          ? group.steps.map((s, k) => ({ description: s.description, expected: s.expected, order: k + 1, stepGroupId: group.id }))
          : f[2] % 2
            ? []
            : [{ description: 'a step', expected: 'works', order: 1, stepGroupId: null }],
        createdAt: 1,
        updatedAt: 1,
      });
    }
  }
  return actualState({ folders, cases, stepGroups: groups, labelsReadable });
}

/**
 * The service keeps order as a 0-based index among siblings: a repository only writes positions
 * that exist (the plan refuses others, see folders.test.ts).
 */
export function keepPossibleOrders(folders: DesiredFolder[]): DesiredFolder[] {
  for (const f of folders) {
    if (f.order === undefined) continue;
    const siblings = folders.filter((o) => o.path.slice(0, -1).join('/') === f.path.slice(0, -1).join('/'));
    const taken = siblings.slice(0, siblings.indexOf(f)).some((o) => o.order === f.order);
    if (f.order >= siblings.length || taken) delete f.order;
  }
  return folders;
}

export function buildDesired(w: DesiredWorld, actual: ActualState): DesiredState {
  const claimedFolders = new Set<string>();
  const folders: DesiredFolder[] = [];
  for (const [name, parent, idPick, order] of w.folders) {
    const parentPath = parent < folders.length ? folders[parent].path : [];
    const path = [...parentPath, pick(NAMES, name)];
    if (folders.some((f) => f.path.join('/') === path.join('/'))) continue;
    const dir = `cases/${path.join('/')}`;
    const f: DesiredFolder = { path, name: path[path.length - 1], dir };
    if (idPick !== null && actual.folders.length > 0) {
      const remote = pick(actual.folders, idPick);
      if (!claimedFolders.has(remote.id)) {
        claimedFolders.add(remote.id);
        f.id = remote.id;
        f.file = `${dir}/_folder.yaml`;
      }
    }
    if (order !== null) {
      f.order = order;
      f.file = `${dir}/_folder.yaml`;
    }
    folders.push(f);
  }
  keepPossibleOrders(folders);
  const claimedGroups = new Set<string>();
  const stepGroups: DesiredStepGroup[] = [];
  for (const [title, steps, idPick] of w.groups) {
    const t = `group ${pick(TITLES, title)}`;
    if (stepGroups.some((g) => g.title === t)) continue;
    const key = `g${stepGroups.length}`;
    const g = desiredGroup(key, t, Array.from({ length: steps }, (_, k) => [`${key} step ${k}`, k % 2 ? 'ok' : ''] as [string, string]));
    if (idPick !== null && actual.stepGroups.length > 0) {
      const remote = pick(actual.stepGroups, idPick);
      if (!claimedGroups.has(remote.id)) {
        claimedGroups.add(remote.id);
        g.id = remote.humanId;
      }
    }
    stepGroups.push(g);
  }
  const claimedCases = new Set<string>();
  const cases: DesiredCase[] = [];
  if (folders.length > 0) {
    for (const [folder, title, idPick, f] of w.cases) {
      const path = pick(folders, folder).path;
      const t = pick(TITLES, title);
      const file = `cases/${path.join('/')}/${t}-${cases.length}.yaml`;
      let id: string | undefined;
      if (idPick !== null && actual.cases.length > 0) {
        const remote = pick(actual.cases, idPick);
        if (!claimedCases.has(remote.id)) {
          claimedCases.add(remote.id);
          id = remote.humanId;
        }
      }
      // two files without id and the same folder and title would be an (intended) identity error
      if (id === undefined && cases.some((c) => c.id === undefined && c.title === t && c.folderPath.join('/') === path.join('/'))) continue;
      const fields: DesiredCase['fields'] = {};
      const given = (i: number) => f[i] !== null;
      const v = (i: number) => f[i] ?? 0;
      if (given(0)) fields.description = pick(TEXTS, v(0));
      if (given(1)) fields.preconditions = pick(TEXTS, v(1));
      if (given(2)) fields.type = pick(LOOKUPS.types, v(2)).name;
      if (given(3)) fields.status = pick(LOOKUPS.statuses, v(3)).name.toLowerCase();
      if (given(4)) fields.priority = pick(LOOKUPS.priorities, v(4)).id;
      if (given(5)) fields.automationType = pick(LOOKUPS.automationTypes, v(5)).name;
      if (given(6)) fields.owner = pick(USERS, v(6)).email;
      if (given(7)) fields.reviewer = pick(USERS, v(7)).email;
      if (given(8)) fields.labels = v(8) % 2 ? [LABELS[v(8) % 2].name] : [];
      if (given(9)) {
        if (v(9) % 3 === 0) fields.stepsText = pick(TEXTS, v(9));
        else {
          const steps: DesiredStep[] = [{ kind: 'step', action: 'a step', expected: pick(TEXTS, v(9)) }];
          if (given(10) && stepGroups.length > 0) steps.unshift({ kind: 'use', use: pick(stepGroups, v(10)).key });
          else if (given(10) && actual.stepGroups.length > 0) steps.push({ kind: 'use', use: pick(actual.stepGroups, v(10)).humanId });
          fields.steps = steps;
        }
      }
      if (given(11) && v(11) % 2) fields.template = fields.stepsText !== undefined ? 'TCD' : 'STEPS';
      cases.push({ file, folderPath: path, ...(id ? { id } : {}), title: t, fields, lines: LINES });
    }
  }
  return desiredState({ folders, cases, stepGroups });
}
