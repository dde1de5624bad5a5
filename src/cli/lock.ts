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
  const timeoutMs = lockTimeout === undefined ? 0 : parseDuration(lockTimeout, '--lock-timeout');
  const lock = await acquireRepositoryLock(root, { command, timeoutMs });
  for (const n of lock.notes) io.stderr(`Note: ${n}.`);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
