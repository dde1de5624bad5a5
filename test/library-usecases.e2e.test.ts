import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../src/cli/io.js';
import { main } from '../src/cli/main.js';
import type { RunningEmulator } from '../src/emulator/index.js';
import { applyRepository, createClient, loadConfig, planRepository, pullRepository, readSyncBase, renderPlanJson, type RepositoryTarget, type UseCaseNote } from '../src/index.js';
import { startTestEmulator as startEmulator } from './dialect.js';
import { demoConfigYaml } from './support/demo-config.js';

/** The use cases as a library caller sees them (src/usecases/, exported from the package). */
const API_KEY = 'usecases-e2e-key';

let emu: RunningEmulator;
const dirs: string[] = [];
const targets: RepositoryTarget[] = [];

beforeAll(async () => {
  emu = await startEmulator({ memory: true, apiKeys: [API_KEY], seed: 'demo', port: 0 });
});
afterAll(async () => {
  for (const t of targets) await t.client.close();
  await emu?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function repository(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tmsync-usecases-'));
  dirs.push(root);
  for (const [file, text] of Object.entries({ 'tmsync.yaml': demoConfigYaml(emu.baseUrl, { rate_limit: 1000 }), ...files })) {
    await mkdir(join(root, file, '..'), { recursive: true });
    await writeFile(join(root, file), text);
  }
  return root;
}

/** What a library caller builds from its own settings: the configuration and a client. */
async function target(root: string): Promise<RepositoryTarget> {
  const { config } = await loadConfig(join(root, 'tmsync.yaml'));
  const t = { root, config, client: createClient({ baseUrl: emu.baseUrl, apiKey: API_KEY, rateLimit: 1000, concurrency: 8 }), projectRef: 'DEMO', baseUrl: emu.baseUrl };
  targets.push(t);
  return t;
}

const FILES = {
  'step_groups/login.yaml': 'title: Log in\nsteps:\n  - action: Open /login\n    expected: The form shows\n',
  'cases/Usecases/Auth/valid-login.yaml': 'title: Valid login\nstatus: Ready\nsteps:\n  - use: login\n  - action: Submit\n    expected: Signed in\n',
  'cases/Usecases/Auth/locked.yaml': 'title: Locked account\ndescription: Three wrong passwords lock the account.\n',
  'cases/Usecases/Checkout/saved-card.yaml': 'title: Pay with a saved card\n',
};

describe('planRepository', () => {
  it('returns the plan `tmsync plan --format json` prints for the same repository and service', async () => {
    const root = await repository(FILES);
    const io = memoryIo({ TMSYNC_API_KEY: API_KEY });
    expect(await main(['node', 'tmsync', 'plan', '--format', 'json'], io, root)).toBe(0);
    const result = await planRepository(await target(root));
    expect(result.status).toBe('planned');
    if (result.status !== 'planned') return;
    expect(result.plan.operations.length).toBeGreaterThan(0);
    expect(JSON.parse(io.out.join(''))).toEqual(JSON.parse(renderPlanJson(result.plan, result.display)));
  });

  it('says why there is no plan as a typed cause: the files problems, warnings among them', async () => {
    const root = await repository({ 'cases/Usecases/Bad/broken.yaml': 'title: [unclosed\n' });
    const result = await planRepository(await target(root));
    expect(result.status).toBe('invalid_repository');
    if (result.status !== 'invalid_repository') return;
    expect(result.problems.some((p) => p.file === 'cases/Usecases/Bad/broken.yaml' && p.severity !== 'warning')).toBe(true);
  });
});

describe('applyRepository and pullRepository', () => {
  it('applies a fresh plan (ids written back, the base recorded), after which the plan is in step; pull records the sync base', async () => {
    const root = await repository(FILES);
    const t = await target(root);
    const progress: number[] = [];
    const applied = await applyRepository(t, { onProgress: (p) => progress.push(p.done) });
    expect(applied.status).toBe('applied');
    if (applied.status !== 'applied') return;
    expect(applied.result.created).toBe(applied.plan.operations.length);
    expect(applied.result.failed).toEqual([]);
    expect(applied.result.skipped).toEqual([]);
    expect(progress.length).toBeGreaterThan(0);
    expect(await readFile(join(root, 'cases/Usecases/Auth/locked.yaml'), 'utf8')).toMatch(/^id: /m);
    const base = await readSyncBase(root, applied.project.id);
    expect(base.base.size).toBeGreaterThan(0);
    // nothing left to send: the apply says so, without sending anything
    const again = await applyRepository(t);
    expect(again.status).toBe('in_step');

    // a pull into a new directory, by a library caller: the files and the sync base
    const into = await mkdtemp(join(tmpdir(), 'tmsync-usecases-pull-'));
    dirs.push(into);
    const notes: UseCaseNote[] = [];
    const pulled = await pullRepository({ ...t, root: into }, { folder: ['Usecases'], writeConfig: true }, { onNote: (n) => notes.push(n) });
    expect(pulled.hadBase).toBe(false);
    expect(pulled.pull.counts.cases).toBe(3);
    expect(pulled.created).toContain('tmsync.base');
    expect(pulled.merge.unsettled).toBe(0);
    const pulledBase = await readSyncBase(into, pulled.project.id);
    expect(pulledBase.exists).toBe(true);
    expect(pulledBase.base.size).toBeGreaterThanOrEqual(3);
    // the second pull merges through that base: nothing changed, nothing created
    const second = await pullRepository({ ...t, root: into }, { folder: ['Usecases'] });
    expect(second.hadBase).toBe(true);
    expect(second.pull.created).toEqual([]);
    expect(second.merge.withoutBase).toBe(0);
  });

  it('shows the plan, then asks: a plan its approve hook declines sends nothing', async () => {
    const root = await repository({ 'cases/Usecases/Declined/one.yaml': 'title: Declined one\n' });
    const t = await target(root);
    const seen: string[] = [];
    const before = await planRepository(t);
    if (before.status !== 'planned') throw new Error(before.status);
    const n = before.plan.operations.length;
    expect(n).toBeGreaterThan(0);
    const declined = await applyRepository(t, {
      onPlan: (plan) => void seen.push(`plan:${plan.operations.length}`),
      approve: async () => {
        seen.push('approve');
        return false;
      },
    });
    expect(declined.status).toBe('declined');
    expect(seen).toEqual([`plan:${n}`, 'approve']);
    const after = await planRepository(t);
    expect(after.status === 'planned' && after.plan.operations.length).toBe(n);
  });

  it('applies a saved plan and refuses one made stale by a change to the files', async () => {
    const root = await repository({ 'cases/Usecases/Saved/one.yaml': 'title: Saved one\n' });
    const t = await target(root);
    const planned = await planRepository(t);
    if (planned.status !== 'planned') throw new Error(planned.status);
    await writeFile(join(root, 'cases/Usecases/Saved/two.yaml'), 'title: Saved two\n');
    await expect(applyRepository(t, { saved: planned.plan })).rejects.toMatchObject({ code: 'stale_plan' });
    await rm(join(root, 'cases/Usecases/Saved/two.yaml'));
    const applied = await applyRepository(t, { saved: planned.plan });
    expect(applied.status).toBe('applied');
  });
});
