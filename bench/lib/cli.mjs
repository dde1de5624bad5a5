// Shared by the benchmarks (not a benchmark itself: scripts/bench.mjs runs only bench/*.mjs).
// The emulator and the CLI run as child processes, as a user runs them.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cli = join(root, 'bin', 'tmsync.js');

/**
 * `tmsync serve --port 0 …args` as a child; resolves once it prints its listening line.
 * @returns {Promise<{ child: import('node:child_process').ChildProcess, baseUrl: string, stop: () => Promise<void> }>}
 */
export function serve(args, { stderr = 'inherit' } = {}) {
  const child = spawn(process.execPath, [cli, 'serve', '--port', '0', ...args], { stdio: ['ignore', 'pipe', stderr] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => {
      const m = /listening on (\S+)/.exec(line);
      if (!m) reject(new Error(`unexpected first line from tmsync serve: ${line}`));
      else resolve({ child, baseUrl: m[1], stop: () => stop(child) });
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`tmsync serve exited with ${code}`)));
  });
}

/** SIGTERM, and wait until the process is gone. */
export function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/**
 * Runs the CLI in `cwd` through a small wrapper that reports the child's own peak RSS.
 * (A file, not `-e`: worker threads inherit the exec arguments and refuse `--input-type`.)
 * `nodeArgs` go to node itself (`--cpu-prof`, which NODE_OPTIONS refuses); `dist` runs another
 * build of the CLI (a copy of an earlier dist/, to compare before and after in the same conditions).
 * `stdout` is the end of what the command printed there (the plan of a large apply is tens of
 * millions of characters; its summary line is last).
 * @returns {Promise<{ code: number, ms: number, stdout: string, stderr: string, maxRss?: number, cpuMs?: number }>} (`cpuMs`: the main thread's and workers' CPU time)
 */
export function runCli(cwd, argv, env, { scratch = tmpdir(), nodeArgs = [], dist = join(root, 'dist') } = {}) {
  const wrapper = join(mkdtempSync(join(scratch, 'tmsync-bench-cli-')), 'cli.mjs');
  writeFileSync(
    wrapper,
    `const { main } = await import(${JSON.stringify(join(dist, 'cli', 'main.js'))});
const code = await main(['node', 'tmsync', ...${JSON.stringify(argv)}]);
process.stderr.write('\\nBENCH_MAXRSS ' + process.resourceUsage().maxRSS + '\\n');
const cpu = process.cpuUsage();
process.stderr.write('BENCH_CPU ' + (cpu.user + cpu.system) + '\\n');
process.exitCode = code;
`,
  );
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, wrapper], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d) => (stderr += d));
  child.stdout.on('data', (d) => (stdout = (stdout + d).slice(-100_000)));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const m = /BENCH_MAXRSS (\d+)/.exec(stderr);
      const cpu = /BENCH_CPU (\d+)/.exec(stderr);
      resolve({ code, ms: performance.now() - t0, stdout, stderr, maxRss: m ? Number(m[1]) * 1024 : undefined, cpuMs: cpu ? Number(cpu[1]) / 1000 : undefined });
    });
  });
}

/** The emulator's `--log` file, one object per request. */
export function readRequestLog(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/**
 * Self time of the functions defined in files whose URL ends with one of `suffixes`, as a share of
 * the busy (non-idle) samples of the V8 CPU profiles (`--cpu-prof`) in `dir` whose main thread
 * loaded such a file.
 * @returns {{ share: number, samples: number, busy: number }}
 */
export function cpuShare(dir, suffixes) {
  let samples = 0;
  let busy = 0;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.cpuprofile'))) {
    const prof = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const byId = new Map(prof.nodes.map((n) => [n.id, n]));
    if (!prof.nodes.some((n) => suffixes.some((s) => n.callFrame.url.endsWith(s)))) continue;
    for (const id of prof.samples) {
      const n = byId.get(id);
      if (!n || n.callFrame.functionName === '(idle)') continue;
      busy++;
      if (suffixes.some((s) => n.callFrame.url.endsWith(s))) samples++;
    }
  }
  return { share: busy ? samples / busy : 0, samples, busy };
}

/**
 * What the scale benchmarks measure of a generated repository: `apply` creating everything on an
 * unlimited emulator, then a no-change `plan` at `rate` requests a second, its requests read back
 * from the emulator's log; prints one line for each. `config(baseUrl, rate, concurrency)` writes
 * the repository's tmsync.yaml; `what` names the items (`50000 cases`).
 */
export async function applyThenQuietPlan({ repo, db, scratch, key, rate, config, what, load }) {
  const mb = (bytes) => (bytes === undefined ? '?' : `${Math.round(bytes / 1024 / 1024)} MB`);
  const env = { TMSYNC_API_KEY: key };
  let server = await serve(['--db', db, '--api-key', key, '--seed', 'demo'], { stderr: 'ignore' });
  writeFileSync(join(repo, 'tmsync.yaml'), config(server.baseUrl, 5000, 16));
  const a = await runCli(repo, ['apply', '--auto-approve'], env, { scratch });
  await server.stop();
  console.log(`apply creating ${what} (emulator unlimited): ${(a.ms / 1000).toFixed(1)} s, peak RSS ${mb(a.maxRss)}, exit ${a.code}; ${load()}`);
  if (a.code !== 0) {
    console.log(`  apply said: ${a.stderr.trim().split('\n').slice(-3).join(' / ')}`);
    return;
  }
  const log = join(scratch, 'requests.jsonl');
  server = await serve(['--db', db, '--api-key', key, '--rate-limit', String(rate), '--log', log], { stderr: 'ignore' });
  writeFileSync(join(repo, 'tmsync.yaml'), config(server.baseUrl, rate, 4));
  const p = await runCli(repo, ['plan', '--detailed-exitcode'], env, { scratch });
  await server.stop();
  const entries = readRequestLog(log);
  const requests = entries.length;
  const refused = entries.filter((e) => e.status === 429).length;
  const bound = requests / rate;
  console.log(
    `plan, no changes, ${what}, --rate-limit ${rate}: requests ${requests} (${refused} refused), wall ${(p.ms / 1000).toFixed(1)} s, bound requests ÷ rate ${bound.toFixed(1)} s, ratio ${(p.ms / 1000 / bound).toFixed(3)}, peak RSS ${mb(p.maxRss)}, exit ${p.code}${p.code === 0 ? '' : ` (${p.stderr.trim().split('\n').slice(-2).join(' / ')})`}; ${load()}`,
  );
}
