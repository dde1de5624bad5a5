import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadRepository } from '../../src/repository/index.js';

describe('folder names with a slash', () => {
  it('are accepted from _folder.yaml `name:`, the place for names a directory cannot have', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-slash-'));
    await mkdir(join(root, 'cases', 'returns-refunds'), { recursive: true });
    await writeFile(join(root, 'tmsync.yaml'), 'project: DEMO\n');
    await writeFile(join(root, 'cases', 'returns-refunds', '_folder.yaml'), 'name: "Returns / Refunds: A*B?"\n');
    await writeFile(join(root, 'cases', 'returns-refunds', 'x.yaml'), 'title: Refund a card payment\n');
    const { config } = await loadConfig(join(root, 'tmsync.yaml'));
    const { state, problems } = await loadRepository(root, config);
    expect(problems).toEqual([]);
    expect(state.folders.map((f) => f.name)).toEqual(['Returns / Refunds: A*B?']);
    expect(state.cases[0].folderPath).toEqual(['Returns / Refunds: A*B?']);
  });
});

describe('a step group file with a mistake', () => {
  it('is reported once, in its own file, not again at every case that uses it', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-brokensg-'));
    await mkdir(join(root, 'cases', 'Shop'), { recursive: true });
    await mkdir(join(root, 'step_groups'), { recursive: true });
    await writeFile(join(root, 'tmsync.yaml'), 'project: DEMO\n');
    await writeFile(join(root, 'step_groups', 'add-to-cart.yaml'), 'title: Add to cart\nsteps:\n  - action: Add\n    expeted: Added\n');
    for (const n of [1, 2]) {
      await writeFile(join(root, 'cases', 'Shop', `c${n}.yaml`), `title: Case ${n}\nsteps:\n  - use: add-to-cart\n`);
    }
    const { config } = await loadConfig(join(root, 'tmsync.yaml'));
    const { problems } = await loadRepository(root, config);
    expect(problems.map((p) => p.file)).toEqual(['step_groups/add-to-cart.yaml']);
    expect(problems[0].message).toMatch(/expeted/);
  });
});
