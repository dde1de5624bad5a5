#!/usr/bin/env node
// Throughput of the emulator (issue 2 figures), measured from a second process on loopback.
//
//   node bench/emulator.mjs [--seconds 3] [--connections 8]
//
// Builds nothing itself: run `npx tsc -p tsconfig.build.json` first (npm run bench does).
// 1. Starts `tmsync serve --port 0 --memory --api-key bench` as a child process.
// 2. Seeds 100 test cases with 5 steps each through the API.
// 3. From this process, with undici keep-alive connections (a bounded number, each carrying one
//    request at a time), runs each scenario for a fixed time and prints requests/s and p99.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const SECONDS = opt('seconds', 3);
const CONNECTIONS = opt('connections', 8);
const KEY = 'bench';

const child = spawn(process.execPath, [join(root, 'bin/tmsync.js'), 'serve', '--port', '0', '--memory', '--api-key', KEY, '--seed', 'demo'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const first = await new Promise((resolve, reject) => {
  createInterface({ input: child.stdout }).once('line', resolve);
  child.once('exit', (code) => reject(new Error(`tmsync serve exited with ${code}`)));
});
const baseUrl = /listening on (\S+)/.exec(first)?.[1];
if (!baseUrl) throw new Error(`unexpected first line: ${first}`);
const url = new URL(baseUrl);
const pool = new Pool(url.origin, { connections: CONNECTIONS, pipelining: 1 });
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

async function call(method, path, body, parse = true) {
  const res = await pool.request({ method, path: `${url.pathname}${path}`, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!parse && res.statusCode < 300) {
    // the load phase only checks the status: decoding would measure this process, not the emulator
    for await (const _chunk of res.body);
    return undefined;
  }
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path} -> ${res.statusCode} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

// --- seed
const first1 = async (path, key) => (await call('GET', path)).data[key][0].id;
const ids = {
  type_id: await first1('/test_cases/types', 'types'),
  status_id: await first1('/test_cases/statuses', 'statuses'),
  priority_id: await first1('/test_cases/priorities', 'priorities'),
  automation_type_id: await first1('/test_cases/automation_types', 'automation_types'),
  owner_id: (await call('GET', '/users')).data[0].id,
};
const folderId = (await call('POST', '/projects/DEMO/folders', { name: 'Bench' })).data.folder.id;
const steps = Array.from({ length: 5 }, (_, i) => ({ step_description: `Step ${i + 1}: do the thing`, expected_results: `Result ${i + 1} shows` }));
const caseBody = (i) => ({
  title: `Bench case ${i}`,
  description: 'A case created by the emulator benchmark, long enough to look like a real description.',
  preconditions: 'The user is signed in.',
  folder_id: folderId,
  ...ids,
  individual_steps: steps,
});
const seeded = [];
for (let i = 0; i < 100; i++) seeded.push((await call('POST', '/projects/DEMO/test_cases', caseBody(i))).data.test_case);

// --- load
async function load(name, makeRequest, target) {
  // warm-up
  for (let i = 0; i < 50; i++) await makeRequest(i);
  const latencies = [];
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(SECONDS * 1e9);
  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      const t0 = process.hrtime.bigint();
      await makeRequest(n++);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.floor(latencies.length * 0.99)];
  const rate = latencies.length / secs;
  const okRate = rate >= target;
  const okP99 = p99 < 20;
  const fmt = (x) => Math.round(x).toLocaleString('en-US');
  process.stdout.write(
    `emulator: ${name} ${fmt(rate)} req/s p99 ${p99.toFixed(1)} ms (target ${fmt(target)} req/s, p99 < 20 ms)` +
      `${okRate && okP99 ? '' : '  BELOW TARGET'}\n`,
  );
  return { name, rate, p99 };
}

process.stdout.write(`emulator bench: ${SECONDS} s per scenario, ${CONNECTIONS} keep-alive connections, loopback, second process\n`);
const results = [];
results.push(await load('list page of 100 cases with steps', () => call('GET', '/projects/DEMO/test_cases?page_size=100', undefined, false), 1000));
results.push(await load('GET case', (i) => call('GET', `/projects/DEMO/test_cases/${seeded[i % seeded.length].id}`, undefined, false), 5000));
results.push(await load('create case (5 steps)', (i) => call('POST', '/projects/DEMO/test_cases', caseBody(1000 + i), false), 1000));

await pool.close();
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));
