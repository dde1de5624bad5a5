#!/usr/bin/env node
// Benchmark of fetchState against the emulator (issue 3 figures).
//
//   node bench/fetch-state.mjs [--cases 10000] [--folders 200] [--groups 50] [--latency 20] [--rate 10] [--skip-naive]
//
// Builds nothing itself: run `npx tsc -p tsconfig.build.json` first (npm run bench does).
// 1. Seeds a project through the emulator's own API on an unlimited in-process emulator with a
//    SQLite file (cached in the OS temp dir per size, so a re-run skips it).
// 2. Starts `tmsync serve --db FILE --latency L --rate-limit R` as a child process.
// 3. fetchState with the client at the service's rate: requests, wall time, ratio to requests ÷ rate.
// 4. A naive reader (one request at a time, page_size 20, obeys Retry-After) as the baseline.
import { existsSync, readFileSync, rmSync, renameSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, serve as serveChild } from './lib/cli.mjs';
import { request } from 'undici';

const dist = (p) => import(join(root, 'dist', p));

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const flag = (name) => args.includes(`--${name}`);
const CASES = opt('cases', 10_000);
const FOLDERS = opt('folders', 200);
const GROUPS = opt('groups', 50);
const LATENCY = opt('latency', 20);
const RATE = opt('rate', 10);
const MARGIN = opt('margin', undefined);
const KEY = 'bench';

const { createClient, fetchState } = await dist('remote/index.js');

async function seed(file) {
  const { startEmulator } = await dist('emulator/index.js');
  const tmp = `${file}.partial`;
  rmSync(tmp, { force: true });
  const emu = await startEmulator({ db: tmp, apiKeys: [KEY], seed: 'demo' });
  const client = createClient({ baseUrl: emu.baseUrl, apiKey: KEY, rateLimit: 5000, concurrency: 16 });
  const t0 = performance.now();
  const pick = async (name) => (await client.call(name, { query: { page_size: 100 } })).data;
  const [types, statuses, prios, autos] = await Promise.all(['listCaseTypes', 'listCaseStatuses', 'listPriorities', 'listAutomationTypes'].map(pick));
  const users = (await client.call('listUsers')).data;
  const labels = (await client.call('listLabels')).data.labels;
  const project = (await client.call('createProject', { body: { name: 'Bench', human_id_prefix: 'BENCH', description: 'benchmark project' } })).data.project;
  const params = { project_id: project.id };
  // folders: a tenth at the top level, the rest spread under them
  const tops = Math.max(1, Math.round(FOLDERS / 10));
  const folders = [];
  for (let i = 0; i < FOLDERS; i++) {
    const f = (await client.call('createFolder', { params, body: { name: `Folder ${i}`, order: i } })).data.folder;
    if (i >= tops) await client.call('moveFolder', { params: { ...params, folder_id: f.id }, body: { parent_folder_id: folders[i % tops].id } });
    folders.push(f);
  }
  const groups = await Promise.all(
    Array.from({ length: GROUPS }, (_, i) =>
      client.call('createStepGroup', {
        params,
        body: {
          title: `Group ${i}`,
          description: `shared steps ${i}`,
          steps: [1, 2, 3].map((n) => ({ step_description: `group ${i} step ${n}`, expected_result: `ok ${n}`, order: n })),
        },
      }),
    ),
  );
  const batch = 500;
  for (let start = 0; start < CASES; start += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, CASES - start) }, (_, k) => {
        const i = start + k;
        const g = groups[i % groups.length]?.data.step_group;
        return client.call('createTestCase', {
          params,
          body: {
            title: `Case ${i}: a reasonably descriptive title of a test case`,
            description: `Description of case ${i}. `.repeat(3),
            preconditions: 'The user is signed in.',
            template_type: 'STEPS',
            type_id: types.types[i % types.types.length].id,
            status_id: statuses.statuses[i % statuses.statuses.length].id,
            priority_id: prios.priorities[i % prios.priorities.length].id,
            automation_type_id: autos.automation_types[i % autos.automation_types.length].id,
            owner_id: users[i % users.length].id,
            folder_id: folders[i % folders.length].id,
            label_ids: [labels[i % labels.length].id],
            individual_steps: [
              ...(g ? [{ step_description: '', expected_results: '', order: 1, step_type: 'DEFAULT', step_group_id: g.id }] : []),
              { step_description: `Open page ${i}`, expected_results: 'The page shows', order: 2, step_type: 'DEFAULT' },
              { step_description: `Press the button ${i}`, expected_results: 'It works', order: 3, step_type: 'DEFAULT' },
            ],
          },
        });
      }),
    );
  }
  const secs = (performance.now() - t0) / 1000;
  await client.close();
  await emu.close();
  renameSync(tmp, file);
  for (const ext of ['-wal', '-shm']) if (existsSync(`${tmp}${ext}`)) renameSync(`${tmp}${ext}`, `${file}${ext}`);
  return secs;
}

