import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});
async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tmsync-init-'));
  dirs.push(dir);
  return dir;
}

describe('tmsync init', () => {
  it('writes a starter repository that validates clean', async () => {
    const dir = await emptyDir();
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'init', 'repo'], io, dir)).toBe(0);
    expect(io.err[0]).toMatch(/^Created a tests repository in repo:\n {2}\+ tmsync\.yaml\n {2}\+ cases\/Example\/first-case\.yaml\n {2}\+ step_groups\/sign-in\.yaml\n(?: {2}\+ \.tmsync-schemas\/[a-z-]+\.schema\.json\n){4} {2}\+ \.gitignore\n/);
    const validateIo = memoryIo();
    expect(await main(['node', 'tmsync', 'validate', 'repo'], validateIo, dir)).toBe(0);
    expect(validateIo.err).toEqual(['Valid: 1 test case in 1 folder, 1 step group.']);
  });

  it('starts each YAML file with a yaml-language-server line pointing at the schemas init writes into the repository', async () => {
    const dir = await emptyDir();
    expect(await main(['node', 'tmsync', 'init'], memoryIo(), dir)).toBe(0);
    const first = async (f: string) => (await readFile(join(dir, f), 'utf8')).split('\n')[0];
    expect(await first('tmsync.yaml')).toBe('# yaml-language-server: $schema=.tmsync-schemas/config.schema.json');
    expect(await first('cases/Example/first-case.yaml')).toBe(
      '# yaml-language-server: $schema=../../.tmsync-schemas/test-case.schema.json',
    );
    expect(await first('step_groups/sign-in.yaml')).toBe(
      '# yaml-language-server: $schema=../.tmsync-schemas/step-group.schema.json',
    );
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toContain('\n.tmsync/\n');
    // the schemas the lines point at are there, byte for byte the package's
    for (const name of ['config', 'test-case', 'step-group', 'folder']) {
      const written = await readFile(join(dir, '.tmsync-schemas', `${name}.schema.json`), 'utf8');
      expect(written).toBe(await readFile(new URL(`../../schemas/${name}.schema.json`, import.meta.url), 'utf8'));
    }
  });

  it('appends .tmsync/ to an existing .gitignore once and lists what it created with --json', async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, '.gitignore'), 'node_modules/');
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'init', '--json'], io, dir)).toBe(0);
    expect(JSON.parse(io.out[0])).toEqual({
      format_version: 2,
      created: [
        'tmsync.yaml',
        'cases/Example/first-case.yaml',
        'step_groups/sign-in.yaml',
        '.tmsync-schemas/config.schema.json',
        '.tmsync-schemas/test-case.schema.json',
        '.tmsync-schemas/step-group.schema.json',
        '.tmsync-schemas/folder.schema.json',
      ],
      updated: ['.gitignore'],
    });
    expect(await readFile(join(dir, '.gitignore'), 'utf8')).toBe('node_modules/\n# tmsync: apply journal and local state\n.tmsync/\n');
  });

  it('refuses to overwrite an existing file and writes nothing', async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, 'tmsync.yaml'), 'project: MINE\n');
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'init'], io, dir)).toBe(1);
    expect(io.err.join('\n')).toMatch(/tmsync\.yaml already exists in .*; nothing was written\nHint: /);
    expect(await readFile(join(dir, 'tmsync.yaml'), 'utf8')).toBe('project: MINE\n');
    await expect(readFile(join(dir, 'cases/Example/first-case.yaml'), 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(dir, '.gitignore'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('reports the refusal as a JSON error on stdout with --json', async () => {
    const dir = await emptyDir();
    expect(await main(['node', 'tmsync', 'init'], memoryIo(), dir)).toBe(0);
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'init', '--json'], io, dir)).toBe(1);
    const body = JSON.parse(io.out[0]) as { error: { code: string; details: { existing: string[] } } };
    expect(body.error.code).toBe('init_would_overwrite');
    expect(body.error.details.existing).toEqual(['tmsync.yaml', 'cases/Example/first-case.yaml', 'step_groups/sign-in.yaml']);
  });
});
