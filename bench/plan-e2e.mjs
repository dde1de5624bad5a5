#!/usr/bin/env node
// `tmsync plan` end to end (issue 5 figures):
//
//   node bench/plan-e2e.mjs [--cases 10000] [--changes 2000] [--rate 10] [--latency 0]
//
// 1. Seeds a project (200 folders, 50 step groups, CASES cases that use them) through the
//    emulator's API on an unlimited in-process emulator with a SQLite file, cached in the OS temp
//    dir per size so a re-run skips it.
// 2. `tmsync pull` writes it as a repository (unlimited), then CHANGES files are edited: titles,
//    statuses, moves to another folder, and new cases.
// 3. `tmsync serve --db FILE --rate-limit RATE --log LOG` as a child process; `tmsync plan` (a
//    child process too, the CLI as users run it) with `rate_limit: RATE`: requests counted from the
//    emulator's log, wall time, and its ratio to the bound requests ÷ rate.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { root, serve as serveChild } from './lib/cli.mjs';
import { fileURLToPath } from 'node:url';

const dist = (p) => import(join(root, 'dist', p));
const bin = join(root, 'bin/tmsync.js');
const KEY = 'bench-plan';

async function seed(file, cases) {
  const { startEmulator } = await dist('emulator/index.js');
  const { createClient } = await dist('remote/index.js');
  const tmp = `${file}.partial`;
  rmSync(tmp, { force: true });
  const emu = await startEmulator({ db: tmp, apiKeys: [KEY], seed: 'demo' });
  const client = createClient({ baseUrl: emu.baseUrl, apiKey: KEY, rateLimit: 5000, concurrency: 16 });
  const list = async (name, key) => (await client.call(name, { query: { page_size: 100 } })).data[key];
  const [types, statuses, prios, autos] = await Promise.all([
    list('listCaseTypes', 'types'),
    list('listCaseStatuses', 'statuses'),
    list('listPriorities', 'priorities'),
    list('listAutomationTypes', 'automation_types'),
  ]);
  const users = (await client.call('listUsers')).data;
  const project = (await client.call('createProject', { body: { name: 'Plan bench', human_id_prefix: 'PLANB', description: 'plan benchmark' } })).data.project;
  const params = { project_id: project.id };
  const folders = [];
  for (let i = 0; i < 200; i++) {
    const f = (await client.call('createFolder', { params, body: { name: `Folder ${i}`, order: i } })).data.folder;
    if (i >= 20) await client.call('moveFolder', { params: { ...params, folder_id: f.id }, body: { parent_folder_id: folders[i % 20].id } });
    folders.push(f);
  }
  const groups = [];
  for (let i = 0; i < 50; i++) {
    const steps = [1, 2, 3].map((n) => ({ step_description: `group ${i} step ${n}`, expected_result: `ok ${n}`, order: n }));
    groups.push({ steps, group: (await client.call('createStepGroup', { params, body: { title: `Group ${i}`, steps } })).data.step_group });
  }
  for (let start = 0; start < cases; start += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, cases - start) }, (_, k) => {
        const i = start + k;
        const g = groups[i % groups.length];
        return client.call('createTestCase', {
          params,
          body: {
            title: `Case ${i}: a reasonably descriptive title`,
            description: `Description of case ${i}.`,
            template_type: 'STEPS',
            type_id: types[i % types.length].id,
            status_id: statuses[i % statuses.length].id,
            priority_id: prios[i % prios.length].id,
            automation_type_id: autos[i % autos.length].id,
            owner_id: users[i % users.length].id,
            folder_id: folders[i % folders.length].id,
            individual_steps: [
              ...g.steps.map((s, n) => ({ step_description: s.step_description, expected_results: s.expected_result, order: n + 1, step_type: 'DEFAULT', step_group_id: g.group.id })),
              { step_description: `Open page ${i}`, expected_results: 'The page shows', order: 4, step_type: 'DEFAULT' },
            ],
          },
        });
      }),
    );
  }
  await client.close();
  await emu.close();
  renameSync(tmp, file);
  for (const ext of ['-wal', '-shm']) if (existsSync(`${tmp}${ext}`)) renameSync(`${tmp}${ext}`, `${file}${ext}`);
}

function serve(db, extra) {
  return serveChild(['--db', db, '--api-key', KEY, ...extra], { stderr: 'ignore' });
}

