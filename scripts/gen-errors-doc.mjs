#!/usr/bin/env node
// Writes the table of docs/errors.md (every error code, its exit status and meaning) from
// src/error-codes.ts and src/cli/exit-codes.ts. Run after a build (`npm run build`).
// test/error-codes.test.ts fails when the checked-in page drifts from the table.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorCodesTable } from '../dist/cli/exit-codes.js';

const BEGIN = '<!-- error codes: begin -->';
const END = '<!-- error codes: end -->';
const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'errors.md');
const text = await readFile(file, 'utf8');
const start = text.indexOf(BEGIN);
const end = text.indexOf(END);
if (start < 0 || end < start) throw new Error(`${file} has no ${BEGIN} … ${END} section`);
await writeFile(file, `${text.slice(0, start + BEGIN.length)}\n${errorCodesTable()}\n${text.slice(end)}`);
process.stdout.write('wrote docs/errors.md\n');
