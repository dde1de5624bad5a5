#!/usr/bin/env node
// Writes the JSON Schemas of the tests-as-code format (schemas/*.schema.json) from the zod
// schemas in src/repository/file-schemas.ts. Run after a build: `npx tsc -p tsconfig.build.json &&
// node scripts/gen-spec-schemas.mjs` (or `npm run schemas`). test/repository/json-schemas.test.ts
// fails when the checked-in files drift from the zod source.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSpecJsonSchemas, renderJsonSchemaFile } from '../dist/repository/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'schemas');
await mkdir(outDir, { recursive: true });
for (const [name, schema] of Object.entries(buildSpecJsonSchemas())) {
  await writeFile(join(outDir, name), renderJsonSchemaFile(schema));
  process.stdout.write(`wrote schemas/${name}\n`);
}
// examples/ is a starter people copy: it carries its own copies, as `tmsync init` writes them
const { writeSchemaFiles } = await import('../dist/repository/index.js');
for (const f of await writeSchemaFiles(join(root, 'examples'))) process.stdout.write(`wrote examples/${f}\n`);
