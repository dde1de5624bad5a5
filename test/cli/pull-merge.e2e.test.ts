import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { resolveProject } from '../../src/remote/index.js';
import { SYNC_BASE_FILE } from '../../src/base/base.js';
import { API_KEY, client, editInUi, emptyProject, emulator } from '../support/transfer-helpers.js';

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

async function deleteOnService(baseUrl: string, prefix: string, humanId: string): Promise<void> {
  const c = client(baseUrl);
  try {
    const project = await resolveProject(c, prefix);
    await c.call('deleteTestCase', { params: { project_id: project.id, test_case_id: humanId } });
  } finally {
    await c.close();
  }
}

/** A project with one folder and two cases, pulled into a fresh repository (which records the base). */
async function pulledProject(emu: RunningEmulator, prefix: string, dirs: string[]): Promise<{ root: string; login: string; logout: string; priorities: Map<string, string> }> {
  emptyProject(emu, prefix);
  const c = client(emu.baseUrl);
  const priorities = new Map<string, string>();
  try {
    const project = await resolveProject(c, prefix);
    const params = { project_id: project.id };
    const folder = (await c.call('createFolder', { params, body: { name: 'Login' } })).data.folder;
    const first = async <T extends { id: string; name: string }>(list: AsyncIterable<T>) => {
      for await (const x of list) return x.id;
      throw new Error('an empty lookup list');
    };
    for await (const p of c.paginate('listPriorities')) priorities.set(p.name, p.id);
    const users = (await c.call('listUsers')).data;
    const fields = {
      type_id: await first(c.paginate('listCaseTypes')),
      status_id: await first(c.paginate('listCaseStatuses')),
      automation_type_id: await first(c.paginate('listAutomationTypes')),
      priority_id: [...priorities.values()][0],
      owner_id: users[0].id,
      folder_id: folder.id,
    };
    await c.call('createTestCase', {
      params,
      body: { title: 'Sign in', description: 'Opens the login page and signs in.', individual_steps: [{ step_description: 'Open /login', expected_results: 'The form shows', order: 1 }], ...fields },
    });
    await c.call('createTestCase', { params, body: { title: 'Sign out', description: 'Signs out.', ...fields } });
  } finally {
    await c.close();
  }
  const root = await mkdtemp(join(tmpdir(), 'tmsync-pull-merge-'));
  dirs.push(root);
  const r = await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', prefix);
  expect(r.code).toBe(0);
  expect(r.err).toContain('Wrote the sync base tmsync.base');
  return { root, login: join(root, 'cases/Login/sign-in.yaml'), logout: join(root, 'cases/Login/sign-out.yaml'), priorities };
}

const idOf = (text: string) => /^id: (\S+)$/m.exec(text)![1];

