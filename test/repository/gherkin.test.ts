import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DesiredCase } from '../../src/model.js';
import { editFeatureText, featureDocument } from '../../src/repository/gherkin-edit.js';
import { GHERKIN_DEFAULTS, gherkinOptions, type GherkinOptions } from '../../src/repository/gherkin-options.js';
import { parseFeatureFile } from '../../src/repository/gherkin-parse.js';
import { loadConfig, loadRepository } from '../../src/repository/index.js';
import { makeRepo } from './helpers.js';
import { fileWriteBack, pendingWriteBacks, readWrittenId } from '../../src/apply/write-back.js';
import type { JournalSummary } from '../../src/apply/journal.js';
import { buildPlan } from '../../src/plan/index.js';
import { actualState, remoteCase, remoteFolder } from '../plan/builders.js';
import { pullIntoRepository } from '../../src/pull/index.js';

const FIXTURES = join(import.meta.dirname, '../fixtures/gherkin');
const fixture = (name: string) => readFile(join(FIXTURES, name), 'utf8');

function parse(text: string, options: Partial<GherkinOptions> = {}, file = 'cases/Shop/cart.feature') {
  return parseFeatureFile(file, text, { ...GHERKIN_DEFAULTS, ...options });
}
function cases(text: string, options: Partial<GherkinOptions> = {}): DesiredCase[] {
  const r = parse(text, options);
  expect(r.problems).toEqual([]);
  return r.parsed!.cases.map((c) => c.item);
}
const steps = (c: DesiredCase) => c.fields.steps!.map((s) => (s.kind === 'use' ? { use: s.use } : { action: s.action, expected: s.expected }));

