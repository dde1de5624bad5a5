import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadRepository } from '../../src/repository/index.js';
import { makeRepo } from './helpers.js';

const PRODUCT_EXAMPLE: Record<string, string> = {
  'tmsync.yaml': 'project: SHOP\ndefaults:\n  type: Functional\n  automation_type: Not Automated\n',
  'cases/Authentication/_folder.yaml': 'id: 0f8fad5b-d9cb-469f-a165-70867728950e\norder: 2\n',
  'cases/Authentication/valid-login.yaml': 'id: SHOP-3\ntitle: Valid login\n',
  'cases/Checkout/Payments/saved-card.yaml': `# yaml-language-server: $schema=../../../node_modules/tmsync/schemas/test-case.schema.json
id: SHOP-12
title: Pay with a saved card
description: Checkout with a card stored on the account.
preconditions: The user has a saved Visa card.
type: Functional
status: Ready
priority: High
automation_type: Automated
owner: ana@example.com
reviewer: ben@example.com
labels: [smoke, payments]
steps:
  - use: login-as-admin
  - action: Open the checkout page
    expected: The saved card is preselected
  - action: Press "Pay"
`,
  'cases/Checkout/Payments/free-text.yml': 'title: Free text\nsteps: |\n  1. open\n  2. pay\nexpected_results: paid\n',
  'cases/Checkout/_folder.yaml': 'name: "Check: out?"\n',
  'cases/Checkout/README.md': 'not a case',
  'cases/Checkout/.hidden.yaml': 'not: parsed',
  'step_groups/login-as-admin.yaml':
    'id: SHOP-SG-3\ntitle: Log in as admin\ndescription: Signs in.\nlabels: [auth]\nsteps:\n  - action: Open /login\n    expected: The login form shows\n',
};

async function load(files: Record<string, string>) {
  const dir = await makeRepo(files);
  const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
  return { dir, ...(await loadRepository(root, config)) };
}

