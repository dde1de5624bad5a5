import { mkdir, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceUser } from '../support/api.js';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CASE_FIELDS } from '../../src/fields.js';
import { SYNC_BASE_FILE } from '../../src/base/base.js';
import { demoConfigYaml } from '../support/demo-config.js';
import { seededEmulator } from '../support/emulator.js';

/**
 * Three-way sync end to end: apply records tmsync.base; edits are made through the service's API
 * as a person in the web UI makes them (GET the case, PUT it whole with one field changed).
 */

const API_KEY = 'sync-e2e-secret-key';

async function repository(baseUrl: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tmsync-sync-e2e-'));
  const files: Record<string, string> = {
    'tmsync.yaml': demoConfigYaml(baseUrl, { rate_limit: 500 }),
    'cases/Sync/alpha.yaml': 'title: Alpha\ndescription: Alpha as written\npreconditions: Logged out\n',
    'cases/Sync/beta.yaml': 'title: Beta\ndescription: Beta as written\n',
    'cases/Sync/gamma.yaml': 'title: Gamma\ndescription: Gamma as written\n',
    'cases/Other/delta.yaml': 'title: Delta\n',
    'step_groups/login.yaml': 'title: Log in\nsteps:\n  - action: Open /login\n    expected: The form shows\n  - action: Submit\n    expected: Signed in\n',
  };
  for (const [file, text] of Object.entries(files)) {
    await mkdir(join(root, file, '..'), { recursive: true });
    await writeFile(join(root, file), text);
  }
  return root;
}

