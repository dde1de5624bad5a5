import { describe, expect, it } from 'vitest';
import { KeyRing, hashKey } from '../../src/emulator/auth.js';

describe('KeyRing', () => {
  it('accepts the same header again without hashing it anew, and still refuses any other key', () => {
    const ring = new KeyRing(['right-key']);
    expect(ring.check('Bearer right-key')).toBe(hashKey('right-key'));
    expect(ring.check('Bearer right-key')).toBe(hashKey('right-key'));
    expect(ring.check('Bearer wrong-key')).toBeUndefined();
    expect(ring.check('Bearer right-key ')).toBe(hashKey('right-key'));
    expect(ring.check('Bearer right-keyX')).toBeUndefined();
    expect(ring.check('Basic right-key')).toBeUndefined();
    expect(ring.check(undefined)).toBeUndefined();
    expect(ring.check('Bearer right-key')).toBe(hashKey('right-key'));
  });
});
