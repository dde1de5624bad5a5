import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { demoConfigYaml } from '../support/demo-config.js';
import { parsePlanFile, PLAN_COMMENT_MARKER, PLAN_FORMAT_VERSION } from '../../src/plan/index.js';
import { seededEmulator } from '../support/emulator.js';

const API_KEY = 'plan-e2e-secret-key';

/** A small tests repository: two folders, three cases, one step group. */
async function smallRepository(baseUrl: string): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tmsync-plan-e2e-'));
  const files: Record<string, string> = {
    'tmsync.yaml': demoConfigYaml(baseUrl, { rate_limit: 500 }),
    'step_groups/login.yaml': 'title: Log in\nsteps:\n  - action: Open /login\n    expected: The form shows\n',
    'cases/Auth/valid-login.yaml': 'title: Valid login\nstatus: Ready\nsteps:\n  - use: login\n  - action: Submit\n    expected: Signed in\n',
    'cases/Auth/locked.yaml': 'title: Locked account\ndescription: Three wrong passwords lock the account.\n',
    'cases/Checkout/Payments/saved-card.yaml': 'title: Pay with a saved card\nowner: ana@example.com\n',
  };
  for (const [file, text] of Object.entries(files)) {
    await mkdir(join(root, file, '..'), { recursive: true });
    await writeFile(join(root, file), text);
  }
  return root;
}

async function tmsync(root: string, ...args: string[]) {
  return runCli(args, { cwd: root, env: { TMSYNC_API_KEY: API_KEY } });
}

