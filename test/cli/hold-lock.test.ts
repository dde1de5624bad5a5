import { mkdir, writeFile, access } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryIo } from '../../src/cli/io.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, copyExamples, emulator } from '../apply/helpers.js';

const io = () => memoryIo({ TMSYNC_API_KEY: API_KEY });
const text = (x: { err: string[] }) => x.err.join('\n');
const exists = (f: string) =>
  access(f).then(
    () => true,
    () => false,
  );

async function holdLock(root: string, pid: number, command = 'apply') {
  await mkdir(join(root, '.tmsync'), { recursive: true });
  await writeFile(
    join(root, '.tmsync', 'lock'),
    JSON.stringify({ format_version: 1, pid, host: hostname(), command, started_at: '2026-11-23T08:00:00.000Z' }),
  );
}

describe('the repository lock of writing commands', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    // a project per emulator: each test gets its own emulator-free repository copy, creates are counted
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
  });
  const creates = () => emu.requestLog().filter((e) => e.method === 'POST' && /\/(folders|test_cases|step_groups)$/.test(e.path.split('?')[0])).length;

  it('two applies at once in one checkout: one applies, the other exits 1 naming the holder and sends nothing', async () => {
    const root = await copyExamples(emu.baseUrl);
    emu.clearRequestLog();
    const a = io();
    const b = io();
    const codes = await Promise.all([
      main(['node', 'tmsync', 'apply', '--auto-approve'], a, root),
      main(['node', 'tmsync', 'apply', '--auto-approve'], b, root),
    ]);
    expect([...codes].sort()).toEqual([0, 1]);
    const loser = codes[0] === 1 ? a : b;
    expect(text(loser)).toMatch(/another tmsync command is writing this repository: apply \(pid \d+ on .+, started /);
    // the examples hold 10 items: created once, not twice
    expect(creates()).toBe(10);
    expect(await exists(join(root, '.tmsync', 'lock'))).toBe(false);
    const plan = io();
    expect(await main(['node', 'tmsync', 'plan', '--detailed-exitcode'], plan, root)).toBe(0);
  });

  it.each(['apply', 'pull', 'migrate', 'restore'])('%s refuses to start while a live process holds the lock', async (command) => {
    const root = await copyExamples(emu.baseUrl);
    await holdLock(root, process.pid, 'apply');
    emu.clearRequestLog();
    const args: Record<string, string[]> = {
      apply: ['apply', '--auto-approve'],
      pull: ['pull'],
      migrate: ['migrate', '--from', 'a', '--to', 'b', '--auto-approve'],
      restore: ['restore', 'backup.json', '--project', 'DEMO'],
    };
    if (command === 'migrate') {
      await writeFile(
        join(root, 'tmsync.yaml'),
        `project: DEMO\nbase_url: ${emu.baseUrl}\nprofiles:\n  a: { base_url: ${emu.baseUrl}, project: DEMO }\n  b: { base_url: ${emu.baseUrl}, project: DEMO }\n`,
      );
    }
    if (command === 'restore') expect(await main(['node', 'tmsync', 'backup', '--out', 'backup.json'], io(), root)).toBe(0);
    emu.clearRequestLog();
    const out = io();
    const code = await main(['node', 'tmsync', ...args[command]], out, root);
    expect(code).toBe(1);
    expect(text(out)).toContain(`another tmsync command is writing this repository: apply (pid ${process.pid} on ${hostname()}`);
    expect(emu.requestLog().filter((e) => e.method !== 'GET')).toEqual([]);
  });

  it('takes over the lock of a process that is gone, with a note, and applies', async () => {
    const root = await copyExamples(emu.baseUrl);
    const { spawnSync } = await import('node:child_process');
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    await holdLock(root, gone);
    const out = io();
    expect(await main(['node', 'tmsync', 'apply', '--auto-approve'], out, root)).toBe(0);
    expect(text(out)).toContain(`Note: took over the repository lock of apply (pid ${gone} on ${hostname()}`);
  });

  it('rejects a --lock-timeout that is not a duration', async () => {
    const root = await copyExamples(emu.baseUrl);
    const out = io();
    expect(await main(['node', 'tmsync', 'apply', '--auto-approve', '--lock-timeout', 'soon'], out, root)).toBe(1);
    expect(text(out)).toMatch(/`soon` is not a duration/);
  });
});
