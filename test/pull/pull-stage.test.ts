import * as nodeFs from 'node:fs/promises';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { ActualState } from '../../src/model.js';
import { fetchState, type TmsClient } from '../../src/remote/index.js';
import type { FileOps } from '../../src/repository/file-ops.js';
import { readFile as fsReadFile } from 'node:fs/promises';
import { loadExistingRepository, pullIntoRepository } from '../../src/pull/pull.js';
import { createPullStage } from '../../src/pull/pull-stage.js';
import { recordPull } from '../../src/pull/pull-sync.js';
import { SyncBase } from '../../src/base/base.js';
import { TmsyncError } from '../../src/errors.js';
import { client, emulator, seedVariedProject } from '../support/transfer-helpers.js';

const config = { casesDir: 'cases', stepGroupsDir: 'step_groups' };

/** Every file below `root` but `.tmsync/`, with its content. */
async function tree(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const visit = async (dir: string) => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== '.tmsync') await visit(p);
      } else out[relative(root, p)] = await readFile(p, 'utf8');
    }
  };
  await visit(root);
  return out;
}

const fresh = () => mkdtempSync(join(tmpdir(), 'tmsync-pull-stage-'));

/** A pull with a stage fed by the reads, as `tmsync pull` runs it. */
async function stagedPull(
  c: TmsClient,
  root: string,
  opts: { context?: (s: ActualState) => ActualState; ops?: Partial<FileOps>; each?: boolean; syncFileSystem?: (dir: string) => Promise<boolean> } = {},
) {
  const existing = loadExistingRepository(root, config);
  const stage = createPullStage({ root, config, existing, stageNewFiles: !opts.each });
  try {
    const onRead = { context: (s: ActualState) => stage.onRead.context(opts.context ? opts.context(s) : s), cases: stage.onRead.cases };
    const actual = await fetchState(c, 'VAR', { onRead });
    const result = await pullIntoRepository(actual, {
      root,
      config,
      existing,
      stage,
      ...(opts.ops ? { ops: opts.ops } : {}),
      ...(opts.each ? { writeMode: 'each' as const } : {}),
      ...(opts.syncFileSystem ? { syncFileSystem: opts.syncFileSystem } : {}),
    });
    return { result, stats: stage.stats(), actual, stage };
  } finally {
    await stage.discard();
  }
}

