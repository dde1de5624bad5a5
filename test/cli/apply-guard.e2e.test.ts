import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serviceUser } from '../support/api.js';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CASE_FIELDS } from '../../src/fields.js';
import { startTestEmulator as startEmulator } from '../dialect.js';
import { demoConfigYaml } from '../support/demo-config.js';

/**
 * The write guard end to end (issue 24, item 1): someone edits a case through the service's API
 * while `tmsync apply` runs, or while it waits for "yes". The edit is made by the emulator's
 * `onRequest` hook right when the apply's first case update arrives (before it is served), to a
 * case of the OTHER folder, whose update comes later: no timing, the order of requests decides.
 */

const API_KEY = 'guard-e2e-secret-key';

const FILES: Record<string, string> = {
  'cases/Alpha/a1.yaml': 'title: A one\ndescription: A1 as written\npreconditions: A1 pre\n',
  'cases/Alpha/a2.yaml': 'title: A two\ndescription: A2 as written\npreconditions: A2 pre\n',
  'cases/Alpha/a3.yaml': 'title: A three\ndescription: A3 as written\npreconditions: A3 pre\n',
  'cases/Beta/b1.yaml': 'title: B one\ndescription: B1 as written\npreconditions: B1 pre\n',
  'cases/Beta/b2.yaml': 'title: B two\ndescription: B2 as written\npreconditions: B2 pre\n',
};

