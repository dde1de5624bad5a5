import { describe, expect, it } from 'vitest';
import type { LookupEntry } from '../../src/api/resources.js';
import type { DesiredCase } from '../../src/model.js';
import type { TestRecord } from '../../src/results/record.js';
import { computeCoverage, coverageFailures, isAutomatedType, parseCoverageKinds } from '../../src/usecases/coverage.js';

function kase(file: string, partial: Partial<DesiredCase> & { automationType?: string; tests?: string[] }): DesiredCase {
  const { automationType, tests, ...rest } = partial;
  return {
    file: `cases/A/${file}`,
    folderPath: ['A'],
    title: file,
    fields: automationType !== undefined ? { automationType } : {},
    lines: { id: 1, title: 2, automation_type: 3, ...(tests ? { automation: 4 } : {}) },
    ...(tests ? { automation: { tests } } : {}),
    ...rest,
  };
}

function rec(classname: string, name: string, extra: Partial<TestRecord> = {}): TestRecord {
  return { classname, name, outcome: 'passed', properties: {}, suites: [], report: 'reports/junit.xml', ...extra };
}

const TYPES: LookupEntry[] = [
  { id: 'at-1', name: 'Automated', alias: 'auto', order: 1 },
  { id: 'at-2', name: 'Not Automated', alias: 'manual', order: 2 },
];

const CASES = [
  kase('pay.yaml', { id: 'SHOP-1', automationType: 'Automated', tests: ['com.shop.Pay.card', 'pay.spec.ts > pays'] }),
  kase('refund.yaml', { id: 'SHOP-2', automationType: 'Automated', tests: ['com.shop.Refund*'] }),
  kase('gift.yaml', { id: 'SHOP-3', automationType: 'Automated' }),
  kase('named.yaml', { id: 'SHOP-4', automationType: 'automated' }),
  kase('manual.yaml', { id: 'SHOP-5' }),
  kase('new.yaml', { automationType: 'Automated', tests: ['com.shop.New.works'] }),
];

describe('computeCoverage', () => {
  it('without reports: automated cases whose automation: names no test are unproven; nothing else is computed', () => {
    const r = computeCoverage({ cases: CASES, defaultAutomationType: 'Not Automated' });
    expect(r.checked).toEqual(['unproven-cases']);
    expect(r.automated).toBe(5);
    expect(r.unprovenCases).toEqual([
      { file: 'cases/A/gift.yaml', line: 3, id: 'SHOP-3', title: 'gift.yaml' },
      { file: 'cases/A/named.yaml', line: 3, id: 'SHOP-4', title: 'named.yaml' },
    ]);
    expect(r.tests).toBeUndefined();
  });

  it('with reports: a case is proven by any test that maps to it, by automation: or by its id in the name', () => {
    const records = [
      rec('com.shop.Pay', 'card'),
      rec('com.shop.RefundTest', 'full'),
      rec('com.shop.RefundTest', 'full'), // a data-driven row: one test
      rec('com.shop.Named', 'SHOP_4 works'),
      rec('com.shop.New', 'works'),
      rec('com.shop.Stray', 'x'),
      rec('com.shop.Stray', 'x', { report: 'reports/other.xml' }),
      rec('com.shop.Suite', 'com.shop.Suite', { suiteLevel: { members: [] }, outcome: 'failed' }),
    ];
    const r = computeCoverage({ cases: CASES, records, prefix: 'SHOP' });
    expect(r.checked).toEqual(['unproven-cases', 'unmapped-tests', 'missing-tests']);
    expect(r.tests).toBe(7);
    expect(r.unprovenCases.map((c) => c.id)).toEqual(['SHOP-3']);
    expect(r.unmappedTests).toEqual([
      { test: 'com.shop.New.works', report: 'reports/junit.xml', notApplied: ['cases/A/new.yaml'] },
      { test: 'com.shop.Stray.x', report: 'reports/junit.xml' },
      { test: 'com.shop.Stray.x', report: 'reports/other.xml' },
    ]);
    expect(r.missingTests).toEqual([{ file: 'cases/A/pay.yaml', line: 4, id: 'SHOP-1', title: 'pay.yaml', test: 'pay.spec.ts > pays' }]);
  });

  it('a pattern that no test answers to is missing too', () => {
    const r = computeCoverage({ cases: CASES, records: [rec('com.shop.Pay', 'card')] });
    expect(r.missingTests.map((m) => m.test)).toEqual(['pay.spec.ts > pays', 'com.shop.Refund*', 'com.shop.New.works']);
  });

  it('lists the cases the run holds untested, with their files when the repository has them', () => {
    const run = {
      id: 'r1',
      humanId: 'SHOP-R-1',
      title: 'Nightly',
      cases: [
        { id: 'u1', humanId: 'SHOP-1', title: 'pay', status: 'PASSED' },
        { id: 'u3', humanId: 'SHOP-3', title: 'gift', status: 'UnTested' },
        { id: 'u9', humanId: 'SHOP-9', title: 'elsewhere', status: 'UNTESTED' },
      ],
    };
    const r = computeCoverage({ cases: CASES, run });
    expect(r.run).toEqual({ id: 'r1', humanId: 'SHOP-R-1', title: 'Nightly', cases: 3 });
    expect(r.unexecutedCases).toEqual([
      { id: 'u3', humanId: 'SHOP-3', title: 'gift', status: 'UnTested', file: 'cases/A/gift.yaml', line: 1 },
      { id: 'u9', humanId: 'SHOP-9', title: 'elsewhere', status: 'UNTESTED' },
    ]);
    expect(coverageFailures(r, ['unexecuted-cases', 'unmapped-tests'])).toEqual({ 'unexecuted-cases': 2 });
  });
});

describe('the automated type', () => {
  it('is the entry named or aliased Automated, by name, alias or id; offline, the name itself', () => {
    expect(isAutomatedType('Automated', TYPES)).toBe(true);
    expect(isAutomatedType('auto', TYPES)).toBe(true);
    expect(isAutomatedType('at-1', TYPES)).toBe(true);
    expect(isAutomatedType('Not Automated', TYPES)).toBe(false);
    expect(isAutomatedType('manual', TYPES)).toBe(false);
    expect(isAutomatedType(undefined, TYPES)).toBe(false);
    expect(isAutomatedType('AUTOMATED')).toBe(true);
    expect(isAutomatedType('Not Automated')).toBe(false);
  });
});

describe('--fail-on', () => {
  it('takes comma-separated and repeated kinds and refuses others', () => {
    expect(parseCoverageKinds(['unmapped-tests,unproven-cases', 'unmapped-tests'])).toEqual(['unmapped-tests', 'unproven-cases']);
    expect(() => parseCoverageKinds(['unmapped'])).toThrow(/--fail-on unmapped is not a kind/);
  });
});