describe('three-way sync against the emulator', () => {
  let emu: RunningEmulator;
  let root: string;
  let projectId: string;

  const tmsync = async (...args: string[]) => {
    return runCli(args, { cwd: root, env: { TMSYNC_API_KEY: API_KEY } });
  };
  const api = (method: string, path: string, body?: unknown) => serviceUser(emu.baseUrl, API_KEY)(method, path, body);
  const idOf = async (file: string) => /^id: (\S+)$/m.exec(await readFile(join(root, file), 'utf8'))![1];
  const getCase = async (file: string) => (await api('GET', `/projects/${projectId}/test_cases/${await idOf(file)}`)).data.test_case as Record<string, unknown>;
  /** What the web UI does: the whole case as it shows it, sent back with one field changed. */
  const editInUi = async (file: string, field: string, value: string) => {
    const c = await getCase(file);
    const body: Record<string, unknown> = { title: c.title, folder_id: c.folder_id };
    for (const f of CASE_FIELDS) if (f.kind !== 'steps' && f.kind !== 'labels' && c[f.wire] !== undefined && c[f.wire] !== null) body[f.wire] = c[f.wire];
    body[field] = value;
    await api('PUT', `/projects/${projectId}/test_cases/${c.id}`, body);
  };
  const editFile = async (file: string, from: string, to: string) => {
    const text = await readFile(join(root, file), 'utf8');
    expect(text).toContain(from);
    await writeFile(join(root, file), text.replace(from, to));
  };

  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    root = await repository(emu.baseUrl);
    const first = await tmsync('apply', '--auto-approve');
    expect(first.code, first.err).toBe(0);
    const projects = (await api('GET', '/projects')).data.projects as { id: string; human_id_prefix?: string; name: string }[];
    projectId = projects.find((p) => p.human_id_prefix === 'DEMO' || p.name === 'DEMO')?.id ?? projects[0].id;
  });
  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('apply writes tmsync.base at the repository root, one line per item synced, and the next plan has nothing to do', async () => {
    const text = await readFile(join(root, SYNC_BASE_FILE), 'utf8');
    expect(text).toMatch(/^tmsync-base 1 project /m);
    expect(text.split('\n').filter((l) => l.startsWith('case '))).toHaveLength(4);
    expect(text.split('\n').filter((l) => l.startsWith('folder '))).toHaveLength(2);
    expect(text.split('\n').filter((l) => l.startsWith('step_group '))).toHaveLength(1);
    expect(text).not.toContain('Alpha as written');
    const r = await tmsync('plan');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('No changes.');
    expect(r.out).not.toContain('no sync base');
    expect(r.out).not.toContain('Changed on the service');
    const drift = await tmsync('plan', '--detailed-exitcode', '--format', 'json');
    expect(drift.code, drift.err).toBe(0);
    expect(JSON.parse(drift.out).differs).toEqual({ send: false, service: false });
  });

  it('keeps a change made only on the service: the plan lists it, apply does not overwrite it', async () => {
    await editInUi('cases/Sync/alpha.yaml', 'description', 'Alpha fixed in the UI');
    const p = await tmsync('plan');
    expect(p.code, p.err).toBe(0);
    expect(p.out).toContain('Changed on the service since the last sync');
    expect(p.out).toContain('`tmsync pull` takes them into the files');
    expect(p.out).toContain('description: "Alpha as written" → "Alpha fixed in the UI"');
    expect(p.out).toContain('No changes to send. The service holds changes the files do not have yet');
    // the nightly drift job (docs/ci.md): the two sides differ, on the service's side
    const drift = await tmsync('plan', '--detailed-exitcode');
    expect(drift.code, drift.err).toBe(2);
    const driftJson = await tmsync('plan', '--detailed-exitcode', '--format', 'json');
    expect(driftJson.code).toBe(2);
    expect(JSON.parse(driftJson.out).differs).toEqual({ send: false, service: true });
    const a = await tmsync('apply', '--auto-approve');
    expect(a.code, a.err).toBe(0);
    expect((await getCase('cases/Sync/alpha.yaml')).description).toBe('Alpha fixed in the UI');
    const json = JSON.parse((await tmsync('plan', '--format', 'json')).out);
    expect(json.sync.remote_changes).toEqual([expect.objectContaining({ field: 'description', from: 'Alpha as written', to: 'Alpha fixed in the UI', file: 'cases/Sync/alpha.yaml' })]);
  });

  it('merges a change on each side in different fields: the file\'s field is sent, the service\'s is kept', async () => {
    await editFile('cases/Sync/alpha.yaml', 'preconditions: Logged out', 'preconditions: Logged out, cookies cleared');
    const p = await tmsync('plan');
    expect(p.code, p.err).toBe(0);
    expect(p.out).toContain('preconditions: "Logged out" → "Logged out, cookies cleared"');
    expect(p.out).not.toMatch(/description: "Alpha fixed in the UI" → "Alpha as written"/);
    const a = await tmsync('apply', '--auto-approve');
    expect(a.code, a.err).toBe(0);
    const c = await getCase('cases/Sync/alpha.yaml');
    expect(c.preconditions).toBe('Logged out, cookies cleared');
    expect(c.description).toBe('Alpha fixed in the UI');
  });

  it('refuses a conflict in plan and apply (nothing sent), then settles it with --prefer remote and with --prefer local', async () => {
    await editFile('cases/Sync/beta.yaml', 'description: Beta as written', 'description: Beta from the file');
    await editInUi('cases/Sync/beta.yaml', 'description', 'Beta from the UI');
    const p = await tmsync('plan');
    expect(p.code).toBe(1);
    expect(p.out).toContain('Conflicts: changed in the repository and on the service since the last sync');
    expect(p.out).toContain('repository: "Beta from the file"');
    expect(p.out).toContain('service:    "Beta from the UI"');
    expect(p.err).toContain('1 conflict with the service');
    expect(p.err).toContain('--prefer local');
    expect(p.err).toContain('--prefer remote');
    const md = await tmsync('plan', '--format', 'markdown');
    expect(md.code).toBe(1);
    expect(md.out.match(/<summary>([^<]*)<\/summary>/)?.[1]).toMatch(/^Conflicts/);

    const saved = await tmsync('plan', '--out', 'conflict.json');
    expect(saved.code).toBe(1);
    const refusedSaved = await tmsync('apply', 'conflict.json');
    expect(refusedSaved.code).toBe(1);
    expect(refusedSaved.err).toContain('1 conflict with the service');
    const refused = await tmsync('apply', '--auto-approve');
    expect(refused.code).toBe(1);
    expect((await getCase('cases/Sync/beta.yaml')).description).toBe('Beta from the UI');

    const remote = await tmsync('apply', '--auto-approve', '--prefer', 'remote');
    expect(remote.code, remote.err).toBe(0);
    expect((await getCase('cases/Sync/beta.yaml')).description).toBe('Beta from the UI');
    // settled for that run only: the files still differ, so the next plan finds the conflict again
    expect((await tmsync('plan')).code).toBe(1);

    const local = await tmsync('apply', 'conflict.json', '--prefer', 'local');
    expect(local.code, local.err).toBe(0);
    expect((await getCase('cases/Sync/beta.yaml')).description).toBe('Beta from the file');
    const after = await tmsync('plan');
    expect(after.code, after.err).toBe(0);
    expect(after.out).not.toContain('Conflicts');
    expect(after.out).not.toContain('Beta');
  });

  it('a deletion on one side against an edit on the other is a conflict', async () => {
    // deleted from the repository (--prune), changed on the service
    await editInUi('cases/Sync/gamma.yaml', 'description', 'Gamma from the UI');
    const gammaId = await idOf('cases/Sync/gamma.yaml');
    await unlink(join(root, 'cases/Sync/gamma.yaml'));
    const pruned = await tmsync('plan', '--prune');
    expect(pruned.code).toBe(1);
    expect(pruned.out).toContain('repository: "deleted from the repository"');
    expect(pruned.out).toContain('service:    "changed on the service: description"');
    const kept = await tmsync('apply', '--auto-approve', '--prune', '--prefer', 'remote');
    expect(kept.code, kept.err).toBe(0);
    expect((await api('GET', `/projects/${projectId}/test_cases/${gammaId}`)).data.test_case.description).toBe('Gamma from the UI');

    // deleted on the service, changed in the repository
    const alphaId = await idOf('cases/Sync/alpha.yaml');
    await api('DELETE', `/projects/${projectId}/test_cases/${alphaId}`);
    await editFile('cases/Sync/alpha.yaml', 'description: Alpha as written', 'description: Alpha edited after all');
    const gone = await tmsync('plan');
    expect(gone.code).toBe(1);
    expect(gone.out).toContain('repository: "changed in the repository: description"');
    expect(gone.out).toContain('service:    "deleted on the service"');
    const recreated = await tmsync('apply', '--auto-approve', '--prefer', 'local');
    expect(recreated.code, recreated.err).toBe(0);
    expect(recreated.out).toContain('1 created');
    expect(await idOf('cases/Sync/alpha.yaml')).not.toBe(alphaId);
    expect((await getCase('cases/Sync/alpha.yaml')).description).toBe('Alpha edited after all');
  });

  it('keeps a folder renamed and a step group step edited on the service, and merges a step edited in the repository', async () => {
    const folderId = /^id: (\S+)$/m.exec(await readFile(join(root, 'cases/Other/_folder.yaml'), 'utf8'))![1];
    await api('PUT', `/projects/${projectId}/folders/${folderId}`, { name: 'Other (renamed in the UI)' });
    const groupId = await idOf('step_groups/login.yaml');
    const group = (await api('GET', `/projects/${projectId}/step_groups/${groupId}`)).data.step_group as { id: string; title: string; description: string; steps: { step_description: string; expected_results?: string; expected_result?: string; order: number }[] };
    const steps = [...group.steps].sort((a, b) => a.order - b.order).map((s, i) => ({ step_description: s.step_description, expected_results: s.expected_results ?? s.expected_result ?? '', order: i + 1 }));
    steps[1] = { ...steps[1], step_description: 'Press Submit' };
    await api('PUT', `/projects/${projectId}/step_groups/${group.id}`, { title: group.title, description: group.description, steps });
    await editFile('step_groups/login.yaml', 'action: Open /login', 'action: Open the login page');
    const p = await tmsync('plan');
    expect(p.code, p.err).toBe(0);
    expect(p.out).toContain('name: "Other" → "Other (renamed in the UI)"');
    expect(p.out).toContain('step 2:');
    expect(p.out).not.toMatch(/~ folder/);
    const a = await tmsync('apply', '--auto-approve');
    expect(a.code, a.err).toBe(0);
    const after = (await api('GET', `/projects/${projectId}/step_groups/${groupId}`)).data.step_group as { steps: { step_description: string; order: number }[] };
    expect([...after.steps].sort((x, y) => x.order - y.order).map((s) => s.step_description)).toEqual(['Open the login page', 'Press Submit']);
    const folders = (await api('GET', `/projects/${projectId}/folders`)).data.folders as { id: string; name: string }[];
    expect(folders.find((f) => f.id === folderId)?.name).toBe('Other (renamed in the UI)');
  });

  it('without tmsync.base, plans as before (the repository wins) and says in one line how many items have no base', async () => {
    await unlink(join(root, SYNC_BASE_FILE));
    await editInUi('cases/Sync/beta.yaml', 'description', 'Beta changed in the UI again');
    const p = await tmsync('plan');
    expect(p.code, p.err).toBe(0);
    expect(p.out).toContain('description: "Beta changed in the UI again" → "Beta from the file"');
    const lines = p.out.split('\n').filter((l) => l.includes('no sync base'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^Note: \d+ items have no sync base yet \(tmsync\.base\): compared two ways, the repository wins; the next apply records them\.$/);
    const a = await tmsync('apply', '--auto-approve');
    expect(a.code, a.err).toBe(0);
    expect((await getCase('cases/Sync/beta.yaml')).description).toBe('Beta from the file');
    expect(await readFile(join(root, SYNC_BASE_FILE), 'utf8')).toMatch(/^case /m);
  });

  it('a pull forgets an item deleted on both sides: its line does not stay in tmsync.base', async () => {
    const gone = await getCase('cases/Other/delta.yaml');
    expect(await readFile(join(root, SYNC_BASE_FILE), 'utf8')).toContain(`case ${gone.id} `);
    await api('DELETE', `/projects/${projectId}/test_cases/${gone.id}`);
    await unlink(join(root, 'cases/Other/delta.yaml'));
    const p = await tmsync('pull');
    expect(p.code, p.err).toBe(0);
    const text = await readFile(join(root, SYNC_BASE_FILE), 'utf8');
    expect(text).not.toContain(`case ${gone.id} `);
    expect(text.split('\n').filter((l) => l.startsWith('case '))).toHaveLength(3);
  });

  it('an emptied tmsync.base is refused as unreadable, naming it: apply does not send the repository\'s values over the service\'s edits', async () => {
    await editInUi('cases/Sync/beta.yaml', 'description', 'Beta edited in the UI, base emptied');
    await writeFile(join(root, SYNC_BASE_FILE), '# tmsync sync base\n');
    for (const command of ['plan', 'apply']) {
      const r = await tmsync(command, ...(command === 'apply' ? ['--auto-approve'] : []));
      expect(r.code, command).toBe(1);
      expect(r.err).toContain(`${join(root, SYNC_BASE_FILE)} is unreadable: it is only comments`);
      expect(r.err).toMatch(/Hint: restore .* from git/);
    }
    expect((await getCase('cases/Sync/beta.yaml')).description).toBe('Beta edited in the UI, base emptied');
  });
});
