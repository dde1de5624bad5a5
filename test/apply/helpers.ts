import { cp, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seededEmulator, setupClient } from '../support/emulator.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { fetchState, type TmsClient } from '../../src/remote/index.js';
import { loadConfig, loadRepository } from '../../src/repository/index.js';
import { buildPlan } from '../../src/plan/index.js';
import type { ActualState } from '../../src/model.js';
import type { Plan } from '../../src/plan/operations.js';
import { readSyncBase } from '../../src/base/base-file.js';

export const API_KEY = 'test-key-apply';
export const EXAMPLES = resolve(import.meta.dirname, '../../examples');

/** An emulator on port 0 with the demo project. */
export function emulator(options: Partial<EmulatorOptions> = {}): Promise<RunningEmulator> {
  return seededEmulator(API_KEY, options);
}

/** Copies examples/ into a temp dir pointing at the emulator (never writes the checked-in files). */
export async function copyExamples(baseUrl: string, extraConfig = '', options: { rateLimit?: number } = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tmsync-apply-'));
  await cp(EXAMPLES, dir, { recursive: true });
  const cfg = join(dir, 'tmsync.yaml');
  let text = await readFile(cfg, 'utf8');
  text = text.replace(/^base_url:.*$/m, `base_url: ${baseUrl}`).replace('OWNER_PLACEHOLDER', 'qa-lead@example.com');
  // tests run at a high rate unless they measure the rate itself
  text = text.replace(/^rate_limit:.*$/m, `rate_limit: ${options.rateLimit ?? 200}`);
  await writeFile(cfg, `${text}\n${extraConfig}`);
  return dir;
}

export function client(baseUrl: string, extra: Record<string, unknown> = {}): TmsClient {
  return setupClient(baseUrl, API_KEY, extra);
}

/** Loads the repository and the service and builds a fresh plan (throws on problems). */
export async function planFor(root: string, c: TmsClient, options: { prune?: boolean } = {}): Promise<{ plan: Plan; actual: ActualState }> {
  const { config } = await loadConfig(join(root, 'tmsync.yaml'));
  const { state, problems } = await loadRepository(root, config);
  const errors = problems.filter((p) => p.severity !== 'warning');
  if (errors.length) throw new Error(`repository problems: ${JSON.stringify(errors)}`);
  const actual = await fetchState(c, config.project!, { scope: config.scope });
  // as `tmsync plan` plans: three ways against the sync base an earlier apply wrote
  const { base } = await readSyncBase(root, actual.project.id);
  const built = buildPlan(state, actual, { ...options, base });
  if (built.problems.length) throw new Error(`plan problems: ${JSON.stringify(built.problems)}`);
  return { plan: built.plan, actual };
}

/** Adds generated folders (paths under cases/) with `perFolder` cases each, some using the example step group. */
export async function addGenerated(root: string, folders: string[], perFolder: number): Promise<number> {
  const { mkdir } = await import('node:fs/promises');
  let n = 0;
  for (const f of folders) {
    const dir = join(root, 'cases', ...f.split('/'));
    await mkdir(dir, { recursive: true });
    for (let i = 0; i < perFolder; i++) {
      n++;
      const steps = i % 3 === 0 ? '  - use: login-as-admin\n' : '';
      await writeFile(
        join(dir, `case-${i}.yaml`),
        `# generated\ntitle: ${f.replace(/\//g, ' ')} case ${i}\ndescription: Generated case ${i}.\nsteps:\n${steps}  - action: Do ${i}\n    expected: Done ${i}\n`,
      );
    }
  }
  return n;
}

/** Everything the service holds in the project, with duplicate checks by natural key. */
export async function serviceSnapshot(c: TmsClient, projectRef = 'DEMO') {
  const actual = await fetchState(c, projectRef);
  const folderKeys = actual.folders.map((f) => `${f.parentId ?? ''}/${f.name}`);
  const caseKeys = actual.cases.map((x) => `${x.folderId}/${x.title}`);
  const groupKeys = actual.stepGroups.map((g) => g.title);
  const dupes = (keys: string[]) => keys.filter((k, i) => keys.indexOf(k) !== i);
  return {
    actual,
    duplicates: { folders: dupes(folderKeys), cases: dupes(caseKeys), stepGroups: dupes(groupKeys) },
  };
}
