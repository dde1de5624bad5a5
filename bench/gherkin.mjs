#!/usr/bin/env node
// Gherkin `.feature` files as cases (issue 27): validate and a no-change plan.
//
//   node bench/gherkin.mjs [--files 820] [--scenarios 2300] [--plan 50000] [--rate 10]
//
// 1. generates a repository of FILES feature files holding SCENARIOS scenarios in 40 directories
//    (the size of a public shop project): backgrounds, tags, doc strings, data tables, outlines and
//    rules; `tmsync validate` (a child process, as users run it): wall time, peak RSS (target
//    under 1.5 s);
// 2. with `--plan N` (default 50,000; `--plan 0` skips it: it takes many minutes, most of it the
//    apply that seeds the service): N scenarios in feature files of 25 scenarios each,
//    `tmsync apply --auto-approve` against an unlimited `tmsync serve --db FILE` (which writes
//    every id tag back), then the same file served with `--rate-limit RATE` and a no-change
//    `tmsync plan`: requests (from the emulator's log), wall time and its ratio to the bound
//    requests ÷ rate (target within 3%, as for YAML: bench/scale.mjs).
// Each figure is printed with the machine's load average: on a shared machine they are noisy.
// Benchmarks print and never fail on a slow machine.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyThenQuietPlan, runCli } from './lib/cli.mjs';
import { generate as generateYaml } from './scale.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const FILES = opt('files', 820);
const SCENARIOS = opt('scenarios', 2300);
const PLAN = opt('plan', 50_000);
const RATE = opt('rate', 10);
const KEY = 'bench-gherkin-key';

const load = () => `load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cpus`;
const mb = (bytes) => (bytes === undefined ? '?' : `${Math.round(bytes / 1024 / 1024)} MB`);

/** One feature file of `count` scenarios, numbered from `first`. */
function feature(n, first, count) {
  const lines = [`@smoke @area-${n % 20}`, `Feature: Feature number ${n}`, `  Checks feature ${n} of the shop: a description over`, '  two lines, with "quotes" and unicode: café ✓', '', '  Background:', '    Given a signed-in shopper', `    And the catalogue of area ${n % 20}`, ''];
  for (let i = first; i < first + count; i++) {
    const kind = i % 10;
    if (kind === 9) {
      lines.push(`  @regression`, `  Scenario Outline: Buy <n> items of product ${i}`, `    When I buy <n> items of product ${i}`, '    Then I pay <price>', '', '    Examples:', '      | n | price |', '      | 1 | 10.00 |', '      | 3 | 27.00 |', '');
    } else if (kind === 4) {
      lines.push(`  Scenario: Add product ${i} to the cart`, `    When I add product ${i} to the cart`, '      """json', `      {"sku": "P-${i}", "qty": 1}`, '      """', '    Then the cart holds:', '      | item | note |', `      | product ${i} | blue \\| green |`, '    And the total is shown', '');
    } else {
      lines.push(`  @priority:${['High', 'Medium', 'Low'][i % 3]}`, `  Scenario: Scenario number ${i} checks a realistic amount of text`, `    Given the page of product ${i}`, '    When I change a field and save', '    Then the change is kept', '    And a message says so', '');
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `files` feature files holding `scenarios` scenarios, in `dirs` directories. */
async function generate(dir, files, scenarios, dirs) {
  const per = Math.floor(scenarios / files);
  let extra = scenarios - per * files;
  let next = 0;
  let writes = [];
  for (let d = 0; d < dirs; d++) await mkdir(join(dir, 'cases', `area-${d % 20}`, `part-${d}`), { recursive: true });
  for (let f = 0; f < files; f++) {
    const count = per + (extra-- > 0 ? 1 : 0);
    const d = f % dirs;
    writes.push(writeFile(join(dir, 'cases', `area-${d % 20}`, `part-${d}`, `feature-${f}.feature`), feature(f, next, count)));
    next += count;
    if (writes.length >= 256) {
      await Promise.all(writes);
      writes = [];
    }
  }
  await Promise.all(writes);
}

function config(baseUrl, rate, concurrency) {
  return `project: DEMO\nbase_url: ${baseUrl}\nrate_limit: ${rate}\nconcurrency: ${concurrency}\ndefaults:\n  type: Functional\n  status: Draft\n  priority: Medium\n  automation_type: Not Automated\n  owner: qa-lead@example.com\ngherkin:\n  tag_fields:\n    priority: priority\n`;
}

async function validateBench() {
  const scratch = await mkdtemp(join(tmpdir(), 'tmsync-bench-gherkin-'));
  try {
    const repo = join(scratch, 'repo');
    await mkdir(repo);
    await generate(repo, FILES, SCENARIOS, 40);
    await writeFile(join(repo, 'tmsync.yaml'), config('http://127.0.0.1:9', RATE, 4));
    // the same number of cases as YAML files, for comparison on the same machine at the same time
    const yaml = join(scratch, 'yaml');
    await mkdir(yaml);
    await generateYaml(yaml, SCENARIOS);
    await writeFile(join(yaml, 'tmsync.yaml'), config('http://127.0.0.1:9', RATE, 4));
    const cpu = (v) => (v.cpuMs === undefined ? '?' : `${(v.cpuMs / 1000).toFixed(2)} s`);
    for (let run = 1; run <= 3; run++) {
      const v = await runCli(repo, ['validate'], { TMSYNC_API_KEY: KEY }, { scratch });
      console.log(`validate ${FILES} feature files, ${SCENARIOS} scenarios (run ${run}): ${(v.ms / 1000).toFixed(2)} s wall, ${cpu(v)} CPU (process start included), peak RSS ${mb(v.maxRss)}, exit ${v.code}${v.code === 0 ? '' : ` (${v.stderr.trim().split('\n').slice(-2).join(' / ')})`}; ${load()}`);
      const y = await runCli(yaml, ['validate'], { TMSYNC_API_KEY: KEY }, { scratch });
      console.log(`  the same ${SCENARIOS} cases as YAML files: ${(y.ms / 1000).toFixed(2)} s wall, ${cpu(y)} CPU, exit ${y.code}; ${load()}`);
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function planBench(scenarios) {
  const scratch = await mkdtemp(join(tmpdir(), `tmsync-bench-gherkin-${scenarios}-`));
  const repo = join(scratch, 'repo');
  const db = join(scratch, 'service.db');
  try {
    await mkdir(repo);
    const files = Math.ceil(scenarios / 25);
    await generate(repo, files, scenarios, 200);
    await applyThenQuietPlan({ repo, db, scratch, key: KEY, rate: RATE, config, what: `${scenarios} scenarios in ${files} feature files`, load });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] !== fileURLToPath(import.meta.url)) throw new Error('bench/gherkin.mjs is run, not imported');
console.log(`gherkin: validate of ${FILES} feature files / ${SCENARIOS} scenarios (target under 1.5 s); no-change plan of ${PLAN || 'no'} scenarios at ${RATE} requests/s (target within 3% of requests ÷ rate)`);
await validateBench();
if (PLAN > 0) await planBench(PLAN);