describe('parsing .feature files into cases', () => {
  it('maps scenarios, the background, tags, doc strings, data tables (escaped pipes), outlines and rules', async () => {
    const r = parse(await fixture('cart.feature'));
    expect(r.problems).toEqual([]);
    const [add, remove, outline] = r.parsed!.cases;
    expect(add.item).toMatchObject({ at: '1', title: 'Add an item', fields: { labels: ['smoke', 'regression', 'wip'], description: 'As a shopper I keep what I want to buy in a cart.' } });
    expect(add.folders).toEqual(['Cart']);
    expect(steps(add.item)).toEqual([
      { use: 'cases/Shop/cart' },
      {
        action: 'When I add "socks" to the cart\n```json\n{"sku": "SOCK-1", "qty": 1}\n```',
        expected: 'Then the cart holds:\n| item | note |\n| --- | --- |\n| socks | blue \\| green |\nAnd the total is 5.00',
      },
    ]);
    // the name is trimmed; Given, When, Then each where they belong
    expect(remove.item.title).toBe('Remove the last item');
    expect(steps(remove.item).slice(1)).toEqual([
      { action: 'Given the cart holds "socks"', expected: '' },
      { action: 'When I remove "socks"', expected: 'Then the cart is empty' },
    ]);
    // an outline is one case: placeholders kept, the examples in the description; its rule a folder level
    expect(outline.item.title).toBe('Buy <n> items');
    expect(outline.folders).toEqual(['Cart', 'Discounts']);
    expect(outline.item.fields.description).toContain('Examples:\n\n| n | price |\n| --- | --- |\n| 1 | 10.00 |\n| 3 | 27.00 |');
    expect(steps(outline.item).slice(1)).toEqual([{ action: 'When I buy <n> items', expected: 'Then I pay <price>' }]);
    expect(r.parsed!.stepGroups.map((g) => ({ key: g.item.key, at: g.item.at, title: g.item.title, steps: g.item.steps.map((s) => s.action) }))).toEqual([
      { key: 'cases/Shop/cart', at: 'background', title: 'Background: Cart', steps: ['Given a signed-in shopper', 'And an empty cart'] },
    ]);
  });

  it('reads every language Gherkin has, CRLF, tabs and emoji', async () => {
    const [fr] = cases(await fixture('paiement.feature'));
    expect(fr.title).toBe('Payer par carte');
    expect(steps(fr).slice(1)).toEqual([{ action: 'Quand je paie par carte', expected: 'Alors la commande est confirmée\nEt je reçois un e-mail' }]);
    const [ja] = cases(await fixture('rireki.feature'));
    expect(ja.title).toBe('履歴を見る');
    expect(steps(ja)).toEqual([
      { action: '前提ログインしている', expected: '' },
      { action: 'もし履歴を開く', expected: 'ならば注文が並ぶ 📦' },
    ]);
    const de = cases('# language: de\nFunktionalität: Warenkorb\n  Szenario: Leeren\n    Angenommen ein voller Warenkorb\n    Wenn ich ihn leere\n    Dann ist er leer\n');
    expect(de[0]).toMatchObject({ title: 'Leeren', folderPath: [] });
    expect(steps(de[0])).toEqual([
      { action: 'Angenommen ein voller Warenkorb', expected: '' },
      { action: 'Wenn ich ihn leere', expected: 'Dann ist er leer' },
    ]);
  });

  it('follows the options: expected none, background as preconditions, outlines expanded, rules as labels, tag fields, the id tag prefix, folders', async () => {
    const text = await fixture('cart.feature');
    const none = cases(text, { expected: 'none' });
    expect(steps(none[1]).slice(1).map((s) => 'expected' in s && s.expected)).toEqual(['', '', '']);
    const pre = cases(text, { background: 'preconditions' });
    expect(pre[0].fields.preconditions).toBe('Given a signed-in shopper\nAnd an empty cart');
    expect(steps(pre[0])[0]).not.toHaveProperty('use');
    const expanded = cases(text, { outlines: 'expand', rule: 'label', folder: 'none' });
    expect(expanded.slice(2).map((c) => ({ at: c.at, title: c.title, steps: steps(c).slice(1), labels: c.fields.labels }))).toEqual([
      { at: '3.1', title: 'Buy <n> items (1)', steps: [{ action: 'When I buy 1 items', expected: 'Then I pay 10.00' }], labels: ['smoke', 'Discounts'] },
      { at: '3.2', title: 'Buy <n> items (3)', steps: [{ action: 'When I buy 3 items', expected: 'Then I pay 27.00' }], labels: ['smoke', 'Discounts'] },
    ]);
    const byPrice = cases(text, { outlines: 'expand', outlineTitleColumn: 'price' });
    expect(byPrice[3].title).toBe('Buy <n> items (27.00)');
    const tagged = cases('@type:Regression\nFeature: F\n  @priority:High @tc:SHOP-4 @SHOP-5\n  Scenario: S\n    Given x\n', { tagFields: { priority: 'priority', 'type:': 'type' }, idTagPrefix: 'tc:' });
    expect(tagged[0]).toMatchObject({ id: 'SHOP-4', fields: { priority: 'High', type: 'Regression', labels: ['SHOP-5'] } });
    expect(parse(text, { folder: 'stem' }).parsed!.cases[0].folders).toEqual(['cart']);
    expect(parse(text, { folder: 'none', rule: 'none' }).parsed!.cases[2].folders).toEqual([]);
    expect(gherkinOptions({ unknown_tags: 'error' }).unknownTags).toBe('error');
    expect(cases(text, { unknownTags: 'error' })[0].softLabels).toBeUndefined();
    expect(cases(text)[0].softLabels).toBe(true);
  });

  it('reports a malformed file at file:line:col with the parser\'s message, and an untitled scenario or two ids', () => {
    const bad = parse('Feature: F\n  Scenario: S\n    Given x\n  this is not gherkin\n');
    expect(bad.parsed).toBeUndefined();
    expect(bad.problems).toEqual([
      expect.objectContaining({ file: 'cases/Shop/cart.feature', line: 4, col: 3, code: 'invalid_gherkin', message: expect.stringMatching(/^expected: .*got 'this is not gherkin'$/) }),
    ]);
    const untitled = parse('Feature: F\n  Scenario:\n    Given x\n');
    expect(untitled.problems).toEqual([expect.objectContaining({ line: 2, col: 3, code: 'missing_title' })]);
    const twice = parse('Feature: F\n  @SHOP-1 @SHOP-2\n  Scenario: S\n    Given x\n');
    expect(twice.problems).toEqual([expect.objectContaining({ line: 2, col: 11, code: 'duplicate_id_tag' })]);
    // comments only: no cases, no problem
    expect(parse('# nothing yet\n')).toEqual({ parsed: { cases: [], stepGroups: [] }, problems: [] });
  });
});

