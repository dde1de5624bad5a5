import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { demoConfigYaml } from '../support/demo-config.js';
import { seededEmulator } from '../support/emulator.js';

/**
 * The whole program against the emulator, as a user runs it: the client's errors and `--verbose`
 * lines as printed. Needs dist/ (npm test builds it; alone: npx tsc -p tsconfig.build.json).
 */
const BIN = resolve(__dirname, '../../bin/tmsync.js');
const KEY = 'tms-secret-key-5f3a9c1e7b2d';
let emu: RunningEmulator | undefined;
let dir: string | undefined;

function tmsync(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 }, (error, out, err) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ code, out, err });
    });
  });
}

beforeAll(async () => {
  const { access } = await import('node:fs/promises');
  await access(resolve(__dirname, '../../dist/cli/main.js'));
});

afterEach(async () => {
  await emu?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  emu = dir = undefined;
});

async function filesText(root: string): Promise<string> {
  let text = '';
  for (const entry of await readdir(root, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), 'utf8');
  }
  return text;
}

describe('tmsync with the service client', () => {
  it('exits 1 on a refused key with the hint to check TMSYNC_API_KEY, and prints no key', async () => {
    emu = await seededEmulator(KEY);
    dir = await mkdtemp(join(tmpdir(), 'tmsync-401-'));
    const wrong = 'tms-wrong-key-0a1b2c3d4e5f';
    const r = await tmsync(['--base-url', emu.baseUrl, '--project', 'DEMO', '--verbose', 'pull'], { TMSYNC_API_KEY: wrong });
    expect(r.code).toBe(1);
    expect(r.err).toContain('TMSYNC_API_KEY');
    expect(r.err).toMatch(/401/);
    expect(r.out + r.err).not.toContain(wrong);
  });

  it('refuses a key holding a line break at once, saying so, without a request, a retry or the key', async () => {
    emu = await seededEmulator(KEY);
    dir = await mkdtemp(join(tmpdir(), 'tmsync-key-crlf-'));
    for (const key of [`${KEY}\n`, `${KEY}\r\n`, `tms-secret\r-key`]) {
      const r = await tmsync(['--base-url', emu.baseUrl, '--project', 'DEMO', 'plan'], { TMSYNC_API_KEY: key });
      expect(r.code).toBe(1);
      expect(r.err).toContain('the API key (TMSYNC_API_KEY) holds a line break');
      expect(r.err).not.toMatch(/network|waiting for the service|attempt/i);
      expect(r.out + r.err).not.toContain(key.replace(/[\r\n]+$/, '').slice(0, 12));
    }
    expect(emu.requestLog()).toEqual([]);
  });

  it('shows each request with --verbose (method, path, status, duration) and no key anywhere it writes', async () => {
    emu = await seededEmulator(KEY);
    dir = await mkdtemp(join(tmpdir(), 'tmsync-verbose-'));
    const r = await tmsync(['--base-url', emu.baseUrl, '--project', 'DEMO', '--verbose', 'pull'], { TMSYNC_API_KEY: KEY });
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^GET \/projects\/[0-9a-f-]+\/test_cases\?page_size=100 200 \d+ms$/m);
    expect(r.err.toLowerCase()).not.toContain('authorization');
    const everything = r.out + r.err + (await filesText(dir));
    expect(everything).not.toContain(KEY);
  });

  it('never writes or prints the credentials of a base URL (pull, plan and its read cache, backup)', async () => {
    emu = await seededEmulator(KEY);
    dir = await mkdtemp(join(tmpdir(), 'tmsync-userinfo-'));
    const secret = 'url-pass-7e6d5c4b';
    const withUser = emu.baseUrl.replace('://', `://tmsuser:${secret}@`);
    const env = { TMSYNC_API_KEY: KEY, TMSYNC_BASE_URL: withUser };
    const pulled = await tmsync(['--project', 'DEMO', '--verbose', 'pull'], env);
    expect(pulled.code, pulled.err).toBe(0);
    // the configuration pull writes names the service without its credentials
    expect(await readFile(join(dir, 'tmsync.yaml'), 'utf8')).toContain(`base_url: "${emu.baseUrl}"`);
    // the defaults a new case needs, after what pull wrote
    const defaults = demoConfigYaml(emu.baseUrl).split('\n').filter((l) => l.startsWith(' ') || l === 'defaults:');
    await writeFile(join(dir, 'tmsync.yaml'), `${await readFile(join(dir, 'tmsync.yaml'), 'utf8')}${defaults.join('\n')}\n`);
    await mkdir(join(dir, 'cases/Area'), { recursive: true });
    await mkdir(join(dir, 'step_groups'), { recursive: true });
    await writeFile(join(dir, 'step_groups/a.yaml'), 'title: Group A\nsteps:\n  - action: A1\n    expected: ok\n');
    await writeFile(join(dir, 'cases/Area/one.yaml'), 'title: One\nsteps:\n  - use: a\n');
    const applied = await tmsync(['apply', '--auto-approve'], env);
    expect(applied.code, applied.err).toBe(0);
    const planned = await tmsync(['plan'], env);
    expect(planned.code, planned.err).toBe(0);
    const cache = JSON.parse(await readFile(join(dir, '.tmsync/cache/reads.json'), 'utf8')) as { target: string };
    expect(cache.target.startsWith(`${emu.baseUrl}|`)).toBe(true);
    const backup = await tmsync(['backup', '--out', 'backup.json'], env);
    expect(backup.code, backup.err).toBe(0);
    expect((JSON.parse(await readFile(join(dir, 'backup.json'), 'utf8')) as { source: { base_url: string } }).source.base_url).toBe(emu.baseUrl);
    const bad = await tmsync(['--base-url', withUser.replace('/api/v1', '/api'), '--project', 'DEMO', 'plan'], { TMSYNC_API_KEY: KEY });
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('does not end in /api/v1');
    const everything = [pulled, applied, planned, backup, bad].map((r) => r.out + r.err).join('\n') + (await filesText(dir));
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain('tmsuser');
  });
});