describe('pull with its work done during the reads (createPullStage)', () => {
  let emu: RunningEmulator;
  let c: TmsClient;
  beforeAll(async () => {
    emu = await emulator();
    await seedVariedProject(emu, 'VAR');
    // small pages: the cases arrive in several pages, laid out as each arrives
    c = client(emu.baseUrl, { pageSize: 5 });
  });
  afterAll(async () => {
    await c.close();
    await emu.close();
  });

  it('writes the same files as a pull without it, from temporary files staged during the reads, and leaves none behind', async () => {
    const plain = fresh();
    const expected = await pullIntoRepository(await fetchState(c, 'VAR'), { root: plain, config });
    const root = fresh();
    const { result, stats, actual } = await stagedPull(c, root);
    expect(await tree(root)).toEqual(await tree(plain));
    expect(result).toEqual(expected);
    expect(stats.laidOut).toBe(actual.cases.length);
    expect(stats.staged).toBe(actual.cases.length);
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });

  it('compares the case files of a re-pull during the reads: all unchanged, none read again at the end', async () => {
    const root = fresh();
    await stagedPull(c, root);
    const before = await tree(root);
    const readAtEnd: string[] = [];
    const ops: Partial<FileOps> = {
      readFile: (path: string) => {
        readAtEnd.push(relative(root, path));
        return fsReadFile(path);
      },
    };
    const { result, stats, actual } = await stagedPull(c, root, { ops });
    expect(result.created).toEqual([]);
    expect(result.updated).toEqual([]);
    expect(stats.compared).toBe(actual.cases.length);
    expect(readAtEnd.filter((p) => p.endsWith('.yaml') && !p.endsWith('_folder.yaml') && p.startsWith('cases/'))).toEqual([]);
    expect(await tree(root)).toEqual(before);
  });

  it('hashes each case for the sync base as its page arrives: the base recorded from those hashes is the one from the values', async () => {
    const root = fresh();
    const { result, actual, stage } = await stagedPull(c, root);
    expect(actual.cases.every((x) => stage.hashed(x) !== undefined)).toBe(true);
    const fromValues = recordPull(new SyncBase('p'), actual, result, undefined).base.serialize();
    const fromHashes = recordPull(new SyncBase('p'), actual, result, undefined, stage.hashed).base.serialize();
    expect(fromHashes).toBe(fromValues);
    expect(fromValues.split('\n').filter((l) => l.startsWith('case ')).length).toBe(actual.cases.length);
    // a case object the stage did not see (another read of the same case) has no hashes
    expect(stage.hashed({ ...actual.cases[0] })).toBeUndefined();
  });

  it('stages no file when new files are written one by one (TMSYNC_PULL_WRITE=each), and writes the same files', async () => {
    const plain = fresh();
    await pullIntoRepository(await fetchState(c, 'VAR'), { root: plain, config });
    const root = fresh();
    const { stats, actual } = await stagedPull(c, root, { each: true });
    expect(stats.laidOut).toBe(actual.cases.length);
    expect(stats.staged).toBe(0);
    expect(await tree(root)).toEqual(await tree(plain));
  });

  it('takes nothing it computed from other reads: files as without it, its temporary files removed', async () => {
    const plain = fresh();
    const expected = await pullIntoRepository(await fetchState(c, 'VAR'), { root: plain, config });
    const root = fresh();
    // the stage lays cases out with priorities named otherwise than the state the pull writes
    const renamed = (s: ActualState): ActualState => ({
      ...s,
      lookups: { ...s.lookups, priorities: s.lookups.priorities.map((p) => ({ ...p, name: `${p.name} (old)` })) },
    });
    const { result, stats } = await stagedPull(c, root, { context: renamed });
    expect(stats.staged).toBeGreaterThan(0);
    expect(await tree(root)).toEqual(await tree(plain));
    expect(result).toEqual(expected);
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });
});

