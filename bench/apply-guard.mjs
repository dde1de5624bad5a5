#!/usr/bin/env node
// Benchmark of the write guard's cost (issue 24, item 1), through the real CLI against `tmsync serve`.
//
//   node bench/apply-guard.mjs [--cases 1000] [--folders 20] [--rate 10]
//
// Builds nothing itself: run `npx tsc -p tsconfig.build.json` first (npm run bench does).
// A repository of CASES cases in FOLDERS top-level folders is applied (creates, at a high rate);
// then every description is edited and `tmsync apply --auto-approve` runs at `rate_limit: RATE`:
// CASES updates. The request log splits that apply's requests into the plan's reads (before the
// first write; the whole case list, never one folder's), the writes, and the guard's reads (a
// folder's case list, or any read after the first write: nothing else reads then). Without the
// guard the apply makes the first two; the ratio is all ÷ those (target ≤ 1.10).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRequestLog, root, runCli, serve, stop } from './lib/cli.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CASES = opt('cases', 1000);
const FOLDERS = opt('folders', 20);
const RATE = opt('rate', 10);
const KEY = 'bench-apply-guard';

if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  console.error('dist/ is missing: run `npx tsc -p tsconfig.build.json` first');
  process.exit(1);
}

function config(baseUrl, rate, concurrency) {
  return [
    'project: DEMO',
    `base_url: ${baseUrl}`,
    'defaults:',
    '  type: Functional',
    '  status: Draft',
    '  priority: Medium',
    '  automation_type: Not Automated',
    '  owner: qa-lead@example.com',
    `rate_limit: ${rate}`,
    `concurrency: ${concurrency}`,
    '',
  ].join('\n');
}

const caseFile = (i, description) =>
  `title: Case ${i} checks a reasonably described behaviour\ndescription: ${description}\npreconditions: The user is signed in.\nsteps:\n  - action: Do step one of case ${i}\n    expected: Step one works\n`;

const fmt = (n) => n.toLocaleString('en-US');
const logFile = join(mkdtempSync(join(tmpdir(), 'tmsync-bench-guard-log-')), 'requests.jsonl');
const server = await serve(['--memory', '--seed', 'demo', '--api-key', KEY, '--log', logFile]);
const dir = mkdtempSync(join(tmpdir(), 'tmsync-bench-guard-'));
try {
  writeFileSync(join(dir, 'tmsync.yaml'), config(server.baseUrl, 2000, 8));
  const files = [];
  for (let i = 0; i < CASES; i++) {
    const folder = join(dir, 'cases', `Area ${i % FOLDERS}`);
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `case-${i}.yaml`);
    writeFileSync(file, caseFile(i, 'Generated for the guard benchmark.'));
    files.push(file);
  }
  const created = await runCli(dir, ['apply', '--auto-approve'], { TMSYNC_API_KEY: KEY });
  if (created.code !== 0) throw new Error(`apply (creates) failed (${created.code}):\n${created.stderr.slice(-3000)}`);

  // every description edited: CASES updates, applied at RATE requests per second
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace(/^description: .*$/m, 'description: Edited for the guard benchmark.'));
  }
  writeFileSync(join(dir, 'tmsync.yaml'), config(server.baseUrl, RATE, 4));
  await new Promise((r) => setTimeout(r, 200)); // let the log stream flush
  const skip = readRequestLog(logFile).length;
  const run = await runCli(dir, ['apply', '--auto-approve'], { TMSYNC_API_KEY: KEY });
  if (run.code !== 0) throw new Error(`apply (updates) failed (${run.code}):\n${run.stderr.slice(-3000)}`);
  await new Promise((r) => setTimeout(r, 200));
  const log = readRequestLog(logFile).slice(skip);
  const firstWrite = log.findIndex((e) => e.method !== 'GET');
  const guard = (e, i) => e.method === 'GET' && ((firstWrite >= 0 && i > firstWrite) || e.path.includes('folder_id='));
  const guardReads = log.filter(guard).length;
  const writes = log.filter((e) => e.method !== 'GET').length;
  const planReads = log.length - writes - guardReads;
  const before = planReads + writes;
  const ratio = log.length / before;
  console.log(
    `apply guard: ${fmt(writes)} updates in ${FOLDERS} folders at ${RATE} req/s: ${fmt(log.length)} requests ` +
      `(${fmt(planReads)} plan reads, ${fmt(writes)} writes, ${fmt(guardReads)} guard reads); without the guard ${fmt(before)}; ` +
      `ratio ${ratio.toFixed(3)} (target ≤ 1.10); ${(run.ms / 1000).toFixed(1)} s`,
  );
  const summary = run.stdout.split('\n').find((l) => l.startsWith('Apply complete'));
  console.log(`  ${summary ?? '(no summary)'}`);
} finally {
  await stop(server.child);
  rmSync(dir, { recursive: true, force: true });
}
