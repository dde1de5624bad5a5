import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSpecJsonSchemas, renderJsonSchemaFile, SCHEMA_DIR } from '../../src/repository/index.js';

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

  it("examples/ carries its own copies, and every example file's $schema line points at one inside examples/ (copying the folder as a starter keeps editor support)", async () => {
    const examples = join(root, 'examples');
    for (const name of Object.keys(generated)) {
      const copy = await readFile(join(examples, SCHEMA_DIR, name), 'utf8').catch(() => '(missing)');
      expect(copy === (await readFile(join(root, 'schemas', name), 'utf8')), `examples/${SCHEMA_DIR}/${name}: run npm run schemas`).toBe(true);
    }
    const files = (await readdir(examples, { recursive: true })).filter((f) => /\.ya?ml$/.test(f) && !f.startsWith(`ci${sep}`));
    expect(files.length).toBeGreaterThan(5);
    for (const f of files) {
      const line = (await readFile(join(examples, f), 'utf8')).split('\n')[0];
      const target = /^# yaml-language-server: \$schema=(\S+)$/.exec(line)?.[1];
      expect(target, f).toBeDefined();
      const resolved = resolve(dirname(join(examples, f)), target!);
      expect(relative(examples, resolved).startsWith('..'), `${f} points outside examples/: ${target}`).toBe(false);
      await expect(stat(resolved), f).resolves.toBeTruthy();
    }
  });

  it('forbid unknown keys, so editors flag typos as tmsync does', () => {
    const testCase = generated['test-case.schema.json'] as { additionalProperties: unknown; required: string[] };
    expect(testCase.additionalProperties).toBe(false);
    expect(testCase.required).toEqual(['title']);
    const config = generated['config.schema.json'] as { properties: Record<string, unknown> };
    expect(Object.keys(config.properties)).not.toContain('api_key');
  });
});
