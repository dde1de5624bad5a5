import { describe, expect, it } from 'vitest';
import { normalizeScopeEntry, scopeMatcher, scopeRelation } from '../src/scope.js';

describe('scope relations', () => {
  it('puts every folder inside when there is no scope', () => {
    expect(scopeRelation(['Anything', 'Below'], undefined)).toBe('inside');
  });

  it('treats a top-level name as a path of one segment: the folder and everything below it are inside, other top-level folders outside', () => {
    const rel = scopeMatcher(['Checkout']);
    expect([rel(['Checkout']), rel(['Checkout', 'Payments', 'Cards']), rel(['Auth']), rel(['Checkout2'])]).toEqual(['inside', 'inside', 'outside', 'outside']);
  });

  it('with a path, puts the subtree inside, the folders above it as ancestors, and their other children outside', () => {
    const rel = scopeMatcher(['Checkout/Payments']);
    expect(rel(['Checkout', 'Payments'])).toBe('inside');
    expect(rel(['Checkout', 'Payments', 'Cards'])).toBe('inside');
    expect(rel(['Checkout'])).toBe('ancestor');
    expect(rel(['Checkout', 'Other'])).toBe('outside');
    expect(rel(['Checkout', 'Other', 'Payments'])).toBe('outside');
    expect(rel(['Checkout', 'Pay'])).toBe('outside');
    expect(rel(['Auth'])).toBe('outside');
  });

  it('puts a folder inside when one entry covers it, even when another entry is a path below it', () => {
    const rel = scopeMatcher(['Checkout', 'Checkout/Payments/Cards']);
    expect([rel(['Checkout']), rel(['Checkout', 'Payments'])]).toEqual(['inside', 'inside']);
  });

  it('ignores empty segments in an entry and matches a folder whose own name holds a slash by its joined path', () => {
    expect(normalizeScopeEntry('/Checkout//Payments/')).toBe('Checkout/Payments');
    expect(scopeRelation(['Checkout', 'Payments'], ['/Checkout//Payments/'])).toBe('inside');
    expect(scopeRelation(['Returns / Refunds'], ['Returns / Refunds'])).toBe('inside');
  });

  it('puts nothing inside with an empty scope list', () => {
    expect(scopeRelation(['Checkout'], [])).toBe('outside');
  });
});
