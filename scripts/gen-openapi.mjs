#!/usr/bin/env node
// Writes schemas/openapi.json from the zod wire schemas and the endpoint table (src/api/).
// Run after a build: `npx tsc -p tsconfig.build.json && node scripts/gen-openapi.mjs`
// (or `npm run schemas`). test/api/openapi.test.ts fails when the checked-in file drifts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { buildOpenApi } = await import(join(root, 'dist/api/openapi.js'));
mkdirSync(join(root, 'schemas'), { recursive: true });
writeFileSync(join(root, 'schemas/openapi.json'), `${JSON.stringify(buildOpenApi(), null, 2)}\n`);
process.stdout.write('wrote schemas/openapi.json\n');
