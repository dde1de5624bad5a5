import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../dialect.js';
import { API_KEY, emulator, projectSnapshot, seedVariedProject } from '../support/transfer-helpers.js';

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

describe('tmsync project create, and restore --create-project', () => {
  let a: RunningEmulator;
  let b: RunningEmulator;
  let dir: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([emulator(), emulator()]);
    await seedVariedProject(a, 'SRC');
    dir = await mkdtemp(join(tmpdir(), 'tmsync-project-'));
    await writeFile(join(dir, 'tmsync.yaml'), 'rate_limit: 1000\nconcurrency: 8\n');
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates a project, prints its id for scripts, and refuses a second project with the same prefix', async () => {
    const r = await tmsync(dir, 'project', 'create', '--name', 'Shop', '--prefix', 'SHOP', '--base-url', b.baseUrl);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('Created project Shop (SHOP).');
    const id = r.out.trim();
    const json = await tmsync(dir, 'test-plan', 'create', '--title', 'In the new project', '--base-url', b.baseUrl, '--project', id, '--json');
    expect(json.code, json.err).toBe(0);

    const again = await tmsync(dir, 'project', 'create', '--name', 'Other', '--prefix', 'SHOP', '--base-url', b.baseUrl, '--json');
    expect(again.code).toBe(1);
    const err = JSON.parse(again.out).error;
    expect(err.code).toBe('project_exists');
    expect(err.message).toContain('prefix SHOP');
    expect(err.hint).toContain('--project SHOP');
  });

  it('a command against an emulator with no project yet (serve without --seed) says how to make one', async () => {
    const empty = await startTestEmulator({ memory: true, apiKeys: [API_KEY], port: 0 });
    try {
      const r = await tmsync(dir, 'backup', '--out', 'none.json', '--base-url', empty.baseUrl, '--project', 'DEMO');
      expect(r.code).toBe(1);
      expect(r.err).toContain('no project "DEMO" on the service');
      expect(r.err).toContain('tmsync project create --name NAME --prefix PREFIX');
      expect(r.err).toContain('`tmsync serve --seed demo` creates DEMO');
    } finally {
      await empty.close();
    }
  });

  it('refuses a prefix the service would refuse before sending anything', async () => {
    const r = await tmsync(dir, 'project', 'create', '--name', 'Bad', '--prefix', 'shop-1', '--base-url', b.baseUrl);
    expect(r.code).toBe(1);
    expect(r.err).toContain('--prefix shop-1');
    expect(r.err).toContain('upper-case');
  });

  it('restore into a missing project names both ways to create it, and writes nothing', async () => {
    const backup = await tmsync(dir, 'backup', '--out', 'src.json', '--base-url', a.baseUrl, '--project', 'SRC');
    expect(backup.code, backup.err).toBe(0);
    const r = await tmsync(dir, 'restore', 'src.json', '--base-url', b.baseUrl, '--project', 'COPY');
    expect(r.code).toBe(1);
    expect(r.err).toContain('no project "COPY" on the service');
    expect(r.err).toContain('--create-project');
    expect(r.err).toContain('tmsync project create --name NAME --prefix COPY');
  });

  it('restore --create-project creates the target (named after the backup) and restores into it; a re-run reuses it', async () => {
    const r = await tmsync(dir, 'restore', 'src.json', '--base-url', b.baseUrl, '--project', 'COPY', '--create-project');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('Created project Varied SRC (COPY).');
    expect(r.err).toMatch(/Restored Varied SRC \(SRC\) into Varied SRC \(COPY\)/);
    expect(await projectSnapshot(b.baseUrl, 'COPY')).toEqual(await projectSnapshot(a.baseUrl, 'SRC'));

    const again = await tmsync(dir, 'restore', 'src.json', '--base-url', b.baseUrl, '--project', 'COPY', '--create-project', 'Ignored name');
    expect(again.code, again.err).toBe(0);
    expect(again.err).not.toContain('Created project');
  });

  it('restore --create-project NAME names the new project', async () => {
    const r = await tmsync(dir, 'restore', 'src.json', '--base-url', b.baseUrl, '--project', 'NAMED', '--create-project', 'Staging copy');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('Created project Staging copy (NAMED).');
  });
});
