#!/usr/bin/env node
// A pull request's plan (issue 15, item 6): `tmsync plan --changed-since REF` against a full plan.
//
//   node bench/changed-since.mjs [--cases 50000] [--rate 10]
//
// Builds nothing itself: run `npm run build` first (npm run bench does).
// 1. Seeds a project of CASES cases (200 folders, 50 step groups) straight into the emulator's
//    SQLite file (one transaction, no HTTP), cached in the OS temp dir per size.
// 2. `tmsync serve --db FILE --log LOG` (no rate limit) as a child; `tmsync pull` writes the
//    repository, which is committed to a fresh git repository.
// 3. A 3-file change (one case edited, one added, one moved to another folder with `git mv`).
// 4. `tmsync plan --changed-since HEAD` and the full `tmsync plan`, each as the CLI runs for users:
//    requests (from the emulator's log), wall time, and the time those requests take at RATE
//    requests/s (the live service's limit), side by side. A second full plan shows the read cache
//    (no step group GETs when nothing changed).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { root, serve } from './lib/cli.mjs';

const dist = (p) => import(join(root, 'dist', p));
const bin = join(root, 'bin/tmsync.js');
const KEY = 'bench-changed-since';

/** CASES cases in 200 folders (20 top level), 50 step groups used by the cases, in one transaction. */
async function seed(file, cases) {
  const { startEmulator, seedDemo, createProject } = await dist('emulator/index.js');
  const db = await dist('emulator/db/index.js');
  const tmp = `${file}.partial`;
  rmSync(tmp, { force: true });
  const emu = await startEmulator({ db: tmp, apiKeys: [KEY], seed: 'demo' });
  const ctx = emu.db;
  const demo = seedDemo(emu);
  const project = createProject(emu, { prefix: 'CHG', name: 'Changed since bench' });
  const kinds = ['types', 'statuses', 'priorities', 'automation_types'];
  const [types, statuses, prios, autos] = kinds.map((k) => db.allLookups(ctx, k));
  ctx.tx(() => {
    const folders = [];
    for (let i = 0; i < 200; i++) {
      const f = db.insertFolder(ctx, project.id, `Folder ${i}`, undefined);
      folders.push(i >= 20 ? db.moveFolder(ctx, f, folders[i % 20].id) : f);
    }
    const groups = [];
    for (let i = 0; i < 50; i++) {
      const steps = [1, 2, 3].map((n) => ({ step_description: `group ${i} step ${n}`, expected_results: `ok ${n}` }));
      groups.push({ steps, group: db.insertStepGroup(ctx, project.id, 'CHG', { title: `Group ${i}`, description: '', label_ids: [] }, steps) });
    }
    for (let i = 0; i < cases; i++) {
      const g = groups[i % groups.length];
      db.insertCase(
        ctx,
        project.id,
        'CHG',
        {
          title: `Case ${i}: a reasonably descriptive title`,
          description: `Description of case ${i}.`,
          template_type: 'STEPS',
          preconditions: '',
          steps: '',
          expected_results: '',
          type_id: types[i % types.length].id,
          status_id: statuses[i % statuses.length].id,
          priority_id: prios[i % prios.length].id,
          automation_type_id: autos[i % autos.length].id,
          owner_id: demo.users[i % demo.users.length].id,
          reviewer_id: '',
          folder_id: folders[i % folders.length].id,
          label_ids: [],
        },
        [
          ...g.steps.map((s) => ({ step_description: s.step_description, expected_results: s.expected_results, step_type: 'DEFAULT', step_group_id: g.group.id })),
          { step_description: `Open page ${i}`, expected_results: 'The page shows', step_type: 'DEFAULT' },
        ],
      );
    }
  });
  await emu.close();
  renameSync(tmp, file);
  for (const ext of ['-wal', '-shm']) if (existsSync(`${tmp}${ext}`)) renameSync(`${tmp}${ext}`, `${file}${ext}`);
}

