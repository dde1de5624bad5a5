import { readdir, readFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { ActualState } from '../../src/model.js';
import { fetchState, type TmsClient } from '../../src/remote/index.js';
import type { FileOps } from '../../src/repository/file-ops.js';
import { readFile as fsReadFile } from 'node:fs/promises';
import { loadExistingRepository, pullIntoRepository } from '../../src/transfer/pull.js';
import { createPullStage } from '../../src/transfer/pull-stage.js';
import { recordPull } from '../../src/transfer/pull-sync.js';
import { SyncBase } from '../../src/sync/base.js';
import { client, emulator, seedVariedProject } from './helpers.js';

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
async function stagedPull(c: TmsClient, root: string, opts: { context?: (s: ActualState) => ActualState; ops?: Partial<FileOps>; each?: boolean } = {}) {
  const existing = loadExistingRepository(root, config);
  const stage = createPullStage({ root, config, existing, stageNewFiles: !opts.each });
  try {
    const onRead = { context: (s: ActualState) => stage.onRead.context(opts.context ? opts.context(s) : s), cases: stage.onRead.cases };
    const actual = await fetchState(c, 'VAR', { onRead });
    const result = await pullIntoRepository(actual, { root, config, existing, stage, ...(opts.ops ? { ops: opts.ops } : {}), ...(opts.each ? { writeMode: 'each' as const } : {}) });
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
    expect(stage.hashed({ ...actual.cases[0]! })).toBeUndefined();
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
