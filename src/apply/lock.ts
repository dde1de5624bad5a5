import { hostname } from 'node:os';
import { readFileSync, unlinkSync } from 'node:fs';
import { open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ioError, TmsyncError } from '../errors.js';
import { makeDirectory } from '../repository/file-ops.js';
import { JOURNAL_DIR } from './journal.js';

/**
 * The repository lock, `.tmsync/lock`: one command at a time writes the service or the
 * repository from one checkout (apply, migrate, restore, pull). The file is created exclusively
 * (`O_EXCL`) and holds who took it: pid, host, command, start time. A second command fails at
 * once naming the holder, or waits up to `timeoutMs`. A lock whose process is gone on the same
 * host (a kill, a crash) is taken over with a note; one held on another host never is (its
 * process cannot be checked from here).
 *
 * A file cannot lock two checkouts on different machines: CI needs its own concurrency setting
 * (docs/ci.md).
 */

const LOCK_FILE = 'lock';
const LOCK_FORMAT_VERSION = 1;

interface LockHolder {
  format_version: number;
  pid: number;
  host: string;
  command: string;
  started_at: string;
}

interface LockOptions {
  /** what takes the lock, for the holder's record: `apply`, `pull`, … */
  command: string;
  /** wait this long for a held lock; 0 fails at once. @default 0 */
  timeoutMs?: number;
  /** how often a waiting command looks again. @default 250 */
  pollMs?: number;
  /** for tests */
  pid?: number;
  host?: string;
  now?: () => Date;
  /** whether a process of this host is alive. @default process.kill(pid, 0) */
  isAlive?: (pid: number) => boolean;
  /** waits between looks. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
}

interface RepositoryLock {
  readonly file: string;
  readonly holder: LockHolder;
  /** what happened on the way in, for the CLI to print: a stale lock taken over */
  readonly notes: string[];
  /** Removes the lock if it is still this one. */
  release(): Promise<void>;
}

export function lockPath(root: string): string {
  return join(root, JOURNAL_DIR, LOCK_FILE);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it belongs to someone else
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describe(h: LockHolder): string {
  return `${h.command} (pid ${h.pid} on ${h.host}, started ${h.started_at})`;
}

async function readHolder(file: string): Promise<LockHolder | 'absent' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw err;
  }
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && typeof v.host === 'string' && typeof v.command === 'string' && typeof v.started_at === 'string') {
      return v as LockHolder;
    }
  } catch {
    // being written right now, or cut by a crash
  }
  return 'unreadable';
}

/**
 * Takes the repository lock of `root` or throws `repository_locked` naming the holder. Creates
 * `.tmsync/` (with its `.gitignore`) when needed.
 */
export async function acquireRepositoryLock(root: string, options: LockOptions): Promise<RepositoryLock> {
  const dir = join(root, JOURNAL_DIR);
  // the real cause and the path (a read-only file system is EROFS, not "no such file")
  await makeDirectory(dir).catch((err: unknown) => Promise.reject(ioError(err, 'create the directory', dir)));
  await writeFile(join(dir, '.gitignore'), '*\n', { flag: 'wx' }).catch(() => undefined);
  const file = lockPath(root);
  const me: LockHolder = {
    format_version: LOCK_FORMAT_VERSION,
    pid: options.pid ?? process.pid,
    host: options.host ?? hostname(),
    command: options.command,
    started_at: (options.now?.() ?? new Date()).toISOString(),
  };
  const isAlive = options.isAlive ?? processAlive;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const timeoutMs = Math.max(0, options.timeoutMs ?? 0);
  const pollMs = Math.max(1, options.pollMs ?? 250);
  const notes: string[] = [];
  let waited = 0;
  let unreadableSeen = 0;

  for (;;) {
    try {
      const handle = await open(file, 'wx');
      try {
        await handle.writeFile(`${JSON.stringify(me)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      // a process that ends without reaching `release` (process.exit: a second Ctrl-C) still
      // removes its lock, so no later command has to take it over as stale
      const onExit = () => releaseSync(file, me);
      process.on('exit', onExit);
      return {
        file,
        holder: me,
        notes,
        release: () => {
          process.off('exit', onExit);
          return release(file, me);
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new TmsyncError('lock_failed', `cannot create the repository lock ${file}: ${(err as Error).message}`, {
          hint: 'check the permissions and free space of the repository directory',
        });
      }
    }
    const holder = await readHolder(file);
    if (holder === 'absent') continue; // released meanwhile
    if (holder === 'unreadable') {
      // a holder between creating and writing the file; after a few looks it is a crash's leftover
      if (++unreadableSeen >= 3) {
        if (await takeOver(file, undefined)) {
          notes.push(`took over an unreadable repository lock ${file} (left by a crash)`);
        }
        continue;
      }
    } else if (holder.host === me.host && !isAlive(holder.pid)) {
      if (await takeOver(file, holder)) {
        notes.push(`took over the repository lock of ${describe(holder)}: that process is gone`);
      }
      continue;
    } else if (waited >= timeoutMs) {
      const sameHost = holder.host === me.host;
      throw new TmsyncError(
        'repository_locked',
        `another tmsync command is writing this repository: ${describe(holder)}${timeoutMs > 0 ? `; waited ${Math.round(waited / 1000)} s` : ''}`,
        {
          hint: sameHost
            ? `wait for it to finish (or pass --lock-timeout DUR to wait); if process ${holder.pid} is not tmsync, delete ${file}`
            : `wait for it to finish (or pass --lock-timeout DUR to wait); it runs on ${holder.host}, so its process cannot be checked from here: delete ${file} only if it is gone`,
          details: { lock: file, holder },
        },
      );
    }
    await sleep(pollMs);
    waited += pollMs;
  }
}

/**
 * Moves a stale lock aside under a name of its own (a rename is atomic: of two commands taking
 * over the same stale lock, one wins), then checks it moved the lock it judged; a lock taken by
 * someone else meanwhile is put back.
 */
async function takeOver(file: string, stale: LockHolder | undefined): Promise<boolean> {
  const aside = `${file}.stale.${process.pid}.${Date.now()}`;
  try {
    await rename(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  const moved = await readHolder(aside);
  const same =
    stale === undefined
      ? moved === 'unreadable'
      : typeof moved === 'object' && moved.pid === stale.pid && moved.host === stale.host && moved.started_at === stale.started_at;
  if (!same) {
    // a live lock was taken meanwhile: give it back (unless yet another one exists by now)
    try {
      const h = await open(file, 'wx');
      await h.writeFile(await readFile(aside));
      await h.close();
    } catch {
      // another command holds the lock now; ours goes on waiting
    }
    await unlink(aside).catch(() => undefined);
    return false;
  }
  await unlink(aside).catch(() => undefined);
  return true;
}

/** {@link release} for the process's `exit` event, where only synchronous work runs. */
function releaseSync(file: string, me: LockHolder): void {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as Partial<LockHolder>;
    if (holder.pid === me.pid && holder.host === me.host && holder.started_at === me.started_at) unlinkSync(file);
  } catch {
    // gone already, or another command's: nothing of ours to remove
  }
}

async function release(file: string, me: LockHolder): Promise<void> {
  const holder = await readHolder(file).catch(() => 'unreadable' as const);
  if (typeof holder !== 'object' || holder.pid !== me.pid || holder.host !== me.host || holder.started_at !== me.started_at) return;
  await unlink(file).catch(() => undefined);
}
