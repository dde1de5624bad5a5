#!/usr/bin/env node
// Throughput of the emulator (issue 2, 15 and 32 figures), measured from a second process on loopback.
//
//   node bench/emulator.mjs [--seconds 3] [--connections 8] [--walk-cases 20000] [--store 200000] [--runs 3]
//                           [--mix-cases 10000] [--mix-connections 16] [--mix-seconds 5] [--mix-only]
//                           [--baseline path/to/bin/tmsync.js]
//
// Builds nothing itself: run `npx tsc -p tsconfig.build.json` first (npm run bench does).
// 1. The walk beside the mixed workload (issue 32): a fresh emulator holding MIX_CASES cases with 3
//    steps each, loaded with MIX_CONNECTIONS requests in flight; the walk reads every 100-case page
//    in turn, the mixed workload does the same with every 10th request a create (90% page reads,
//    10% creates). The two run alternately RUNS times each and the medians are printed with their
//    ratio. With --baseline (another build's bin/tmsync.js, e.g. a copy of the code before a
//    change) a second emulator is filled the same way and every run alternates between the two as
//    well, so both see the same load of a shared machine; the ratios are the comparison.
// 2. Starts `tmsync serve --port 0 --memory --api-key bench` as a child process.
// 3. Seeds WALK_CASES test cases with 5 steps each through the API.
// 4. From this process, with undici keep-alive connections (a bounded number, each carrying one
//    request at a time), runs each scenario for a fixed time and prints requests/s and p99.
//    The list scenario walks the pages of the project as fetchState does, every page a different
//    URL, with an update interleaved every 10 requests: no answer can come from a cache of pages
//    (the emulator keeps each case's serialized item until the case changes). The saturation
//    phase runs RUNS times and the median rate is the figure (the machine is shared); beside it,
//    the emulator's CPU time per request (Linux), which the load of a shared machine moves far less.
// 5. POST rate with about 1,200 cases stored, then again after filling the store to STORE cases.
// Every figure is printed with the load average beside it; the bench prints and never fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const text = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const SECONDS = opt('seconds', 3);
const CONNECTIONS = opt('connections', 8);
const WALK_CASES = opt('walk-cases', 20_000);
const STORE = opt('store', 200_000);
const RUNS = Math.max(1, opt('runs', 3));
const MIX_CASES = opt('mix-cases', 10_000);
const MIX_CONNECTIONS = opt('mix-connections', 16);
const MIX_SECONDS = opt('mix-seconds', 5);
const MIX_ONLY = args.includes('--mix-only');
const BASELINE = text('baseline');
const KEY = 'bench';
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

/**
 * `tmsync serve --memory --seed demo` of the build `bin` in a child process, and a pool of
 * keep-alive connections to it. `log`: the request log's file (for the server-side latencies).
 */
async function startEmulator(bin, connections, log) {
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--memory', '--api-key', KEY, '--seed', 'demo', ...(log ? ['--log', log] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const first = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`tmsync serve exited with ${code}`)));
  });
  const baseUrl = /listening on (\S+)/.exec(first)?.[1];
  if (!baseUrl) throw new Error(`unexpected first line: ${first}`);
  const url = new URL(baseUrl);
  // the paced phase may need more sockets than the closed loop: undici queues beyond the limit
  const pool = new Pool(url.origin, { connections: connections * 4, pipelining: 1 });
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
  async function close() {
    await pool.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
  return { child, call, close };
}

/** The ids a case create needs (the first of each lookup list and user), and a new folder. */
async function caseRefs(call, folderName) {
  const first1 = async (path, key) => (await call('GET', path)).data[key][0].id;
  return {
    type_id: await first1('/test_cases/types', 'types'),
    status_id: await first1('/test_cases/statuses', 'statuses'),
    priority_id: await first1('/test_cases/priorities', 'priorities'),
    automation_type_id: await first1('/test_cases/automation_types', 'automation_types'),
    owner_id: (await call('GET', '/users')).data[0].id,
    folder_id: (await call('POST', '/projects/DEMO/folders', { name: folderName })).data.folder.id,
  };
}
const stepsOf = (n) => Array.from({ length: n }, (_, i) => ({ step_description: `Step ${i + 1}: do the thing`, expected_results: `Result ${i + 1} shows` }));
const caseBodyOf = (refs, steps, i) => ({
  title: `Bench case ${i}`,
  description: 'A case created by the emulator benchmark, long enough to look like a real description.',
  preconditions: 'The user is signed in.',
  ...refs,
  individual_steps: steps,
});

