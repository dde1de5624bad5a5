import { describe, expect, it } from 'vitest';
import { buildAutomationIndex, isTestPattern, matchesTest, type AutomatedCase } from '../src/test-patterns.js';

describe('automation.tests entries', () => {
  it('match a test name exactly, case-sensitively, when they hold no *', () => {
    expect(isTestPattern('com.shop.CheckoutTest.paysWithCard')).toBe(false);
    expect(matchesTest('com.shop.CheckoutTest.paysWithCard', 'com.shop.CheckoutTest.paysWithCard')).toBe(true);
    expect(matchesTest('com.shop.CheckoutTest.paysWithCard', 'com.shop.CheckoutTest.paysWithCardTwice')).toBe(false);
    expect(matchesTest('com.shop.CheckoutTest.paysWithCard', 'com.shop.checkouttest.payswithcard')).toBe(false);
  });

  it('take * as any run of characters, dots, spaces and > included, and nothing else as special', () => {
    expect(matchesTest('com.shop.Checkout*', 'com.shop.CheckoutTest.paysWithCard')).toBe(true);
    expect(matchesTest('com.shop.Checkout*', 'com.shop.Checkout')).toBe(true);
    expect(matchesTest('com.shop.Checkout*', 'org.com.shop.CheckoutTest')).toBe(false);
    expect(matchesTest('checkout.spec.ts > *', 'checkout.spec.ts > Payments > pays with card')).toBe(true);
    expect(matchesTest('*pays with card', 'checkout.spec.ts > pays with card')).toBe(true);
    expect(matchesTest('*.paysWith*Card', 'a.b.paysWithSavedCard')).toBe(true);
    // a dot is a dot, ? and [ ] are themselves
    expect(matchesTest('com.shop.*', 'comxshop.A')).toBe(false);
    expect(matchesTest('test[1]*', 'test[1] (row 2)')).toBe(true);
    expect(matchesTest('test?*', 'tests')).toBe(false);
    expect(matchesTest('a*b', 'a\nb')).toBe(true);
  });

  it('index the cases: exact names and patterns, each case once, in the repository order', () => {
    const cases: AutomatedCase[] = [
      { id: 'SHOP-1', file: 'cases/A/one.yaml', title: 'one', tests: ['com.shop.A.one', 'com.shop.A.*'] },
      { id: 'SHOP-2', file: 'cases/A/two.yaml', title: 'two', tests: ['com.shop.A.two'] },
      { file: 'cases/A/new.yaml', title: 'new', tests: ['a.spec.ts > new'] },
    ];
    const index = buildAutomationIndex(cases);
    expect(index.match(['com.shop.A.one', 'one']).map((c) => c.id)).toEqual(['SHOP-1']);
    expect(index.match(['com.shop.A.two', 'two']).map((c) => c.id)).toEqual(['SHOP-1', 'SHOP-2']);
    expect(index.match(['new', 'a.spec.ts > new']).map((c) => c.file)).toEqual(['cases/A/new.yaml']);
    expect(index.match(['com.shop.B.x'])).toEqual([]);
  });
});
