import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Folder, endpoints } from '../../src/api/index.js';

describe('wire schemas', () => {
  it('parse a flat folder with a null parent and keep unknown fields', () => {
    const f = Folder.parse({ id: '1', name: 'a', project_id: 'p', parent_folder_id: null, order: 0, extra: 1 });
    expect(f.children).toEqual([]);
    expect((f as Record<string, unknown>).extra).toBe(1);
  });
  it('turn every endpoint schema into JSON Schema', () => {
    for (const e of endpoints) {
      if (e.response) expect(() => z.toJSONSchema(e.response!, { io: 'output', unrepresentable: 'any' })).not.toThrow();
      if (e.body) expect(() => z.toJSONSchema(e.body!, { io: 'input' })).not.toThrow();
    }
  });
});
