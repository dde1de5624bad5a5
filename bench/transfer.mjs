#!/usr/bin/env node
// Benchmark of `tmsync backup`, `tmsync restore` and `tmsync pull` (issue 7 and issue 15 item 5
// figures), through the real CLI against `tmsync serve` children.
//
//   node bench/transfer.mjs [--sizes 2000,10000] [--rate 10] [--restore-cases 1000]
//                           [--pull-cases LARGEST] [--pull-write batch,each] [--only backup,restore,pull]
//                           [--dist DIR] [--keep]
//
// The issue 15 figure (ratio ≤ 1.05 at 10,000 cases for all three) is
//   node bench/transfer.mjs --sizes 10000 --restore-cases 10000
// (the restore alone takes ~17 minutes at 10 req/s). `--dist DIR` runs the CLI from another build
// (a copy of an earlier dist/) against the same seeded projects, to compare before and after in
// the same conditions; the machine's load average is printed beside the figures.
//
// Builds nothing itself: run `npx tsc -p tsconfig.build.json` first (npm run bench does).
// Seeding: an in-process, unlimited emulator writes each project into an SQLite file through the
// API (fast: no rate limit, no network hop); the measured runs use `tmsync serve --db FILE` children.
// 1. Backup peak RSS at each size without a rate limit (flat when the writer streams).
// 2. Backup of the largest size with `--rate-limit R`: wall ÷ (accepted requests ÷ R).
// 3. Restore of RESTORE_CASES cases into an empty project with `--rate-limit R`: the same ratio.
//    A restore sends about one request per item, so 10,000 cases at 10 req/s take ~17 minutes:
//    the default measures 1,000 (pass --restore-cases 10000 for the full figure).
// 4. Pull of PULL_CASES cases (default: the largest size) into an empty directory with
//    `--rate-limit R`, then again over the files it wrote (a re-pull): the same ratio.
//    `--pull-write batch,each` repeats the pair with each way of writing new files
//    (`TMSYNC_PULL_WRITE`: `batch` flushes them together, the default; `each` fsyncs them one by
//    one, the way before), so before and after print from one run.
// Each rate-limited backup and pull row ends with where its time went: the first and the last
// request as the emulator logged them and the exit, in seconds from the CLI's start.
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRequestLog, root, runCli, serve as serveChild, stop } from './lib/cli.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const SIZES = String(opt('sizes', '2000,10000')).split(',').map(Number);
const RATE = Number(opt('rate', 10));
const RESTORE_CASES = Number(opt('restore-cases', 1000));
const ONLY = String(opt('only', 'backup,restore,pull')).split(',');
const DIST = opt('dist', undefined);
const KEY = 'bench-transfer';

if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
  console.error('dist/ is missing: run `npx tsc -p tsconfig.build.json` first');
  process.exit(1);
}
const { startEmulator } = await import(join(root, 'dist', 'emulator', 'index.js'));
const { createClient, resolveProject } = await import(join(root, 'dist', 'remote', 'index.js'));

const work = mkdtempSync(join(tmpdir(), 'tmsync-bench-transfer-'));
const fmt = (n) => Math.round(n).toLocaleString('en-US');
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** Runs `fn` over items with `limit` in flight. */
async function pool(items, limit, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i], i);
      }
    }),
  );
}

/**
 * A project of `cases` cases into an SQLite file: 10 top-level folders with 4 subfolders each,
 * 20 step groups used by a third of the cases, 5 plans and 5 runs of 200 cases with results.
 */
