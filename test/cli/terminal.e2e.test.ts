import { spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfigYaml } from '../support/demo-config.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { outputSchemas } from '../../src/cli/output-schemas.js';
import { seededEmulator } from '../support/emulator.js';

/** Terminal behaviour of the built CLI (run `npm run build` first), in real processes. */
const BIN = resolve(import.meta.dirname, '../../bin/tmsync.js');
const API_KEY = 'terminal-e2e-key';
const ESC = '\u001b[';

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** Runs the CLI; `env` is the whole environment apart from PATH. */
function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { PATH: process.env.PATH, TMSYNC_API_KEY: API_KEY, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, out, err }));
  });
}

/** Runs a shell command line under a pseudo-terminal (`script`), so the CLI's streams are terminals unless redirected. */
function inPty(command: string, cwd: string, env: NodeJS.ProcessEnv = {}): { code: number | null; out: string } {
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {
    cwd,
    env: { PATH: process.env.PATH, TERM: 'xterm', TMSYNC_API_KEY: API_KEY, ...env },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout };
}

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

describe('terminal manners of the built CLI', () => {
  let emu: RunningEmulator;
  let root: string;
  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    root = await mkdtemp(join(tmpdir(), 'tmsync-terminal-'));
    await writeFile(join(root, 'tmsync.yaml'), demoConfigYaml(emu.baseUrl, { rate_limit: 1000, concurrency: 8 }));
    // enough creates that the text plan is far bigger than a pipe's buffer (64 KiB)
    for (let f = 0; f < 10; f++) {
      const dir = join(root, 'cases', `Area ${f}`);
      await mkdir(dir, { recursive: true });
      for (let i = 0; i < 25; i++) {
        await writeFile(
          join(dir, `case-${i}.yaml`),
          `title: Case ${f}-${i} with a reasonably long title\ndescription: ${'words '.repeat(40)}\nsteps:\n  - action: Do step ${i}\n    expected: It works\n`,
        );
      }
    }
  }, 60_000);
  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('`tmsync plan | head -1` prints the first line and exits 0 without a stack trace (EPIPE)', async () => {
    // asynchronously: the emulator runs in this process
    const r = await new Promise<{ code: number | null; out: string; err: string }>((done, fail) => {
      const child = spawn('bash', ['-c', `set -o pipefail; ${sh(process.execPath)} ${sh(BIN)} plan | head -1`], {
        cwd: root,
        env: { PATH: process.env.PATH, TMSYNC_API_KEY: API_KEY },
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('error', fail);
      child.on('close', (code) => done({ code, out, err }));
    });
    expect(r.err).not.toMatch(/EPIPE|at .*\.js:\d+/);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(r.code).toBe(0);
  }, 60_000);

  it('exits 0 quietly when the reader of stdout is gone before anything is written', async () => {
    const child = spawn(process.execPath, [BIN, 'completion', 'bash'], { cwd: root, env: { PATH: process.env.PATH } });
    child.stdout.destroy();
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    expect(err).toBe('');
    expect(code).toBe(0);
  });

  it('saves a plan, and `show` prints it as text, markdown or json; apply --quiet prints the summary, not the plan', async () => {
    const saved = await run(['plan', '--out', 'plan.json'], root);
    expect(saved.code).toBe(0);
    const text = await run(['show', 'plan.json'], root);
    expect(text.code).toBe(0);
    expect(text.out).toBe(saved.out);
    expect(text.out).not.toContain(ESC);
    const md = await run(['show', 'plan.json', '--format', 'markdown'], root);
    expect(md.out).toContain('**Plan: 260 to create');
    const json = await run(['show', 'plan.json', '--json'], root);
    expect(JSON.parse(json.out)).toEqual(JSON.parse(await readFile(join(root, 'plan.json'), 'utf8')));
    const missing = await run(['show', 'nope.json'], root);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('cannot read the plan file');

    const quiet = await run(['apply', '--auto-approve', '--quiet'], root);
    expect(quiet.code, quiet.err).toBe(0);
    expect(quiet.out).toContain('Plan: 260 to create, 0 to update, 0 to move, 0 to delete.');
    expect(`${quiet.out}${quiet.err}`).not.toContain('Case 3-7 with a reasonably long title');
    expect(quiet.out).toContain('Apply complete: 260 created');
    // the saved plan is stale now: one reason per line
    const stale = await run(['apply', 'plan.json'], root);
    expect(stale.code).toBe(1);
    const lines = stale.err.split('\n');
    expect(lines[0]).toMatch(/^Error: the saved plan is stale \(\d+ reasons\):$/);
    expect(lines[1]).toMatch(/^ {2}- /);
    expect(lines.filter((l) => l.startsWith('  - ')).length).toBeGreaterThan(5);
  }, 120_000);

  it.skipIf(!hasScript)('colours stdout only when it is a terminal, per stream, and honours NO_COLOR, FORCE_COLOR and --no-color', async () => {
    await writeFile(join(root, 'cases', 'Area 0', 'new-one.yaml'), 'title: One more\n');
    await run(['plan', '--out', 'colour.json'], root);
    const cmd = `${sh(process.execPath)} ${sh(BIN)} show colour.json`;
    expect(inPty(cmd, root).out).toContain(ESC);
    // stdout redirected to a file on a terminal: no escape codes in the file
    inPty(`${cmd} > shown.txt`, root);
    const file = await readFile(join(root, 'shown.txt'), 'utf8');
    expect(file).toContain('One more');
    expect(file).not.toContain(ESC);
    expect(inPty(cmd, root, { NO_COLOR: '1' }).out).not.toContain(ESC);
    expect(inPty(`${cmd} --no-color`, root, { FORCE_COLOR: '1' }).out).not.toContain(ESC);
    // FORCE_COLOR colours a pipe
    const forced = await run(['show', 'colour.json'], root, { FORCE_COLOR: '1' });
    expect(forced.out).toContain(ESC);
    // `Error:` in red on a terminal's stderr; plain in a pipe
    expect(inPty(`${sh(process.execPath)} ${sh(BIN)} show missing.json`, root).out).toContain(`${ESC}1;31mError:${ESC}0m`);
    expect((await run(['show', 'missing.json'], root)).err).toMatch(/^Error: /);
  }, 60_000);

  it('`serve --json` prints one JSON line with the address', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--memory', '--json'], { env: { PATH: process.env.PATH } });
    const line = await new Promise<string>((done, fail) => {
      let buf = '';
      child.stdout.on('data', (d) => {
        buf += d;
        if (buf.includes('\n')) done(buf.split('\n')[0]);
      });
      child.on('error', fail);
    });
    const closed = new Promise((done) => child.on('close', done));
    child.kill('SIGINT');
    await closed;
    const j = JSON.parse(line);
    expect(outputSchemas.serve.safeParse(j).success).toBe(true);
    expect(j).toMatchObject({ format_version: 2, storage: 'memory' });
    expect(j.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    expect(typeof j.api_key).toBe('string');
  }, 30_000);
});