describe('pull merges the service into the files field by field, against the sync base', () => {
  let emu: RunningEmulator;
  const dirs: string[] = [];
  beforeAll(async () => {
    emu = await emulator();
  });
  afterAll(async () => {
    await emu?.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('records the base on the first pull, brings a change made in the UI into the file (that line only), and plan then shows no changes', async () => {
    const { root, login } = await pulledProject(emu, 'PMA', dirs);
    expect(await readFile(join(root, SYNC_BASE_FILE), 'utf8')).toMatch(/^tmsync-base 1 project /m);
    const text = `# reviewed by the auth team\n${await readFile(login, 'utf8')}`;
    await writeFile(login, text);
    await editInUi(emu.baseUrl, 'PMA', idOf(text), { description: 'Opens the sign-in page and signs in.' });

    const r = await tmsync(root, 'pull');
    expect(r.err).not.toContain('Conflicts');
    expect(r.err).not.toContain('no sync base');
    expect(r.code).toBe(0);
    expect(await readFile(login, 'utf8')).toBe(text.replace('description: Opens the login page and signs in.', 'description: Opens the sign-in page and signs in.'));
    const plan = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(plan.err + plan.out).toContain('No changes');
    expect(plan.code).toBe(0);
  });

  it("merges a change on each side in different fields: the file keeps its own and takes the service's", async () => {
    const { root, login, priorities } = await pulledProject(emu, 'PMB', dirs);
    const text = await readFile(login, 'utf8');
    const [low, high] = [...priorities.keys()];
    expect(text).toContain(`priority: ${low}`);
    const local = text.replace('description: Opens the login page and signs in.', 'description: Signs in with the form.');
    await writeFile(login, local);
    await editInUi(emu.baseUrl, 'PMB', idOf(text), { priority_id: priorities.get(high)! });

    const r = await tmsync(root, 'pull');
    expect(r.code).toBe(0);
    expect(r.err).toContain('Kept 1 change made in the repository since the last sync');
    expect(await readFile(login, 'utf8')).toBe(local.replace(`priority: ${low}`, `priority: ${high}`));
    // the repository's change is still the repository's: plan sends it, and nothing else
    const plan = await tmsync(root, 'plan', '--format', 'json');
    expect(plan.code).toBe(0);
    const ops = (JSON.parse(plan.out) as { operations: { kind: string; changes?: { field: string; to: string }[] }[] }).operations;
    expect(ops.map((o) => [o.kind, o.changes?.map((c) => [c.field, c.to])])).toEqual([['update_case', [['description', 'Signs in with the form.']]]]);
    // and once applied, both sides hold the merge
    expect((await tmsync(root, 'apply', '--auto-approve')).code).toBe(0);
    const after = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(after.err + after.out).toContain('No changes');
    expect(after.code).toBe(0);
  });

  it('lists a conflict with both values and leaves the file (exit 1), then takes the service value with --prefer remote', async () => {
    const { root, login } = await pulledProject(emu, 'PMC', dirs);
    const text = await readFile(login, 'utf8');
    const local = text.replace('description: Opens the login page and signs in.', 'description: Signs in with the form.');
    await writeFile(login, local);
    await editInUi(emu.baseUrl, 'PMC', idOf(text), { description: 'Signs in through single sign-on.' });

    const r = await tmsync(root, 'pull');
    expect(r.code).toBe(1);
    expect(r.err).toContain('Conflicts: 1 conflict');
    expect(r.err).toContain('  cases/Login/sign-in.yaml: description\n    repository: "Signs in with the form."\n    service:    "Signs in through single sign-on."');
    expect(r.err).toContain('--prefer remote');
    expect(await readFile(login, 'utf8')).toBe(local);
    // the conflict stays a conflict for plan too
    const plan = await tmsync(root, 'plan');
    expect(plan.code).toBe(1);

    const local2 = await tmsync(root, 'pull', '--prefer', 'local');
    expect(local2.code).toBe(0);
    expect(local2.err).toContain('1 conflict left as the files have them (--prefer local)');
    expect(await readFile(login, 'utf8')).toBe(local);

    const remote = await tmsync(root, 'pull', '--prefer', 'remote');
    expect(remote.code).toBe(0);
    expect(remote.err).toContain("1 conflict settled with the service's values (--prefer remote)");
    expect(await readFile(login, 'utf8')).toBe(text.replace('description: Opens the login page and signs in.', 'description: Signs in through single sign-on.'));
    const after = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(after.err + after.out).toContain('No changes');
    expect(after.code).toBe(0);
  });

  it('lists a case deleted on the service but edited in the file as a conflict, and leaves the file', async () => {
    const { root, logout } = await pulledProject(emu, 'PMD', dirs);
    const text = await readFile(logout, 'utf8');
    const local = text.replace('description: Signs out.', 'description: Signs out and clears the session.');
    await writeFile(logout, local);
    await deleteOnService(emu.baseUrl, 'PMD', idOf(text));

    const r = await tmsync(root, 'pull');
    expect(r.code).toBe(1);
    expect(r.err).toContain('cases/Login/sign-out.yaml: deleted on one side, changed on the other');
    expect(r.err).toContain('no longer has (not deleted)');
    expect(await readFile(logout, 'utf8')).toBe(local);
    // --prefer remote does what pull does with any deleted item: lists the file, never deletes it
    const remote = await tmsync(root, 'pull', '--prefer', 'remote');
    expect(remote.code).toBe(0);
    expect(remote.err).toContain('pull never deletes files: delete it to follow the service');
    expect(await readFile(logout, 'utf8')).toBe(local);
  });

  it("merges a step group step by step: the file's edit of one step and the UI's edit of another", async () => {
    emptyProject(emu, 'PMG');
    const c = client(emu.baseUrl);
    let groupId: string;
    try {
      const project = await resolveProject(c, 'PMG');
      const params = { project_id: project.id };
      const steps = [
        { step_description: 'Open /login', expected_result: 'The form shows', order: 1 },
        { step_description: 'Sign in', expected_result: 'The dashboard shows', order: 2 },
      ];
      groupId = (await c.call('createStepGroup', { params, body: { title: 'Log in', description: 'Signs in.', steps } })).data.step_group.id;
      // a folder, so that the repository has its cases directory
      await c.call('createFolder', { params, body: { name: 'Login' } });
    } finally {
      await c.close();
    }
    const root = await mkdtemp(join(tmpdir(), 'tmsync-pull-merge-'));
    dirs.push(root);
    expect((await tmsync(root, 'pull', '--base-url', emu.baseUrl, '--project', 'PMG')).code).toBe(0);
    const file = join(root, 'step_groups/log-in.yaml');
    const text = await readFile(file, 'utf8');
    const local = text.replace('expected: The form shows', 'expected: The empty form shows');
    await writeFile(file, local);
    // the UI sends the whole group back, its second step changed
    const ui = client(emu.baseUrl);
    try {
      const project = await resolveProject(ui, 'PMG');
      const params = { project_id: project.id, step_group_id: groupId };
      const g = (await ui.call('getStepGroup', { params })).data.step_group;
      const steps = [...(g.steps ?? [])]
        .sort((a, b) => a.order - b.order)
        .map((s) => ({ step_description: s.step_description ?? null, expected_results: s.order === 2 ? 'The dashboard greets the user' : (s.expected_results ?? null), order: s.order }));
      await ui.call('updateStepGroup', { params, body: { title: g.title, description: g.description ?? null, steps } });
    } finally {
      await ui.close();
    }

    const r = await tmsync(root, 'pull');
    expect(r.err).not.toContain('Conflicts');
    expect(r.code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe(local.replace('expected: The dashboard shows', 'expected: The dashboard greets the user'));
    const plan = await tmsync(root, 'plan', '--format', 'json');
    expect(plan.code).toBe(0);
    const ops = (JSON.parse(plan.out) as { operations: { kind: string; changes?: { field: string }[] }[] }).operations;
    expect(ops.map((o) => [o.kind, o.changes?.map((ch) => ch.field)])).toEqual([['update_step_group', ['steps']]]);
  });

  it("merges folders: the service's new name is written into _folder.yaml, the repository's new orders kept", async () => {
    const { root } = await pulledProject(emu, 'PMF', dirs);
    const c = client(emu.baseUrl);
    try {
      const project = await resolveProject(c, 'PMF');
      await c.call('createFolder', { params: { project_id: project.id }, body: { name: 'Other' } });
    } finally {
      await c.close();
    }
    expect((await tmsync(root, 'pull')).code).toBe(0);
    // the repository swaps the two folders
    const login = join(root, 'cases/Login/_folder.yaml');
    const other = join(root, 'cases/Other/_folder.yaml');
    const text = await readFile(login, 'utf8');
    expect(text).toMatch(/^order: 0$/m);
    const local = text.replace(/^order: 0$/m, 'order: 1');
    await writeFile(login, local);
    await writeFile(other, (await readFile(other, 'utf8')).replace(/^order: 1$/m, 'order: 0'));
    const ui = client(emu.baseUrl);
    try {
      const project = await resolveProject(ui, 'PMF');
      await ui.call('updateFolder', { params: { project_id: project.id, folder_id: idOf(text) }, body: { name: 'Sign-in' } });
    } finally {
      await ui.close();
    }

    const r = await tmsync(root, 'pull');
    expect(r.err).not.toContain('Conflicts');
    expect(r.err).toContain('Kept 2 changes made in the repository');
    expect(r.code).toBe(0);
    expect(await readFile(login, 'utf8')).toBe(local.replace('order: 1', 'name: Sign-in\norder: 1'));
    const plan = await tmsync(root, 'plan', '--format', 'json');
    expect(plan.code).toBe(0);
    const ops = (JSON.parse(plan.out) as { operations: { kind: string; path: string[]; changes?: { field: string; to: string }[] }[] }).operations;
    expect(ops.map((o) => [o.kind, o.path.join('/'), o.changes?.map((ch) => [ch.field, ch.to])])).toEqual([
      ['update_folder', 'Sign-in', [['order', '1']]],
      ['update_folder', 'Other', [['order', '0']]],
    ]);
  });

  it('pulls a repository without a base as before, saying how many items had none, and records one', async () => {
    const { root, login, priorities } = await pulledProject(emu, 'PME', dirs);
    await rm(join(root, SYNC_BASE_FILE));
    const text = await readFile(login, 'utf8');
    const [low, high] = [...priorities.keys()];
    await writeFile(login, text.replace('description: Opens the login page and signs in.', 'description: Signs in with the form.'));
    await editInUi(emu.baseUrl, 'PME', idOf(text), { priority_id: priorities.get(high)! });

    const r = await tmsync(root, 'pull');
    expect(r.code).toBe(0);
    // the folder and its two cases
    expect(r.err).toContain('3 items had no sync base (tmsync.base): pulled as before');
    // as before: the service's values are written over the file's
    expect(await readFile(login, 'utf8')).toBe(text.replace(`priority: ${low}`, `priority: ${high}`));
    expect(await readFile(join(root, SYNC_BASE_FILE), 'utf8')).toMatch(/^case /m);
    const again = await tmsync(root, 'pull');
    expect(again.err).not.toContain('no sync base');
  });
});
