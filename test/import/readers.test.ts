import { describe, expect, it } from 'vitest';
import { IMPORT_FORMATS } from '../../src/import/format-names.js';
import { IMPORT_READERS } from '../../src/import/readers.js';

describe('the import readers', () => {
  it('are the formats --help names, in its order, each with a tool and a line of help', () => {
    expect(IMPORT_READERS.map((r) => r.name)).toEqual([...IMPORT_FORMATS]);
    for (const r of IMPORT_READERS) {
      expect(r.tool).toMatch(/^[a-z][a-z-]*$/);
      expect(r.about.length).toBeGreaterThan(10);
    }
  });
});
