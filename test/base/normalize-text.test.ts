import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { needsWork, normalizeText, sortedUnique } from '../../src/base/normalize-text.js';

/** What `needsWork` stands for: the regular expression it replaced. */
const NEEDS_WORK = /\r|[^\S\n]\n|\s$/;

/** Texts rich in the characters that matter: newlines, carriage returns, ASCII and Unicode spaces. */
const text = fc
  .array(fc.constantFrom('a', 'b', ' ', '\t', '\n', '\r', '\u000b', '\u000c', '\u00a0', '\u2028', '\u3000', '\ufeff', 'é', '\ud83d'), { maxLength: 12 })
  .map((cs) => cs.join(''));

describe('normalizeText', () => {
  it('the character scan tells the texts that need work exactly as the regular expression did', () => {
    fc.assert(
      fc.property(fc.oneof(text, fc.string({ unit: 'binary', maxLength: 12 })), (t) => {
        expect(needsWork(t)).toBe(NEEDS_WORK.test(t));
      }),
      { numRuns: 5000 },
    );
  });

  it('returns a text that needs no work as it is, and normalizes the rest idempotently', () => {
    fc.assert(
      fc.property(text, (t) => {
        const n = normalizeText(t);
        if (!NEEDS_WORK.test(t)) expect(n).toBe(t);
        expect(needsWork(n)).toBe(false);
        expect(normalizeText(n)).toBe(n);
      }),
      { numRuns: 2000 },
    );
  });

  it('normalizes line endings and trailing blanks', () => {
    expect(normalizeText('a \r\nb\t\r\n\n')).toBe('a\nb');
    expect(normalizeText('\na')).toBe('\na');
    expect(normalizeText('a\u00a0\nb')).toBe('a\nb');
    expect(normalizeText(null)).toBe('');
  });
});

describe('sortedUnique', () => {
  it('gives what sorting the set gives, for lists sorted already (returned as a copy) and not', () => {
    const ids = fc.array(fc.constantFrom('a', 'b', 'B', 'c', 'é', '10', '9', ''), { maxLength: 8 });
    fc.assert(
      fc.property(ids, fc.boolean(), (list, presort) => {
        const values = presort ? [...new Set(list)].sort() : list;
        const got = sortedUnique(values);
        expect(got).toEqual([...new Set(values)].sort());
        expect(got).not.toBe(values);
      }),
      { numRuns: 2000 },
    );
  });
});
