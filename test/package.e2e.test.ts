/**
 * The package as people install it: `npm pack`, then the tarball installed into empty folders with
 * the Node running the tests (the floor, 20, on CI), as the README's Install section says.
 *
 * Runtime: one `npm pack` (its `prepare` build is incremental, so a few seconds after
 * `npm run build`) and three installs from the npm registry (a few seconds each with a warm npm
 * cache; about 20 s in all on a loaded two-core machine). better-sqlite3 is installed with `--ignore-scripts` and, when it is the same version as
 * this checkout's, given this checkout's compiled binary instead of compiling it again (which
 * takes about two minutes); otherwise it is rebuilt with `npm rebuild better-sqlite3`. Everything
 * else, including the emulator's fastify tree, resolves from the registry exactly as for a user.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const repo = join(import.meta.dirname, '..');
const pkg = JSON.parse(await readFile(join(repo, 'package.json'), 'utf8')) as { version: string };
const KEY = 'package-e2e-key';

/** The environment without npm's own variables (set when the suite runs under `npm test`). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.toLowerCase().startsWith('npm_') && !k.startsWith('TMSYNC_')) env[k] = v;
  return { ...env, NO_COLOR: '1', ...extra };
}

const npm = (cwd: string, ...args: string[]) =>
  exec('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env: cleanEnv(), maxBuffer: 64 * 1024 * 1024 });

let work: string;
let tarball: string;
let local: string;
let globalPrefix: string;
let lean: string;
let server: ChildProcess | undefined;
let baseUrl: string;

const tmsyncIn = (bin: string) => (cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) =>
  exec(process.execPath, [bin, ...args], { cwd, env: cleanEnv(env), timeout: 30_000 }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'tmsync-package-'));
  const packed = await npm(repo, 'pack', '--json', '--pack-destination', work);
  const info = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  tarball = join(work, info[0].filename);

  // per project, as a dependency (the emulator's optional dependencies included)
  local = join(work, 'project');
  await mkdir(local);
  await writeFile(join(local, 'package.json'), '{ "name": "tests-repo", "private": true }\n');
  await npm(local, 'install', tarball, '--ignore-scripts');
  const installed = join(local, 'node_modules', 'better-sqlite3');
  const ours = join(repo, 'node_modules', 'better-sqlite3');
  const version = async (dir: string) => (JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const binary = join('build', 'Release', 'better_sqlite3.node');
  if ((await version(installed)) === (await version(ours)) && existsSync(join(ours, binary))) {
    await mkdir(join(installed, 'build', 'Release'), { recursive: true });
    await copyFile(join(ours, binary), join(installed, binary));
  } else {
    await npm(local, 'rebuild', 'better-sqlite3');
  }

  // globally without compiling the emulator's native dependency (npm ignores --omit for global
  // installs, npm/cli#8284, so the README says --ignore-scripts there)
  globalPrefix = join(work, 'global');
  await npm(work, 'install', '--global', '--prefix', globalPrefix, '--ignore-scripts', tarball);

  // per project without the emulator's dependencies at all
  lean = join(work, 'lean');
  await mkdir(lean);
  await writeFile(join(lean, 'package.json'), '{ "name": "lean-tests-repo", "private": true }\n');
  await npm(lean, 'install', '--omit=optional', tarball);
}, 600_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }
  if (work) await rm(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  it('contains the built dist/, the LICENSE and the schemas, but not the build cache', async () => {
    const { stdout } = await exec('tar', ['tzf', tarball]);
    const files = stdout.split('\n');
    for (const f of ['package/bin/tmsync.js', 'package/dist/cli/main.js', 'package/dist/index.d.ts', 'package/LICENSE', 'package/schemas/test-case.schema.json']) {
      expect(files).toContain(f);
    }
    expect(files.some((f) => f.endsWith('.tsbuildinfo'))).toBe(false);
    expect(files.some((f) => f.startsWith('package/src/'))).toBe(false);
  });

  it('ships source maps that carry their sources, since src/ is not shipped', async () => {
    const maps = (await readdir(join(local, 'node_modules', 'tmsync', 'dist'), { recursive: true })).filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(50);
    for (const m of maps) {
      const map = JSON.parse(await readFile(join(local, 'node_modules', 'tmsync', 'dist', m), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      expect(map.sourcesContent?.length, m).toBe(map.sources.length);
      expect(map.sourcesContent!.every((s) => typeof s === 'string' && s.length > 0), m).toBe(true);
    }
  });
});

describe('tmsync installed per project from the tarball', () => {
  const bin = () => join(local, 'node_modules', 'tmsync', 'bin', 'tmsync.js');

  it('prints its version', async () => {
    const r = await tmsyncIn(bin())(local, {}, '--version');
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('resolves the emulator dependencies on this Node and serves, then init and plan work against it', async () => {
    // the whole fastify tree is there: npm drops an optional subtree with one package needing a newer Node
    expect(existsSync(join(local, 'node_modules', 'fastify', 'package.json'))).toBe(true);
    server = spawn(process.execPath, [bin(), 'serve', '--seed', 'demo', '--memory', '--port', '0', '--api-key', KEY], {
      cwd: local,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const firstLine = await new Promise<string>((resolve, reject) => {
      let err = '';
      server!.stderr!.on('data', (c) => (err += String(c)));
      server!.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
      createInterface({ input: server!.stdout! }).once('line', resolve);
    });
    expect(firstLine).toMatch(/^tmsync emulator listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    baseUrl = firstLine.replace('tmsync emulator listening on ', '');

    const repoDir = join(local, 'tests');
    const init = await tmsyncIn(bin())(local, {}, 'init', 'tests');
    expect(init.code).toBe(0);
    const plan = await tmsyncIn(bin())(repoDir, { TMSYNC_BASE_URL: baseUrl, TMSYNC_API_KEY: KEY }, 'plan', '--detailed-exitcode');
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('Plan: 3 to create, 0 to update, 0 to move, 0 to delete.');
  });
});

describe("the README's examples", () => {
  it('runs as written where tmsync is installed and prints the plan', async () => {
    const readme = await readFile(join(repo, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Use as a library'));
    const code = /```js\n([\s\S]*?)```/.exec(section)![1];
    const dir = join(local, 'tests');
    await writeFile(join(dir, 'plan-example.mjs'), code);
    expect(baseUrl).toBeDefined();
    const r = await exec(process.execPath, ['plan-example.mjs'], { cwd: dir, env: cleanEnv({ TMSYNC_BASE_URL: baseUrl, TMSYNC_API_KEY: KEY }) });
    expect(r.stdout).toContain('Plan: 3 to create, 0 to update, 0 to move, 0 to delete.');
    expect(r.stderr).toBe('');
  });

  it('runs the README\'s pull example as written, with TMSYNC_BASE_URL set, and plan in the pulled repository shows no changes', async () => {
    const readme = await readFile(join(repo, 'README.md'), 'utf8');
    const usage = /## Using it\n+```text\n([\s\S]*?)```/.exec(readme)![1];
    const line = usage.split('\n').find((l) => l.startsWith('tmsync pull'))!;
    expect(line).toContain('(with TMSYNC_BASE_URL set)');
    const args = line.replace(/#.*$/, '').trim().split(/\s+/).slice(1);
    expect(baseUrl).toBeDefined();
    // something to pull: the starter the other examples planned, applied
    const env = { TMSYNC_BASE_URL: baseUrl, TMSYNC_API_KEY: KEY };
    expect((await tmsyncIn(join(local, 'node_modules', 'tmsync', 'bin', 'tmsync.js'))(join(local, 'tests'), env, 'apply', '--auto-approve')).code).toBe(0);
    const dir = join(work, 'readme-pull');
    await mkdir(dir);
    const bin = join(globalPrefix, 'lib', 'node_modules', 'tmsync', 'bin', 'tmsync.js');
    const pull = await tmsyncIn(bin)(dir, env, ...args);
    expect(pull.stderr).toContain('Pulled 1 test case in 1 folder and 1 step group from Demo (DEMO)');
    expect(pull.code).toBe(0);
    const pulled = join(dir, args[args.indexOf('--dir') + 1]);
    expect(await readFile(join(pulled, 'tmsync.yaml'), 'utf8')).toContain('project: "DEMO"');
    expect(existsSync(join(pulled, 'cases', 'Example'))).toBe(true);
    const plan = await tmsyncIn(bin)(pulled, { TMSYNC_API_KEY: KEY }, 'plan', '--detailed-exitcode');
    expect(plan.stdout + plan.stderr).toContain('No changes');
    expect(plan.code).toBe(0);
  });
});

describe('tmsync installed globally with --ignore-scripts', () => {
  const bin = () => join(globalPrefix, 'lib', 'node_modules', 'tmsync', 'bin', 'tmsync.js');

  it('links the command, prints its version, and plans from a subdirectory against a running service', async () => {
    expect(existsSync(join(globalPrefix, 'bin', 'tmsync'))).toBe(true);
    const version = await tmsyncIn(bin())(work, {}, '--version');
    expect(version.stdout.trim()).toBe(pkg.version);
    expect(baseUrl).toBeDefined();
    const dir = join(work, 'global-tests');
    await mkdir(dir);
    expect((await tmsyncIn(bin())(dir, {}, 'init')).code).toBe(0);
    const plan = await tmsyncIn(bin())(join(dir, 'cases'), { TMSYNC_BASE_URL: baseUrl, TMSYNC_API_KEY: KEY }, 'plan', '--detailed-exitcode');
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
  });

  it('says the emulator cannot start when its native dependency was not built', async () => {
    const r = await tmsyncIn(bin())(work, {}, 'serve', '--port', '0', '--memory');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the emulator cannot start');
  });
});

describe('tmsync installed per project with --omit=optional', () => {
  const bin = () => join(lean, 'node_modules', 'tmsync', 'bin', 'tmsync.js');

  it('installs none of the emulator dependencies and still plans against a running service', async () => {
    for (const dep of ['fastify', 'better-sqlite3', '@fastify/multipart']) expect(existsSync(join(lean, 'node_modules', dep)), dep).toBe(false);
    expect(baseUrl).toBeDefined();
    const dir = join(lean, 'tests');
    expect((await tmsyncIn(bin())(lean, {}, 'init', 'tests')).code).toBe(0);
    const plan = await tmsyncIn(bin())(dir, { TMSYNC_BASE_URL: baseUrl, TMSYNC_API_KEY: KEY }, 'plan', '--detailed-exitcode');
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(2);
  });
});
