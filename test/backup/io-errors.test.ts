import { execFileSync } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import * as nodeFs from 'node:fs/promises';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import type { FileOps } from '../../src/repository/index.js';
import { writeBackupFile } from '../../src/backup/backup.js';
import type { BackupSource } from '../../src/backup/backup-source.js';
import type { BackupHeader } from '../../src/backup/backup-format.js';
import { pullIntoRepository } from '../../src/pull/pull.js';
import { fixtureState } from '../support/transfer-fixtures.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
const tempDir = async () => {
  const d = await mkdtemp(join(tmpdir(), 'tmsync-io-'));
  dirs.push(d);
  return d;
};

/** A character device like /dev/null, made in a temporary directory (root only): never the real one. */
const deviceNode = (path: string): boolean => {
  try {
    execFileSync('mknod', [path, 'c', '1', '3'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const canMakeDevices = await (async () => {
  const d = await mkdtemp(join(tmpdir(), 'tmsync-mknod-'));
  try {
    return deviceNode(join(d, 'probe'));
  } finally {
    await rm(d, { recursive: true, force: true });
  }
})();

const systemError = (code: string, syscall: string, path?: string) =>
  Object.assign(new Error(`${code}: simulated, ${syscall}`), { code, syscall, ...(path ? { path } : {}) });

const header = {
  format_version: 1,
  kind: 'tmsync-backup',
  created_at: '2026-01-01T00:00:00.000Z',
  tool: { name: 'tmsync', version: 'test' },
  source: { base_url: 'http://x/api/v1', project: { id: 'p', name: 'P', human_id_prefix: 'P', description: '' } },
  lookups: { types: [], statuses: [], priorities: [], automation_types: [], run_statuses: [] },
  users: [],
  labels: [],
} as unknown as BackupHeader;

function manyFolders(n: number): BackupSource {
  return {
    header: async () => header,
    async *folders() {
      for (let i = 0; i < n; i++) yield { id: `f${i}`, name: `Folder ${i} ${'x'.repeat(100)}`, parent_id: null, order: i };
    },
    async *stepGroups() {},
    async *testCases() {},
    async *testPlans() {},
    async *testRuns() {},
  };
}

/** A disk that takes `room` bytes into the real file, then answers ENOSPC. */
function fillingDisk(room: number): (path: string) => Writable {
  return (path) => {
    let used = 0;
    return new Writable({
      write(chunk: Buffer, _enc, cb) {
        if (used + chunk.length > room) return cb(systemError('ENOSPC', 'write'));
        appendFileSync(path, chunk);
        used += chunk.length;
        cb();
      },
    });
  };
}

describe('I/O errors in backup', () => {
  /** A source that fails the test if the backup reads anything: a refused target reads nothing. */
  const untouchable: BackupSource = {
    header: async () => {
      throw new Error('the service was read although the target was refused');
    },
    async *folders() {},
    async *stepGroups() {},
    async *testCases() {},
    async *testPlans() {},
    async *testRuns() {},
  };

  for (const [kind, make, words] of [
    ['a named pipe', (p: string) => void execFileSync('mkfifo', [p]), 'a named pipe (FIFO)'],
    ['a directory', (p: string) => mkdir(p), 'a directory'],
  ] as const) {
    it(`refuses a target that is ${kind}, saying what to do instead, and writes nothing`, async () => {
      const dir = await tempDir();
      const file = join(dir, 'out.json');
      await make(file);
      const before = await lstat(file);
      const err = await writeBackupFile(untouchable, file).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TmsyncError);
      expect((err as TmsyncError).code).toBe('not_a_regular_file');
      expect((err as TmsyncError).message).toBe(`${file} is ${words}, not a regular file; tmsync writes only regular files and does not replace it`);
      expect((err as TmsyncError).hint).toContain('give --out a new file name');
      expect(await readdir(dir)).toEqual(['out.json']);
      const after = await lstat(file);
      expect([after.ino, after.mode]).toEqual([before.ino, before.mode]);
    });
  }

  it.skipIf(!canMakeDevices)('refuses a character device such as /dev/null or /dev/full as the target and leaves the device in place (a device node made for the test)', async () => {
    const dir = await tempDir();
    const dev = join(dir, 'null');
    deviceNode(dev);
    const err = await writeBackupFile(untouchable, dev).catch((e: unknown) => e);
    expect((err as TmsyncError).code).toBe('not_a_regular_file');
    expect((err as TmsyncError).message).toContain('is a character device');
    expect((await lstat(dev)).isCharacterDevice()).toBe(true);
    expect(await readdir(dir)).toEqual(['null']);
  });

  it('writes through a symbolic link to a regular file, keeping the link', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'real.json'), 'old');
    await symlink(join(dir, 'real.json'), join(dir, 'link.json'));
    await writeBackupFile(manyFolders(1), join(dir, 'link.json'));
    expect((await lstat(join(dir, 'link.json'))).isSymbolicLink()).toBe(true);
    expect(JSON.parse(await readFile(join(dir, 'real.json'), 'utf8')).kind).toBe('tmsync-backup');
    expect((await readdir(dir)).sort()).toEqual(['link.json', 'real.json']);
  });

  it('reports a full disk as what it is, with the backup path, and leaves no partial file', async () => {
    const dir = await tempDir();
    const file = join(dir, 'project.tmsync-backup.json');
    const err = await writeBackupFile(manyFolders(500), file, { createWriteStream: fillingDisk(4096) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TmsyncError);
    expect((err as TmsyncError).code).toBe('io_error');
    expect((err as TmsyncError).message).toBe(`cannot write the backup ${file}: no space left on the device (ENOSPC)`);
    expect((err as TmsyncError).message).not.toContain('internal');
    expect(await readdir(dir)).toEqual([]);
  });

  for (const [code, words] of [
    ['EROFS', 'the file system is read-only'],
    ['EACCES', 'permission denied'],
  ] as const) {
    it(`reports ${code} on creating the backup file as "${words}" with the path, and leaves no file`, async () => {
      const dir = await tempDir();
      const file = join(dir, 'b.json.gz');
      const refuse = (path: string) =>
        new Writable({
          construct(cb) {
            cb(systemError(code, 'open', path));
          },
          write(_c, _e, cb) {
            cb();
          },
        });
      const err = (await writeBackupFile(manyFolders(3), file, { createWriteStream: refuse }).catch((e: unknown) => e)) as TmsyncError;
      expect(err.code).toBe('io_error');
      expect(err.message).toBe(`cannot write the backup ${file}: ${words} (${code})`);
      expect(err.details).toMatchObject({ errno: code });
      expect(await readdir(dir)).toEqual([]);
    });
  }
});

describe('I/O errors in pull', () => {
  for (const [code, words] of [
    ['ENOSPC', 'no space left on the device'],
    ['EROFS', 'the file system is read-only'],
    ['EACCES', 'permission denied'],
  ] as const) {
    it(`reports ${code} while writing a pulled file as "${words}" naming the file, and leaves no partial or temporary file`, async () => {
      const root = await tempDir();
      const victim = 'cases/Authentication/valid-login.yaml';
      const ops: Partial<FileOps> = {
        open: (async (path: string, flags?: string | number) => {
          const fh = await nodeFs.open(path, flags);
          if (flags === 'wx' && path.includes('valid-login.yaml.')) {
            fh.writeFile = async () => {
              throw systemError(code, 'write');
            };
          }
          return fh;
        }) as FileOps['open'],
      };
      const err = (await pullIntoRepository(fixtureState(), { root, config: { casesDir: 'cases', stepGroupsDir: 'step_groups' }, ops, parallel: 1 }).catch(
        (e: unknown) => e,
      )) as TmsyncError;
      expect(err).toBeInstanceOf(TmsyncError);
      expect(err.code).toBe('io_error');
      expect(err.message).toBe(`cannot write ${victim}: ${words} (${code})`);
      expect(await readdir(join(root, 'cases/Authentication'))).not.toContain('valid-login.yaml');
      expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
    });
  }
});
