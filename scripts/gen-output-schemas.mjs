#!/usr/bin/env node
// Writes the JSON Schemas of the commands' `--json` documents (schemas/output/*.schema.json) from
// the zod schemas in src/cli/output-schemas.ts. Run after a build (`npm run schemas` does both).
// test/cli/output-schemas.test.ts fails when the checked-in files drift from the zod source.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildOutputJsonSchemas } from '../dist/cli/output-schemas.js';
import { renderJsonSchemaFile } from '../dist/repository/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'schemas', 'output');
await mkdir(outDir, { recursive: true });
for (const [name, schema] of Object.entries(buildOutputJsonSchemas())) {
  await writeFile(join(outDir, name), renderJsonSchemaFile(schema));
  process.stdout.write(`wrote schemas/output/${name}\n`);
}
