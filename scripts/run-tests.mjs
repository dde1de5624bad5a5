#!/usr/bin/env node
// Runs every vitest suite and ends the output with a plain `N passed, N failed` line, counted from
// vitest's JSON reporter (the line CI reads). Exits with vitest's exit code.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'tmsync-tests-'));
const out = join(dir, 'results.json');
const vitest = join('node_modules', 'vitest', 'vitest.mjs');
const res = spawnSync(
  process.execPath,
  [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: process.env.CI ? '0' : process.env.FORCE_COLOR } },
);
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(out)) {
  const r = JSON.parse(readFileSync(out, 'utf8'));
  passed = r.numPassedTests ?? 0;
  failed = (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0);
  skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // a suite that fails to load counts as a failure even when it reported no tests
  for (const s of r.testResults ?? []) if (s.status === 'failed' && (s.assertionResults ?? []).length === 0) failed += 1;
} else {
  failed = 1;
}
rmSync(dir, { recursive: true, force: true });
const code = res.status ?? 1;
if (code !== 0 && failed === 0) failed = 1;
process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
process.exit(code);