describe('editing .feature files in place', () => {
  it('writes id tags: appended to a tag line, or a line of its own with the scenario\'s indentation (tabs, CRLF), the feature\'s for the background', async () => {
    const text = await fixture('cart.feature');
    let t = editFeatureText(text, { id: 'SHOP-1' }, '1');
    t = editFeatureText(t, { id: 'SHOP-2' }, '2');
    t = editFeatureText(t, { id: 'SHOP-3' }, '3');
    t = editFeatureText(t, { id: 'SHOP-SG-1' }, 'background');
    expect(t).toBe(
      text
        .replace('@smoke\n', '@smoke @SHOP-SG-1\n')
        .replace('  @regression @wip\n', '  @regression @wip @SHOP-1\n')
        .replace('  Scenario:   Remove', '  @SHOP-2\n  Scenario:   Remove')
        .replace('    Scenario Outline', '    @SHOP-3\n    Scenario Outline'),
    );
    expect(featureDocument(t, '2')).toMatchObject({ id: 'SHOP-2', title: 'Remove the last item' });
    expect(featureDocument(t, 'background')).toMatchObject({ id: 'SHOP-SG-1' });
    // an id changed is replaced where it is
    expect(editFeatureText(t, { id: 'SHOP-9' }, '2')).toBe(t.replace('@SHOP-2', '@SHOP-9'));
    const fr = await fixture('paiement.feature');
    expect(editFeatureText(fr, { id: 'SHOP-4' }, '1')).toBe(fr.replace('  Scénario:', '  @SHOP-4\r\n  Scénario:'));
    const ja = await fixture('rireki.feature');
    expect(editFeatureText(ja, { id: 'SHOP-5' }, '1', { ...GHERKIN_DEFAULTS, idTagPrefix: 'tc:' })).toBe(ja.replace('\tシナリオ', '\t@tc:SHOP-5\n\tシナリオ'));
    // a last line without a line ending keeps lacking one
    expect(editFeatureText('Feature: F\n  Scenario: S', { id: 'SHOP-6' }, '1')).toBe('Feature: F\n  @SHOP-6\n  Scenario: S');
  });

  it('writes an expanded row\'s id into the id column, adding the column once', async () => {
    const text = await fixture('cart.feature');
    const options = { ...GHERKIN_DEFAULTS, outlines: 'expand' as const };
    let t = editFeatureText(text, { id: 'SHOP-7' }, '3.2', options);
    expect(t).toContain('        | n | price | tc_id |\n        | 1 | 10.00 |  |\n        | 3 | 27.00 | SHOP-7 |\n');
    t = editFeatureText(t, { id: 'SHOP-8' }, '3.1', options);
    expect(t).toContain('        | 1 | 10.00 | SHOP-8 |\n');
    const r = parseFeatureFile('cases/Shop/cart.feature', t, options);
    expect(r.parsed!.cases.slice(2).map((c) => [c.item.id, c.item.title, steps(c.item)[1]])).toEqual([
      ['SHOP-8', 'Buy <n> items (1)', { action: 'When I buy 1 items', expected: 'Then I pay 10.00' }],
      ['SHOP-7', 'Buy <n> items (3)', { action: 'When I buy 3 items', expected: 'Then I pay 27.00' }],
    ]);
  });

  it('renames a scenario and rewrites only the steps that changed, in the file\'s language, with doc strings and tables', async () => {
    const text = await fixture('cart.feature');
    const doc = featureDocument(text, '1', GHERKIN_DEFAULTS, 'cases/Shop/cart.feature')!;
    const s = doc.steps as Record<string, string>[];
    const changed = [s[0], { action: 'When I add "shoes" to the cart\n```\n{"sku": "SHOE-1"}\n```', expected: 'Then the cart holds:\n| item | note |\n| --- | --- |\n| shoes | a \\| b |\nthe total is 9.00' }];
    const t = editFeatureText(text, { title: 'Add shoes', steps: changed }, '1');
    expect(t).toBe(
      text.replace('Scenario: Add an item', 'Scenario: Add shoes').replace(
        '    When I add "socks" to the cart\n      """json\n      {"sku": "SOCK-1", "qty": 1}\n      """\n    Then the cart holds:\n      | item  | note          |\n      | socks | blue \\| green |\n    And the total is 5.00\n',
        '    When I add "shoes" to the cart\n      """\n      {"sku": "SHOE-1"}\n      """\n    Then the cart holds:\n      | item  | note   |\n      | shoes | a \\| b |\n    And the total is 9.00\n',
      ),
    );
    // read back, the same steps (a line without a keyword got the language's)
    expect(featureDocument(t, '1', GHERKIN_DEFAULTS, 'cases/Shop/cart.feature')!.steps).toEqual([s[0], { ...changed[1], expected: changed[1].expected.replace('\nthe total', '\nAnd the total') }]);
    const fr = await fixture('paiement.feature');
    const frSteps = featureDocument(fr, '1', GHERKIN_DEFAULTS, 'cases/Shop/paiement.feature')!.steps as Record<string, string>[];
    const more = [...frSteps, { action: 'je me déconnecte', expected: 'je suis déconnecté' }];
    expect(editFeatureText(fr, { steps: more }, '1')).toBe(`${fr}    Quand je me déconnecte\r\n    Alors je suis déconnecté\r\n`);
  });

  it('leaves a file it cannot parse alone with a clear error', () => {
    expect(() => editFeatureText('Feature: F\n  Scenario: S\n    Given x\n  this is not gherkin\n', { id: 'SHOP-1' }, '1', GHERKIN_DEFAULTS, 'cases/x.feature')).toThrow(/cannot update cases\/x.feature/);
  });
});

