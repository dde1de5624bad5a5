import { spawn } from 'node:child_process';
import { access, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../src/emulator/index.js';
import { API_KEY, addGenerated, client, copyExamples, emulator, planFor, serviceSnapshot } from './apply/helpers.js';

/**
 * The write engine as a library user runs it: `plan → applyPlan` in a child process importing the
 * package entry (dist/, built by `npm test`), killed with SIGKILL while it applies, then run again.
 */
const SCRIPT = resolve(import.meta.dirname, 'support/library-apply.mjs');
const GENERATED = ['Lib', 'Lib/A', 'Lib/A/Deep', 'Lib/B'];

function run(root: string, emu: RunningEmulator, killAfter?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const base = emu.requestLog().length;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [SCRIPT, root], { env: { ...process.env, TMSYNC_API_KEY: API_KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    let killed = false;
    const timer =
      killAfter === undefined
        ? undefined
        : setInterval(() => {
            if (!killed && emu.requestLog().length - base >= killAfter) {
              killed = true;
              child.kill('SIGKILL');
            }
          }, 1);
    child.on('error', fail);
    child.on('close', (code, signal) => {
      if (timer) clearInterval(timer);
      done({ code, signal, stdout, stderr });
    });
  });
}

describe('applyPlan as a library', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    await access(join(import.meta.dirname, '../dist/index.js')).catch(() => {
      throw new Error('dist/ is missing: run `npx tsc -p tsconfig.build.json` (npm test does)');
    });
    emu = await emulator({ latencyMs: 10 });
  });
  afterAll(async () => {
    await emu?.close();
  });

  for (const n of [20, 30]) {
    it(`resumes after a SIGKILL at request ${n} from its journal: the second run creates nothing twice and a new plan is empty`, async () => {
      const prefix = `LIB${n}`;
      const c = client(emu.baseUrl);
      await c.call('createProject', { body: { name: `Library ${prefix}`, human_id_prefix: prefix } });
      const root = await copyExamples(emu.baseUrl);
      await addGenerated(root, GENERATED, 3);
      const cfg = join(root, 'tmsync.yaml');
      await writeFile(cfg, (await readFile(cfg, 'utf8')).replace(/^project:.*$/m, `project: ${prefix}`));

      const killed = await run(root, emu, n);
      expect(killed.signal).toBe('SIGKILL');
      expect(await readFile(join(root, '.tmsync/journal.jsonl'), 'utf8')).toContain('"type":"begin"');

      const rerun = await run(root, emu);
      expect(rerun.stderr).toBe('');
      expect(rerun.code).toBe(0);
      const { plan } = await planFor(root, c);
      expect(plan.operations).toEqual([]);
      const snap = await serviceSnapshot(c, prefix);
      expect(snap.duplicates).toEqual({ folders: [], cases: [], stepGroups: [] });
      expect(snap.actual.cases).toHaveLength(6 + GENERATED.length * 3);
      expect(snap.actual.folders).toHaveLength(3 + GENERATED.length);
      await c.close();
    });
  }
});
