import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { startTestEmulator as startEmulator } from '../dialect.js';
import { demoConfigYaml } from '../support/demo-config.js';
import { KEY, executionRef, seedCases, setupClient, type Emulator } from '../support/ci-helpers.js';
import type { TmsClient } from '../../src/remote/index.js';
import { sigintAt } from '../support/cli.js';

/**
 * Ctrl-C is main's for every command (src/cli/main.ts): a caller's io without a signal of its own
 * gets main's, which its SIGINT handler aborts. The SIGINT is raised from the emulator's
 * `onRequest` hook, at a request the test names: no timing is involved.
 */
const APP_KEY = 'interrupt-app-key';

let emu: Emulator;
let hook: { onRequest: (r: { method: string; path: string }) => void } = { onRequest: () => undefined };
let setup: TmsClient;
let projectId: string;
const dirs: string[] = [];

beforeAll(async () => {
  emu = await startEmulator({ memory: true, apiKeys: [KEY, APP_KEY], seed: 'demo', port: 0, runDurationMs: 600_000, onRequest: (r) => hook.onRequest(r) });
  setup = setupClient(emu);
  // cases for the run (seedCases wants the demo project as the seed left it)
  projectId = (await seedCases(setup, 2)).project.id;
});
afterAll(async () => {
  await setup?.close();
  await emu?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tmsync(cwd: string, args: string[], env: NodeJS.ProcessEnv) {
  const io = memoryIo(env);
  const code = await main(['node', 'tmsync', ...args], io, cwd);
  return { code, out: io.out.join('\n'), err: io.err.join('\n') };
}

describe('Ctrl-C, owned by main', () => {
  it('apply: the operations in flight finish, no new one starts, `Apply interrupted` and exit 130', async () => {
    const root = await mkdtemp(join(tmpdir(), 'tmsync-interrupt-'));
    dirs.push(root);
    await writeFile(join(root, 'tmsync.yaml'), demoConfigYaml(emu.baseUrl, { rate_limit: 1000, concurrency: 1 }));
    await mkdir(join(root, 'cases/Interrupted'), { recursive: true });
    for (let i = 0; i < 12; i++) await writeFile(join(root, `cases/Interrupted/case-${i}.yaml`), `title: Interrupted case ${i}\n`);
    const at = sigintAt((r) => r.method === 'POST' && r.path.endsWith('/test_cases'), 3);
    hook = at;
    const r = await tmsync(root, ['apply', '--auto-approve'], { TMSYNC_API_KEY: KEY });
    expect(at.raised).toBe(true);
    expect(r.err).toContain('Interrupted: finishing the operations in flight');
    expect(r.out).toMatch(/Apply interrupted: \d+ created, .* operations? not started/);
    expect(r.code).toBe(130);
    // the handler is gone with the command: a later command is not interrupted
    hook = { onRequest: () => undefined };
    const again = await tmsync(root, ['apply', '--auto-approve'], { TMSYNC_API_KEY: KEY });
    expect(again.out).toContain('Apply complete');
    expect(again.code).toBe(0);
  });

  it('run trigger --wait: says the run goes on on the service, and exits 130', async () => {
    const plan = (await setup.call('createTestPlan', { params: { project_id: projectId }, body: { title: 'Interrupted wait' } })).data.test_plan;
    const cwd = await mkdtemp(join(tmpdir(), 'tmsync-interrupt-run-'));
    dirs.push(cwd);
    // the first status read of the run (the run lasts ten minutes: without Ctrl-C the wait would go on)
    const at = sigintAt((r) => r.method === 'GET' && r.path.startsWith('/api/v1/execution_results/'));
    hook = at;
    const r = await tmsync(cwd, ['run', 'trigger', '--test-plan', executionRef(emu, plan.id), '--wait', '--poll', '50ms', '--timeout', '5m'], {
      TMSYNC_BASE_URL: emu.baseUrl,
      TMSYNC_API_KEY: KEY,
      TMSYNC_APP_API_KEY: APP_KEY,
    });
    expect(at.raised).toBe(true);
    expect(r.err).toContain('Interrupted; the run goes on on the service');
    expect(r.code).toBe(130);
  });
});
