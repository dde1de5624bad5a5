import type { ApplySession } from '../apply/engine.js';
import { acquireRepositoryLock } from '../apply/lock.js';
import { parseDuration } from '../repository/config.js';
import type { CliIo } from './io.js';

/**
 * Runs `fn` holding the repository lock of `root` (`.tmsync/lock`): the commands that write the
 * service or the repository (apply, migrate, restore, pull) never run twice at once in one
 * checkout. `--lock-timeout DUR` waits for a held lock instead of failing at once.
 */
export async function withRepositoryLock<T>(
  root: string,
  command: string,
  lockTimeout: string | undefined,
  io: CliIo,
  fn: () => Promise<T>,
): Promise<T> {
  const lock = await acquireRepositoryLock(root, { command, timeoutMs: lockTimeoutMs(lockTimeout) });
  for (const n of lock.notes) io.stderr(`Note: ${n}.`);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

/**
 * Runs `fn` in an apply session of `root` (the write engine's lock, journal and resume: `apply`,
 * `migrate` and `restore`, which plan while holding the lock), with the same `--lock-timeout` and notes.
 */
export async function withApplySession<T>(
  root: string,
  command: string,
  lockTimeout: string | undefined,
  io: CliIo,
  fn: (session: ApplySession) => Promise<T>,
): Promise<T> {
  // the write engine is loaded by the commands that run it, not by every command taking the lock
  const { openApplySession } = await import('../apply/engine.js');
  const session = await openApplySession({ root, command, lockTimeoutMs: lockTimeoutMs(lockTimeout) });
  for (const n of session.notes) io.stderr(`Note: ${n}.`);
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

/** `--lock-timeout DUR` in ms: 0 (fail at once when the lock is held) when not given. */
function lockTimeoutMs(lockTimeout: string | undefined): number {
  return lockTimeout === undefined ? 0 : parseDuration(lockTimeout, '--lock-timeout');
}
