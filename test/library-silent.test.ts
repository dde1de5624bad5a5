import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import {
  buildPlan,
  createClient,
  executePlan,
  fetchState,
  fileWriteBack,
  loadConfig,
  loadRepository,
  renderPlanMarkdown,
  renderPlanText,
} from '../src/index.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ memory: true, apiKeys: ['silent-key'], seed: 'demo' });
});
afterAll(async () => {
  await emu.close();
});

describe('the library', () => {
  it('never writes to stdout or stderr, and never exits, through a whole plan and apply', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmsync-silent-'));
    cpSync(join(import.meta.dirname, '..', 'examples'), dir, { recursive: true });
    const cfg = join(dir, 'tmsync.yaml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/^base_url:.*$/m, `base_url: ${emu.baseUrl}`));

    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const logs = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m));
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      throw new Error(`process.exit(${code}) called`);
    }) as never);
    try {
      const { config, root } = await loadConfig(cfg);
      const { state, problems } = await loadRepository(root, config);
      expect(problems).toEqual([]);
      const client = createClient({ baseUrl: emu.baseUrl, apiKey: 'silent-key' });
      const actual = await fetchState(client, 'DEMO');
      const { plan, problems: planProblems } = buildPlan(state, actual);
      expect(planProblems).toEqual([]);
      renderPlanText(plan, { color: false });
      renderPlanMarkdown(plan);
      const result = await executePlan(plan, { client, writeBack: fileWriteBack(root) });
      expect(result.failed).toEqual([]);
      const again = buildPlan((await loadRepository(root, config)).state, await fetchState(client, 'DEMO'));
      expect(again.plan.operations).toEqual([]);
      await client.close();

      expect(out).not.toHaveBeenCalled();
      expect(err).not.toHaveBeenCalled();
      for (const l of logs) expect(l).not.toHaveBeenCalled();
      expect(exit).not.toHaveBeenCalled();
    } finally {
      vi.restoreAllMocks();
    }
  });
});
