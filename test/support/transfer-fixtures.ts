import type { ActualState, RemoteCase, RemoteFolder, RemoteStepGroup } from '../../src/model.js';

/** Folder ids must be uuids (the repository format checks them). */
export const F: Record<string, string> = Object.fromEntries(
  ['f-auth', 'f-check', 'f-pay', 'f-slash', 'f-dot', 'f-case1', 'f-case2'].map((n, i) => [n, `00000000-0000-4000-8000-${String(i + 1).padStart(12, '0')}`]),
);

/** A hand-made project for the pure transfer functions: every id is readable. */
export function fixtureState(): ActualState {
  const folders: RemoteFolder[] = [
    { id: F['f-auth'], name: 'Authentication', parentId: null, order: 0 },
    { id: F['f-check'], name: 'Checkout', parentId: null, order: 1 },
    { id: F['f-pay'], name: 'Payments', parentId: F['f-check'], order: 0 },
    { id: F['f-slash'], name: 'In: Out?', parentId: F['f-check'], order: 1 },
    { id: F['f-dot'], name: '.hidden', parentId: F['f-check'], order: 2 },
    { id: F['f-case1'], name: 'Mixed', parentId: null, order: 2 },
    { id: F['f-case2'], name: 'mixed', parentId: null, order: 3 },
  ];
  const stepGroups: RemoteStepGroup[] = [
    {
      id: 'g-login',
      humanId: 'SHOP-SG-1',
      title: 'Log in as admin',
      description: 'Signs in.',
      labelIds: ['l-auth'],
      steps: [
        { id: 's1', description: 'Open /login', expected: 'The form shows', order: 1 },
        { id: 's2', description: 'Sign in', expected: 'The dashboard shows', order: 2 },
      ],
      createdAt: 1,
      updatedAt: 1,
    },
    {
      id: 'g-login2',
      humanId: 'SHOP-SG-2',
      title: 'Log in as admin',
      description: '',
      steps: [{ id: 's3', description: 'Other', expected: '', order: 1 }],
      createdAt: 2,
      updatedAt: 2,
    },
  ];
  const base = (over: Partial<RemoteCase> & Pick<RemoteCase, 'id' | 'humanId' | 'title' | 'folderId'>): RemoteCase => ({
    description: '',
    preconditions: '',
    templateType: 'STEPS',
    steps: '',
    expectedResults: '',
    typeId: 't-func',
    statusId: 'st-draft',
    priorityId: 'p-med',
    automationTypeId: 'a-no',
    ownerId: 'u-ana',
    reviewerId: '',
    labelIds: [],
    individualSteps: [],
    createdAt: 10,
    updatedAt: 10,
    ...over,
  });
  const cases: RemoteCase[] = [
    base({
      id: 'c-1',
      humanId: 'SHOP-1',
      title: 'Valid login',
      folderId: F['f-auth'],
      description: 'Line one\nLine two',
      labelIds: ['l-smoke', 'l-auth'],
      reviewerId: 'u-ben',
      individualSteps: [
        { id: 'x1', description: 'Open /login', expected: 'The form shows', order: 1, stepType: 'DEFAULT', stepGroupId: 'g-login' },
        { id: 'x2', description: 'Sign in', expected: 'The dashboard shows', order: 2, stepType: 'DEFAULT', stepGroupId: 'g-login' },
        { id: 'x3', description: 'Log out', expected: '', order: 3, stepType: 'DEFAULT', stepGroupId: null },
      ],
    }),
    base({ id: 'c-2', humanId: 'SHOP-2', title: 'Valid login', folderId: F['f-auth'], createdAt: 11 }),
    base({
      id: 'c-3',
      humanId: 'SHOP-3',
      title: 'yes',
      folderId: F['f-pay'],
      templateType: 'TCD',
      steps: 'Pay: now\n- with card',
      expectedResults: 'null',
      typeId: 't-dup-b',
    }),
    base({ id: 'c-4', humanId: 'SHOP-4', title: 'Ünïcödé — 日本語のテスト: "quoted" #hash', folderId: F['f-slash'] }),
    base({
      id: 'c-5',
      humanId: 'SHOP-5',
      title: 'Edited group steps',
      folderId: F['f-pay'],
      individualSteps: [
        { id: 'y1', description: 'Open /login', expected: 'changed', order: 1, stepType: 'DEFAULT', stepGroupId: 'g-login' },
      ],
    }),
    base({
      id: 'c-6',
      humanId: 'SHOP-6',
      title: 'Twice',
      folderId: F['f-dot'],
      individualSteps: [1, 2, 3, 4].map((n) => ({
        id: `z${n}`,
        description: n % 2 ? 'Open /login' : 'Sign in',
        expected: n % 2 ? 'The form shows' : 'The dashboard shows',
        order: n,
        stepType: 'DEFAULT',
        stepGroupId: 'g-login',
      })),
    }),
    base({ id: 'c-7', humanId: 'SHOP-7', title: 'CON', folderId: F['f-case1'] }),
  ];
  return {
    project: { id: 'p-1', name: 'Shop', humanIdPrefix: 'SHOP' },
    folders,
    cases,
    stepGroups,
    testPlans: [],
    lookups: {
      types: [
        { id: 't-func', name: 'Functional', alias: 'functional' },
        { id: 't-dup-a', name: 'Smoke', alias: 'smoke' },
        { id: 't-dup-b', name: 'smoke', alias: 'smoke2' },
      ],
      statuses: [{ id: 'st-draft', name: 'Draft' }],
      priorities: [{ id: 'p-med', name: 'Medium' }],
      automationTypes: [{ id: 'a-no', name: 'Not Automated' }],
      runStatuses: [{ id: 'r-pass', name: 'Passed' }],
    },
    users: [
      { id: 'u-ana', email: 'ana@example.com' },
      { id: 'u-ben', email: 'ben@example.com' },
    ],
    labels: [
      { id: 'l-smoke', name: 'smoke' },
      { id: 'l-auth', name: 'auth' },
    ],
    labelsReadable: true,
  };
}
