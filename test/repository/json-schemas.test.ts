import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSpecJsonSchemas, renderJsonSchemaFile } from '../../src/repository/index.js';

const root = join(import.meta.dirname, '..', '..');

describe('the checked-in JSON Schemas', () => {
  const generated = buildSpecJsonSchemas();

  it('are exactly the four files of the format', () => {
    expect(Object.keys(generated).sort()).toEqual([
      'config.schema.json',
      'folder.schema.json',
      'step-group.schema.json',
      'test-case.schema.json',
    ]);
  });

  for (const [name, schema] of Object.entries(generated)) {
    it(`schemas/${name} matches the zod source (regenerate with npm run schemas)`, async () => {
      const onDisk = await readFile(join(root, 'schemas', name), 'utf8').catch(() => '(missing)');
      const fresh = renderJsonSchemaFile(schema);
      if (onDisk !== fresh) {
        expect.fail(`schemas/${name} is out of date with src/repository/schemas.ts: run npm run schemas (or node scripts/gen-spec-schemas.mjs after a build)`);
      }
    });
  }

  it('forbid unknown keys, so editors flag typos as tmsync does', () => {
    const testCase = generated['test-case.schema.json'] as { additionalProperties: unknown; required: string[] };
    expect(testCase.additionalProperties).toBe(false);
    expect(testCase.required).toEqual(['title']);
    const config = generated['config.schema.json'] as { properties: Record<string, unknown> };
    expect(Object.keys(config.properties)).not.toContain('api_key');
  });
});
