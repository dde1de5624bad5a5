import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoConfigYaml } from '../support/demo-config.js';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { parsePlanFile, type Plan } from '../../src/plan/index.js';
import { seededEmulator } from '../support/emulator.js';
import { TEST_DIALECT } from '../dialect.js';

const API_KEY = 'changed-since-e2e-secret-key';
const FOLDERS = 24;
const CASES_PER_FOLDER = 12;

async function tmsync(cwd: string, ...args: string[]) {
  return runCli(args, { cwd, env: { TMSYNC_API_KEY: API_KEY } });
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=tmsync test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });
}

/** The requests since the log was cleared, as `METHOD path?query`. */
function requests(emu: RunningEmulator): string[] {
  return emu.requestLog().map((e) => `${e.method} ${e.path}`);
}

/** A request for a later page of a list, by the cursor the live dialect's pages end with. */
const CURSOR = /([?&])cursor=[^&]*&?/;

/** The request for the list's first page that the later page `request` continues. */
function firstPageOf(request: string): string {
  return request.replace(CURSOR, '$1').replace(/[?&]$/, '');
}

describe('tmsync plan --changed-since against the emulator', () => {
  let emu: RunningEmulator;
  let work: string;
  /** the tests repository: a subfolder of the git work tree */
  let root: string;

  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    work = await mkdtemp(join(tmpdir(), 'tmsync-changed-since-'));
    root = join(work, 'qa');
    const files: Record<string, string> = {
      'tmsync.yaml': demoConfigYaml(emu.baseUrl, { rate_limit: 2000 }),
      'step_groups/login.yaml': 'title: Log in\nsteps:\n  - action: Open /login\n    expected: The form shows\n',
      'step_groups/logout.yaml': 'title: Log out\nsteps:\n  - action: Click log out\n    expected: Signed out\n',
    };
    for (let f = 0; f < FOLDERS; f++) {
      for (let c = 0; c < CASES_PER_FOLDER; c++) {
        files[`cases/Area ${f}/case-${c}.yaml`] = `title: Case ${f}.${c}\ndescription: Checks ${f}.${c}\nsteps:\n  - use: login\n  - action: Step ${c}\n    expected: Works\n`;
      }
    }
    for (const [file, text] of Object.entries(files)) {
      await mkdir(join(root, file, '..'), { recursive: true });
      await writeFile(join(root, file), text);
    }
    await writeFile(join(work, 'README.md'), 'not part of the tests repository\n');
    const applied = await tmsync(root, 'apply', '--auto-approve');
    expect(applied.code, applied.err).toBe(0);
    git(work, 'init', '-q', '-b', 'main');
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '-m', 'tests');
  }, 120_000);

  afterAll(async () => {
    await emu?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("plans exactly an edit, a new case and a move out of another folder in 12 requests (and the live dialect's later pages of those lists), reading only what the changed files name", async () => {
    const edited = 'cases/Area 3/case-4.yaml';
    const editedText = await readFile(join(root, edited), 'utf8');
    const editedId = /^id: (\S+)$/m.exec(editedText)![1];
    await writeFile(join(root, edited), editedText.replace('description: Checks 3.4', 'description: Checks 3.4 again'));
    await writeFile(join(root, 'cases/Area 5/brand-new.yaml'), 'title: Brand new\n');
    const movedFrom = 'cases/Area 7/case-1.yaml';
    const movedId = /^id: (\S+)$/m.exec(await readFile(join(root, movedFrom), 'utf8'))![1];
    git(work, 'mv', `qa/${movedFrom}`, 'qa/cases/Area 9/case-1-moved.yaml');
    // a change outside the tests repository is not a file of the plan
    await writeFile(join(work, 'README.md'), 'changed\n');

    emu.clearRequestLog();
    const r = await tmsync(root, 'plan', '--changed-since', 'main', '--format', 'json');
    expect(r.code, r.err).toBe(0);
    const plan: Plan = parsePlanFile(r.out);
    expect(plan.operations.map((op) => op.key).sort()).toEqual(
      ['create_case:cases/Area 5/brand-new.yaml', 'move_case:cases/Area 9/case-1-moved.yaml', 'update_case:cases/Area 3/case-4.yaml'].sort(),
    );
    expect(plan.summary).toEqual({ create: 1, update: 1, move: 1, delete: 0, adopt: 0 });
    // the README outside the tests repository is not counted; the move is one removal and one addition
    expect(plan.warnings.find((w) => w.code === 'changed_since')?.message).toContain('planned only the 4 files changed since main');
    expect(plan.unmanaged.filter((u) => u.itemType === 'case')).toEqual([]);

    // the live dialect caps its pages (test/dialect.ts): the reads are the first pages, and every
    // later page continues one of them; the document dialect's pages hold each of these lists whole
    const log = requests(emu).filter((l) => !CURSOR.test(l));
    const laterPages = requests(emu).filter((l) => CURSOR.test(l));
    if (TEST_DIALECT === 'document') expect(laterPages).toEqual([]);
    for (const l of laterPages) expect(log, l).toContain(firstPageOf(l));
    expect(laterPages.every((l) => l.startsWith('GET '))).toBe(true);
    expect(log.every((l) => l.startsWith('GET '))).toBe(true);
    expect(log.length).toBeLessThanOrEqual(15);
    const caseReads = log.filter((l) => /\/test_cases(\?|\/|$)/.test(l.split(' ')[1]) && !l.includes('/test_cases/types') && !/\/test_cases\/(statuses|priorities|automation_types)/.test(l));
    const project = /projects\/([^/]+)\//.exec(caseReads[0])![1];
    const folder5 = /folder_id=([^&]+)/.exec(caseReads.find((l) => l.includes('title__CONTAINS=Brand'))!)![1];
    expect(caseReads.sort()).toEqual(
      [
        `GET /api/v1/projects/${project}/test_cases?folder_id=${folder5}&title__CONTAINS=Brand+new&page_size=100`,
        `GET /api/v1/projects/${project}/test_cases?search=${editedId}&page_size=100`,
        `GET /api/v1/projects/${project}/test_cases?search=${movedId}&page_size=100`,
      ].sort(),
    );
    // the folder tree and the step group list, but no step group GET, no test plans, no run statuses
    expect(log.filter((l) => /\/step_groups\//.test(l))).toEqual([]);
    expect(log.filter((l) => /test_plans|test_runs\/statuses|run_statuses/.test(l))).toEqual([]);
    expect(log.filter((l) => /\/folders(\?|$)/.test(l.split(' ')[1]))).toHaveLength(1);
    expect(log, log.join("\n")).toHaveLength(12);
  });

  it('lists the case of a deleted file as unmanaged, as the full plan does without --prune, and reads it by its old id', async () => {
    const deleted = 'cases/Area 11/case-2.yaml';
    const id = /^id: (\S+)$/m.exec(await readFile(join(root, deleted), 'utf8'))![1];
    await rm(join(root, deleted));
    emu.clearRequestLog();
    const r = await tmsync(root, 'plan', '--changed-since', 'main', '--format', 'json');
    expect(r.code, r.err).toBe(0);
    const plan = parsePlanFile(r.out);
    expect(plan.unmanaged.filter((u) => u.itemType === 'case').map((u) => u.humanId)).toEqual([id]);
    expect(plan.operations.some((op) => op.kind === 'delete_case')).toBe(false);
    expect(requests(emu).filter((l) => l.includes(`search=${id}`))).toHaveLength(1);

    const full = await tmsync(root, 'plan', '--format', 'json');
    const fullPlan = parsePlanFile(full.out);
    expect(fullPlan.unmanaged.filter((u) => u.itemType === 'case').map((u) => u.humanId)).toEqual([id]);
    expect(fullPlan.operations.filter((op) => op.kind.endsWith('_case')).map((op) => op.key).sort()).toEqual(plan.operations.map((op) => op.key).sort());
  });

  it('plans a changed step group file with one GET of that group and says the cases using it elsewhere are not planned', async () => {
    // without the read cache of the earlier plans, which holds the group's current copy
    await rm(join(root, '.tmsync/cache'), { recursive: true, force: true });
    const file = join(root, 'step_groups/logout.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('Signed out', 'Signed out, back on the home page'));
    emu.clearRequestLog();
    const r = await tmsync(root, 'plan', '--changed-since', 'main', '--format', 'json');
    expect(r.code, r.err).toBe(0);
    const plan = parsePlanFile(r.out);
    expect(plan.operations.map((op) => op.key)).toContain('update_step_group:logout');
    expect(plan.warnings.find((w) => w.code === 'changed_since_step_group')?.file).toBe('step_groups/logout.yaml');
    const logoutId = /^id: (\S+)$/m.exec(await readFile(file, 'utf8'))![1];
    const gets = requests(emu).filter((l) => /\/step_groups\/[^?]+/.test(l));
    expect(gets).toHaveLength(1);
    expect(gets[0]).toMatch(/\/step_groups\/[0-9a-f-]{36}$/);
    expect(plan.remoteVersions[`step_group:${gets[0].split('/').pop()}`]).toBeDefined();
    expect(logoutId).toMatch(/^DEMO-SG-/);
    await writeFile(file, (await readFile(file, 'utf8')).replace('Signed out, back on the home page', 'Signed out'));
  });

  it('refuses --prune with --changed-since before reading anything', async () => {
    emu.clearRequestLog();
    const r = await tmsync(root, 'plan', '--changed-since', 'main', '--prune');
    expect(r.code).toBe(1);
    expect(r.err).toContain('--prune cannot be combined with --changed-since');
    expect(requests(emu)).toEqual([]);
  });

  it('says what to fix for a ref git does not know, and outside a git repository', async () => {
    const unknown = await tmsync(root, 'plan', '--changed-since', 'no-such-branch');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('git does not know "no-such-branch"');
    expect(unknown.err).toContain('fetch');

    const outside = await mkdtemp(join(tmpdir(), 'tmsync-no-git-'));
    try {
      await writeFile(join(outside, 'tmsync.yaml'), `project: DEMO\nbase_url: ${emu.baseUrl}\n`);
      const r = await tmsync(outside, 'plan', '--changed-since', 'main');
      expect(r.code).toBe(1);
      expect(r.err).toContain('needs a git repository');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('plans everything, with a note, when tmsync.yaml itself changed', async () => {
    const cfg = join(root, 'tmsync.yaml');
    const before = await readFile(cfg, 'utf8');
    await writeFile(cfg, `${before}# a comment\n`);
    try {
      const r = await tmsync(root, 'plan', '--changed-since', 'main', '--format', 'json');
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain('tmsync.yaml changed since main');
      expect(parsePlanFile(r.out).warnings.map((w) => w.code)).not.toContain('changed_since');
    } finally {
      await writeFile(cfg, before);
    }
  });

  it('git-ignores the read cache it keeps under .tmsync/', async () => {
    expect(await readFile(join(root, '.tmsync/cache/reads.json'), 'utf8')).toContain('"format_version":1');
    expect(git(work, 'status', '--porcelain', '--untracked-files=all')).not.toContain('.tmsync');
  });
});

describe('tmsync plan --changed-since and a changed _folder.yaml', () => {
  let emu: RunningEmulator;
  let root: string;
  const ops = (plan: Plan) => plan.operations.map((op) => op.key).sort();

  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    root = await mkdtemp(join(tmpdir(), 'tmsync-changed-folder-'));
    const files: Record<string, string> = {
      'tmsync.yaml': demoConfigYaml(emu.baseUrl, { rate_limit: 2000 }),
      'cases/Payments/refund.yaml': 'title: Refund\n',
      'cases/Payments/Cards/visa.yaml': 'title: Visa\n',
      'cases/Other/search.yaml': 'title: Search\n',
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(join(root, file, '..'), { recursive: true });
      await writeFile(join(root, file), text);
    }
    expect((await tmsync(root, 'apply', '--auto-approve')).code).toBe(0);
    // the folder's name on the service differs from its directory's: only _folder.yaml ties them
    const folderFile = join(root, 'cases/Payments/_folder.yaml');
    await writeFile(folderFile, `${await readFile(folderFile, 'utf8')}name: Payments Team\n`);
    const renamed = await tmsync(root, 'apply', '--auto-approve');
    expect(renamed.code, renamed.err).toBe(0);
    git(root, 'init', '-q', '-b', 'main');
    git(root, 'add', '-A');
    git(root, 'commit', '-q', '-m', 'tests');
  }, 120_000);

  afterAll(async () => {
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('plans a deleted _folder.yaml (id and name) as the full plan does: the folder created, its cases moved', async () => {
    git(root, 'rm', '-q', 'cases/Payments/_folder.yaml');
    git(root, 'commit', '-q', '-m', 'no folder file');
    const full = await tmsync(root, 'plan', '--format', 'json');
    expect(full.code, full.err).toBe(0);
    const fullPlan = parsePlanFile(full.out);
    expect(ops(fullPlan)).toContain('create_folder:Payments');
    expect(fullPlan.operations.filter((op) => op.kind === 'move_case' || op.kind === 'update_case').length).toBeGreaterThan(0);

    const changed = await tmsync(root, 'plan', '--changed-since', 'HEAD~1', '--format', 'json', '--detailed-exitcode');
    expect(changed.code, changed.err).toBe(2);
    const plan = parsePlanFile(changed.out);
    expect(ops(plan)).toEqual(ops(fullPlan));
    expect(plan.warnings.find((w) => w.code === 'changed_since')?.message).toContain('planned only the 1 file changed since HEAD~1 and the');
    git(root, 'revert', '--no-edit', 'HEAD');
  });

  it('plans an edited _folder.yaml as a change to its folder', async () => {
    const folderFile = join(root, 'cases/Payments/_folder.yaml');
    const before = await readFile(folderFile, 'utf8');
    await writeFile(folderFile, before.replace('name: Payments Team', 'name: Payments Squad'));
    try {
      const changed = await tmsync(root, 'plan', '--changed-since', 'HEAD', '--format', 'json');
      expect(changed.code, changed.err).toBe(0);
      const full = await tmsync(root, 'plan', '--format', 'json');
      expect(ops(parsePlanFile(changed.out))).toEqual(ops(parsePlanFile(full.out)));
      expect(ops(parsePlanFile(changed.out))).toEqual([expect.stringMatching(/^update_folder:/)]);
    } finally {
      await writeFile(folderFile, before);
    }
  });
});