describe('a repository of YAML and .feature files', () => {
  it('loads both, with the feature\'s folder levels and its background as a step group; options from tmsync.yaml', async () => {
    const dir = await makeRepo({
      'tmsync.yaml': 'project: SHOP\ngherkin:\n  folder: stem\n  rule: label\n',
      'cases/Shop/legacy.yaml': await fixture('legacy.yaml'),
      'cases/Shop/cart.feature': await fixture('cart.feature'),
      'cases/Shop/broken.feature': 'Feature: B\n  Scenario: S\n    Given x\n  this is not gherkin\n',
    });
    const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
    const { state, problems } = await loadRepository(root, config);
    expect(problems).toEqual([expect.objectContaining({ file: 'cases/Shop/broken.feature', line: 4, col: 3, code: 'invalid_gherkin' })]);
    expect(state.folders.map((f) => [f.path.join('/'), f.inFile ?? null])).toEqual([
      ['Shop', null],
      ['Shop/cart', 'cases/Shop/cart.feature'],
    ]);
    expect(state.cases.map((c) => [c.file, c.at ?? null, c.folderPath.join('/'), c.title])).toEqual([
      ['cases/Shop/cart.feature', '1', 'Shop/cart', 'Add an item'],
      ['cases/Shop/cart.feature', '2', 'Shop/cart', 'Remove the last item'],
      ['cases/Shop/cart.feature', '3', 'Shop/cart', 'Buy <n> items'],
      ['cases/Shop/legacy.yaml', null, 'Shop', 'Legacy YAML case'],
    ]);
    expect(state.cases[2].fields.labels).toEqual(['smoke', 'Discounts']);
    expect(state.stepGroups.map((g) => [g.key, g.file, g.at])).toEqual([['cases/Shop/cart', 'cases/Shop/cart.feature', 'background']]);
  });
});

