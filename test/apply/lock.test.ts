import { access, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireRepositoryLock, lockPath } from '../../src/apply/lock.js';
import { TmsyncError } from '../../src/errors.js';

const tmp = () => mkdtemp(join(tmpdir(), 'tmsync-lock-'));
const exists = (f: string) =>
  access(f).then(
    () => true,
    () => false,
  );

async function writeLock(root: string, holder: { pid: number; host: string; command?: string; started_at?: string }) {
  await mkdir(join(root, '.tmsync'), { recursive: true });
  await writeFile(lockPath(root), JSON.stringify({ format_version: 1, command: 'apply', started_at: '2026-11-23T08:00:00.000Z', ...holder }));
}

describe('repository lock', () => {
  it('is removed by a process that exits at once while holding it (a second Ctrl-C calls process.exit)', async () => {
    const root = await tmp();
    const { execFileSync } = await import('node:child_process');
    const { pathToFileURL } = await import('node:url');
    const module = pathToFileURL(join(import.meta.dirname, '../../dist/apply/lock.js')).href;
    const script = `const m = await import(${JSON.stringify(module)}); await m.acquireRepositoryLock(${JSON.stringify(root)}, { command: 'apply' }); process.exit(130);`;
    let status: number | undefined;
    try {
      execFileSync(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    } catch (err) {
      status = (err as { status?: number }).status;
    }
    expect(status).toBe(130);
    expect(await exists(join(root, '.tmsync', '.gitignore'))).toBe(true);
    expect(await exists(lockPath(root))).toBe(false);
  });

  it('records pid, host, command and start time, and removes the file on release', async () => {
    const root = await tmp();
    const lock = await acquireRepositoryLock(root, { command: 'apply', pid: 4242, host: 'ci-runner-1', now: () => new Date('2026-11-23T09:00:00Z') });
    expect(JSON.parse(await readFile(lockPath(root), 'utf8'))).toEqual({
      format_version: 1,
      pid: 4242,
      host: 'ci-runner-1',
      command: 'apply',
      started_at: '2026-11-23T09:00:00.000Z',
    });
    expect(await readFile(join(root, '.tmsync', '.gitignore'), 'utf8')).toBe('*\n');
    await lock.release();
    expect(await exists(lockPath(root))).toBe(false);
  });

  it('fails a second command at once with repository_locked, naming the holder', async () => {
    const root = await tmp();
    const first = await acquireRepositoryLock(root, { command: 'apply' });
    const err = await acquireRepositoryLock(root, { command: 'pull' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TmsyncError);
    expect((err as TmsyncError).code).toBe('repository_locked');
    expect((err as TmsyncError).message).toContain(`apply (pid ${process.pid} on ${hostname()}, started `);
    expect((err as TmsyncError).hint).toMatch(/--lock-timeout/);
    // the holder's lock is untouched
    expect(JSON.parse(await readFile(lockPath(root), 'utf8')).command).toBe('apply');
    await first.release();
  });

  it('waits with a timeout and takes the lock once the holder releases it', async () => {
    const root = await tmp();
    const first = await acquireRepositoryLock(root, { command: 'apply' });
    let looks = 0;
    const second = await acquireRepositoryLock(root, {
      command: 'migrate',
      timeoutMs: 10_000,
      pollMs: 500,
      // the holder finishes while the second command waits its third turn
      sleep: async () => {
        if (++looks === 3) await first.release();
      },
    });
    expect(looks).toBe(3);
    expect(JSON.parse(await readFile(lockPath(root), 'utf8')).command).toBe('migrate');
    await second.release();
  });

  it('gives up after the timeout and says how long it waited', async () => {
    const root = await tmp();
    const first = await acquireRepositoryLock(root, { command: 'apply' });
    let looks = 0;
    const err = await acquireRepositoryLock(root, { command: 'apply', timeoutMs: 2000, pollMs: 500, sleep: async () => void looks++ }).catch((e: unknown) => e);
    expect((err as TmsyncError).code).toBe('repository_locked');
    expect((err as TmsyncError).message).toMatch(/waited 2 s/);
    expect(looks).toBe(4);
    await first.release();
  });

  it('takes over a lock whose process is gone on the same host, with a note naming it', async () => {
    const root = await tmp();
    await writeLock(root, { pid: 999_999, host: 'box' });
    const lock = await acquireRepositoryLock(root, { command: 'apply', host: 'box', isAlive: (pid) => pid !== 999_999 });
    expect(lock.notes).toEqual([expect.stringMatching(/took over the repository lock of apply \(pid 999999 on box, started 2026-11-23T08:00:00.000Z\): that process is gone/)]);
    expect(JSON.parse(await readFile(lockPath(root), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('takes over the lock of a real process that has exited', async () => {
    const root = await tmp();
    const { spawnSync } = await import('node:child_process');
    const gone = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid;
    await writeLock(root, { pid: gone, host: hostname() });
    const lock = await acquireRepositoryLock(root, { command: 'apply' });
    expect(lock.notes).toHaveLength(1);
    await lock.release();
  });

  it('never takes over a lock held on another host, since its process cannot be checked', async () => {
    const root = await tmp();
    await writeLock(root, { pid: 999_999, host: 'other-machine' });
    const err = await acquireRepositoryLock(root, { command: 'apply', host: 'box', isAlive: () => false }).catch((e: unknown) => e);
    expect((err as TmsyncError).code).toBe('repository_locked');
    expect((err as TmsyncError).hint).toMatch(/runs on other-machine/);
  });

  it('leaves a lock alone on release when another command holds it by then', async () => {
    const root = await tmp();
    const lock = await acquireRepositoryLock(root, { command: 'apply' });
    await writeLock(root, { pid: 1, host: 'elsewhere', command: 'pull' });
    await lock.release();
    expect(JSON.parse(await readFile(lockPath(root), 'utf8')).command).toBe('pull');
  });
});