describe('new directories moved into place whole (pull-tree.ts)', () => {
  let emu: RunningEmulator;
  let c: TmsClient;
  let plain: string;
  beforeAll(async () => {
    emu = await emulator();
    await seedVariedProject(emu, 'VAR');
    c = client(emu.baseUrl, { pageSize: 5 });
    plain = fresh();
    await pullIntoRepository(await fetchState(c, 'VAR'), { root: plain, config });
  });
  afterAll(async () => {
    await c.close();
    await emu.close();
  });

  /** The renames into the repository (not within `.tmsync/`), relative to the root. */
  const renamesInto = (root: string, into: string[]): Partial<FileOps> => ({
    rename: async (from, to) => {
      const rel = relative(root, String(to));
      if (!rel.startsWith('.tmsync')) into.push(rel);
      return nodeFs.rename(from, to);
    },
  });
  const tmpLeft = (root: string) => readdir(join(root, '.tmsync/tmp'));

  it('pulls into an empty directory with one rename per new top directory, and writes the same files', async () => {
    const root = fresh();
    const into: string[] = [];
    const { result } = await stagedPull(c, root, { ops: renamesInto(root, into) });
    expect(into.sort()).toEqual(['cases', 'step_groups']);
    expect(await tree(root)).toEqual(await tree(plain));
    expect(result.created.length).toBeGreaterThan(20);
    expect(await tmpLeft(root)).toEqual(['.gitignore']);
  });

  it('moves a folder missing from the repository into place as one directory, and other new files one by one', async () => {
    const root = fresh();
    await stagedPull(c, root);
    await rm(join(root, 'cases/Checkout/Payments'), { recursive: true });
    await rm(join(root, 'cases/Authentication/valid-login.yaml'));
    const into: string[] = [];
    const { result } = await stagedPull(c, root, { ops: renamesInto(root, into) });
    expect(into.sort()).toEqual(['cases/Authentication/valid-login.yaml', 'cases/Checkout/Payments']);
    expect(result.created.filter((p) => p.startsWith('cases/Checkout/Payments/')).length).toBeGreaterThan(5);
    expect(await tree(root)).toEqual(await tree(plain));
    expect(await tmpLeft(root)).toEqual(['.gitignore']);
  });

  it('fsyncs every file and directory it moves when the file system cannot be flushed at once, and writes the same files', async () => {
    const root = fresh();
    const synced: string[] = [];
    const ops: Partial<FileOps> = {
      open: (async (path: string, flags?: string | number) => {
        const fh = await nodeFs.open(path, flags);
        if (flags === 'r') {
          const sync = fh.sync.bind(fh);
          fh.sync = async () => {
            synced.push(path);
            return sync();
          };
        }
        return fh;
      }) as FileOps['open'],
    };
    const { result } = await stagedPull(c, root, { ops, syncFileSystem: async () => false });
    expect(await tree(root)).toEqual(await tree(plain));
    const tmp = join(root, '.tmsync/tmp');
    const inTree = synced.map((p) => relative(tmp, p).split('/').slice(1).join('/'));
    // each new file, and each new directory (its entries), before the renames
    for (const f of result.created) expect(inTree).toContain(f);
    expect(inTree).toContain('cases');
    expect(inTree).toContain('cases/Checkout/Payments');
    expect(inTree).toContain('step_groups');
  });

  it('leaves none of the new files when moving a directory into place fails, says which, and removes its staged files', async () => {
    const root = fresh();
    const ops: Partial<FileOps> = {
      rename: async (from, to) => {
        if (relative(root, String(to)) === 'cases') throw Object.assign(new Error('EACCES: simulated'), { code: 'EACCES', syscall: 'rename' });
        return nodeFs.rename(from, to);
      },
    };
    const err = (await stagedPull(c, root, { ops }).catch((e: unknown) => e)) as TmsyncError;
    expect(err).toBeInstanceOf(TmsyncError);
    expect(err.code).toBe('io_error');
    expect(err.message).toBe('cannot write cases: permission denied (EACCES)');
    expect(existsSync(join(root, 'cases'))).toBe(false);
    expect(existsSync(join(root, 'step_groups'))).toBe(false);
    expect(await tmpLeft(root)).toEqual(['.gitignore']);
  });

  it('leaves none of the new files when writing one into a new directory fails, names the file, and removes its staged files', async () => {
    const root = fresh();
    const victim = 'cases/Empty folder/_folder.yaml';
    const ops: Partial<FileOps> = {
      open: (async (path: string, flags?: string | number) => {
        const fh = await nodeFs.open(path, flags);
        if (flags === 'wx' && String(path).endsWith(victim)) {
          fh.writeFile = async () => {
            throw Object.assign(new Error('ENOSPC: simulated'), { code: 'ENOSPC', syscall: 'write' });
          };
        }
        return fh;
      }) as FileOps['open'],
    };
    const err = (await stagedPull(c, root, { ops }).catch((e: unknown) => e)) as TmsyncError;
    expect(err).toBeInstanceOf(TmsyncError);
    expect(err.message).toBe(`cannot write ${victim}: no space left on the device (ENOSPC)`);
    expect(existsSync(join(root, 'cases'))).toBe(false);
    expect(existsSync(join(root, 'step_groups'))).toBe(false);
    expect(await tmpLeft(root)).toEqual(['.gitignore']);
  });

  it('removes the staged directories a killed run left, and keeps those of a run still going', async () => {
    const root = fresh();
    const killed = join(root, '.tmsync/tmp/pull.999999999.0123456789ab.tmp');
    const running = join(root, `.tmsync/tmp/pull.${process.ppid}.0123456789ab.tmp`);
    for (const d of [killed, running]) {
      await mkdir(join(d, 'cases/Authentication'), { recursive: true });
      await writeFile(join(d, 'cases/Authentication/valid-login.yaml'), 'id: X\n');
    }
    await stagedPull(c, root);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(running)).toBe(true);
    expect(await tree(root)).toEqual(await tree(plain));
  });
});