// --- the walk beside the mixed workload (issue 32)
const fmt = (x) => Math.round(x).toLocaleString('en-US');
const pct = (x) => `${(x * 100).toFixed(0)}%`;
/** The machine's load, printed beside every figure: on a shared machine the figures follow it. */
const load = () => `(load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores)`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

/**
 * CPU time a child process has used, in µs (user + system, from /proc; undefined elsewhere). Per
 * request it says what serving costs: a busy machine stretches the wall time of a request far
 * more than the CPU time it takes.
 */
function cpuMicros(child) {
  try {
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    // the fields after the command name (which may itself hold ") "): state, ppid, … utime, stime
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS;
  } catch {
    return undefined;
  }
}
const TICKS = 100; // USER_HZ, 100 on Linux

/** Closed loop over `connections` workers for `seconds`: requests/s and the child's CPU per request. */
async function closedLoop(child, makeRequest, connections, seconds) {
  let n = 0;
  let done = 0;
  const cpu0 = cpuMicros(child);
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(seconds * 1e9));
  const worker = async () => {
    while (process.hrtime.bigint() < deadline) {
      await makeRequest(n++);
      done++;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu1 = cpuMicros(child);
  return { rate: done / secs, cpuPerRequest: cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / done };
}

async function mixPhase() {
  const builds = [{ name: 'this build', bin: join(root, 'bin/tmsync.js') }];
  if (BASELINE) builds.unshift({ name: 'baseline', bin: resolve(BASELINE) });
  process.stdout.write(
    `emulator, walk beside writes: ${MIX_CASES.toLocaleString('en-US')} cases with 3 steps, ${MIX_CONNECTIONS} requests in flight, ` +
      `${MIX_SECONDS} s a run, ${RUNS} runs each, alternating${BASELINE ? ` (baseline: ${BASELINE})` : ''}\n`,
  );
  const steps = stepsOf(3);
  for (const b of builds) {
    b.emu = await startEmulator(b.bin, MIX_CONNECTIONS);
    const refs = await caseRefs(b.emu.call, 'Mix');
    let created = 0;
    let left = MIX_CASES;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: MIX_CONNECTIONS }, async () => {
        while (left-- > 0) await b.emu.call('POST', '/projects/DEMO/test_cases', caseBodyOf(refs, steps, created++), false);
      }),
    );
    const pages = Math.ceil(MIX_CASES / 100);
    const page = (i) => b.emu.call('GET', `/projects/DEMO/test_cases?page_size=100&page=${(i % pages) + 1}`, undefined, false);
    b.walk = page;
    // the project's list, as fetchState reads it; every 10th request a create: the list grows while it is read
    b.mix = (i) => (i % 10 === 9 ? b.emu.call('POST', '/projects/DEMO/test_cases', caseBodyOf(refs, steps, created++), false) : page(i));
    b.runs = { walk: [], mix: [] };
    process.stdout.write(`  ${b.name}: filled ${MIX_CASES.toLocaleString('en-US')} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    for (let i = 0; i < 300; i++) await page(i); // warm-up: every page read once
  }
  for (let r = 0; r < RUNS; r++) {
    for (const kind of ['walk', 'mix']) {
      for (const b of builds) b.runs[kind].push({ ...(await closedLoop(b.emu.child, b[kind], MIX_CONNECTIONS, MIX_SECONDS)), load: loadavg()[0] });
    }
  }
  const cpuText = (runs) => {
    const cpus = runs.map((x) => x.cpuPerRequest).filter((x) => x !== undefined);
    return cpus.length > 0 ? `, CPU ${fmt(median(cpus))} µs a request` : '';
  };
  for (const b of builds) {
    b.walkRate = median(b.runs.walk.map((x) => x.rate));
    b.mixRate = median(b.runs.mix.map((x) => x.rate));
    b.walkCpu = median(b.runs.walk.map((x) => x.cpuPerRequest ?? NaN));
    b.mixCpu = median(b.runs.mix.map((x) => x.cpuPerRequest ?? NaN));
    const line = (kind, label) =>
      `    ${label} ${fmt(median(b.runs[kind].map((x) => x.rate)))} req/s (median of ${b.runs[kind].map((x) => fmt(x.rate)).join(', ')}${cpuText(b.runs[kind])}; load ${b.runs[kind].map((x) => x.load.toFixed(1)).join(', ')})\n`;
    process.stdout.write(
      `emulator: ${b.name}\n` +
        line('walk', 'walk of 100-case pages          ') +
        line('mix', '90% page reads + 10% creates     ') +
        `    mixed / walk ${pct(b.mixRate / b.walkRate)} (target ≥ 60%)${b.mixRate >= 0.6 * b.walkRate ? '' : '  BELOW TARGET'}` +
        // the CPU a request takes moves far less with the machine's load than the rate does
        `${Number.isNaN(b.mixCpu) ? '' : `; by CPU per request ${pct(b.walkCpu / b.mixCpu)}`}\n`,
    );
  }
  if (BASELINE) {
    const [base, mine] = builds;
    process.stdout.write(
      `emulator: this build against the baseline, same runs: walk ${pct(mine.walkRate / base.walkRate)}, mixed ${pct(mine.mixRate / base.mixRate)} of the baseline's rate` +
        `${Number.isNaN(mine.walkCpu) ? '' : `; CPU per request: walk ${pct(mine.walkCpu / base.walkCpu)}, mixed ${pct(mine.mixCpu / base.mixCpu)} of the baseline's`}` +
        ` (target: the walk not slower) ${load()}\n`,
    );
  }
  for (const b of builds) await b.emu.close();
}

