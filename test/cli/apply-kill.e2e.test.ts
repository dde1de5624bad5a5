import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { access, readFile, readdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, addGenerated, client, copyExamples, emulator, planFor, serviceSnapshot } from '../apply/helpers.js';

/**
 * The CLI as a child process (dist/, built by `npm test`), killed after N requests for several N,
 * then run again: it must converge with no duplicates and every id written back.
 */
const CLI = resolve(import.meta.dirname, '../../bin/tmsync.js');
const GENERATED = ['Gen', 'Gen/A', 'Gen/A/Deep', 'Gen/B'];
/**
 * Generated cases per folder: enough that some 25 writes remain after the last kill point, so a
 * kill noticed late on a busy machine (the emulator's log is polled) still lands mid-apply.
 */
const PER_FOLDER = 6;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** the result: the plan and the summary line */
  stdout: string;
  killed: boolean;
}

/** Runs `tmsync apply --auto-approve`; sends `signal` once the emulator has answered `after` more requests. */
function apply(root: string, emu: RunningEmulator, kill?: { after: number; signal: NodeJS.Signals }): Promise<Run> {
  const base = emu.requestLog().length;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [CLI, 'apply', '--auto-approve'], {
      cwd: root,
      env: { ...process.env, TMSYNC_API_KEY: API_KEY, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    let killed = false;
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    const timer = kill
      ? setInterval(() => {
          if (!killed && emu.requestLog().length - base >= kill.after) {
            killed = true;
            child.kill(kill.signal);
          }
        }, 1)
      : undefined;
    child.on('error', fail);
    child.on('close', (code, signal) => {
      if (timer) clearInterval(timer);
      done({ code, signal, stderr, stdout, killed });
    });
  });
}

async function newProject(emu: RunningEmulator, prefix: string): Promise<string> {
  const c = client(emu.baseUrl);
  await c.call('createProject', { body: { name: `Kill ${prefix}`, human_id_prefix: prefix } });
  await c.close();
  const root = await copyExamples(emu.baseUrl);
  await addGenerated(root, GENERATED, PER_FOLDER);
  const cfg = join(root, 'tmsync.yaml');
  await writeFile(cfg, (await readFile(cfg, 'utf8')).replace(/^project:.*$/m, `project: ${prefix}`));
  return root;
}

/** Every case and step group file has `id:`, every folder directory a `_folder.yaml` with one. */
async function missingIds(root: string): Promise<string[]> {
  const missing: string[] = [];
  const walk = async (dir: string) => {
    const entries = await readdir(join(root, dir), { withFileTypes: true });
    if (dir !== 'cases' && dir.startsWith('cases')) {
      const folderFile = join(root, dir, '_folder.yaml');
      const text = await readFile(folderFile, 'utf8').catch(() => '');
      if (!/^id: \S+$/m.test(text)) missing.push(`${dir}/_folder.yaml`);
    }
    for (const e of entries) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) await walk(rel);
      else if (e.name.endsWith('.yaml') && e.name !== '_folder.yaml') {
        if (!/^id: \S+$/m.test(await readFile(join(root, rel), 'utf8'))) missing.push(rel);
      }
    }
  };
  await walk('cases');
  await walk('step_groups');
  return missing;
}

async function expectConverged(emu: RunningEmulator, root: string, prefix: string): Promise<void> {
  const c = client(emu.baseUrl);
  const { plan } = await planFor(root, c);
  expect(plan.operations).toEqual([]);
  const snap = await serviceSnapshot(c, prefix);
  expect(snap.duplicates).toEqual({ folders: [], cases: [], stepGroups: [] });
  expect(snap.actual.cases).toHaveLength(6 + GENERATED.length * PER_FOLDER);
  expect(snap.actual.folders).toHaveLength(3 + GENERATED.length);
  expect(snap.actual.stepGroups).toHaveLength(1);
  expect(await missingIds(root)).toEqual([]);
  await c.close();
}

describe('tmsync apply killed and run again (CLI child process against the emulator)', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    await access(join(import.meta.dirname, '../../dist/cli/main.js')).catch(() => {
      throw new Error('dist/ is missing: run `npx tsc -p tsconfig.build.json` (npm test does)');
    });
    // a little latency so a kill lands while requests are in flight
    emu = await emulator({ latencyMs: 10 });
  });
  afterAll(async () => {
    await emu?.close();
  });

  // reads come first (about 15 requests), then 2 step-group/folder waves, then cases
  const points = [16, 19, 23, 28, 34, 41];
  for (const [i, n] of points.entries()) {
    it(`converges with no duplicates and every id written back after a SIGKILL at request ${n}`, async () => {
      const prefix = `K${i}`;
      const root = await newProject(emu, prefix);
      const killed = await apply(root, emu, { after: n, signal: 'SIGKILL' });
      expect(killed.killed).toBe(true);
      expect(killed.signal).toBe('SIGKILL');
      const rerun = await apply(root, emu);
      expect(rerun.stdout).toContain('Apply complete');
      expect(rerun.code).toBe(0);
      await expectConverged(emu, root, prefix);
    });
  }

  it('stops on SIGINT after the requests in flight, keeps the journal, exits 130, and the next run finishes', async () => {
    const root = await newProject(emu, 'INT');
    const interrupted = await apply(root, emu, { after: 24, signal: 'SIGINT' });
    expect(interrupted.code).toBe(130);
    expect(interrupted.stdout).toMatch(/Apply interrupted: \d+ created, .* operations? not started/);
    const journal = await readFile(join(root, '.tmsync/journal.jsonl'), 'utf8');
    expect(journal.split('\n')[0]).toContain('"format_version":1');
    expect(journal).toContain('"type":"done"');
    // nothing began was left without an answer: in-flight operations finished
    const entries = journal.trim().split('\n').map((l) => JSON.parse(l));
    const open = entries.filter((e) => e.type === 'begin' && !entries.some((x) => x.key === e.key && (x.type === 'done' || x.type === 'failed')));
    expect(open).toEqual([]);
    const rerun = await apply(root, emu);
    expect(rerun.code).toBe(0);
    await expectConverged(emu, root, 'INT');
  });
});
