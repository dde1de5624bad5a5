import type { EndpointName } from '../../src/api/index.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
import { restoreBackup } from '../../src/backup/restore.js';
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

/** A client whose Nth call of `endpoint` reaches the service but "dies" before the answer arrives. */
function crashingClient(real: TmsClient, endpoint: EndpointName, n: number): TmsClient {
  let count = 0;
  return {
    ...real,
    call: (async (name: EndpointName, req?: Parameters<TmsClient['call']>[1]) => {
      if (name === endpoint && ++count === n) {
        await real.call(name, req);
        throw new Error('killed after sending');
      }
      return real.call(name, req);
    }) as TmsClient['call'],
    paginate: real.paginate.bind(real),
  };
}

describe('restore resumes after a crash', () => {
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
    root = await mkdtemp(join(tmpdir(), 'tmsync-restore-'));
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    if (root) await rm(root, { recursive: true, force: true });
  });

  for (const [endpoint, n] of [
    ['createTestCase', 30],
    // about where the first twins ("Duplicate title" twice in one folder) are created
    ['createTestCase', 10],
    ['createTestCase', 11],
    ['createFolder', 6],
    ['createTestRun', 2],
    ['updateTestRun', 1],
  ] as const) {
    it(`finishes with no duplicates when the run died after sending ${endpoint} #${n} without its answer`, async () => {
      const prefix = `R${endpoint.length}${n}`.toUpperCase().slice(0, 8);
      emptyProject(b, prefix);
      const real = client(b.baseUrl);
      const target = await resolveProject(real, prefix);
      const directory = await fetchRestoreDirectory(real);
      const options = { target, directory, root, parallel: 6 };
      await expect(restoreBackup(backup, { ...options, client: crashingClient(real, endpoint, n) })).rejects.toThrow('killed after sending');
      const journal = (await readdirJournal(root)).find((t) => t.includes(target.id)) ?? '';
      expect(journal).toContain('"type":"begin"');

      const result = await restoreBackup(backup, { ...options, client: real });
      // a create without its answer is found and adopted; a PUT or complete is simply finished
      expect(result.adopted).toBe(endpoint.startsWith('create') ? 1 : 0);
      expect(result.skipped).toBeGreaterThan(0);
      await real.close();
      expect(await projectSnapshot(b.baseUrl, prefix)).toEqual(await projectSnapshot(a.baseUrl, 'SRC'));
    });
  }

  it('confirms a plan completion whose answer was lost by reading the plan, instead of failing', async () => {
    emptyProject(b, 'RCOMP');
    const real = client(b.baseUrl);
    const target = await resolveProject(real, 'RCOMP');
    const directory = await fetchRestoreDirectory(real);
    const result = await restoreBackup(backup, { target, directory, root, client: crashingClient(real, 'completeTestPlan', 1) });
    expect(result.created.test_plans).toBe(2);
    await real.close();
    expect(await projectSnapshot(b.baseUrl, 'RCOMP')).toEqual(await projectSnapshot(a.baseUrl, 'SRC'));
  });
});

async function readdirJournal(root: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  const dir = join(root, '.tmsync');
  const files = await readdir(dir);
  return Promise.all(files.map((f) => readFile(join(dir, f), 'utf8')));
}
