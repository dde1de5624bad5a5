import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSpecJsonSchemas, renderJsonSchemaFile, SCHEMA_DIR } from '../../src/repository/index.js';
import { withLookupNames } from '../../src/repository/schema-comment.js';

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
        expect.fail(`schemas/${name} is out of date with src/repository/file-schemas.ts: run npm run schemas (or node scripts/gen-spec-schemas.mjs after a build)`);
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

  it('say they are draft 2020-12, and give every key a description an editor can show on hover', () => {
    const missing: string[] = [];
    const walk = (node: unknown, path: string): void => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      for (const [key, value] of Object.entries((n.properties as Record<string, { description?: string }>) ?? {})) {
        const d = value.description;
        if (!d || d.toLowerCase() === key.replace(/_/g, ' ')) missing.push(`${path}.${key}`);
        walk(value, `${path}.${key}`);
      }
      for (const k of ['items', 'anyOf', 'oneOf', 'allOf', 'additionalProperties']) {
        const child = n[k];
        if (Array.isArray(child)) child.forEach((c, i) => walk(c, `${path}[${k}${i}]`));
        else walk(child, `${path}[${k}]`);
      }
    };
    for (const [name, schema] of Object.entries(generated) as [string, Record<string, unknown>][]) {
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$comment).toContain('draft 2020-12');
      expect(schema.$comment).toContain('ajv/dist/2020');
      walk(schema, name);
    }
    expect(missing).toEqual([]);
  });

  it("offer a service's lookup names in the repository's copies, still accepting any alias or id", () => {
    const caseText = renderJsonSchemaFile(generated['test-case.schema.json']);
    const names = { priority: ['Major', 'Minor'], type: ['Smoke'] };
    const withNames = JSON.parse(withLookupNames('test-case', caseText, names));
    expect(withNames.properties.priority.anyOf).toEqual([{ enum: ['Major', 'Minor'] }, { type: 'string' }]);
    expect(withNames.properties.priority.description).toContain('lookup name, alias or id');
    expect(withNames.properties.status.anyOf).toBeUndefined();
    const config = JSON.parse(withLookupNames('config', renderJsonSchemaFile(generated['config.schema.json']), names));
    expect(config.properties.defaults.properties.type.anyOf[0]).toEqual({ enum: ['Smoke'] });
    expect(withLookupNames('folder', 'unchanged', names)).toBe('unchanged');
    expect(withLookupNames('test-case', caseText, undefined)).toBe(caseText);
  });

  it('forbid unknown keys, so editors flag typos as tmsync does', () => {
    const testCase = generated['test-case.schema.json'] as { additionalProperties: unknown; required: string[] };
    expect(testCase.additionalProperties).toBe(false);
    expect(testCase.required).toEqual(['title']);
    const config = generated['config.schema.json'] as { properties: Record<string, unknown> };
    expect(Object.keys(config.properties)).not.toContain('api_key');
  });
});