async function seed(file, cases) {
  const emu = await startEmulator({ db: file, apiKeys: [KEY], seed: 'demo', port: 0 });
  const c = createClient({ baseUrl: emu.baseUrl, apiKey: KEY, rateLimit: 100_000, concurrency: 32 });
  try {
    const project = await resolveProject(c, 'DEMO');
    const params = { project_id: project.id };
    const list = async (name) => {
      const out = [];
      for await (const x of c.paginate(name)) out.push(x);
      return out;
    };
    const [types, statuses, priorities, autos, runStatuses] = await Promise.all(
      ['listCaseTypes', 'listCaseStatuses', 'listPriorities', 'listAutomationTypes', 'listRunStatuses'].map(list),
    );
    const users = (await c.call('listUsers')).data;
    const labels = (await c.call('listLabels')).data.labels;
    const folders = [];
    for (let t = 0; t < 10; t++) {
      const top = (await c.call('createFolder', { params, body: { name: `Area ${t}` } })).data.folder;
      folders.push(top.id);
      for (let s = 0; s < 4; s++) {
        const sub = (await c.call('createFolder', { params, body: { name: `Feature ${t}.${s}` } })).data.folder;
        await c.call('moveFolder', { params: { ...params, folder_id: sub.id }, body: { parent_folder_id: top.id } });
        folders.push(sub.id);
      }
    }
    const groups = [];
    for (let g = 0; g < 20; g++) {
      const body = {
        title: `Shared steps ${g}`,
        description: `Group ${g}`,
        steps: [0, 1, 2].map((k) => ({ step_description: `Group ${g} step ${k}`, expected_result: `Group ${g} ok ${k}`, order: k + 1 })),
      };
      groups.push((await c.call('createStepGroup', { params, body })).data.step_group);
    }
    const ids = new Array(cases);
    await pool(
      Array.from({ length: cases }, (_, i) => i),
      32,
      async (i) => {
        const g = groups[i % groups.length];
        const own = [
          { step_description: `Open screen ${i}`, expected_results: `Screen ${i} shows`, step_type: 'DEFAULT', step_group_id: null },
          { step_description: `Check value ${i}`, expected_results: `Value ${i} is right`, step_type: 'DEFAULT', step_group_id: null },
        ];
        const shared = i % 3 === 0 ? g.steps.map((s) => ({ step_description: s.step_description, expected_results: s.expected_results, step_type: 'DEFAULT', step_group_id: g.id })) : [];
        const body = {
          title: `Case ${i}: a realistic title of moderate length`,
          description: `What case ${i} checks, in a sentence or two of prose.\nSecond line.`,
          preconditions: i % 2 ? 'Signed in' : '',
          template_type: 'STEPS',
          type_id: types[i % types.length].id,
          status_id: statuses[i % statuses.length].id,
          priority_id: priorities[i % priorities.length].id,
          automation_type_id: autos[i % autos.length].id,
          owner_id: users[i % users.length].id,
          folder_id: folders[i % folders.length],
          label_ids: i % 4 === 0 ? [labels[i % labels.length].id] : [],
          individual_steps: [...shared, ...own].map((s, k) => ({ ...s, order: k + 1 })),
        };
        ids[i] = (await c.call('createTestCase', { params, body })).data.test_case.id;
      },
    );
    for (let p = 0; p < 5; p++) {
      if (ids.length <= p * 200) break;
      const plan = (await c.call('createTestPlan', { params, body: { title: `Release ${p}`, description: '' } })).data.test_plan;
      const members = ids.slice(p * 200, p * 200 + 200);
      const run = (
        await c.call('createTestRun', {
          params,
          body: { title: `Run ${p}`, selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: members }], test_plan_id: plan.id },
        })
      ).data.test_run;
      await c.call('updateRunCases', {
        params: { ...params, test_run_id: run.id },
        body: { test_run_cases: members.slice(0, 150).map((id, k) => ({ test_case_id: id, test_run_status_id: runStatuses[k % runStatuses.length].id, user_id: users[k % users.length].id })) },
      });
    }
  } finally {
    await c.close();
    await emu.close();
  }
}

/** Starts `tmsync serve` on a database file and resolves its base URL. */
const serve = (extra) => serveChild(['--api-key', KEY, ...extra]);

/** Runs the CLI in `cwd`; returns exit code, wall ms, stderr and the child's peak RSS (bytes). */
function tmsync(cwd, argv, env = {}) {
  return runCli(cwd, argv, { TMSYNC_API_KEY: KEY, ...env }, { scratch: work, ...(DIST ? { dist: DIST } : {}) });
}

function accepted(logFile) {
  const lines = readRequestLog(logFile);
  const refused = lines.filter((l) => l.fault === 'rate_limit' || l.status === 429).length;
  return { ok: lines.length - refused, refused, times: lines.map((l) => Date.parse(l.time)) };
}

/**
 * Where the wall time beyond the requests goes: the first and the last request as the emulator
 * logged them, and the exit, in seconds from the CLI's start (before the first: starting node and
 * loading; after the last: what the command does once it has read everything).
 */
function phases(startedAt, times, ms) {
  if (times.length === 0) return '';
  const s = (t) => ((t - startedAt) / 1000).toFixed(2);
  return `; first request at ${s(times[0])} s, last at ${s(times.at(-1))} s, exit at ${(ms / 1000).toFixed(2)} s`;
}

function workdir(name, rate) {
  const dir = mkdtempSync(join(work, `${name}-`));
  writeFileSync(join(dir, 'tmsync.yaml'), `project: DEMO\nrate_limit: ${rate}\nconcurrency: 4\n`);
  return dir;
}

const rows = [];
const load = () => `load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`;

// --- 1. backup memory at each size, no rate limit
const dbs = new Map();
for (const n of SIZES) {
  const file = join(work, `project-${n}.db`);
  const t0 = performance.now();
  await seed(file, n);
  process.stdout.write(`seeded ${fmt(n)} cases in ${(performance.now() - t0) / 1000 | 0} s\n`);
  dbs.set(n, file);
  if (!ONLY.includes('backup')) continue;
  const emu = await serve(['--db', file]);
  try {
    const dir = workdir(`backup-${n}`, 100_000);
    const r = await tmsync(dir, ['backup', '--base-url', emu.baseUrl, '--out', 'backup.json.gz']);
    if (r.code !== 0) throw new Error(`backup failed (${r.code}):\n${r.stderr.slice(-2000)}`);
    const size = statSync(join(dir, 'backup.json.gz')).size;
    rows.push(`backup ${fmt(n)} cases, no rate limit: ${(r.ms / 1000).toFixed(1)} s, peak RSS ${mb(r.maxRss)}, file ${mb(size)} gzipped`);
  } finally {
    await stop(emu.child);
  }
}

