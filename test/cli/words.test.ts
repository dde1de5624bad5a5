import { describe, expect, it } from 'vitest';
import { plural } from '../../src/cli/words.js';

describe('counts in words', () => {
  it('say one thing in the singular and any other number in the plural', () => {
    expect(plural(1, 'folder')).toBe('1 folder');
    expect(plural(0, 'step group')).toBe('0 step groups');
    expect(plural(2, 'test run')).toBe('2 test runs');
    expect(plural(3, 'was', 'were')).toBe('3 were');
  });
});