function serve(file) {
  return serveChild(['--db', file, '--api-key', KEY, '--latency', `${LATENCY}ms`, '--rate-limit', String(RATE)]);
}

/** One request at a time, the service's default-ish page size, Retry-After obeyed: the baseline. */
async function naiveFetch(baseUrl, projectRef) {
  let requests = 0;
  const get = async (url) => {
    for (;;) {
      requests++;
      const res = await request(url, { headers: { authorization: `Bearer ${KEY}`, accept: 'application/json' } });
      const text = await res.body.text();
      if (res.statusCode === 429 || (res.statusCode >= 500 && /rate limit/i.test(text))) {
        await new Promise((r) => setTimeout(r, Number(res.headers['retry-after'] ?? 1) * 1000));
        continue;
      }
      if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${url}: ${text.slice(0, 200)}`);
      return JSON.parse(text);
    }
  };
  const list = async (path, key) => {
    const out = [];
    let url = `${baseUrl}${path}?page_size=20`;
    while (url) {
      const page = await get(url);
      out.push(...page.data[key]);
      url = page.page_info?.next || '';
    }
    return out;
  };
  const projects = await list('/projects', 'projects');
  const project = projects.find((p) => p.human_id_prefix === projectRef);
  const P = `/projects/${project.id}`;
  await list(`${P}/folders`, 'folders');
  const cases = await list(`${P}/test_cases`, 'test_cases');
  const groups = await list(`${P}/step_groups`, 'step_groups');
  for (const g of groups) await get(`${baseUrl}${P}/step_groups/${g.id}`);
  await list(`${P}/test_plans`, 'test_plans');
  for (const [path, key] of [['/test_cases/types', 'types'], ['/test_cases/statuses', 'statuses'], ['/test_cases/priorities', 'priorities'], ['/test_cases/automation_types', 'automation_types'], ['/test_runs/statuses', 'statuses']]) {
    await list(path, key);
  }
  await get(`${baseUrl}/users`);
  await get(`${baseUrl}/labels`);
  return { requests, cases: cases.length };
}

// the cached database is only reused by an emulator with the same schema
const schemaHash = createHash('sha1').update(readFileSync(join(root, 'dist/emulator/db/schema.js'))).digest('hex').slice(0, 8);
const dbFile = join(tmpdir(), `tmsync-bench-${CASES}c-${FOLDERS}f-${GROUPS}g-${schemaHash}.db`);
if (!existsSync(dbFile)) {
  const secs = await seed(dbFile);
  console.log(`seeded ${CASES} cases, ${FOLDERS} folders, ${GROUPS} step groups through the API in ${secs.toFixed(1)} s (${dbFile})`);
}

const emu = await serve(dbFile);
try {
  const client = createClient({ baseUrl: emu.baseUrl, apiKey: KEY, rateLimit: RATE, rateMargin: MARGIN });
  const t0 = performance.now();
  const state = await fetchState(client, 'BENCH');
  const secs = (performance.now() - t0) / 1000;
  const st = client.stats();
  await client.close();
  const pageSize = 100;
  const folderPages = Math.max(1, Math.ceil(FOLDERS / pageSize));
  const casePages = Math.max(1, Math.ceil(CASES / pageSize));
  const groupPages = Math.max(1, Math.ceil(GROUPS / pageSize));
  // projects, folders, cases, step groups, plans, 5 lookup lists, users, labels at the largest page
  // size, plus one GET per step group (the list omits steps)
  const bound = 1 + folderPages + casePages + groupPages + 1 + 5 + 1 + 1 + GROUPS;
  const ideal = st.requests / RATE;
  console.log(
    `fetch-state: ${state.cases.length} cases: ${st.requests} requests (bound ${bound}), ${secs.toFixed(1)} s, ` +
      `ratio ${(secs / ideal).toFixed(2)} (target ≤ 1.10; requests÷rate = ${ideal.toFixed(1)} s at ${RATE}/s), ` +
      `retries ${st.retries}, rate-limited ${st.rateLimited}`,
  );
  if (!flag('skip-naive')) {
    const t1 = performance.now();
    const naive = await naiveFetch(emu.baseUrl, 'BENCH');
    const nsecs = (performance.now() - t1) / 1000;
    console.log(`naive: ${naive.requests} requests, ${nsecs.toFixed(1)} s (one at a time, page_size 20, Retry-After obeyed)`);
  }
} finally {
  await emu.stop();
}
