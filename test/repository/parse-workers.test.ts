import { existsSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeRepo } from './helpers.js';

// Worker threads run only from the built package (they load dist/repository/parse-worker.js), so this
// test uses dist/: `npm test` builds first; alone, run `npx tsc -p tsconfig.build.json`.
const DIST = join(import.meta.dirname, '..', '..', 'dist', 'repository', 'index.js');

describe('loading with worker threads', () => {
  it('gives the same state and problems as loading in one thread', async () => {
    expect(existsSync(DIST), 'dist/ is missing: run npx tsc -p tsconfig.build.json').toBe(true);
    const spec = (await import(DIST)) as typeof import('../../src/repository/index.js');
    const files: Record<string, string> = {
      'tmsync.yaml': 'project: SHOP\n',
      'step_groups/g.yaml': 'title: G\nsteps:\n  - action: a\n',
      'cases/F1/_folder.yaml': 'name: First\norder: 1\n',
    };
    for (let i = 0; i < 300; i++) {
      files[`cases/F${i % 7}/S${i % 3}/c${i}.yaml`] =
        i % 50 === 0 ? `title: [broken ${i}\n` : `title: Case ${i}\nlabels: [l${i % 4}]\nsteps:\n  - use: g\n  - action: do ${i}\n`;
    }
    files['cases/F2/S2/dup.yaml'] = 'title: Case 2\n';
    const dir = await makeRepo(files);
    const { config, root } = await spec.loadConfig(join(dir, 'tmsync.yaml'));
    const single = await spec.loadRepository(root, config, { workers: 0 });
    const pooled = await spec.loadRepository(root, config, { workers: 2 });
    expect(single.state.cases).toHaveLength(295);
    expect(single.problems.map((p) => p.code).sort()).toEqual(['duplicate_title', ...Array(6).fill('yaml_syntax')]);
    expect(pooled).toEqual(single);
    // the same objects with the same keys in the same order (what JSON output and plans render)
    expect(JSON.stringify(pooled)).toBe(JSON.stringify(single));
    // 302 files are 4 chunks (RESULT_BATCH is 100), taken by however many threads there are
    expect(await spec.loadRepository(root, config, { workers: 1 })).toEqual(single);
    expect(await spec.loadRepository(root, config, { workers: 3 })).toEqual(single);
    // the calling thread parses chunks too, beside the workers
    const beside = await spec.loadRepository(root, config, { workers: 1, callerIdle: true });
    expect(JSON.stringify(beside)).toBe(JSON.stringify(single));
  });

  it('parses again without the heap cap when a worker runs out of its capped heap', async () => {
    expect(existsSync(DIST), 'dist/ is missing: run npx tsc -p tsconfig.build.json').toBe(true);
    const spec = (await import(DIST)) as typeof import('../../src/repository/index.js');
    const files: Record<string, string> = { 'tmsync.yaml': 'project: SHOP\n' };
    for (let i = 0; i < 40; i++) files[`cases/F${i % 3}/c${i}.yaml`] = `title: Case ${i}\nsteps:\n  - action: do ${i}\n`;
    const dir = await makeRepo(files);
    const { config, root } = await spec.loadConfig(join(dir, 'tmsync.yaml'));
    const single = await spec.loadRepository(root, config, { workers: 0 });
    // 1 MB is too little even to load the parser: every worker runs out of it
    const capped = await spec.loadRepository(root, config, { workers: 2, workerHeapMb: 1 });
    expect(capped.state.cases).toHaveLength(40);
    expect(capped).toEqual(single);
  });
});

describe('each parse result handed over as it arrives (issue 15)', () => {
  it('gives every result to `receive` once, before parseFiles resolves, with its job, in threads or not', async () => {
    const PARSE = join(import.meta.dirname, '..', '..', 'dist', 'repository', 'parse-files.js');
    expect(existsSync(PARSE), 'dist/ is missing: run npx tsc -p tsconfig.build.json').toBe(true);
    const { parseFiles } = (await import(PARSE)) as typeof import('../../src/repository/parse-files.js');
    const files: Record<string, string> = {};
    for (let i = 0; i < 250; i++) files[`cases/F${i % 3}/c${i}.yaml`] = i % 40 === 0 ? `title: [broken\n` : `title: Case ${i}\n`;
    const root = await makeRepo(files);
    const jobs = Object.keys(files).map((rel) => ({ kind: 'case' as const, rel }));
    for (const options of [{ workers: 0 }, { workers: 2 }, { workers: 1, callerIdle: true }, { workers: 2, workerHeapMb: 1 }]) {
      const received: [string, unknown][] = [];
      const results = await parseFiles(root, jobs, { ...options, receive: (job, r) => received.push([job.rel, r]) });
      expect(received.map(([rel]) => rel).sort(), JSON.stringify(options)).toEqual(jobs.map((j) => j.rel).sort());
      // the very result objects parseFiles gives back, each with its own job's path
      const byRel = new Map(received);
      for (const [i, r] of results.entries()) {
        expect(byRel.get(jobs[i].rel)).toBe(r);
        expect(r.rel).toBe(jobs[i].rel);
      }
    }
  });
});