describe('feature files through the plan and write-back', () => {
  const FILES = {
    'tmsync.yaml': 'project: SHOP\ndefaults:\n  type: Functional\n  status: Draft\n  priority: Medium\n  automation_type: Not Automated\n  owner: ana@example.com\n',
    'cases/Shop/cart.feature': '@smoke @wip\nFeature: Cart\n  Scenario: One\n    Given a\n  Scenario: Two\n    Given b\n  Scenario: Three\n    Given c\n',
  };

  it('keeps tags that name no label out of the body with one warning, or reports them with unknown_tags: error', async () => {
    const dir = await makeRepo(FILES);
    const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
    const { state } = await loadRepository(root, config);
    const { plan, problems } = buildPlan(state, actualState());
    expect(problems).toEqual([]);
    const creates = plan.operations.filter((op) => op.kind === 'create_case');
    expect(creates.map((op) => op.kind === 'create_case' && [op.writeBack.file, op.body.labelIds])).toEqual([
      ['cases/Shop/cart.feature#1', ['label-smoke']],
      ['cases/Shop/cart.feature#2', ['label-smoke']],
      ['cases/Shop/cart.feature#3', ['label-smoke']],
    ]);
    expect(plan.warnings).toEqual([expect.objectContaining({ code: 'unknown_tags_kept', message: expect.stringContaining('1 tag of 3 scenarios names no label on the service: kept in the files, not sent: @wip (3)') })]);

    const strict = await makeRepo({ ...FILES, 'tmsync.yaml': `${FILES['tmsync.yaml']}gherkin:\n  unknown_tags: error\n` });
    const s = await loadConfig(join(strict, 'tmsync.yaml'));
    const hard = buildPlan((await loadRepository(s.root, s.config)).state, actualState());
    expect(hard.problems.map((p) => [p.file, p.line, p.code])).toEqual([
      ['cases/Shop/cart.feature', 3, 'unknown_label'],
      ['cases/Shop/cart.feature', 5, 'unknown_label'],
      ['cases/Shop/cart.feature', 7, 'unknown_label'],
    ]);
  });

  it('writes the ids of several scenarios of one file at once without losing one, and a resumed run finds which are missing', async () => {
    const dir = await makeRepo(FILES);
    const writeBack = fileWriteBack(dir);
    await Promise.all([writeBack('cases/Shop/cart.feature#1', 'SHOP-1'), writeBack('cases/Shop/cart.feature#3', 'SHOP-3'), writeBack('cases/Shop/cart.feature#2', 'SHOP-2')]);
    const text = await readFile(join(dir, 'cases/Shop/cart.feature'), 'utf8');
    expect(text).toBe('@smoke @wip\nFeature: Cart\n  @SHOP-1\n  Scenario: One\n    Given a\n  @SHOP-2\n  Scenario: Two\n    Given b\n  @SHOP-3\n  Scenario: Three\n    Given c\n');
    expect(await readWrittenId(dir, 'cases/Shop/cart.feature#2')).toBe('SHOP-2');

    const fresh = await makeRepo(FILES);
    await fileWriteBack(fresh)('cases/Shop/cart.feature#2', 'SHOP-2');
    const ids = new Map([1, 2, 3].map((n) => [`create_case:cases/Shop/cart.feature#${n}`, { kind: 'create_case' as const, id: `u${n}`, file: `cases/Shop/cart.feature#${n}`, writeBack: `SHOP-${n}` }]));
    const summary = { pendingCreates: new Set<string>(), exclude: new Map(), ids, done: new Set(ids.keys()) } as unknown as JournalSummary;
    expect((await pendingWriteBacks(summary, fresh)).map((p) => p.file)).toEqual(['cases/Shop/cart.feature#1', 'cases/Shop/cart.feature#3']);
  });
});

describe('pull and feature files', () => {
  it('rewrites a renamed scenario in place and, with gherkin.new_scenarios: feature, appends a case new on the service to its feature', async () => {
    const dir = await makeRepo({
      'tmsync.yaml': 'project: SHOP\ngherkin:\n  new_scenarios: feature\n',
      'cases/Shop/cart.feature': '# cart\nFeature: Cart\n\n  @SHOP-1\n  Scenario: One\n    Given a\n',
    });
    const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
    const step = (description: string, expected: string, order: number) => ({ description, expected, order, stepGroupId: null });
    const actual = actualState({
      folders: [remoteFolder('f1', 'Shop'), remoteFolder('f2', 'Cart', 'f1')],
      cases: [
        remoteCase('SHOP-1', 'One and only', 'f2', { individualSteps: [step('Given a', '', 1)] }),
        remoteCase('SHOP-2', 'Two', 'f2', { individualSteps: [step('When I pay', 'Then it is paid', 1), step('pay again', '', 2)] }),
      ],
    });
    const result = await pullIntoRepository(actual, { root, config, syncFileSystem: async () => false });
    // the directory's folder gets its id as ever; the feature's level and the new case no file
    expect(result.created).toEqual(['cases/Shop/_folder.yaml']);
    expect(await readFile(join(root, 'cases/Shop/cart.feature'), 'utf8')).toBe(
      '# cart\nFeature: Cart\n\n  @SHOP-1\n  Scenario: One and only\n    Given a\n\n  @SHOP-2\n  Scenario: Two\n    When I pay\n    Then it is paid\n    When pay again\n',
    );
    const again = await loadRepository(root, config);
    expect(again.state.cases.map((c) => [c.id, c.at, c.title, c.folderPath.join('/')])).toEqual([
      ['SHOP-1', '1', 'One and only', 'Shop/Cart'],
      ['SHOP-2', '2', 'Two', 'Shop/Cart'],
    ]);
  });
});
