import { describe, expect, it } from 'vitest';
import { findHumanIds } from '../../src/results/map-results.js';
import { allureTestPlan, formatSelection, grepPattern, junitTagExpression, playwrightPattern, pytestExpression } from '../../src/runs/runner-filters.js';

const ids = (...h: string[]) => h.map((humanId) => ({ humanId }));

/** Playwright's own reading of a --grep value (its forceRegExp): a `/…/flags` literal as written, else the text with `gi`. */
function playwrightRegExp(value: string): RegExp {
  const m = /^\/(.*)\/([gi]*)$/.exec(value);
  return m ? new RegExp(m[1], m[2]) : new RegExp(value, 'gi');
}

const NAMES = {
  selected: ['checkout SHOP-1 pays', 'test_SHOP_1_pays', 'SHOP-12 refunds', 'com.shop.CartTest.SHOP_12_total', '@SHOP-3 tagged', 'SHOP-001 padded', 'SHOP-3'],
  other: ['SHOP-120 more', 'SHOP_10 other', 'XSHOP-12 another prefix', 'SHOP-2', 'SHOP12 no separator', 'SHOP-13', 'JIRA-12 ticket'],
};

describe('runner filters', () => {
  const selection = ids('SHOP-1', 'SHOP-12', 'SHOP-3');

  it('grep: a portable pattern (no lookaround, so grep -E takes it) matching SHOP-1 and SHOP_1 but never SHOP-12 for SHOP-1 alone', () => {
    const p = grepPattern(ids('SHOP-1'));
    expect(p).toBe('(^|[^A-Za-z0-9])(SHOP[-_]0*(1))([^0-9]|$)');
    expect(p).not.toMatch(/\(\?[<=!]/);
    const re = new RegExp(p);
    expect(re.test('pays SHOP-1')).toBe(true);
    expect(re.test('test_SHOP_1_pays')).toBe(true);
    expect(re.test('SHOP-12 refunds')).toBe(false);
    expect(re.test('SHOP_12')).toBe(false);
    expect(re.test('SHOP-10')).toBe(false);
  });

  it('grep, playwright: select exactly the names results push maps to a selected case', () => {
    const wanted = new Set(['SHOP-1', 'SHOP-12', 'SHOP-3']);
    for (const re of [new RegExp(grepPattern(selection)), playwrightRegExp(playwrightPattern(selection))]) {
      for (const name of [...NAMES.selected, ...NAMES.other]) {
        re.lastIndex = 0;
        const pushMaps = findHumanIds(name, 'SHOP').some((h) => wanted.has(h));
        expect(re.test(name), `${re} on ${name}`).toBe(pushMaps);
      }
    }
  });

  it('playwright: a /…/ literal, so Playwright does not add the case-insensitive flag', () => {
    expect(playwrightPattern(ids('SHOP-12', 'SHOP-3'))).toBe('/(?<![A-Za-z0-9])(?:SHOP[-_]0*(?:12|3))(?![0-9])/');
    const re = playwrightRegExp(playwrightPattern(ids('SHOP-12')));
    expect(re.flags).toBe('');
    expect(re.test('shop-12')).toBe(false);
  });

  it('several prefixes, duplicates once, ids that are not human ids left out', () => {
    expect(grepPattern([...ids('SHOP-2', 'APP-7', 'SHOP-2'), { humanId: 'not an id' }])).toBe('(^|[^A-Za-z0-9])(SHOP[-_]0*(2)|APP[-_]0*(7))([^0-9]|$)');
  });

  it('pytest: ids as SHOP_12 joined by or (pytest -k cannot match -)', () => {
    expect(pytestExpression(selection)).toBe('SHOP_1 or SHOP_12 or SHOP_3');
  });

  it('junit-filter: a JUnit 5 tag expression of whole tags', () => {
    expect(junitTagExpression(selection)).toBe('SHOP-1 | SHOP-12 | SHOP-3');
  });

  it('testplan-json: Allure testplan.json, one entry per id, or per test the case file names', () => {
    expect(allureTestPlan([{ humanId: 'SHOP-1' }, { humanId: 'SHOP-2', tests: ['com.shop.A.b', 'checkout.spec.ts > pays'] }])).toEqual({
      version: '1.0',
      tests: [{ id: 'SHOP-1' }, { id: 'SHOP-2', selector: 'com.shop.A.b' }, { id: 'SHOP-2', selector: 'checkout.spec.ts > pays' }],
    });
    expect(JSON.parse(formatSelection('testplan-json', ids('SHOP-1')))).toEqual({ version: '1.0', tests: [{ id: 'SHOP-1' }] });
  });

  it('list: one id per line', () => {
    expect(formatSelection('list', selection)).toBe('SHOP-1\nSHOP-12\nSHOP-3');
  });

  it('an empty selection prints a filter that matches no test, never an empty one (which runs everything)', () => {
    const names = [...NAMES.selected, ...NAMES.other, '', 'anything'];
    for (const name of names) {
      expect(new RegExp(grepPattern([])).test(name)).toBe(false);
      expect(playwrightRegExp(playwrightPattern([])).test(name)).toBe(false);
    }
    expect(pytestExpression([])).toBe('tmsync_no_case and not tmsync_no_case');
    expect(junitTagExpression([])).toBe('tmsync-no-case & !tmsync-no-case');
    expect(formatSelection('list', [])).toBe('');
    expect(allureTestPlan([])).toEqual({ version: '1.0', tests: [] });
  });
});