// --- 2. backup of the largest size under the rate limit
const largest = Math.max(...SIZES);
if (ONLY.includes('backup')) {
  const logFile = join(work, 'backup-limited.jsonl');
  const emu = await serve(['--db', dbs.get(largest), '--rate-limit', String(RATE), '--log', logFile]);
  try {
    const dir = workdir('backup-limited', RATE);
    const startedAt = Date.now();
    const r = await tmsync(dir, ['backup', '--base-url', emu.baseUrl, '--out', 'backup.json']);
    if (r.code !== 0) throw new Error(`backup failed (${r.code}):\n${r.stderr.slice(-2000)}`);
    const { ok, refused, times } = accepted(logFile);
    const bound = (ok / RATE) * 1000;
    rows.push(
      `backup ${fmt(largest)} cases at ${RATE} req/s: ${fmt(ok)} requests (${refused} refused), ${(r.ms / 1000).toFixed(1)} s, bound ${(bound / 1000).toFixed(1)} s, ratio ${(r.ms / bound).toFixed(2)} (target ≤ 1.05), ${load()}${phases(startedAt, times, r.ms)}`,
    );
  } finally {
    await stop(emu.child);
  }
}

// --- 3. restore under the rate limit
if (ONLY.includes('restore')) {
  let sourceDb = dbs.get(RESTORE_CASES);
  if (!sourceDb) {
    sourceDb = join(work, `restore-source-${RESTORE_CASES}.db`);
    await seed(sourceDb, RESTORE_CASES);
  }
  const source = await serve(['--db', sourceDb]);
  const dir = workdir('restore', RATE);
  try {
    const r = await tmsync(dir, ['backup', '--base-url', source.baseUrl, '--out', 'source.json']);
    if (r.code !== 0) throw new Error(`backup failed (${r.code}):\n${r.stderr.slice(-2000)}`);
  } finally {
    await stop(source.child);
  }
  const logFile = join(work, 'restore-limited.jsonl');
  const target = await serve(['--memory', '--seed', 'demo', '--rate-limit', String(RATE), '--log', logFile]);
  try {
    const r = await tmsync(dir, ['restore', 'source.json', '--base-url', target.baseUrl, '--project', 'DEMO']);
    if (r.code !== 0) throw new Error(`restore failed (${r.code}):\n${r.stderr.slice(-2000)}`);
    const { ok, refused } = accepted(logFile);
    const bound = (ok / RATE) * 1000;
    rows.push(
      `restore ${fmt(RESTORE_CASES)} cases at ${RATE} req/s: ${fmt(ok)} requests (${refused} refused), ${(r.ms / 1000).toFixed(1)} s, bound ${(bound / 1000).toFixed(1)} s, ratio ${(r.ms / bound).toFixed(2)} (target ≤ 1.05), peak RSS ${mb(r.maxRss)}, ${load()}`,
    );
  } finally {
    await stop(target.child);
  }
}

// --- 4. pull under the rate limit: into an empty directory, then over its own files
if (ONLY.includes('pull')) {
  const PULL_CASES = Number(opt('pull-cases', largest));
  let db = dbs.get(PULL_CASES);
  if (!db) {
    db = join(work, `pull-source-${PULL_CASES}.db`);
    await seed(db, PULL_CASES);
  }
  for (const mode of String(opt('pull-write', 'batch')).split(',')) {
    const dir = workdir(`pull-${mode}`, RATE);
    for (const pass of ['into an empty directory', 'again over its files']) {
      const logFile = join(work, `pull-limited-${mode}-${pass.length}.jsonl`);
      const emu = await serve(['--db', db, '--rate-limit', String(RATE), '--log', logFile]);
      try {
        const startedAt = Date.now();
        const r = await tmsync(dir, ['pull', '--base-url', emu.baseUrl], { TMSYNC_PULL_WRITE: mode });
        if (r.code !== 0) throw new Error(`pull failed (${r.code}):\n${r.stderr.slice(-2000)}`);
        const { ok, refused, times } = accepted(logFile);
        const bound = (ok / RATE) * 1000;
        rows.push(
          `pull ${fmt(PULL_CASES)} cases at ${RATE} req/s ${pass} (write ${mode}): ${fmt(ok)} requests (${refused} refused), ${(r.ms / 1000).toFixed(1)} s, bound ${(bound / 1000).toFixed(1)} s, ratio ${(r.ms / bound).toFixed(2)} (target ≤ 1.05), peak RSS ${mb(r.maxRss)}, ${load()}${phases(startedAt, times, r.ms)}`,
        );
      } finally {
        await stop(emu.child);
      }
    }
  }
}

if (DIST) rows.unshift(`(the CLI from ${DIST})`);
for (const row of rows) process.stdout.write(`${row}\n`);
if (args.includes('--keep')) process.stdout.write(`kept ${work}\n`);
else rmSync(work, { recursive: true, force: true });