function tmsync(cwd, args) {
  return spawnSync(process.execPath, [bin, ...args], { cwd, env: { ...process.env, TMSYNC_API_KEY: KEY, NO_COLOR: '1' }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

function config(baseUrl, rate) {
  return `project: PLANB\nbase_url: ${baseUrl}\nrate_limit: ${rate}\nconcurrency: 4\ndefaults:\n  type: Functional\n  status: Draft\n  priority: Medium\n  automation_type: Not Automated\n  owner: qa-lead@example.com\n`;
}

function yamlFiles(dir) {
  const out = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...yamlFiles(p));
    else if (/\.ya?ml$/.test(e) && e !== '_folder.yaml') out.push(p);
  }
  return out.sort();
}

/** CHANGES edits: 40% title and status edits, 30% moves to another folder, 30% new cases. */
function edit(repo, changes) {
  const files = yamlFiles(join(repo, 'cases'));
  const stride = Math.max(1, Math.floor(files.length / changes));
  let made = 0;
  for (let k = 0; made < changes && k * stride < files.length; k++, made++) {
    const file = files[k * stride];
    const text = readFileSync(file, 'utf8');
    const kind = k % 10;
    if (kind < 4) writeFileSync(file, text.replace(/^title: (["']?)(.*)\1$/m, 'title: $1$2 (edited)$1').replace(/^status: .*$/m, 'status: Ready'));
    else if (kind < 7) {
      // half the repository away: another folder
      const other = files[(k * stride + Math.floor(files.length / 2)) % files.length];
      const target = join(dirname(other), `moved-${k}.yaml`);
      mkdirSync(dirname(target), { recursive: true });
      rmSync(file);
      writeFileSync(target, text);
    } else writeFileSync(join(dirname(file), `new-${k}.yaml`), `title: New case ${k}\ndescription: Added by the benchmark.\n`);
  }
  return made;
}

export async function runPlanE2e({ cases = 10_000, changes = 2_000, rate = 10, latency = 0 } = {}) {
  const db = join(tmpdir(), `tmsync-bench-plan-${cases}.db`);
  if (!existsSync(db)) {
    const t0 = performance.now();
    await seed(db, cases);
    console.log(`  seeded ${cases} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s (${db})`);
  }
  const repo = mkdtempSync(join(tmpdir(), 'tmsync-bench-plan-repo-'));
  try {
    let server = await serve(db, []);
    writeFileSync(join(repo, 'tmsync.yaml'), config(server.baseUrl, 1000));
    const pulled = tmsync(repo, ['pull']);
    await server.stop();
    if (pulled.status !== 0) throw new Error(`tmsync pull failed: ${pulled.stderr}`);
    const made = edit(repo, changes);

    // the offline share of the wall time: reading and checking the repository
    const v0 = performance.now();
    const validated = tmsync(repo, ['validate']);
    const offline = (performance.now() - v0) / 1000;
    if (validated.status !== 0) throw new Error(`tmsync validate failed: ${validated.stderr.slice(0, 2000)}`);

    const log = join(repo, 'requests.jsonl');
    server = await serve(db, ['--rate-limit', String(rate), '--latency', `${latency}ms`, '--log', log]);
    writeFileSync(join(repo, 'tmsync.yaml'), config(server.baseUrl, rate));
    const t0 = performance.now();
    const planned = tmsync(repo, ['plan', '--detailed-exitcode', '--out', 'plan.json']);
    const wall = (performance.now() - t0) / 1000;
    await server.stop();
    if (planned.status !== 2) throw new Error(`tmsync plan exited ${planned.status}: ${planned.stderr.slice(0, 2000)}`);
    const entries = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const refused = entries.filter((e) => e.status === 429 || e.status === 500).length;
    const requests = entries.length;
    const bound = requests / rate;
    const summary = planned.stdout.trim().split('\n').at(-1);
    console.log(`tmsync plan end to end: ${cases} cases, ${made} edited files, emulator --rate-limit ${rate}${latency ? ` --latency ${latency}` : ''}`);
    console.log(`  ${summary}`);
    console.log(`  requests ${requests} (${refused} refused by the rate limit), wall ${wall.toFixed(1)} s, bound requests ÷ rate ${bound.toFixed(1)} s, ratio ${(wall / bound).toFixed(2)}`);
    console.log(`  of which offline (\`tmsync validate\` of the same repository, process start included): ${offline.toFixed(1)} s; load average ${loadavg()[0].toFixed(1)} on ${availableParallelism()} cpus`);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const opt = (name, dflt) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  await runPlanE2e({ cases: opt('cases', 10_000), changes: opt('changes', 2_000), rate: opt('rate', 10), latency: opt('latency', 0) });
}
