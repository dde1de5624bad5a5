import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceUser } from '../support/api.js';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { CASE_FIELDS } from '../../src/fields.js';
import { demoConfigYaml } from '../support/demo-config.js';
import { seededEmulator } from '../support/emulator.js';

/**
 * Text from the service printed by tmsync: titles and descriptions someone typed (or pasted) on the
 * service hold GitHub Actions workflow commands and terminal escape sequences. None of them may
 * reach a CI log at the start of a line, or a terminal as a control character.
 */

const API_KEY = 'hostile-text-e2e-key';
const INJECTED_TITLE = 'x\n::error file=tmsync.yaml,line=1::injected\n::add-mask::Plan';
/** sets the terminal's title (OSC … BEL), then erases the line and goes back to its start */
const TERMINAL = '\u001b]0;pwned\u0007\u001b[2K\r';
const DESCRIPTION = 'first line\n::warning::as context\n##vso[task.setvariable variable=x]1\nlast line';

/** Lines a CI runner takes for a command: `::…` (GitHub Actions), `##vso[` / `##[` (Azure Pipelines), after whitespace. */
const COMMAND_LINE = /^[\s\u00a0\ufeff]*(::|##(vso)?\[)/im;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

describe('text from the service, printed', () => {
  let emu: RunningEmulator;
  let root: string;
  let projectId: string;

  const tmsync = async (...args: string[]) => {
    return runCli(args, { cwd: root, env: { TMSYNC_API_KEY: API_KEY, GITHUB_ACTIONS: 'true' } });
  };
  const api = (method: string, path: string, body?: unknown) => serviceUser(emu.baseUrl, API_KEY)(method, path, body);
  /** The case of a file as the web UI sends it back: every field it shows. */
  const caseBody = async (file: string) => {
    const id = /^id: (\S+)$/m.exec(await readFile(join(root, file), 'utf8'))![1];
    const c = (await api('GET', `/projects/${projectId}/test_cases/${id}`)).data.test_case as Record<string, unknown>;
    const body: Record<string, unknown> = { title: c.title, folder_id: c.folder_id };
    for (const f of CASE_FIELDS) if (f.kind !== 'steps' && f.kind !== 'labels' && c[f.wire] !== undefined && c[f.wire] !== null) body[f.wire] = c[f.wire];
    return { id: c.id as string, body };
  };

  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    root = await mkdtemp(join(tmpdir(), 'tmsync-hostile-e2e-'));
    const files: Record<string, string> = {
      'tmsync.yaml': demoConfigYaml(emu.baseUrl, { rate_limit: 500 }),
      'cases/Sync/alpha.yaml': `title: Alpha\ndescription: ${JSON.stringify(DESCRIPTION)}\n`,
      'cases/Sync/beta.yaml': 'title: Beta\n',
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(join(root, file, '..'), { recursive: true });
      await writeFile(join(root, file), text);
    }
    const first = await tmsync('apply', '--auto-approve');
    expect(first.code, first.err).toBe(0);
    const projects = (await api('GET', '/projects')).data.projects as { id: string; human_id_prefix?: string; name: string }[];
    projectId = projects.find((p) => p.human_id_prefix === 'DEMO' || p.name === 'DEMO')?.id ?? projects[0].id;

    // on the service: alpha's title and description edited, a new case beside it nobody manages
    const alpha = await caseBody('cases/Sync/alpha.yaml');
    await api('PUT', `/projects/${projectId}/test_cases/${alpha.id}`, {
      ...alpha.body,
      title: `Alpha ${TERMINAL}${INJECTED_TITLE}`,
      description: DESCRIPTION.replace('last line', `last line ${TERMINAL}`),
    });
    await api('POST', `/projects/${projectId}/test_cases`, { ...alpha.body, title: `${INJECTED_TITLE}${TERMINAL}` });
    // in the repository: beta changed, to have an update beside the service's changes
    await writeFile(join(root, 'cases/Sync/beta.yaml'), (await readFile(join(root, 'cases/Sync/beta.yaml'), 'utf8')).replace('title: Beta', 'title: Beta 2'));
  });
  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const expectSafe = (text: string) => {
    expect(text).not.toMatch(COMMAND_LINE);
    expect(text).not.toMatch(CONTROL);
  };

  it('plan as text: the titles stay on their lines, escaped, and no line begins with a workflow command', async () => {
    const r = await tmsync('plan', '--no-color');
    expect(r.code, r.err).toBe(0);
    // both hostile texts were read and shown, escaped
    expect(r.out).toContain('x\\n::error file=tmsync.yaml,line=1::injected\\n::add-mask::Plan\\x1b]0;pwned\\x07\\x1b[2K\\r');
    expect(r.out).toContain('Changed on the service since the last sync');
    expect(r.out).toContain('\\x3a:warning::as context');
    expectSafe(r.out);
    expectSafe(r.err);
  });

  it('plan as markdown: the same, in the comment a workflow prints', async () => {
    const r = await tmsync('plan', '--format', 'markdown');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('<!-- tmsync-plan -->');
    expect(r.out).toContain('x\\\\n::error file=tmsync.yaml,line=1::injected\\\\n::add-mask::Plan');
    expectSafe(r.out);
    expectSafe(r.err);
  });

  it('show prints a saved plan as safely, and apply prints the plan and its results safely', async () => {
    const saved = await tmsync('plan', '--out', 'plan.json');
    expect(saved.code, saved.err).toBe(0);
    for (const format of ['text', 'markdown']) {
      const r = await tmsync('show', 'plan.json', '--format', format);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain('add-mask');
      expectSafe(r.out);
    }
    const a = await tmsync('apply', '--auto-approve');
    expect(a.code, a.err).toBe(0);
    expect(a.out).toContain('add-mask');
    expectSafe(a.out);
    expectSafe(a.err);
  });

  it('pull prints what it did with the hostile items safely, and validate then has nothing unsafe to say', async () => {
    const p = await tmsync('pull', '--prefer', 'remote');
    expect(p.code, p.err).toBe(0);
    expectSafe(p.out);
    expectSafe(p.err);
    const v = await tmsync('validate');
    expectSafe(v.out);
    expectSafe(v.err);
  });
});