describe('a file that cannot be read while loading with workers', () => {
  it('fails the load with the operating system error, whichever thread reads it', async () => {
    expect(existsSync(DIST), 'dist/ is missing: run npx tsc -p tsconfig.build.json').toBe(true);
    const spec = (await import(DIST)) as typeof import('../../src/repository/index.js');
    const files: Record<string, string> = { 'tmsync.yaml': 'project: SHOP\n' };
    for (let i = 0; i < 300; i++) files[`cases/F${i % 3}/c${i}.yaml`] = `title: Case ${i}\n`;
    const dir = await makeRepo(files);
    // a case file that is a link to a socket: opening it fails (ENXIO), as a vanished disk would
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
    try {
      symlinkSync(join(dir, 'sock'), join(dir, 'cases', 'F1', 'c150b.yaml'));
      const { config, root } = await spec.loadConfig(join(dir, 'tmsync.yaml'));
      for (const options of [{ workers: 0 }, { workers: 2 }, { workers: 1, callerIdle: true }]) {
        await expect(spec.loadRepository(root, config, options), JSON.stringify(options)).rejects.toMatchObject({ code: 'ENXIO' });
      }
    } finally {
      server.close();
    }
  });
});

describe('how many worker threads parse', () => {
  // chooseWorkerCount is a pure function of its input: no dist/ needed
  const base = { files: 100_000, cores: 2, load: 0 };

  it('parses in this thread below 2,000 files', async () => {
    const { chooseWorkerCount } = await import('../../src/repository/parse-files.js');
    expect(chooseWorkerCount({ ...base, files: 1999 })).toBe(0);
    expect(chooseWorkerCount({ ...base, files: 1999, callerIdle: true })).toBe(0);
    expect(chooseWorkerCount({ ...base, files: 2000 })).toBe(2);
  });

  it('keeps the calling thread free for plan: one worker per idle core, at least one, at most 4', async () => {
    const { chooseWorkerCount } = await import('../../src/repository/parse-files.js');
    expect(chooseWorkerCount({ ...base, load: 0.9 })).toBe(1);
    expect(chooseWorkerCount({ ...base, load: 12 })).toBe(1);
    expect(chooseWorkerCount({ ...base, cores: 16, load: 1.5 })).toBe(4);
    expect(chooseWorkerCount({ ...base, cores: 1 })).toBe(1);
  });

  it('lets every core parse for validate (the calling thread is one of them), whatever the load', async () => {
    const { chooseWorkerCount } = await import('../../src/repository/parse-files.js');
    expect(chooseWorkerCount({ ...base, load: 0.9, callerIdle: true })).toBe(1);
    expect(chooseWorkerCount({ ...base, load: 12, callerIdle: true })).toBe(1);
    expect(chooseWorkerCount({ ...base, cores: 4, load: 3, callerIdle: true })).toBe(3);
    expect(chooseWorkerCount({ ...base, cores: 16, callerIdle: true })).toBe(4);
    // one core: no worker to start, the calling thread parses everything
    expect(chooseWorkerCount({ ...base, cores: 1, callerIdle: true })).toBe(0);
  });

  it('takes the count asked for (the option; the CLI takes it from TMSYNC_PARSE_WORKERS), never more than the files', async () => {
    const { chooseWorkerCount } = await import('../../src/repository/parse-files.js');
    const { envTuning } = await import('../../src/cli/env-tuning.js');
    const fromEnv = (value: string) => envTuning({ TMSYNC_PARSE_WORKERS: value }).load.workers;
    expect(chooseWorkerCount({ ...base, requested: 0 })).toBe(0);
    expect(chooseWorkerCount({ ...base, files: 10, requested: 3 })).toBe(3);
    expect(chooseWorkerCount({ ...base, files: 2, requested: 3 })).toBe(2);
    expect(chooseWorkerCount({ ...base, requested: fromEnv('0'), callerIdle: true })).toBe(0);
    expect(chooseWorkerCount({ ...base, files: 10, requested: fromEnv('2') })).toBe(2);
    // not an integer: ignored
    expect(chooseWorkerCount({ ...base, requested: fromEnv('many') })).toBe(2);
    expect(chooseWorkerCount({ ...base, requested: fromEnv('') })).toBe(2);
  });
});
