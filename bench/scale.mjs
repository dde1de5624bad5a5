#!/usr/bin/env node
// Scale (issue 15): loading and memory at 50,000 and 100,000 cases.
//
//   node bench/scale.mjs [--sizes 50000,100000] [--rate 10] [--no-plan]
//
// For each size (default 50,000 and 100,000; `--sizes 10000` for a quick run of a few minutes;
// the default run takes about 10 minutes, most of it the plans at 10 requests/second):
// 1. generates a repository of SIZE cases in 200 folders (20 top-level folders of 9 children)
//    using 50 step groups, without ids;
// 2. `tmsync validate`: wall time and peak RSS;
// 3. `tmsync apply --auto-approve` to a fresh `tmsync serve --db FILE` without a rate limit: it
//    creates every case and writes their ids back (peak RSS is the "apply creating SIZE cases"
//    figure), which also seeds the emulator fast;
// 4. the same file served with `--rate-limit RATE` (the emulator allows one process per db file,
//    so the unlimited one is stopped first) and a no-change `tmsync plan`: requests (from the
//    emulator's log), wall time, its ratio to the bound requests ÷ rate, and peak RSS.
// Each figure is printed with the machine's load average: on a shared machine they are noisy.
// Benchmarks print and never fail on a slow machine.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyThenQuietPlan, runCli } from './lib/cli.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const SIZES = String(opt('sizes', '50000,100000'))
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const RATE = Number(opt('rate', 10));
const PLAN = !args.includes('--no-plan');
const KEY = 'bench-scale-key';
const TOP = 20;
const SUB = 9;
const GROUPS = 50;

const load = () => `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cpus`;
const mb = (bytes) => (bytes === undefined ? '?' : `${Math.round(bytes / 1024 / 1024)} MB`);

export async function generate(dir, cases) {
  await mkdir(join(dir, 'step_groups'), { recursive: true });
  for (let g = 0; g < GROUPS; g++) {
    await writeFile(
      join(dir, 'step_groups', `group-${g}.yaml`),
      `title: Shared steps ${g}\nsteps:\n  - action: Open page ${g}\n    expected: Page ${g} shows\n  - action: Sign in\n    expected: Signed in\n`,
    );
  }
  const folders = [];
  for (let t = 0; t < TOP; t++) {
    folders.push(`area-${t}`);
    for (let s = 0; s < SUB; s++) folders.push(`area-${t}/feature-${s}`);
  }
  for (const f of folders) await mkdir(join(dir, 'cases', f), { recursive: true });
  let writes = [];
  for (let i = 0; i < cases; i++) {
    const folder = folders[i % folders.length];
    writes.push(
      writeFile(
        join(dir, 'cases', folder, `case-${i}.yaml`),
        `title: Case number ${i} checks a realistic amount of text
description: |
  A description of case ${i} over
  two lines, with "quotes" and unicode: café ✓
preconditions: The user is signed in.
priority: ${['High', 'Medium', 'Low'][i % 3]}
labels: [smoke, ${['regression', 'payments', 'auth'][i % 3]}]
steps:
  - use: group-${i % GROUPS}
  - action: Open the thing number ${i}
    expected: The thing shows its details
  - action: Change a field and save
    expected: The change is kept
`,
      ),
    );
    if (writes.length >= 256) {
      await Promise.all(writes);
      writes = [];
    }
  }
  await Promise.all(writes);
}

function config(baseUrl, rate, concurrency) {
  return `project: DEMO\nbase_url: ${baseUrl}\nrate_limit: ${rate}\nconcurrency: ${concurrency}\ndefaults:\n  type: Functional\n  status: Draft\n  priority: Medium\n  automation_type: Not Automated\n  owner: qa-lead@example.com\n`;
}

async function runSize(cases) {
  const scratch = await mkdtemp(join(tmpdir(), `tmsync-bench-scale-${cases}-`));
  const repo = join(scratch, 'repo');
  const db = join(scratch, 'service.db');
  const env = { TMSYNC_API_KEY: KEY };
  try {
    await mkdir(repo);
    await generate(repo, cases);
    await writeFile(join(repo, 'tmsync.yaml'), config('http://127.0.0.1:9', RATE, 4));
    const v = await runCli(repo, ['validate'], env, { scratch });
    console.log(`validate ${cases} cases: ${(v.ms / 1000).toFixed(2)} s (process start included), peak RSS ${mb(v.maxRss)}, exit ${v.code}; ${load()}`);
    if (!PLAN) return;

    await applyThenQuietPlan({ repo, db, scratch, key: KEY, rate: RATE, config, what: `${cases} cases`, load });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(`scale: sizes ${SIZES.join(', ')}; targets: plan within 3% of requests ÷ rate, plan peak ≤ 250 MB at 50,000 and ≤ 400 MB at 100,000, apply of 50,000 ≤ 400 MB, validate of 100,000 < 6 s`);
  for (const size of SIZES) await runSize(size);
}
