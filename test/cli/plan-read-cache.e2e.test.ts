import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfigYaml } from '../support/demo-config.js';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { seededEmulator } from '../support/emulator.js';

const API_KEY = 'read-cache-e2e-secret-key';

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

describe('tmsync plan re-reads only what changed since the last run', () => {
  let emu: RunningEmulator;
  let root: string;
  // the emulator's clock: an hour behind by default, so what the tests write is old enough to be
  // kept by the cache (an item edited within RACY_MARGIN_MS of the read is read again next time)
  let offset = -3_600_000;
  let clock = () => Date.now() + offset;
  const stepGroupGets = () => emu.requestLog().filter((e) => e.method === 'GET' && /\/step_groups\/[^/?]+$/.test(e.path));

  beforeAll(async () => {
    emu = await seededEmulator(API_KEY, { now: () => clock() });
    root = await mkdtemp(join(tmpdir(), 'tmsync-read-cache-e2e-'));
    const files: Record<string, string> = {
      'tmsync.yaml': demoConfigYaml(emu.baseUrl, { rate_limit: 1000 }),
      'step_groups/a.yaml': 'title: Group A\nsteps:\n  - action: A1\n    expected: ok\n',
      'step_groups/b.yaml': 'title: Group B\nsteps:\n  - action: B1\n    expected: ok\n',
      'step_groups/c.yaml': 'title: Group C\nsteps:\n  - action: C1\n    expected: ok\n',
      'cases/Area/one.yaml': 'title: One\nsteps:\n  - use: a\n  - use: b\n',
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(join(root, file, '..'), { recursive: true });
      await writeFile(join(root, file), text);
    }
    const applied = await tmsync(root, 'apply', '--auto-approve');
    expect(applied.code, applied.err).toBe(0);
  }, 60_000);

  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('GETs every step group once, then none on a plan with no change, then exactly the one that changed', async () => {
    await rm(join(root, '.tmsync/cache'), { recursive: true, force: true });
    emu.clearRequestLog();
    const first = await tmsync(root, 'plan');
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain('No changes.');
    expect(stepGroupGets()).toHaveLength(3);

    emu.clearRequestLog();
    const second = await tmsync(root, 'plan');
    expect(second.out).toBe(first.out);
    expect(stepGroupGets()).toEqual([]);

    // group B changes on the service (through an apply of an edited file), a minute later
    offset += 60_000;
    const b = join(root, 'step_groups/b.yaml');
    const bId = /^id: (\S+)$/m.exec(await readFile(b, 'utf8'))![1];
    await writeFile(b, (await readFile(b, 'utf8')).replace('B1', 'B1, changed'));
    const applied = await tmsync(root, 'apply', '--auto-approve');
    expect(applied.code, applied.err).toBe(0);

    emu.clearRequestLog();
    const third = await tmsync(root, 'plan');
    expect(third.out).toContain('No changes.');
    const gets = stepGroupGets();
    expect(gets).toHaveLength(1);
    // the one GET was of group B
    const [, projectId, groupId] = /\/projects\/([^/]+)\/step_groups\/([^/?]+)$/.exec(gets[0].path)!;
    const res = await fetch(`${emu.baseUrl}/projects/${projectId}/step_groups/${groupId}`, { headers: { authorization: `Bearer ${API_KEY}` } });
    const body = (await res.json()) as { data: { step_group: { human_id: string; title: string } } };
    expect(body.data.step_group.human_id).toBe(bId);
    expect(body.data.step_group.title).toBe('Group B');
  });

  it('ignores a corrupt cache file and reads every step group again', async () => {
    await writeFile(join(root, '.tmsync/cache/reads.json'), '{ not json');
    emu.clearRequestLog();
    const r = await tmsync(root, 'plan');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('No changes.');
    expect(stepGroupGets()).toHaveLength(3);
  });

  it('reads again a step group edited in the same second as the read, although its updated_at did not change', async () => {
    // a frozen clock: every write keeps the same updated_at, as edits within one second do
    const frozen = Date.now();
    clock = () => frozen;
    const c = join(root, 'step_groups/c.yaml');
    const original = await readFile(c, 'utf8');
    try {
      // C changes (its updated_at becomes the frozen second), and a plan reads it
      const v1 = original.replace('C1', 'C1, first edit');
      await writeFile(c, v1);
      expect((await tmsync(root, 'apply', '--auto-approve')).code).toBe(0);
      const first = await tmsync(root, 'plan');
      expect(first.out).toContain('No changes.');
      // the service's copy of C changes again in the same second; the file keeps the first edit
      await writeFile(c, (await readFile(c, 'utf8')).replace('C1, first edit', 'C1, second edit'));
      expect((await tmsync(root, 'apply', '--auto-approve')).code).toBe(0);
      await writeFile(c, (await readFile(c, 'utf8')).replace('C1, second edit', 'C1, first edit'));
      const second = await tmsync(root, 'plan');
      expect(second.code, second.err).toBe(0);
      expect(second.out).toContain('C1, second edit');
      expect(second.out).toContain('1 to update');
    } finally {
      await writeFile(c, (await readFile(c, 'utf8')).replace(/C1, (first|second) edit/, 'C1'));
      offset += 60_000;
      clock = () => Date.now() + offset;
      expect((await tmsync(root, 'apply', '--auto-approve')).code).toBe(0);
    }
  });
});