await mixPhase();
if (MIX_ONLY) process.exit(0);

// the emulator's own request log gives the server-side latency of every request
const logDir = mkdtempSync(join(tmpdir(), 'tmsync-bench-'));
const logFile = join(logDir, 'requests.jsonl');
const { child, call, close } = await startEmulator(join(root, 'bin/tmsync.js'), CONNECTIONS, logFile);

// --- seed
const refs = await caseRefs(call, 'Bench');
const steps = stepsOf(5);
const caseBody = (i) => caseBodyOf(refs, steps, i);
const seeded = [];
let created = 0;
/** Creates `n` cases with CONNECTIONS requests in flight; keeps the answers of the first 100. */
async function fill(n) {
  let left = n;
  const worker = async () => {
    while (left-- > 0) {
      const c = (await call('POST', '/projects/DEMO/test_cases', caseBody(created++))).data.test_case;
      if (seeded.length < 100) seeded.push(c);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}
await fill(1000);

// --- load
const p99Of = (xs) => {
  xs.sort((a, b) => a - b);
  return xs[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];
};

/** Closed loop: every connection sends its next request as soon as the last one answered. */
async function saturate(makeRequest) {
  const latencies = [];
  let n = 0;
  const cpu0 = cpuMicros(child);
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
  const cpu1 = cpuMicros(child);
  const cpuPerRequest = cpu0 === undefined || cpu1 === undefined ? undefined : (cpu1 - cpu0) / latencies.length;
  return { rate: latencies.length / secs, p99: p99Of(latencies), cpuPerRequest };
}

/**
 * Open loop at a fixed rate: request i is sent at start + i/rate (or as soon after as this process
 * gets the CPU) and its latency is counted from when it was sent. On a shared machine this
 * process is sometimes descheduled for tens of ms; counting from the due time would charge that to
 * the emulator. The lateness of the generator is reported separately.
 */
async function paced(makeRequest, rate) {
  const latencies = [];
  const late = [];
  const total = Math.round(rate * SECONDS);
  const start = performance.now();
  const inflight = new Set();
  let i = 0;
  while (i < total) {
    const now = performance.now();
    while (i < total && start + (i * 1000) / rate <= now) {
      const due = start + (i * 1000) / rate;
      const sent = performance.now();
      late.push(sent - due);
      const p = makeRequest(i).then(() => latencies.push(performance.now() - sent));
      inflight.add(p);
      p.finally(() => inflight.delete(p));
      i++;
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(inflight);
  return { rate: total / ((performance.now() - start) / 1000), p99: p99Of(latencies), lateP99: p99Of(late) };
}

let logLines = 0;
/** p99 of `duration_ms` over the request-log lines written since the last call. */
async function serverP99() {
  await new Promise((r) => setTimeout(r, 300)); // let the log stream flush
  const lines = readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  const fresh = lines.slice(logLines).map((l) => JSON.parse(l).duration_ms);
  logLines = lines.length;
  return p99Of(fresh);
}

async function scenario(name, makeRequest, target, runs = 1) {
  for (let i = 0; i < 200; i++) await makeRequest(i); // warm-up
  const results = [];
  for (let r = 0; r < runs; r++) results.push(await saturate(makeRequest));
  const max = { rate: median(results.map((x) => x.rate)), p99: median(results.map((x) => x.p99)) };
  const loadAtMax = load();
  await serverP99();
  const atTarget = await paced(makeRequest, target);
  const inServer = await serverP99();
  const ok = max.rate >= target && atTarget.p99 < 20;
  const each = runs > 1 ? ` (median of ${runs} runs: ${results.map((x) => fmt(x.rate)).join(', ')})` : '';
  const cpus = results.map((x) => x.cpuPerRequest).filter((x) => x !== undefined);
  const cpuRuns = runs > 1 ? ` (runs: ${cpus.map(fmt).join(', ')})` : '';
  const cpu = cpus.length > 0 ? `          emulator CPU per request ${fmt(median(cpus))} µs${cpuRuns} (user + system, median of the runs): at most ${fmt(1e6 / median(cpus))} req/s on one free core\n` : '';
  process.stdout.write(
    `emulator: ${name} ${fmt(max.rate)} req/s${each} ${loadAtMax}\n` +
      cpu +
      `          p99 ${atTarget.p99.toFixed(1)} ms at ${fmt(target)} req/s ${load()} ` +
      `(target ${fmt(target)} req/s, p99 < 20 ms)${ok ? '' : '  BELOW TARGET'}\n` +
      `          p99 at ${fmt(target)} req/s inside the emulator (request log) ${inServer.toFixed(1)} ms; ` +
      `client p99 at saturation (${CONNECTIONS} connections) ${max.p99.toFixed(1)} ms; generator lateness p99 ${atTarget.lateP99.toFixed(1)} ms\n`,
  );
}

process.stdout.write(`emulator bench: ${SECONDS} s per phase, ${CONNECTIONS} keep-alive connections, loopback, load from a second process\n`);
const post = () => call('POST', '/projects/DEMO/test_cases', caseBody(created++), false);
for (let i = 0; i < 200; i++) await post(); // warm-up
const small = await saturate(post);
const cpuText = (r) => (r.cpuPerRequest === undefined ? '' : `, emulator CPU ${fmt(r.cpuPerRequest)} µs a request`);
process.stdout.write(`emulator: create case (5 steps) from 1,200 stored: ${fmt(small.rate)} req/s${cpuText(small)} ${load()}\n`);
const seedStart = performance.now();
if (WALK_CASES > created) await fill(WALK_CASES - created);
process.stdout.write(`filled the store to ${created.toLocaleString('en-US')} cases in ${((performance.now() - seedStart) / 1000).toFixed(1)} s\n`);
const pages = Math.ceil(created / 100);
// a walk over every page in turn, each page a new URL; every 10th request an update (a write
// invalidates whatever the emulator keeps between requests)
const walk = (i) =>
  i % 10 === 9
    ? call('PUT', `/projects/DEMO/test_cases/${seeded[i % seeded.length].id}`, { description: `edited ${i}` }, false)
    : call('GET', `/projects/DEMO/test_cases?page_size=100&page=${(i % pages) + 1}`, undefined, false);
await scenario(`walk of 100-case pages with steps (${pages} pages, 1 update in 10)`, walk, 1000, RUNS);
await scenario('GET case', (i) => call('GET', `/projects/DEMO/test_cases/${seeded[i % seeded.length].id}`, undefined, false), 5000);
if (STORE > created) {
  const t0 = performance.now();
  await fill(STORE - created);
  process.stdout.write(`filled the store to ${created.toLocaleString('en-US')} cases in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const big = await saturate(post);
  process.stdout.write(
    `emulator: create case (5 steps) with ${created.toLocaleString('en-US')} stored: ${fmt(big.rate)} req/s, ` +
      `${((big.rate / small.rate) * 100).toFixed(0)}% of the rate from 1,200 stored (target ≥ 80%)${big.rate >= small.rate * 0.8 ? '' : '  BELOW TARGET'}${cpuText(big)} ${load()}\n`,
  );
}

await close();
rmSync(logDir, { recursive: true, force: true });
process.stdout.write(`(load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} cores)\n`);
