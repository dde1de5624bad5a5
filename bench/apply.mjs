#!/usr/bin/env node
// Benchmark of `tmsync apply` (issue 6 figures), through the real CLI against `tmsync serve`.
//
//   node bench/apply.mjs [--cases 1000] [--folders 50] [--rate 10] [--big 10000] [--skip-big]
//
// Builds nothing itself: run `npx tsc -p tsconfig.build.json` first (npm run bench does).
// 1. `tmsync serve --rate-limit R --log FILE` as a child; a repository of CASES cases in FOLDERS
//    folders with `rate_limit: R`; `tmsync apply --auto-approve` timed as a child process.
//    Ratio = wall time ÷ (accepted requests ÷ R), the bound a perfect client reaches.
// 2. The same apply again: the request log must show reads only.
// 3. A BIG-case apply without a rate limit, the CLI's peak RSS read from process.resourceUsage().
// 4. The same apply at `rate_limit: 2000` under `--cpu-prof`: the rate gate's share of the CPU.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuShare, readRequestLog, root, runCli, serve, stop } from './lib/cli.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const CASES = opt('cases', 1000);
const FOLDERS = opt('folders', 50);
const RATE = opt('rate', 10);
const BIG = opt('big', 10_000);
const KEY = 'bench-apply';

if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  console.error('dist/ is missing: run `npx tsc -p tsconfig.build.json` first');
  process.exit(1);
}

/** A repository of `cases` cases spread over `folders` folders (a fifth of them nested). */
function repository(baseUrl, cases, folders, rate, concurrency) {
  const dir = mkdtempSync(join(tmpdir(), 'tmsync-bench-apply-'));
  writeFileSync(
    join(dir, 'tmsync.yaml'),
    [
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
    ].join('\n'),
  );
  const tops = Math.max(1, Math.ceil(folders * 0.8));
  const paths = [];
  for (let f = 0; f < folders; f++) paths.push(f < tops ? [`Area ${f}`] : [`Area ${f % tops}`, `Sub ${f}`]);
  for (const p of paths) mkdirSync(join(dir, 'cases', ...p), { recursive: true });
  for (let i = 0; i < cases; i++) {
    const p = paths[i % paths.length];
    writeFileSync(
      join(dir, 'cases', ...p, `case-${i}.yaml`),
      `title: Case ${i} checks a reasonably described behaviour\ndescription: Generated for the apply benchmark.\nsteps:\n  - action: Do step one of case ${i}\n    expected: Step one works\n  - action: Do step two\n    expected: Step two works\n`,
    );
  }
  return dir;
}

/** Runs the CLI in `cwd`; returns exit code, wall ms, stderr and the child's peak RSS (bytes). */
function tmsync(cwd, argv, nodeArgs = []) {
  return runCli(cwd, argv, { TMSYNC_API_KEY: KEY }, { nodeArgs });
}


const fmt = (n) => n.toLocaleString('en-US');
const summary = (stdout) => stdout.split('\n').find((l) => l.startsWith('Apply complete') || l.startsWith('No changes')) ?? '(no summary)';

// --- 1 and 2: rate-limited creates, then a second apply
const logFile = join(mkdtempSync(join(tmpdir(), 'tmsync-bench-log-')), 'requests.jsonl');
const limited = await serve(['--memory', '--seed', 'demo', '--api-key', KEY, '--rate-limit', String(RATE), '--log', logFile]);
let line1 = '';
let line2 = '';
try {
  const dir = repository(limited.baseUrl, CASES, FOLDERS, RATE, 4);
  const first = await tmsync(dir, ['apply', '--auto-approve']);
  if (first.code !== 0) throw new Error(`apply failed (${first.code}):\n${first.stderr.slice(-3000)}`);
  await new Promise((r) => setTimeout(r, 200)); // let the log stream flush
  const log1 = readRequestLog(logFile);
  const refused = log1.filter((e) => e.fault === 'rate_limit').length;
  const accepted = log1.length - refused;
  const bound = (accepted / RATE) * 1000;
  const ratio = first.ms / bound;
  line1 =
    `apply: ${fmt(CASES)} creates in ${FOLDERS} folders: ${fmt(log1.length)} requests (${fmt(accepted)} accepted), ` +
    `${(first.ms / 1000).toFixed(1)} s, ratio ${ratio.toFixed(2)} (target ≤ 1.10), ` +
    `${((refused / log1.length) * 100).toFixed(1)}% refused for rate (target < 1%)`;
  console.log(line1);
  console.log(`  ${summary(first.stdout)}`);

  const second = await tmsync(dir, ['apply', '--auto-approve']);
  await new Promise((r) => setTimeout(r, 200));
  const log2 = readRequestLog(logFile).slice(log1.length);
  const writes = log2.filter((e) => e.method !== 'GET').length;
  line2 = `second apply: ${writes} writes, ${log2.length} reads-only requests, ${(second.ms / 1000).toFixed(1)} s (exit ${second.code})`;
  console.log(line2);
  rmSync(dir, { recursive: true, force: true });
} finally {
  await stop(limited.child);
}

// --- 3: peak memory of a big apply (no rate limit)
if (!args.includes('--skip-big')) {
  const free = await serve(['--memory', '--seed', 'demo', '--api-key', KEY]);
  try {
    const dir = repository(free.baseUrl, BIG, 100, 2000, 8);
    const big = await tmsync(dir, ['apply', '--auto-approve']);
    if (big.code !== 0) throw new Error(`big apply failed (${big.code}):\n${big.stderr.slice(-3000)}`);
    const mb = big.maxRss / 1024 / 1024;
    console.log(`${fmt(BIG)}-case apply: ${(big.ms / 1000).toFixed(1)} s, peak RSS ${mb.toFixed(0)} MB (target < 400 MB)`);
    console.log(`  ${summary(big.stdout)}`);
    rmSync(dir, { recursive: true, force: true });
  } finally {
    await stop(free.child);
  }
}

// --- 4: the rate gate's share of the CPU of the same big apply, from a V8 CPU profile
if (!args.includes('--skip-big')) {
  const free = await serve(['--memory', '--seed', 'demo', '--api-key', KEY]);
  const profiles = mkdtempSync(join(tmpdir(), 'tmsync-bench-prof-'));
  try {
    const dir = repository(free.baseUrl, BIG, 100, 2000, 8);
    const run = await tmsync(dir, ['apply', '--auto-approve'], ['--cpu-prof', `--cpu-prof-dir=${profiles}`]);
    if (run.code !== 0) throw new Error(`profiled apply failed (${run.code}):\n${run.stderr.slice(-3000)}`);
    const gate = cpuShare(profiles, ['/remote/gate.js', '/remote/answer-times.js']);
    console.log(
      `${fmt(BIG)}-case apply at rate_limit 2000, profiled: rate gate ${(gate.share * 100).toFixed(2)}% of busy CPU samples ` +
        `(${fmt(gate.samples)} of ${fmt(gate.busy)}; target < 2%)`,
    );
    rmSync(dir, { recursive: true, force: true });
  } finally {
    await stop(free.child);
    rmSync(profiles, { recursive: true, force: true });
  }
}