describe('tmsync plan against the emulator', () => {
  let emu: RunningEmulator;
  let root: string;
  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    root = await smallRepository(emu.baseUrl);
  });
  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('prints a text plan of what a fresh repository creates and exits 2 with --detailed-exitcode', async () => {
    const r = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(r.code).toBe(2);
    expect(r.out).toContain('+ folder Checkout/Payments');
    expect(r.out).toContain('+ case Auth › Valid login');
    expect(r.out).toContain('Plan: 7 to create, 0 to update, 0 to move, 0 to delete.');
    expect(r.out + r.err).not.toContain(API_KEY);
    expect(r.out).not.toContain('\u001b[');
  });

  it('exits 0 with changes pending when --detailed-exitcode is not given', async () => {
    expect((await tmsync(root, 'plan')).code).toBe(0);
  });

  it('prints markdown for a pull-request comment', async () => {
    const r = await tmsync(root, 'plan', '--format', 'markdown');
    expect(r.code).toBe(0);
    expect(r.out.split('\n')[0]).toBe(PLAN_COMMENT_MARKER);
    expect(r.out).toContain('<details><summary>+ Create (7)</summary>');
  });

  it('saves a versioned JSON plan with --out that records the repository hash and holds no key', async () => {
    const r = await tmsync(root, 'plan', '--format', 'json', '--out', 'plan.json');
    expect(r.code).toBe(0);
    const stdout = JSON.parse(r.out);
    expect(stdout.format_version).toBe(PLAN_FORMAT_VERSION);
    const text = await readFile(join(root, 'plan.json'), 'utf8');
    expect(text).not.toContain(API_KEY);
    const saved = parsePlanFile(text);
    expect(saved.contentHash).toMatch(/\S{16,}/);
    expect(saved.summary.create).toBe(7);
    expect(r.err).toContain('Saved the plan to plan.json');
    await rm(join(root, 'plan.json'));
  });

  it("shows the values a new case sets in every rendering: text, markdown, --json, the saved plan and `show` of it", async () => {
    const steps = '1. Open /login\n   expect: The form shows\n   from step group login\n2. Submit\n   expect: Signed in';
    const text = await tmsync(root, 'plan', '--no-compact', '--out', 'shown.json');
    expect(text.code).toBe(0);
    expect(text.out).toContain('status: "Ready"');
    expect(text.out).toContain('from step group login');
    expect((await tmsync(root, 'plan', '--format', 'markdown', '--no-compact')).out).toContain('from step group login');
    type Doc = { operations: { kind: string; write_back?: { file: string }; changes?: { field: string; to: string }[] }[] };
    const created = (doc: Doc) => doc.operations.find((o) => o.kind === 'create_case' && o.write_back?.file === 'cases/Auth/valid-login.yaml')?.changes;
    const json = await tmsync(root, 'plan', '--format', 'json');
    expect(created(JSON.parse(json.out) as Doc)).toContainEqual({ field: 'steps', from: '', to: steps });
    const saved = await readFile(join(root, 'shown.json'), 'utf8');
    expect(created(JSON.parse(saved) as Doc)).toContainEqual({ field: 'steps', from: '', to: steps });
    expect(created(JSON.parse((await tmsync(root, '--json', 'plan')).out) as Doc)).toContainEqual({ field: 'steps', from: '', to: steps });
    // the saved plan shown is the plan printed
    const shown = await tmsync(root, 'show', 'shown.json', '--no-compact');
    expect(shown.code).toBe(0);
    expect(shown.out).toBe(text.out);
    await rm(join(root, 'shown.json'));
  });

  it('puts the JSON plan on stdout and the text on stderr with --json', async () => {
    const r = await tmsync(root, '--json', 'plan');
    expect(JSON.parse(r.out).format_version).toBe(PLAN_FORMAT_VERSION);
    expect(r.err).toContain('Plan: 7 to create');
  });

  it('plans nothing after apply, then exactly the edits made to the files', async () => {
    const applied = await tmsync(root, 'apply', '--auto-approve');
    expect(applied.code, applied.err).toBe(0);
    const clean = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(clean.code, clean.err).toBe(0);
    expect(clean.out).toContain('No changes. The service matches the repository.');

    // a title changed with the id kept, and a case moved to another folder
    const validLogin = join(root, 'cases/Auth/valid-login.yaml');
    await writeFile(validLogin, (await readFile(validLogin, 'utf8')).replace('title: Valid login', 'title: Sign in with a valid password'));
    const locked = await readFile(join(root, 'cases/Auth/locked.yaml'), 'utf8');
    await rm(join(root, 'cases/Auth/locked.yaml'));
    await writeFile(join(root, 'cases/Checkout/locked.yaml'), locked);
    const edited = await tmsync(root, 'plan', '--detailed-exitcode');
    expect(edited.code, edited.err).toBe(2);
    expect(edited.out).toMatch(/~ case DEMO-\d+ Auth › Sign in with a valid password/);
    expect(edited.out).toContain('title: "Valid login" → "Sign in with a valid password"');
    expect(edited.out).toMatch(/→ case DEMO-\d+ Checkout › Locked account {2}\(moved from Auth\)/);
    expect(edited.out).toContain('Plan: 0 to create, 1 to update, 1 to move, 0 to delete.');
  });

  it('reports a case the repository no longer has as unmanaged, and deletes it only with --prune', async () => {
    await rm(join(root, 'cases/Checkout/Payments/saved-card.yaml'));
    const plain = await tmsync(root, 'plan');
    expect(plain.out).toContain('Not managed by this repository (--prune deletes them):');
    expect(plain.out).toMatch(/case DEMO-\d+ Checkout\/Payments › Pay with a saved card/);
    const pruned = await tmsync(root, 'plan', '--prune', '--format', 'markdown');
    expect(pruned.out).toContain('> [!CAUTION]');
    expect(pruned.out).toContain('1 to delete');
  });

  it('exits 1 and names the file and line of a status the service does not know, with the valid names', async () => {
    const file = join(root, 'cases/Auth/valid-login.yaml');
    const before = await readFile(file, 'utf8');
    await writeFile(file, before.replace('status: Ready', 'status: Redy'));
    try {
      const r = await tmsync(root, 'plan', '--detailed-exitcode');
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/cases\/Auth\/valid-login\.yaml:\d+:\d+ unknown status "Redy"; valid: .*Ready/);
      expect(r.out).toBe('');
    } finally {
      await writeFile(file, before);
    }
  });

  it('exits 1 on a file the loader rejects, listing it and printing no plan', async () => {
    const file = join(root, 'cases/Auth/broken.yaml');
    await writeFile(file, 'title: [unclosed\n');
    try {
      const r = await tmsync(root, 'plan', '--json');
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/cases\/Auth\/broken\.yaml:\d+:\d+ /);
      expect(JSON.parse(r.out).problems.length).toBeGreaterThan(0);
    } finally {
      await rm(file);
    }
  });

  it('exits 1 for an id the service does not have, naming the file', async () => {
    const file = join(root, 'cases/Auth/ghost.yaml');
    await writeFile(file, 'id: DEMO-9999\ntitle: Ghost\n');
    try {
      const r = await tmsync(root, 'plan');
      expect(r.code).toBe(1);
      expect(r.err).toContain('cases/Auth/ghost.yaml:1:1 test case "Ghost" has id DEMO-9999, which the service does not have');
    } finally {
      await rm(file);
    }
  });
});
