import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, addGenerated, client, copyExamples, emulator, serviceSnapshot } from '../apply/helpers.js';

/**
 * The built CLI under a file-size limit (`ulimit -f`, which Node answers with EFBIG instead of a
 * signal): the journal stops growing in the middle of an apply, as on a full disk.
 */
const CLI = resolve(import.meta.dirname, '../../bin/tmsync.js');

function apply(root: string, fileBlocks?: number): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const node = JSON.stringify(process.execPath);
  const cmd = `${fileBlocks !== undefined ? `ulimit -f ${fileBlocks}; ` : ''}exec ${node} ${JSON.stringify(CLI)} apply --auto-approve`;
  return new Promise((done, fail) => {
    const child = spawn('sh', ['-c', cmd], { cwd: root, env: { ...process.env, TMSYNC_API_KEY: API_KEY, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => (stdout += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stderr, stdout }));
  });
}

describe('apply when the journal cannot be written', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('stops starting operations, reports the journal error, exits 1, and the next run converges without duplicates', async () => {
    const c = client(emu.baseUrl);
    await c.call('createProject', { body: { name: 'Journal full', human_id_prefix: 'JFULL' } });
    const root = await copyExamples(emu.baseUrl);
    await addGenerated(root, ['Full A', 'Full B', 'Full C'], 20);
    const cfg = join(root, 'tmsync.yaml');
    await writeFile(cfg, (await readFile(cfg, 'utf8')).replace(/^project:.*$/m, 'project: JFULL'));

    // 8 blocks of 512 bytes: the journal fills up after a few dozen entries of ~73 operations
    const first = await apply(root, 8);
    expect(first.stderr).toMatch(/Error: cannot write the journal .*journal\.jsonl: EFBIG/);
    expect(first.stdout).toMatch(/Apply stopped: \d+ created, .* \d+ operations not started because the journal could not be written/);
    expect(first.code).toBe(1);
    const made = (await serviceSnapshot(c, 'JFULL')).actual.cases.length;
    expect(made).toBeLessThan(60);

    const second = await apply(root);
    expect(second.stdout).toContain('Apply complete:');
    expect(second.code).toBe(0);
    const snap = await serviceSnapshot(c, 'JFULL');
    await c.close();
    // every item once: 60 generated cases plus the examples' own
    expect(snap.duplicates).toEqual({ folders: [], cases: [], stepGroups: [] });
    expect(snap.actual.cases.length).toBeGreaterThanOrEqual(60);
  });
});