describe('loadRepository', () => {
  it('builds the normalized desired state of the product example', async () => {
    const { dir, state, problems } = await load(PRODUCT_EXAMPLE);
    expect(problems).toEqual([]);
    expect(state.root).toBe(dir);
    expect(state.casesDir).toBe('cases');
    expect(state.stepGroupsDir).toBe('step_groups');
    expect(state.defaults).toEqual({ type: 'Functional', automationType: 'Not Automated' });
    expect(state.folders).toEqual([
      {
        path: ['Authentication'],
        name: 'Authentication',
        dir: 'cases/Authentication',
        id: '0f8fad5b-d9cb-469f-a165-70867728950e',
        order: 2,
        file: 'cases/Authentication/_folder.yaml',
      },
      { path: ['Check: out?'], name: 'Check: out?', dir: 'cases/Checkout', file: 'cases/Checkout/_folder.yaml' },
      { path: ['Check: out?', 'Payments'], name: 'Payments', dir: 'cases/Checkout/Payments' },
    ]);
    expect(state.cases.map((c) => c.file)).toEqual([
      'cases/Authentication/valid-login.yaml',
      'cases/Checkout/Payments/free-text.yml',
      'cases/Checkout/Payments/saved-card.yaml',
    ]);
    const saved = state.cases[2];
    expect(saved).toEqual({
      file: 'cases/Checkout/Payments/saved-card.yaml',
      folderPath: ['Check: out?', 'Payments'],
      id: 'SHOP-12',
      title: 'Pay with a saved card',
      fields: {
        description: 'Checkout with a card stored on the account.',
        preconditions: 'The user has a saved Visa card.',
        template: 'STEPS',
        type: 'Functional',
        status: 'Ready',
        priority: 'High',
        automationType: 'Automated',
        owner: 'ana@example.com',
        reviewer: 'ben@example.com',
        labels: ['smoke', 'payments'],
        steps: [
          { kind: 'use', use: 'login-as-admin', source: { file: saved.file, line: 14, col: 5 } },
          { kind: 'step', action: 'Open the checkout page', expected: 'The saved card is preselected' },
          { kind: 'step', action: 'Press "Pay"', expected: '' },
        ],
      },
      lines: {
        id: 2,
        title: 3,
        description: 4,
        preconditions: 5,
        type: 6,
        status: 7,
        priority: 8,
        automation_type: 9,
        owner: 10,
        reviewer: 11,
        labels: 12,
        steps: 13,
      },
    });
    expect(state.cases[1].fields).toEqual({ template: 'TCD', stepsText: '1. open\n2. pay\n', expectedResults: 'paid' });
    expect(state.stepGroups).toEqual([
      {
        key: 'login-as-admin',
        file: 'step_groups/login-as-admin.yaml',
        id: 'SHOP-SG-3',
        title: 'Log in as admin',
        description: 'Signs in.',
        labels: ['auth'],
        steps: [
          {
            action: 'Open /login',
            expected: 'The login form shows',
            source: { file: 'step_groups/login-as-admin.yaml', line: 6, col: 5 },
          },
        ],
        lines: { id: 1, title: 2, description: 3, labels: 4, steps: 5 },
      },
    ]);
    expect(state.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes contentHash when a file changes and keeps it for an identical copy elsewhere', async () => {
    const a = await load(PRODUCT_EXAMPLE);
    const b = await load(PRODUCT_EXAMPLE);
    expect(b.state.contentHash).toBe(a.state.contentHash);
    await writeFile(join(a.dir, 'cases/Authentication/valid-login.yaml'), 'id: SHOP-3\ntitle: Valid login!\n');
    const { config, root } = await loadConfig(join(a.dir, 'tmsync.yaml'));
    const again = await loadRepository(root, config);
    expect(again.state.contentHash).not.toBe(a.state.contentHash);
  });

  it('leaves folders outside scope out of the state and loads the folders in scope', async () => {
    const { state, problems } = await load({
      ...PRODUCT_EXAMPLE,
      'tmsync.yaml': 'project: SHOP\nscope: [Authentication]\n',
    });
    expect(state.scope).toEqual(['Authentication']);
    expect(state.folders.map((f) => f.path)).toEqual([['Authentication']]);
    expect(state.cases.map((c) => c.title)).toEqual(['Valid login']);
    expect(problems.map((p) => [p.code, p.severity])).toEqual([['outside_scope', 'warning']]);
  });

  it('ignores broken _folder.yaml files below a folder outside scope but not the top-level one that decides scope', async () => {
    const { problems } = await load({
      'tmsync.yaml': 'project: SHOP\nscope: [A]\n',
      'cases/A/a.yaml': 'title: A\n',
      'cases/Old/_folder.yaml': 'nme: A\n',
      'cases/Old/Sub/_folder.yaml': 'order: first\n',
      'cases/Old/Sub/x.yaml': 'title: X\n',
    });
    expect(problems.map((p) => `${p.file} ${p.code}`)).toEqual([
      'cases/Old/Sub/x.yaml outside_scope',
      'cases/Old/_folder.yaml unknown_key',
    ]);
  });

  it('with a path scope, loads the files under that subtree and its parent folders, and warns for files elsewhere, siblings under the same parent included', async () => {
    const { state, problems } = await load({
      'tmsync.yaml': 'project: SHOP\nscope: [Checkout/Payments]\n',
      'cases/Checkout/_folder.yaml': 'id: 6f1c2a0e-8b1d-4c3e-9f00-0000000000c0\norder: 1\n',
      'cases/Checkout/cart.yaml': 'title: Cart\n',
      'cases/Checkout/Payments/card.yaml': 'title: Card\n',
      'cases/Checkout/Payments/Old/cheque.yaml': 'title: Cheque\n',
      'cases/Checkout/Other/_folder.yaml': 'order: many\n',
      'cases/Checkout/Other/x.yaml': 'title: X\n',
      'cases/Checkout/Other/Deep/y.yaml': 'title: Y\n',
      'cases/Auth/login.yaml': 'title: Login\n',
    });
    expect(state.scope).toEqual(['Checkout/Payments']);
    expect(state.folders.map((f) => f.path.join('/'))).toEqual(['Checkout', 'Checkout/Payments', 'Checkout/Payments/Old']);
    expect(state.folders[0]).toMatchObject({ id: '6f1c2a0e-8b1d-4c3e-9f00-0000000000c0', order: 1 });
    expect(state.cases.map((c) => c.title).sort()).toEqual(['Card', 'Cheque']);
    // the sibling's broken _folder.yaml decides nothing (its name is the directory's), but it is the
    // topmost folder outside scope, so its problem is still shown, as for a top-level one
    expect(problems.map((p) => `${p.file} ${p.code} ${p.severity ?? 'error'}`)).toEqual([
      'cases/Auth/login.yaml outside_scope warning',
      'cases/Checkout/Other/_folder.yaml wrong_type error',
      'cases/Checkout/Other/x.yaml outside_scope warning',
      'cases/Checkout/cart.yaml outside_scope warning',
    ]);
    const other = problems.find((p) => p.file === 'cases/Checkout/Other/x.yaml')!;
    expect(other.message).toBe('folder `Checkout/Other` (cases/Checkout/Other) is outside `scope` (Checkout/Payments): its 2 test case files are not managed');
    expect(other.hint).toBe('add `Checkout/Other` to `scope` in tmsync.yaml to manage it');
    expect(problems.find((p) => p.file === 'cases/Checkout/cart.yaml')!.message).toBe(
      'folder `Checkout` (cases/Checkout) only holds folders of `scope` (Checkout/Payments): its own 1 test case file is not managed',
    );
  });

  it('keeps the valid cases of a repository when other files have problems', async () => {
    const { state, problems } = await load({
      'tmsync.yaml': 'project: SHOP\n',
      'cases/A/good.yaml': 'title: Good\n',
      'cases/A/bad.yaml': 'title: [\n',
    });
    expect(state.cases.map((c) => c.title)).toEqual(['Good']);
    expect(problems.map((p) => p.file)).toEqual(['cases/A/bad.yaml']);
  });

  it('lists nested folders parents first even when a child sorts before its parent', async () => {
    const { state } = await load({
      'tmsync.yaml': 'project: SHOP\n',
      'cases/B/A/x.yaml': 'title: x\n',
      'cases/A/x.yaml': 'title: x\n',
      'cases/B/A/C/x.yaml': 'title: x\n',
    });
    const paths = state.folders.map((f) => f.path.join('/'));
    expect(paths).toEqual(['A', 'B', 'B/A', 'B/A/C']);
    for (const f of state.folders) {
      const parent = f.path.slice(0, -1).join('/');
      if (parent) expect(paths.indexOf(parent)).toBeLessThan(paths.indexOf(f.path.join('/')));
    }
  });
});

describe('a large repository held compactly (issue 15)', () => {
  it('gives files written alike one lines record, and every case the lines of its own file', async () => {
    const { state, problems } = await load({
      'tmsync.yaml': 'project: SHOP\n',
      'cases/A/one.yaml': 'title: One\npriority: High\n',
      'cases/A/two.yaml': 'title: Two\npriority: Low\n',
      'cases/B/three.yaml': '# a comment first\ntitle: Three\npriority: High\n',
      'cases/B/four.yaml': 'title: Four\n\npriority: High\n',
    });
    expect(problems).toEqual([]);
    const lines = Object.fromEntries(state.cases.map((c) => [c.title, c.lines]));
    expect(lines).toEqual({ One: { title: 1, priority: 2 }, Two: { title: 1, priority: 2 }, Three: { title: 2, priority: 3 }, Four: { title: 1, priority: 3 } });
    expect(lines.One).toBe(lines.Two);
    expect(lines.Three).not.toBe(lines.One);
  });

  it('keeps every text of a file that holds characters past Latin-1 as written', async () => {
    const { state, problems } = await load({
      'tmsync.yaml': 'project: SHOP\n',
      'cases/A/wide.yaml':
        'title: Pay by card\ndescription: "Pays, café ✓"\npreconditions: Signed in, naïve\nlabels: [smoke, ✓ok]\nsteps:\n  - action: Open the page\n    expected: It shows ✓\n  - action: Press Pay\n  - use: login\n',
      'step_groups/login.yaml': 'title: Log in ✓\nsteps:\n  - action: Open /login\n',
    });
    expect(problems).toEqual([]);
    expect(state.cases[0]).toMatchObject({
      title: 'Pay by card',
      fields: {
        description: 'Pays, café ✓',
        preconditions: 'Signed in, naïve',
        labels: ['smoke', '✓ok'],
        steps: [
          { kind: 'step', action: 'Open the page', expected: 'It shows ✓' },
          { kind: 'step', action: 'Press Pay', expected: '' },
          { kind: 'use', use: 'login', source: { file: 'cases/A/wide.yaml', line: 9, col: 5 } },
        ],
      },
    });
  });

  it('keeps the position of a `use:` step only, where the rules and the plan report, and exact', async () => {
    const { state } = await load({
      'tmsync.yaml': 'project: SHOP\n',
      'step_groups/login.yaml': 'title: Log in\nsteps:\n  - action: Open /login\n',
      'cases/A/one.yaml': 'title: One\nsteps:\n  # first\n  - action: Open\n\n  -   use: login\n  - action: Close\n    expected: Closed\n',
    });
    expect(state.cases[0].fields.steps).toStrictEqual([
      { kind: 'step', action: 'Open', expected: '' },
      { kind: 'use', use: 'login', source: { file: 'cases/A/one.yaml', line: 6, col: 7 } },
      { kind: 'step', action: 'Close', expected: 'Closed' },
    ]);
  });
});
