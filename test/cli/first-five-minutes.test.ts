import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { createProject, createUser, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { seededEmulator } from '../support/emulator.js';

const API_KEY = 'first-minutes-secret-key';
const dirs: string[] = [];

async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tmsync-first-'));
  dirs.push(dir);
  return dir;
}

async function tmsync(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  return runCli(args, { cwd, env: env });
}

describe("a new user's first five minutes against `tmsync serve --seed demo`", () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
  });
  afterAll(async () => {
    await emu?.close();
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it('plans the starter of an offline `tmsync init` without an owner problem', async () => {
    const dir = await emptyDir();
    expect((await tmsync(dir, {}, 'init')).code).toBe(0);
    expect(await readFile(join(dir, 'tmsync.yaml'), 'utf8')).toMatch(/^ {2}owner: qa-lead@example\.com/m);
    const r = await tmsync(dir, { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: emu.baseUrl }, 'plan', '--detailed-exitcode');
    expect(r.err).not.toMatch(/owner/);
    expect(r.code).toBe(2);
    expect(r.out).toContain('Plan: 3 to create, 0 to update, 0 to move, 0 to delete.');
  });

  it('writes the service URL, its project and defaults it accepts when init runs with TMSYNC_BASE_URL and a key', async () => {
    const dir = await emptyDir();
    const init = await tmsync(dir, { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: emu.baseUrl }, 'init');
    expect(init.code).toBe(0);
    const config = await readFile(join(dir, 'tmsync.yaml'), 'utf8');
    expect(config).toContain(`base_url: ${emu.baseUrl}\n`);
    expect(config).toContain('project: DEMO\n');
    expect(config).toContain('read from the service by `tmsync init`');
    expect(config).not.toContain(API_KEY);
    // against a real service init writes no sample content: the first apply would create it there
    await expect(readFile(join(dir, 'cases/Example/first-case.yaml'), 'utf8')).rejects.toThrow(/ENOENT/);
    await expect(readFile(join(dir, 'step_groups/sign-in.yaml'), 'utf8')).rejects.toThrow(/ENOENT/);
    expect(init.err).toContain('Next: `tmsync pull`');
    // the repository's schema copies offer the service's lookup names for completion, in case files and in defaults:
    const caseSchema = JSON.parse(await readFile(join(dir, '.tmsync-schemas/test-case.schema.json'), 'utf8'));
    expect(caseSchema.properties.priority.anyOf).toEqual([{ enum: expect.arrayContaining(['Critical', 'Medium']) }, { type: 'string' }]);
    expect(caseSchema.properties.type.anyOf[0].enum).toContain('Functional');
    const configSchema = JSON.parse(await readFile(join(dir, '.tmsync-schemas/config.schema.json'), 'utf8'));
    expect(configSchema.properties.defaults.properties.automation_type.anyOf[0].enum).toContain('Not Automated');
    // pull refreshes the copies and keeps the names
    expect((await tmsync(dir, { TMSYNC_API_KEY: API_KEY }, 'pull')).code).toBe(0);
    expect(JSON.parse(await readFile(join(dir, '.tmsync-schemas/test-case.schema.json'), 'utf8')).properties.status.anyOf[0].enum).toContain('Draft');
    // the written file alone now reaches the service: no URL in the environment
    const plan = await tmsync(dir, { TMSYNC_API_KEY: API_KEY }, 'plan', '--detailed-exitcode');
    expect(plan.err).toBe('');
    expect(plan.out).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('writes the example case and step group against a service only with --example', async () => {
    const dir = await emptyDir();
    const init = await tmsync(dir, { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: emu.baseUrl }, 'init', '--example');
    expect(init.code).toBe(0);
    expect(init.err).toContain('+ cases/Example/first-case.yaml');
    const plan = await tmsync(dir, { TMSYNC_API_KEY: API_KEY }, 'plan', '--detailed-exitcode');
    expect(plan.out).toContain('Plan: 3 to create');
    expect(plan.code).toBe(2);
  });

  it('does not pick one of several projects silently: it lists them and names --project, and writes nothing', async () => {
    const other = await seededEmulator(API_KEY);
    try {
      createProject(other, { prefix: 'SHOP', name: 'Shop' });
      const dir = await emptyDir();
      const r = await tmsync(dir, { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: other.baseUrl }, 'init');
      expect(r.code).toBe(1);
      expect(r.err).toContain('the service has 2 projects; tmsync init does not pick one for you');
      expect(r.err).toMatch(/tmsync init --project PREFIX` with one of: DEMO \(.*\), SHOP \(Shop\)/);
      await expect(readFile(join(dir, 'tmsync.yaml'), 'utf8')).rejects.toThrow(/ENOENT/);
      const picked = await tmsync(dir, { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: other.baseUrl }, 'init', '--project', 'SHOP');
      expect(picked.code, picked.err).toBe(0);
      expect(await readFile(join(dir, 'tmsync.yaml'), 'utf8')).toContain('project: SHOP\n');
    } finally {
      await other.close();
    }
  });

  it('refuses to write anything when init cannot read the service it was pointed at, and says how to go offline', async () => {
    const dir = await emptyDir();
    const r = await tmsync(dir, { TMSYNC_API_KEY: 'wrong-key', TMSYNC_BASE_URL: emu.baseUrl }, 'init');
    expect(r.code).toBe(1);
    expect(r.err).toContain('tmsync init could not read the service');
    expect(r.err).toContain('unset TMSYNC_BASE_URL');
    await expect(readFile(join(dir, 'tmsync.yaml'), 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('treats an empty TMSYNC_BASE_URL or TMSYNC_PROJECT as unset, so tmsync.yaml applies', async () => {
    const dir = await emptyDir();
    expect((await tmsync(dir, { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: emu.baseUrl }, 'init', '--example')).code).toBe(0);
    const r = await tmsync(dir, { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: '', TMSYNC_PROJECT: '', TMSYNC_APP_URL: '' }, 'plan', '--detailed-exitcode');
    expect(r.err).toBe('');
    expect(r.code).toBe(2);
  });

  it('finds tmsync.yaml upward when run in a subdirectory of the repository, as git does', async () => {
    const dir = await emptyDir();
    expect((await tmsync(dir, { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: emu.baseUrl }, 'init', '--example')).code).toBe(0);
    const sub = join(dir, 'cases', 'Example');
    const plan = await tmsync(sub, { TMSYNC_API_KEY: API_KEY }, 'plan', '--detailed-exitcode');
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('Plan: 3 to create');
    const validate = await tmsync(sub, {}, 'validate');
    expect(validate.code).toBe(0);
    expect(validate.err).toBe('Valid: 1 test case in 1 folder, 1 step group.');
  });

  it('says plainly that no tmsync.yaml was found and where it looked', async () => {
    const dir = await emptyDir();
    const sub = join(dir, 'not', 'a', 'repo');
    await mkdir(sub, { recursive: true });
    const validate = await tmsync(sub, {}, 'validate');
    expect(validate.code).toBe(1);
    expect(validate.err).toContain(`no tmsync.yaml in ${sub} or any directory above it`);
    expect(validate.err).toContain(`looked in ${sub}, ${join(dir, 'not', 'a')}, ${join(dir, 'not')}, ${dir}`);
    const plan = await tmsync(sub, { TMSYNC_API_KEY: API_KEY }, 'plan');
    expect(plan.code).toBe(1);
    expect(plan.err).toContain(`no service URL is configured (no tmsync.yaml was found; looked in ${sub}, `);
  });

  it('keeps the $schema lines of pull pointing into the repository, where pull writes the schemas', async () => {
    const dir = await emptyDir();
    await writeFile(join(dir, 'tmsync.yaml'), `project: DEMO\nbase_url: ${emu.baseUrl}\n`);
    const r = await tmsync(dir, { TMSYNC_API_KEY: API_KEY }, 'pull');
    expect(r.code).toBe(0);
    const schema = JSON.parse(await readFile(join(dir, '.tmsync-schemas', 'folder.schema.json'), 'utf8')) as object;
    expect(schema).toEqual(JSON.parse(await readFile(new URL('../../schemas/folder.schema.json', import.meta.url), 'utf8')));
  });
});

describe('`tmsync init` against a service whose lookups and users have none of the starter names', () => {
  let emu: RunningEmulator;
  // per kind, the names the service uses instead, in the order it lists them (the first is the one init takes)
  const RENAMED: Record<'types' | 'statuses' | 'priorities' | 'automation_types', string[]> = {
    types: ['Acceptance', 'Exploratory', 'Security'],
    statuses: ['New', 'Approved', 'Live', 'Under Review', 'Retired'],
    priorities: ['P1', 'P2', 'P3', 'P4'],
    automation_types: ['Manual Only', 'Scripted', 'Out of Scope'],
  };
  beforeAll(async () => {
    emu = await startEmulator({ memory: true, apiKeys: [API_KEY], port: 0 });
    createProject(emu, { prefix: 'TEAM', name: 'Team' });
    // the first user listed is not the starter's qa-lead@example.com (there is none)
    createUser(emu, { email: 'zoe@team.example' });
    createUser(emu, { email: 'adam@team.example' });
    for (const [kind, names] of Object.entries(RENAMED)) {
      // reversed order: the entry listed first is the last one stored
      const rows = emu.db.db.prepare('SELECT id FROM lookups WHERE kind = ? ORDER BY seq DESC').all(kind) as { id: string }[];
      expect(rows).toHaveLength(names.length);
      rows.forEach((row, i) => emu.db.db.prepare('UPDATE lookups SET name = ?, ord = ? WHERE id = ?').run(names[i], i + 1, row.id));
    }
  });
  afterAll(async () => {
    await emu?.close();
    await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
  });

  it('falls back to the first entry the service lists for each default and to its first user, and the starter then applies and converges', async () => {
    const dir = await emptyDir();
    const env = { TMSYNC_API_KEY: API_KEY, TMSYNC_BASE_URL: emu.baseUrl };
    const init = await tmsync(dir, env, 'init', '--example');
    expect(init.err).toContain('tmsync.yaml targets TEAM at');
    expect(init.code).toBe(0);
    const config = await readFile(join(dir, 'tmsync.yaml'), 'utf8');
    expect(config).toContain('project: TEAM\n');
    expect(config).toMatch(/^ {2}type: Acceptance$/m);
    expect(config).toMatch(/^ {2}status: New$/m);
    expect(config).toMatch(/^ {2}priority: P1$/m);
    expect(config).toMatch(/^ {2}automation_type: Manual Only$/m);
    expect(config).toMatch(/^ {2}owner: zoe@team\.example$/m);
    for (const starter of ['Functional', 'Draft', 'Medium', 'Not Automated', 'qa-lead@example.com']) expect(config).not.toContain(starter);

    // the service accepts what init wrote: apply creates the starter, and a second plan is empty
    const apply = await tmsync(dir, { TMSYNC_API_KEY: API_KEY }, 'apply', '--auto-approve');
    expect(apply.err).not.toMatch(/error/i);
    expect(apply.out).toContain('Apply complete: 3 created');
    expect(apply.code).toBe(0);
    const again = await tmsync(dir, { TMSYNC_API_KEY: API_KEY }, 'plan', '--detailed-exitcode');
    expect(again.code).toBe(0);
  });
});
