import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApply } from '../../src/cli/commands/apply.js';
import { memoryIo } from '../../src/cli/io.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, addGenerated, client, copyExamples, emulator, planFor } from '../apply/helpers.js';

const opts = (cwd: string) => ({ cwd, json: false, verbose: false, color: { stdout: false, stderr: false }, autoApprove: true, prune: false, allowRecreate: false, args: [] });

describe('apply after a stopped run', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('checks the creates a stopped run left open with one case list read per folder, and says so first', async () => {
    const root = await copyExamples(emu.baseUrl);
    const folders = ['Resume A', 'Resume B', 'Resume C'];
    await addGenerated(root, folders, 1);
    expect(await runApply(opts(root), memoryIo({ TMSYNC_API_KEY: API_KEY }))).toBe(0);
    // nine more cases per folder, which a killed run had begun to create
    for (const f of folders) {
      for (let i = 0; i < 9; i++) {
        await writeFile(join(root, 'cases', f, `open-${i}.yaml`), `title: ${f} open ${i}\nsteps:\n  - action: Do ${i}\n    expected: Done ${i}\n`);
      }
    }
    const c = client(emu.baseUrl);
    const { plan } = await planFor(root, c);
    await c.close();
    const keys = plan.operations.filter((op) => op.kind === 'create_case').map((op) => op.key);
    expect(keys).toHaveLength(27);
    await mkdir(join(root, '.tmsync'), { recursive: true });
    await writeFile(
      join(root, '.tmsync', 'journal.jsonl'),
      [
        { format_version: 1, type: 'header', project_id: plan.project.id, started_at: '2026-11-23T08:00:00.000Z' },
        ...keys.map((key) => ({ type: 'begin', key, kind: 'create_case' })),
      ]
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n',
    );
    emu.clearRequestLog();
    const out = memoryIo({ TMSYNC_API_KEY: API_KEY });
    expect(await runApply(opts(root), out)).toBe(0);
    expect(out.err.join('\n')).toContain('apply: checking 27 creates a stopped run left open…');
    const log = emu.requestLog();
    const lookups = log.filter((e) => e.method === 'GET' && /\/test_cases\?/.test(e.path) && e.path.includes('folder_id='));
    expect(lookups).toHaveLength(3);
    const firstCreate = log.findIndex((e) => e.method === 'POST' && /\/test_cases$/.test(e.path.split('?')[0]));
    expect(log.slice(firstCreate).some((e) => lookups.includes(e))).toBe(false);
    expect(out.out.join('\n')).toContain('Apply complete: 27 created');
  });
});
