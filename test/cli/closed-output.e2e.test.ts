import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { access, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { lockPath } from '../../src/apply/lock.js';
import { API_KEY, addGenerated, client, copyExamples, emulator, planFor, serviceSnapshot } from '../apply/helpers.js';

/**
 * The reader of the output goes away (`tmsync apply 2>&1 | head -1`, `apply --json | head -c 100`,
 * `plan --detailed-exitcode | head -1`): the CLI as a child process (dist/) whose output pipe the
 * test closes as soon as the first bytes arrive. The outputs are far larger than a pipe holds, so
 * the child is still writing when the pipe closes, whatever the machine's speed.
 */
const CLI = resolve(import.meta.dirname, '../../bin/tmsync.js');
/** 600 new cases: a plan text and a JSON document of several hundred kilobytes, a pipe holds 64 */
const GENERATED = ['Bulk/One', 'Bulk/Two', 'Bulk/Three'];
const PER_FOLDER = 200;
/** the examples' own cases */
const EXAMPLE_CASES = 6;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** what the open stream carried (stderr when only stdout is closed) */
  kept: string;
  /** bytes that arrived on the closed streams before they closed */
  firstBytes: number;
}

/** Runs the CLI and closes `close` (its read ends) once the first bytes arrive on either of them. */
function runClosing(root: string, args: string[], close: 'stdout' | 'both'): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: root,
      env: { ...process.env, TMSYNC_API_KEY: API_KEY, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const closing = close === 'both' ? [child.stdout, child.stderr] : [child.stdout];
    let kept = '';
    let firstBytes = 0;
    let closed = false;
    for (const s of closing) {
      s.on('data', (d: Buffer) => {
        if (closed) return;
        closed = true;
        firstBytes = d.length;
        for (const c of closing) c.destroy();
      });
    }
    if (close === 'stdout') child.stderr.on('data', (d) => (kept += d));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, kept, firstBytes }));
  });
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('the reader of the output goes away (CLI child process against the emulator)', () => {
  let emu: RunningEmulator;
  const roots: string[] = [];
  beforeAll(async () => {
    await access(join(import.meta.dirname, '../../dist/cli/main.js')).catch(() => {
      throw new Error('dist/ is missing: run `npm run build`');
    });
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
    await Promise.all(roots.map((r) => rm(r, { recursive: true, force: true })));
  });

  /** The examples and 600 generated cases, aimed at a project of their own. */
  async function newProject(prefix: string): Promise<string> {
    const c = client(emu.baseUrl);
    await c.call('createProject', { body: { name: `Closed ${prefix}`, human_id_prefix: prefix } });
    await c.close();
    const root = await copyExamples(emu.baseUrl, '', { rateLimit: 2000 });
    roots.push(root);
    await addGenerated(root, GENERATED, PER_FOLDER);
    const cfg = join(root, 'tmsync.yaml');
    await writeFile(cfg, (await readFile(cfg, 'utf8')).replace(/^project:.*$/m, `project: ${prefix}`));
    return root;
  }

  it('`apply --auto-approve 2>&1 | head -1` applies everything, exits 0 and releases the lock', async () => {
    const root = await newProject('CLA');
    const run = await runClosing(root, ['apply', '--auto-approve'], 'both');
    expect(run.firstBytes).toBeGreaterThan(0);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    const c = client(emu.baseUrl);
    const snap = await serviceSnapshot(c, 'CLA');
    expect(snap.actual.cases).toHaveLength(EXAMPLE_CASES + GENERATED.length * PER_FOLDER);
    expect(snap.duplicates).toEqual({ folders: [], cases: [], stepGroups: [] });
    expect((await planFor(root, c)).plan.operations).toEqual([]);
    await c.close();
    expect(await exists(lockPath(root))).toBe(false);
  });

  it('`apply --json | head -c 100` exits 1 when operations failed, and says so on stderr', async () => {
    const root = await newProject('CLJ');
    // titles the service refuses (over its length limit): two creates fail
    await mkdir(join(root, 'cases/Long'), { recursive: true });
    await writeFile(join(root, 'cases/Long/a.yaml'), `title: ${'a'.repeat(1200)}\n`);
    await writeFile(join(root, 'cases/Long/b.yaml'), `title: ${'b'.repeat(1200)}\n`);
    const run = await runClosing(root, ['apply', '--auto-approve', '--json'], 'stdout');
    expect(run.firstBytes).toBeGreaterThan(0);
    expect(run.code).toBe(1);
    expect(run.kept).toContain('2 operations failed');
    const c = client(emu.baseUrl);
    const snap = await serviceSnapshot(c, 'CLJ');
    expect(snap.actual.cases).toHaveLength(EXAMPLE_CASES + GENERATED.length * PER_FOLDER);
    await c.close();
    expect(await exists(lockPath(root))).toBe(false);
  });

  it('`plan --detailed-exitcode | head -1` still exits 2 for a plan larger than the pipe holds', async () => {
    const root = await newProject('CLP');
    const run = await runClosing(root, ['plan', '--detailed-exitcode'], 'stdout');
    expect(run.firstBytes).toBeGreaterThan(0);
    expect(run.code).toBe(2);
    expect(run.kept).not.toContain('cannot write the output');
  });
});
