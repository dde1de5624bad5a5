import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { resolveProject, type TmsClient } from '../../src/remote/index.js';
import { writeBackup } from '../../src/backup/backup.js';
import { parseBackupText } from '../../src/backup/backup-read.js';
import { clientBackupSource } from '../../src/backup/backup-source.js';
import type { Backup } from '../../src/backup/backup-format.js';
import { restoreBackup, restoreJournalPath } from '../../src/backup/restore.js';
import { fetchRestoreDirectory } from '../../src/backup/restore-target.js';
import { client, emptyProject, emulator, projectSnapshot, seedVariedProject } from '../support/transfer-helpers.js';

async function takeBackup(c: TmsClient, prefix: string, baseUrl: string): Promise<Backup> {
  const project = await resolveProject(c, prefix);
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (b: Buffer) => chunks.push(b));
  await writeBackup(clientBackupSource(c, project, { baseUrl, version: 'test' }), out);
  out.end();
  return parseBackupText(Buffer.concat(chunks).toString('utf8'));
}

describe('restore when its journal cannot be written', () => {
  let a: RunningEmulator;
  let b: RunningEmulator;
  let root: string;
  let backup: Backup;
  beforeAll(async () => {
    [a, b] = await Promise.all([emulator(), emulator()]);
    await seedVariedProject(a, 'SRC');
    const ca = client(a.baseUrl);
    backup = await takeBackup(ca, 'SRC', a.baseUrl);
    await ca.close();
    root = await mkdtemp(join(tmpdir(), 'tmsync-restore-jfail-'));
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('stops with journal_write, starts no create after the failure, and a second run finishes without duplicates', async () => {
    emptyProject(b, 'RJFAIL');
    const real = client(b.baseUrl);
    const target = await resolveProject(real, 'RJFAIL');
    const directory = await fetchRestoreDirectory(real);
    const file = restoreJournalPath(root, backup.source.project.id, backup.created_at, target.id);
    let writes = 0;
    let createsAtFailure = -1;
    const creates = () => b.requestLog().filter((e) => e.method === 'POST').length;
    const journalWrite = async (text: string) => {
      // the 25th entry meets a full disk
      if (++writes === 25) {
        createsAtFailure = creates();
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      await appendFile(file, text);
    };
    b.clearRequestLog();
    const err = await restoreBackup(backup, { target, directory, root, client: real, parallel: 4, journalWrite }).catch((e: unknown) => e);
    expect((err as { code?: string }).code).toBe('journal_write');
    expect((err as Error).message).toMatch(/cannot write the restore journal .*ENOSPC/);
    // only what was already in flight (at most `parallel` items) was sent after the failure
    expect(creates() - createsAtFailure).toBeLessThanOrEqual(4);

    const result = await restoreBackup(backup, { target, directory, root, client: real, parallel: 4 });
    expect(result.adopted + result.skipped).toBeGreaterThan(0);
    await real.close();
    expect(await projectSnapshot(b.baseUrl, 'RJFAIL')).toEqual(await projectSnapshot(a.baseUrl, 'SRC'));
  });
});