describe('apply while the service changes under it (the write guard)', () => {
  let emu: RunningEmulator;
  let root: string;
  let projectId: string;
  /** what another user does when the apply's first case update arrives (armed for one run) */
  let onFirstCaseWrite: ((writtenId: string) => Promise<void>) | undefined;

  const tmsync = async (args: string[], prompt?: () => Promise<string>) => {
    return runCli(args, { cwd: root, env: { TMSYNC_API_KEY: API_KEY }, ...(prompt ? { isTTY: true, prompt } : {}) });
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
  /** Every file's description gets a new text (what the apply sends). */
  const editDescriptions = async (tag: string) => {
    for (const file of Object.keys(FILES)) {
      const text = await readFile(join(root, file), 'utf8');
      await writeFile(join(root, file), text.replace(/^description: .*$/m, `description: ${file} ${tag}`));
    }
  };
  /** the file of each case, by the service's id (requests name cases by it; files by human id) */
  const fileById = new Map<string, string>();
  /** The last case of the folder the first case update did not go to: its update comes after that folder's. */
  const otherFolderCase = async (writtenId: string) => (fileById.get(writtenId)?.startsWith('cases/Alpha/') ? 'cases/Beta/b2.yaml' : 'cases/Alpha/a3.yaml');

  beforeAll(async () => {
    emu = await startEmulator({
      memory: true,
      apiKeys: [API_KEY],
      seed: 'demo',
      port: 0,
      onRequest: async ({ method, path }) => {
        const m = /\/test_cases\/([^/]+)$/.exec(path);
        if (method !== 'PUT' || !m || !onFirstCaseWrite) return;
        const edit = onFirstCaseWrite;
        onFirstCaseWrite = undefined;
        await edit(m[1]);
      },
    });
    root = await mkdtemp(join(tmpdir(), 'tmsync-guard-e2e-'));
    // one request at a time: the update of the edited case is sent only after the edit is made
    await writeFile(join(root, 'tmsync.yaml'), demoConfigYaml(emu.baseUrl, { rate_limit: 500, concurrency: 1 }));
    for (const [file, text] of Object.entries(FILES)) {
      await mkdir(join(root, file, '..'), { recursive: true });
      await writeFile(join(root, file), text);
    }
    const first = await tmsync(['apply', '--auto-approve']);
    expect(first.code, first.err).toBe(0);
    const projects = (await api('GET', '/projects')).data.projects as { id: string; human_id_prefix?: string; name: string }[];
    projectId = projects.find((p) => p.human_id_prefix === 'DEMO' || p.name === 'DEMO')?.id ?? projects[0].id;
    for (const file of Object.keys(FILES)) fileById.set((await getCase(file)).id as string, file);
  });
  beforeEach(() => {
    onFirstCaseWrite = undefined;
  });
  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('keeps an edit of another field made during the run: merged into the update, and the next plan lists it as a change on the service', async () => {
    await editDescriptions('v2');
    let edited = '';
    onFirstCaseWrite = async (writtenId) => {
      edited = await otherFolderCase(writtenId);
      await editInUi(edited, 'preconditions', 'Edited in the UI during the apply');
    };
    const a = await tmsync(['apply', '--auto-approve']);
    expect(a.code, a.err).toBe(0);
    expect(edited).not.toBe('');
    const c = await getCase(edited);
    expect(c.preconditions).toBe('Edited in the UI during the apply');
    expect(c.description).toBe(`${edited} v2`);
    expect(a.err).toContain(`Merged: ${edited}: preconditions changed on the service while the apply ran`);
    // the base recorded the update, and the edit as a change the files do not have yet
    const p = await tmsync(['plan']);
    expect(p.code, p.err).toBe(0);
    expect(p.out).toContain('Changed on the service since the last sync');
    expect(p.out).toContain('preconditions: "' + (edited.endsWith('b2.yaml') ? 'B2' : 'A3') + ' pre" → "Edited in the UI during the apply"');
    expect(p.out).toContain('No changes to send');
    const again = await tmsync(['apply', '--auto-approve']);
    expect(again.code, again.err).toBe(0);
    expect((await getCase(edited)).preconditions).toBe('Edited in the UI during the apply');
  });

  it('does not send an update whose field was changed on the service during the run: listed, exit 1; --prefer local then sends it', async () => {
    await editDescriptions('v3');
    let edited = '';
    onFirstCaseWrite = async (writtenId) => {
      edited = await otherFolderCase(writtenId);
      await editInUi(edited, 'description', 'Described in the UI during the apply');
    };
    const a = await tmsync(['apply', '--auto-approve', '--json']);
    expect(a.code).toBe(1);
    expect(JSON.parse(a.out).result.conflicts).toEqual([
      expect.objectContaining({ file: edited, field: 'description', local: `${edited} v3`, remote: 'Described in the UI during the apply', kind: 'update_case' }),
    ]);
    expect(a.err).toContain(`Conflict: ${edited}: description changed on the service while the apply ran; not sent.`);
    expect(a.err).toContain('Apply finished with conflicts: 0 created, 4 updated');
    expect(a.err).toContain(`repository: "${edited} v3"`);
    expect(a.err).toContain('service:    "Described in the UI during the apply"');
    expect(a.err).toContain('--prefer local');
    expect((await getCase(edited)).description).toBe('Described in the UI during the apply');
    // the other updates went through
    const other = Object.keys(FILES).find((f) => f !== edited)!;
    expect((await getCase(other)).description).toBe(`${other} v3`);
    // the base did not record the case as synced: the next plan finds the conflict
    const p = await tmsync(['plan']);
    expect(p.code).toBe(1);
    expect(p.out).toContain('Conflicts: changed in the repository and on the service since the last sync');
    expect(p.out).toContain('service:    "Described in the UI during the apply"');
    const local = await tmsync(['apply', '--auto-approve', '--prefer', 'local']);
    expect(local.code, local.err).toBe(0);
    expect((await getCase(edited)).description).toBe(`${edited} v3`);
    const settled = await tmsync(['plan']);
    expect(settled.code, settled.err).toBe(0);
    expect(settled.out).not.toContain('Conflicts');
  });

  it('--prefer remote keeps the service\'s value of a field changed during the run; the next plan still finds the conflict', async () => {
    await editDescriptions('v4');
    let edited = '';
    onFirstCaseWrite = async (writtenId) => {
      edited = await otherFolderCase(writtenId);
      await editInUi(edited, 'description', 'Kept from the UI');
    };
    const a = await tmsync(['apply', '--auto-approve', '--prefer', 'remote']);
    expect(a.code, a.err).toBe(0);
    expect(a.err).toContain(`Settled: ${edited}: description changed on the service while the apply ran; the service's value was kept (--prefer remote).`);
    expect((await getCase(edited)).description).toBe('Kept from the UI');
    const p = await tmsync(['plan']);
    expect(p.code).toBe(1);
    expect(p.out).toContain(`repository: "${edited} v4"`);
    expect(p.out).toContain('service:    "Kept from the UI"');
    const local = await tmsync(['apply', '--auto-approve', '--prefer', 'local']);
    expect(local.code, local.err).toBe(0);
  });

  it('keeps an edit made while the prompt waits for "yes"', async () => {
    await editDescriptions('v5');
    const a = await tmsync(['apply'], async () => {
      await editInUi('cases/Beta/b1.yaml', 'preconditions', 'Edited while the prompt waited');
      return 'yes';
    });
    expect(a.code, a.err).toBe(0);
    const c = await getCase('cases/Beta/b1.yaml');
    expect(c.preconditions).toBe('Edited while the prompt waited');
    expect(c.description).toBe('cases/Beta/b1.yaml v5');
  });

  it('a saved plan: an edit made while it is applied is merged too', async () => {
    await editDescriptions('v6');
    const saved = await tmsync(['plan', '--out', 'guard-plan.json']);
    expect(saved.code, saved.err).toBe(0);
    let edited = '';
    onFirstCaseWrite = async (writtenId) => {
      edited = await otherFolderCase(writtenId);
      await editInUi(edited, 'preconditions', 'Edited while the saved plan ran');
    };
    const a = await tmsync(['apply', 'guard-plan.json']);
    expect(a.code, a.err).toBe(0);
    const c = await getCase(edited);
    expect(c.preconditions).toBe('Edited while the saved plan ran');
    expect(c.description).toBe(`${edited} v6`);
  });
});

describe('apply of many updates in one folder while the service changes under it', () => {
  let emu: RunningEmulator;
  let root: string;
  const COUNT = 30;
  let onFirstCaseWrite: (() => Promise<void>) | undefined;

  const tmsync = async (args: string[]) => {
    return runCli(args, { cwd: root, env: { TMSYNC_API_KEY: API_KEY } });
  };
  const api = (method: string, path: string, body?: unknown) => serviceUser(emu.baseUrl, API_KEY)(method, path, body);
  const file = (i: number) => `cases/Many/case-${String(i).padStart(2, '0')}.yaml`;
  const lastCase = async () => {
    const humanId = /^id: (\S+)$/m.exec(await readFile(join(root, file(COUNT - 1)), 'utf8'))![1];
    const projects = (await api('GET', '/projects')).data.projects as { id: string; human_id_prefix?: string }[];
    const projectId = projects.find((p) => p.human_id_prefix === 'DEMO')!.id;
    return { projectId, c: (await api('GET', `/projects/${projectId}/test_cases/${humanId}`)).data.test_case as Record<string, unknown> };
  };

  beforeAll(async () => {
    emu = await startEmulator({
      memory: true,
      apiKeys: [API_KEY],
      seed: 'demo',
      port: 0,
      onRequest: async ({ method, path }) => {
        if (method !== 'PUT' || !/\/test_cases\/[^/]+$/.test(path) || !onFirstCaseWrite) return;
        const edit = onFirstCaseWrite;
        onFirstCaseWrite = undefined;
        await edit();
      },
    });
    root = await mkdtemp(join(tmpdir(), 'tmsync-guard-many-e2e-'));
    await writeFile(join(root, 'tmsync.yaml'), demoConfigYaml(emu.baseUrl, { rate_limit: 500, concurrency: 1 }));
    await mkdir(join(root, 'cases/Many'), { recursive: true });
    for (let i = 0; i < COUNT; i++) await writeFile(join(root, file(i)), `title: Case ${i}\ndescription: As written\npreconditions: Signed in\n`);
    const first = await tmsync(['apply', '--auto-approve']);
    expect(first.code, first.err).toBe(0);
  });
  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('an edit of the last case made right after the first write of its own folder is kept', async () => {
    for (let i = 0; i < COUNT; i++) await writeFile(join(root, file(i)), (await readFile(join(root, file(i)), 'utf8')).replace('description: As written', 'description: Edited'));
    onFirstCaseWrite = async () => {
      const { projectId, c } = await lastCase();
      await api('PUT', `/projects/${projectId}/test_cases/${c.id}`, { title: c.title, folder_id: c.folder_id, description: c.description, preconditions: 'Signed out (edited during the apply)' });
    };
    const a = await tmsync(['apply', '--auto-approve']);
    expect(a.code, a.err).toBe(0);
    const { c } = await lastCase();
    expect(c.preconditions).toBe('Signed out (edited during the apply)');
    expect(c.description).toBe('Edited');
  });
});
