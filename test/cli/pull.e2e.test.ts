import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { createProject, type RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, client, emulator, projectSnapshot, seedVariedProject } from '../support/transfer-helpers.js';
import { resolveProject } from '../../src/remote/index.js';
import { parse } from 'yaml';
import { SYNC_BASE_FILE } from '../../src/base/base.js';

/** Line i is an indented continuation of the top-level key `key` (a block scalar or list). */
function isBlockOf(lines: string[], i: number, key: string): boolean {
  for (let j = i - 1; j >= 0; j--) if (!/^\s/.test(lines[j])) return lines[j].startsWith(`${key}:`);
  return false;
}

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

async function walk(dir: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(dir, rel), { withFileTypes: true })) {
    const p = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await walk(dir, p)));
    else out.push(p);
  }
  return out.sort();
}

describe('tmsync pull against the emulator', () => {
  let emu: RunningEmulator;
  const dirs: string[] = [];
  const fresh = async () => {
    const d = await mkdtemp(join(tmpdir(), 'tmsync-pull-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    emu = await emulator();
    await seedVariedProject(emu, 'PUL');
  });
  afterAll(async () => {
    await emu?.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('writes the whole project as a repository, and plan then shows no changes', async () => {
    const root = await fresh();
    const r = await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PUL');
    expect(r.err).toContain('Pulled 66 test cases in 10 folders and 2 step groups');
    expect(r.code).toBe(0);
    const files = await walk(root);
    expect(files).toContain('tmsync.yaml');
    expect(files).toContain('step_groups/log-in-as-admin.yaml');
    expect(files).toContain('cases/Checkout/Réseau-Wi-Fi/_folder.yaml');
    expect(files).toContain('cases/Empty folder/_folder.yaml');
    expect(files.filter((f) => f.startsWith('cases/Authentication/duplicate-title'))).toEqual([
      'cases/Authentication/duplicate-title-2.yaml',
      'cases/Authentication/duplicate-title.yaml',
    ]);
    expect(await readFile(join(root, 'cases/Checkout/Réseau-Wi-Fi/_folder.yaml'), 'utf8')).toContain('name: "Réseau: Wi-Fi?"');
    expect(await readFile(join(root, 'tmsync.yaml'), 'utf8')).not.toContain(API_KEY);
    // the count is every file written: the base and the schemas too (tmsync's own .tmsync/ aside)
    const written = files.filter((f) => !f.startsWith('.tmsync/'));
    expect(written).toContain('tmsync.base');
    expect(r.err).toContain(`: ${written.length} files created, 0 updated, 0 unchanged.`);
    const plan = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(plan.err + plan.out).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  it('folds the steps of a step group back into use: in the pulled files', async () => {
    const root = await fresh();
    await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PUL');
    const texts = await Promise.all((await walk(root)).filter((f) => f.startsWith('cases/')).map((f) => readFile(join(root, f), 'utf8')));
    expect(texts.filter((t) => t.includes('- use: log-in-as-admin')).length).toBeGreaterThan(5);
    expect(texts.some((t) => /- use: fill-the-cart\n\s+- use: fill-the-cart/.test(t))).toBe(true);
    expect(texts.some((t) => t.includes('step_group_id'))).toBe(false);
  });

  it('pulls one folder subtree, and plan then shows no changes', async () => {
    const root = await fresh();
    const r = await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PUL', '--folder', 'Authentication/Deep');
    expect(r.code).toBe(0);
    const files = await walk(root);
    expect(files.some((f) => f.startsWith('cases/Checkout'))).toBe(false);
    expect(files).toContain('cases/Authentication/_folder.yaml');
    expect(files.filter((f) => f.startsWith('cases/Authentication/') && !f.includes('/Deep/')).length).toBe(1);
    expect(await readFile(join(root, 'tmsync.yaml'), 'utf8')).toContain('scope: ["Authentication/Deep"]');
    const plan = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(plan.err + plan.out).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  it('pulls a nested folder with its path as scope, so plan --prune changes nothing and apply --prune leaves its parent and siblings alone', async () => {
    await seedVariedProject(emu, 'PSC', { casesPerFolder: 2 });
    // next to Checkout/Payments: a sibling subtree with cases, and a case in Checkout itself
    const c = client(emu.baseUrl);
    try {
      const project = await resolveProject(c, 'PSC');
      const params = { project_id: project.id };
      const folders: { id: string; name: string; parent_folder_id?: string | null }[] = [];
      for await (const f of c.paginate('listFolders', { params })) folders.push(f);
      const checkout = folders.find((f) => f.name === 'Checkout' && !f.parent_folder_id)!;
      const other = (await c.call('createFolder', { params, body: { name: 'Other' } })).data.folder;
      await c.call('moveFolder', { params: { ...params, folder_id: other.id }, body: { parent_folder_id: checkout.id } });
      const sample = (await c.call('listTestCases', { params, query: { page_size: 1 } })).data.test_cases[0];
      const id = (v: string | null | undefined): string => {
        if (!v) throw new Error('the seeded case lacks a lookup or its owner');
        return v;
      };
      const fields = { type_id: id(sample.type_id), status_id: id(sample.status_id), priority_id: id(sample.priority_id), automation_type_id: id(sample.automation_type_id), owner_id: id(sample.owner_id) };
      for (const [title, folderId] of [['Other one', other.id], ['Other two', other.id], ['Checkout itself', checkout.id]]) {
        await c.call('createTestCase', { params, body: { title, folder_id: folderId, ...fields } });
      }
    } finally {
      await c.close();
    }
    const before = await projectSnapshot(emu.baseUrl, 'PSC');

    const root = await fresh();
    const pulled = await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PSC', '--folder', 'Checkout/Payments');
    expect(pulled.code).toBe(0);
    expect(await readFile(join(root, 'tmsync.yaml'), 'utf8')).toContain('scope: ["Checkout/Payments"]');
    const files = (await walk(root)).filter((f) => f.startsWith('cases/'));
    expect(files.filter((f) => f !== 'cases/Checkout/_folder.yaml' && !f.startsWith('cases/Checkout/Payments/'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('cases/Checkout/Payments/') && !f.endsWith('_folder.yaml'))).toHaveLength(2);

    const plan = await tmsync(root, 'plan', '--prune', '--detailed-exitcode', '--json');
    expect(plan.err).not.toMatch(/error/i);
    expect(plan.code).toBe(0);
    const json = JSON.parse(plan.out) as { operations: { kind: string }[]; unmanaged: unknown[] };
    expect(json.operations).toEqual([]);
    expect(json.unmanaged).toEqual([]);

    const applied = await tmsync(root, 'apply', '--prune', '--auto-approve');
    expect(applied.code).toBe(0);
    // nothing on the service changed: the sibling folders, their cases and Checkout's own case are all there
    const after = await projectSnapshot(emu.baseUrl, 'PSC');
    expect(after).toEqual(before);
    expect(JSON.stringify(after)).toContain('Checkout/Other');

    // pulling again under that scope (no --folder) writes nothing new: the parent stays a container
    const again = await tmsync(root, 'pull');
    expect(again.code).toBe(0);
    expect(again.err).toContain('0 files created, 0 updated');
    expect((await walk(root)).filter((f) => f.startsWith('cases/'))).toEqual(files);
  });

  it('run from a subdirectory, updates the repository whose tmsync.yaml it found, and never writes a repository inside another', async () => {
    const root = await fresh();
    expect((await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PUL')).code).toBe(0);
    const sub = join(root, 'cases', 'Checkout');
    const before = await walk(sub);
    const all = await walk(root);

    const r = await tmsync(sub, 'pull');
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`into ${root}: 0 files created, 0 updated`);
    expect(await walk(sub)).toEqual(before);
    expect((await walk(root)).filter((f) => !f.startsWith('.tmsync/'))).toEqual(all.filter((f) => !f.startsWith('.tmsync/')));
    expect((await tmsync(root, 'validate')).code).toBe(0);

    // --dir into the repository's subtree: refused before anything is read or written
    const refused = await tmsync(root, 'pull', '--dir', 'cases/Checkout');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`${sub} is inside the tests repository ${root}`);
    expect(refused.err).toContain('without --dir');
    expect(await walk(sub)).toEqual(before);
    const nested = await tmsync(sub, 'pull', '--dir', 'New/Repo', '--base-url', emu.baseUrl, '--project', 'PUL');
    expect(nested.code).toBe(1);
    expect(nested.err).toContain('is inside the tests repository');
    expect(await walk(sub)).toEqual(before);
  });

  it('updates existing files in place keeping comments and names, and lists files of items that are gone without deleting them', async () => {
    const root = await fresh();
    await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PUL');
    const file = join(root, 'cases/Authentication/valid-login.yaml');
    const original = await readFile(file, 'utf8');
    await writeFile(file, `# my note about this case\n${original.replace(/^title: .*$/m, '$& # inline note')}`);
    await rm(join(root, 'cases/Authentication/yes.yaml'));
    // the service changes: a case title, and a case deleted
    const c = client(emu.baseUrl);
    const project = await resolveProject(c, 'PUL');
    const params = { project_id: project.id };
    const id = /^id: (\S+)$/m.exec(original)![1];
    await c.call('updateTestCase', { params: { ...params, test_case_id: id }, body: { description: 'Changed on the service' } });
    const goneId = /^id: (\S+)$/m.exec(await readFile(join(root, 'cases/Authentication/null.yaml'), 'utf8'))![1];
    await c.call('deleteTestCase', { params: { ...params, test_case_id: goneId } });
    await c.close();

    const r = await tmsync(root, 'pull');
    expect(r.code).toBe(0);
    // the removed local file is the one file created (singular)
    expect(r.err).toMatch(/: 1 file created, \d+ updated, \d+ unchanged\.$/m);
    const updated = await readFile(file, 'utf8');
    expect(updated).toContain('# my note about this case');
    expect(updated).toContain('# inline note');
    expect(updated).toContain('description: Changed on the service');
    expect(r.err).toContain('cases/Authentication/null.yaml');
    expect(r.err).toContain('no longer has (not deleted)');
    expect((await walk(root)).includes('cases/Authentication/null.yaml')).toBe(true);
    // the removed local file comes back under its old name
    expect((await walk(root)).includes('cases/Authentication/yes.yaml')).toBe(true);
    await rm(join(root, 'cases/Authentication/null.yaml'));
    const plan = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(plan.err + plan.out).toContain('No changes');
  });

  it('puts keys that are new to an existing case file where the renderer puts them, not above id and title', async () => {
    const root = await fresh();
    await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PUL');
    const file = join(root, 'cases/Authentication/valid-login.yaml');
    const original = await readFile(file, 'utf8');
    const keys = Object.keys(parse(original) as object);
    expect(keys).toEqual(expect.arrayContaining(['id', 'title', 'description', 'labels', 'owner']));
    // drop three keys the service still has values for: pull must add them back in their places
    const without = parse(original) as Record<string, unknown>;
    const trimmed = original
      .split('\n')
      .filter((l, i, all) => !/^(description|owner|labels):/.test(l) && !(/^\s/.test(l) && isBlockOf(all, i, 'description')))
      .join('\n');
    expect(Object.keys(parse(trimmed) as object)).toEqual(keys.filter((k) => !['description', 'owner', 'labels'].includes(k)));
    await writeFile(file, trimmed);
    // with the sync base, keys the repository left out stay out while the service keeps their
    // values (pull-diff.e2e.test.ts); without it, pull writes the service's values as it always did
    await rm(join(root, SYNC_BASE_FILE));

    const r = await tmsync(root, 'pull');
    expect(r.code).toBe(0);
    const updated = await readFile(file, 'utf8');
    expect(Object.keys(parse(updated) as object)).toEqual(keys);
    expect(parse(updated)).toEqual(without);
    expect(updated.split('\n').find((l) => l.trim() !== '' && !l.startsWith('#'))).toMatch(/^id: /);
  });

  it('moves the file of a case that moved to another folder on the service, comments and all', async () => {
    const root = await fresh();
    await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PUL');
    const from = 'cases/Checkout/Payments/it-s.yaml';
    const text = await readFile(join(root, from), 'utf8');
    await writeFile(join(root, from), `# keep me\n${text}`);
    const id = /^id: (\S+)$/m.exec(text)![1];
    const c = client(emu.baseUrl);
    const project = await resolveProject(c, 'PUL');
    const folders: { id: string; name: string }[] = [];
    for await (const f of c.paginate('listFolders', { params: { project_id: project.id } })) folders.push(f);
    const empty = folders.find((f) => f.name === 'Empty folder')!;
    await c.call('updateTestCase', { params: { project_id: project.id, test_case_id: id }, body: { folder_id: empty.id } });
    await c.close();

    const r = await tmsync(root, 'pull');
    expect(r.code).toBe(0);
    expect(r.err).toContain(`Moved ${from} → cases/Empty folder/it-s.yaml`);
    expect(await readFile(join(root, 'cases/Empty folder/it-s.yaml'), 'utf8')).toMatch(/^# keep me/);
    expect((await walk(root)).includes(from)).toBe(false);
    const plan = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(plan.err + plan.out).toContain('No changes');
  });

  it('refuses a case file link leading outside the repository in plan, apply and pull (exit 1, the link as file:1:1), and writes nothing outside', async () => {
    const root = await fresh();
    expect((await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PUL')).code).toBe(0);
    const out = await fresh();
    await writeFile(join(out, 'x.yaml'), 'title: Outside the repository\n');
    await symlink(join(out, 'x.yaml'), join(root, 'cases/Authentication/outside.yaml'));
    for (const args of [['plan'], ['apply', '--auto-approve'], ['pull']]) {
      const r = await tmsync(root, ...args);
      expect(r.code, args[0]).toBe(1);
      expect(r.err, args[0]).toContain('cases/Authentication/outside.yaml:1:1 a symbolic link leading outside the repository');
      expect(r.err + r.out, args[0]).not.toContain('Outside the repository');
    }
    expect(await readFile(join(out, 'x.yaml'), 'utf8')).toBe('title: Outside the repository\n');
    expect(await readdir(out)).toEqual(['x.yaml']);
  });

  it('warns when it writes a folder under another directory name because a sibling differs only by letter case', async () => {
    createProject(emu, { prefix: 'TWN', name: 'Twins' });
    const c = client(emu.baseUrl);
    const project = await resolveProject(c, 'TWN');
    for (const name of ['Twins', 'twins']) await c.call('createFolder', { params: { project_id: project.id }, body: { name } });
    await c.close();
    const root = await fresh();
    const r = await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'TWN');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/Warning: folder "twins" and folder "Twins" \(in cases\/Twins\) differ only by letter case.*written to cases\/twins-2/);
    const top = (await readdir(join(root, 'cases'))).filter((d) => d.toLowerCase().startsWith('twins'));
    expect(top.sort()).toEqual(['Twins', 'twins-2']);
  });

  it('warns when it writes into a repository that already holds case files differing only by letter case or NFC/NFD', async () => {
    createProject(emu, { prefix: 'CTW', name: 'Case twins' });
    const c = client(emu.baseUrl);
    const project = await resolveProject(c, 'CTW');
    await c.call('createFolder', { params: { project_id: project.id }, body: { name: 'Login' } });
    await c.close();
    const root = await fresh();
    expect((await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'CTW')).code).toBe(0);
    await writeFile(join(root, 'cases/Login/Sign-in.yaml'), 'title: Sign in\n');
    await writeFile(join(root, 'cases/Login/sign-in.yaml'), 'title: Sign in again\n');
    await writeFile(join(root, 'cases/Login/Caf\u00e9.yaml'), 'title: Coffee\n');
    await writeFile(join(root, 'cases/Login/Cafe\u0301.yaml'), 'title: Coffee again\n');
    const r = await tmsync(root, 'pull');
    expect(r.code).toBe(0);
    const warnings = r.err.split('\n').filter((l) => l.startsWith('Warning:'));
    expect(warnings).toEqual([
      expect.stringMatching(/^Warning: `cases\/Login\/Caf.*\.yaml` and `cases\/Login\/Caf.*\.yaml` differ only by Unicode normalisation/),
      expect.stringMatching(/^Warning: `cases\/Login\/Sign-in\.yaml` and `cases\/Login\/sign-in\.yaml` differ only by letter case/),
    ]);
  });

  for (const [n, first] of [
    [1, 'NFD'],
    [2, 'NFC'],
  ] as const) {
    it(`warns when two folders named Café, one in NFC and one in NFD, share a parent and the ${first} one is listed first`, async () => {
      const prefix = `CAF${n}`;
      createProject(emu, { prefix, name: `Cafe ${n}` });
      const c = client(emu.baseUrl);
      const project = await resolveProject(c, prefix);
      const nfc = 'Caf\u00e9';
      const nfd = 'Cafe\u0301';
      const names = first === 'NFD' ? [nfd, nfc] : [nfc, nfd];
      for (const name of names) await c.call('createFolder', { params: { project_id: project.id }, body: { name } });
      await c.close();
      const root = await fresh();
      const r = await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', prefix);
      expect(r.code).toBe(0);
      const second = first === 'NFD' ? 'NFC' : 'NFD';
      const warning = r.err.split('\n').filter((l) => l.startsWith('Warning: folder'));
      expect(warning).toHaveLength(1);
      expect(warning[0]).toContain(`folder "${names[1]}" (${second}) and folder "${names[0]}" (${first})`);
      expect(warning[0]).toContain(`written to cases/${nfc}-2 with \`name: ${names[1]}\``);
      const top = await readdir(join(root, 'cases'));
      expect(top.map((d) => d.normalize('NFC')).sort()).toEqual([nfc, `${nfc}-2`]);
      expect(parse(await readFile(join(root, 'cases', `${nfc}-2`, '_folder.yaml'), 'utf8'))).toMatchObject({ name: names[1] });
    });
  }
});
