import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_UNIT } from '../vitest.unit.config.js';

const ROOT = join(import.meta.dirname, '..');

describe('the inner-loop subset (npm run test:unit)', () => {
  it('leaves out only files that exist: a renamed test would otherwise join the fast subset unnoticed', () => {
    const named = NOT_UNIT.filter((p) => !p.includes('*'));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });
});