function tmsync(cwd, args) {
  return spawnSync(process.execPath, [bin, ...args], { cwd, env: { ...process.env, TMSYNC_API_KEY: KEY, NO_COLOR: '1' }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

const config = (baseUrl) =>
  `project: CHG\nbase_url: ${baseUrl}\nrate_limit: 5000\ndefaults:\n  type: Functional\n  status: Draft\n  priority: Medium\n  automation_type: Not Automated\n  owner: qa-lead@example.com\n`;

export async function runChangedSince({ cases = 50_000, rate = 10 } = {}) {
  const dbFile = join(tmpdir(), `tmsync-bench-changed-since-${cases}.db`);
  if (!existsSync(dbFile)) {
    const t0 = performance.now();
    await seed(dbFile, cases);
    console.log(`  seeded ${cases} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s (${dbFile})`);
  }
  const repo = mkdtempSync(join(tmpdir(), 'tmsync-bench-changed-since-'));
  const log = join(repo, '..', `${repo.split('/').pop()}-requests.jsonl`);
  const server = await serve(['--db', dbFile, '--api-key', KEY, '--log', log], { stderr: 'ignore' });
  try {
    writeFileSync(join(repo, 'tmsync.yaml'), config(server.baseUrl));
    const pulled = tmsync(repo, ['pull']);
    if (pulled.status !== 0) throw new Error(`tmsync pull failed: ${pulled.stderr.slice(0, 2000)}`);
    writeFileSync(join(repo, '.gitignore'), '.tmsync/\n');
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'pulled');

    // the change: an edit, a new case, a move to another folder
    const dirs = readdirSync(join(repo, 'cases'), { recursive: true, withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(e.parentPath ?? e.path, e.name));
    const filesOf = (d) => readdirSync(d).filter((f) => f.endsWith('.yaml') && f !== '_folder.yaml');
    const [a, b, c] = [dirs[3], dirs[40], dirs[120]];
    const edited = join(a, filesOf(a)[0]);
    writeFileSync(edited, readFileSync(edited, 'utf8').replace(/^description: .*$/m, 'description: Edited in a pull request.'));
    writeFileSync(join(b, 'new-in-pr.yaml'), 'title: Added in a pull request\n');
    git(repo, 'mv', join(c, filesOf(c)[0]), join(b, 'moved-in-pr.yaml'));

    const measure = (args) => {
      const before = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
      const t0 = performance.now();
      const r = tmsync(repo, ['plan', ...args]);
      const wall = (performance.now() - t0) / 1000;
      if (r.status !== 0) throw new Error(`tmsync plan ${args.join(' ')} exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
      const entries = readFileSync(log, 'utf8').split('\n').filter(Boolean).slice(before).map((l) => JSON.parse(l));
      const stepGroupGets = entries.filter((e) => /\/step_groups\/[^/?]+$/.test(e.path)).length;
      return { requests: entries.length, stepGroupGets, wall, summary: r.stdout.trim().split('\n').at(-1) };
    };
    rmSync(join(repo, '.tmsync'), { recursive: true, force: true });
    const changed = measure(['--changed-since', 'HEAD']);
    rmSync(join(repo, '.tmsync'), { recursive: true, force: true });
    const full = measure([]);
    const fullAgain = measure([]);

    console.log(`tmsync plan of a 3-file change (edit, new case, move) in ${cases} cases, 200 folders, 50 step groups; emulator without rate limit`);
    const row = (name, m) =>
      console.log(
        `  ${name.padEnd(34)} requests ${String(m.requests).padStart(5)} (step group GETs ${String(m.stepGroupGets).padStart(2)})  wall ${m.wall.toFixed(1).padStart(5)} s  at ${rate} req/s ≥ ${(m.requests / rate).toFixed(1).padStart(6)} s  ${m.summary}`,
      );
    row('--changed-since HEAD (no cache)', changed);
    row('full plan (no cache)', full);
    row('full plan again (read cache)', fullAgain);
    console.log(`  target: ≤ 15 requests for the 3-file change: ${changed.requests <= 15 ? 'met' : 'NOT met'}; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cpus`);
  } finally {
    await server.stop();
    rmSync(repo, { recursive: true, force: true });
    rmSync(log, { force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  mkdirSync(tmpdir(), { recursive: true });
  await runChangedSince({ cases: opt('cases', 50_000), rate: opt('rate', 10) });
}
