import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadRepository } from '../../src/repository/index.js';
import { loadAutomatedCases } from '../../src/repository/automation-cases.js';
import { makeRepo } from './helpers.js';

const CONFIG = 'project: SHOP\n';

async function load(files: Record<string, string>, exactYaml = false) {
  const dir = await makeRepo({ 'tmsync.yaml': CONFIG, ...files });
  const { config, root } = await loadConfig(join(dir, 'tmsync.yaml'));
  return { root, config, ...(await loadRepository(root, config, { exactYaml })) };
}

describe('automation: in a case file', () => {
  it('is read as written, the fast way and the exact way alike, and never among the fields', async () => {
    const files = {
      'cases/A/pay.yaml': 'id: SHOP-1\ntitle: Pay\nautomation:\n  tests:\n    - com.shop.CheckoutTest.paysWithCard\n    - "checkout.spec.ts > pays with card"\n    - com.shop.Checkout*\n',
      'cases/A/flow.yaml': 'title: Flow\nautomation: { tests: ["a > b"] }\n',
      'cases/A/plain.yaml': 'title: Plain\n',
    };
    for (const exact of [false, true]) {
      const { state, problems } = await load(files, exact);
      expect(problems).toEqual([]);
      const byFile = Object.fromEntries(state.cases.map((c) => [c.file, c]));
      expect(byFile['cases/A/pay.yaml'].automation).toEqual({ tests: ['com.shop.CheckoutTest.paysWithCard', 'checkout.spec.ts > pays with card', 'com.shop.Checkout*'] });
      expect(byFile['cases/A/pay.yaml'].lines.automation).toBe(3);
      expect(byFile['cases/A/flow.yaml'].automation).toEqual({ tests: ['a > b'] });
      expect(byFile['cases/A/plain.yaml'].automation).toBeUndefined();
      expect(Object.keys(byFile['cases/A/pay.yaml'].fields)).not.toContain('automation');
    }
  });

  it('is validated: a list of texts under tests, none empty, each test named by one case (file:line)', async () => {
    const { problems } = await load({
      'cases/A/list.yaml': 'title: A list\nautomation: [com.shop.A.b]\n',
      'cases/A/text.yaml': 'title: A text\nautomation:\n  tests: com.shop.A.b\n',
      'cases/A/empty.yaml': 'title: Empty\nautomation:\n  tests:\n    - com.shop.A.c\n    - "  "\n',
      'cases/A/typo.yaml': 'title: Typo\nautomation:\n  test: [com.shop.A.d]\n',
      'cases/A/number.yaml': 'title: Number\nautomation:\n  tests: [12]\n',
      'cases/A/one.yaml': 'title: One\nautomation:\n  tests: [com.shop.Same.test, "x*"]\n',
      'cases/A/two.yaml': 'id: SHOP-2\ntitle: Two\nautomation:\n  tests: [com.shop.Same.test, "x*"]\n',
    });
    const shown = problems.map((p) => `${p.file}:${p.line} ${p.code}${p.severity === 'warning' ? ' (warning)' : ''}`);
    expect(shown).toEqual([
      'cases/A/empty.yaml:5 empty_value',
      'cases/A/list.yaml:2 wrong_type',
      'cases/A/number.yaml:3 wrong_type',
      'cases/A/text.yaml:3 wrong_type',
      'cases/A/two.yaml:3 duplicate_automation_test (warning)',
      'cases/A/two.yaml:3 duplicate_automation_test (warning)',
      'cases/A/typo.yaml:3 missing_key',
      'cases/A/typo.yaml:3 unknown_key',
    ]);
    const dup = problems.find((p) => p.code === 'duplicate_automation_test')!;
    expect(dup.message).toBe('`automation.tests` names `com.shop.Same.test`, which cases/A/one.yaml:2 names too; its results would go to both cases');
    expect(problems.find((p) => p.code === 'unknown_key')!.hint).toContain('tests');
  });

  it('is read the cheap way for results push: only files that hold the word are parsed, broken ones left out', async () => {
    const { root, config } = await load({
      'cases/A/pay.yaml': 'id: SHOP-1\ntitle: Pay\nautomation:\n  tests: [com.shop.Pay.card]\n',
      'cases/A/new.yaml': 'title: New\nautomation:\n  tests: [com.shop.New.works]\n',
      'cases/A/broken.yaml': 'title: Broken\nautomation:\n  tests: com.shop.Broken\n',
      'cases/A/plain.yaml': 'id: SHOP-3\ntitle: [not, a, title]\n',
    });
    // a UTF-16 file holds the word in other bytes: it is decoded first
    await writeFile(join(root, 'cases/A/wide.yaml'), Buffer.from('\ufeffid: SHOP-4\ntitle: Wide\nautomation:\n  tests: [com.shop.Wide.test]\n', 'utf16le'));
    const { cases, problems } = await loadAutomatedCases(root, config);
    expect(cases).toEqual([
      { file: 'cases/A/new.yaml', title: 'New', tests: ['com.shop.New.works'], line: 2 },
      { id: 'SHOP-1', file: 'cases/A/pay.yaml', title: 'Pay', tests: ['com.shop.Pay.card'], line: 3 },
      { id: 'SHOP-4', file: 'cases/A/wide.yaml', title: 'Wide', tests: ['com.shop.Wide.test'], line: 3 },
    ]);
    // the plain file was not parsed: its broken title is not reported
    expect(problems.map((p) => `${p.file} ${p.code}`)).toEqual(['cases/A/broken.yaml wrong_type']);
  });
});
