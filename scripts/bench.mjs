#!/usr/bin/env node
// Runs every benchmark in bench/ (or those named on the command line) one after another; each
// prints its own figures. Benchmarks measure; they never fail on a slow machine.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const only = process.argv.slice(2);
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const f of files) {
  process.stdout.write(`\n== ${f}\n`);
  const r = spawnSync(process.execPath, ['--expose-gc', join('bench', f)], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed += 1;
    process.stdout.write(`(${f} exited with ${r.status})\n`);
  }
}
process.exit(failed ? 1 : 0);
