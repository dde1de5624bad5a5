import { existsSync } from 'node:fs';
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
    // one worker sends its 302 results in two batches (RESULT_BATCH is 250), three in one each
    expect(await spec.loadRepository(root, config, { workers: 1 })).toEqual(single);
    expect(await spec.loadRepository(root, config, { workers: 3 })).toEqual(single);
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
