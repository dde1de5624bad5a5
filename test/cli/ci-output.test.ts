import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubAnnotation } from '../../src/cli/ci-output.js';
import type { codeQualityReport } from '../../src/cli/ci-output.js';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { seededEmulator } from '../support/emulator.js';

const API_KEY = 'ci-output-secret-key';
const dirs: string[] = [];

async function emptyDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tmsync-ci-output-'));
  dirs.push(dir);
  return dir;
}

async function tmsync(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  return runCli(args, { cwd, env: env });
}

/** A repository (in `<checkout>/tests`) with one file that has an unknown key on line 3. */
async function brokenRepository(): Promise<{ checkout: string; repo: string }> {
  const checkout = await emptyDir();
  const repo = join(checkout, 'tests');
  await mkdir(join(repo, 'cases', 'Checkout'), { recursive: true });
  await writeFile(join(repo, 'tmsync.yaml'), 'project: DEMO\n');
  await writeFile(join(repo, 'cases', 'Checkout', 'pay.yaml'), 'title: Pay\ndescription: by card\ncolour: red\n');
  return { checkout, repo };
}

afterAll(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

describe('GitHub Actions annotations', () => {
  it('escapes the message and the properties as workflow commands require', () => {
    const line = githubAnnotation(
      { file: 'cases/a,b:c.yaml', line: 3, col: 7, code: 'unknown_key', message: '100% wrong\nsecond line', hint: 'remove it' },
      'cases/a,b:c.yaml',
    );
    expect(line).toBe('::error file=cases/a%2Cb%3Ac.yaml,line=3,col=7,title=tmsync unknown_key::100%25 wrong%0Asecond line (remove it)');
    expect(githubAnnotation({ file: 'x.yaml', line: 1, col: 1, code: 'w', message: 'm', severity: 'warning' }, 'x.yaml')).toMatch(/^::warning /);
  });

  it('turns validate problems into ::error lines with paths relative to the checkout, only on GitHub Actions', async () => {
    const { checkout, repo } = await brokenRepository();
    const onGithub = await tmsync(repo, { GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: checkout }, 'validate');
    expect(onGithub.code).toBe(1);
    const annotations = onGithub.errLines.filter((l) => l.startsWith('::'));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(/^::error file=tests\/cases\/Checkout\/pay\.yaml,line=3,col=1,title=tmsync [a-z_]+::.*colour/);
    // the plain line people read stays
    expect(onGithub.errLines.some((l) => l.startsWith('cases/Checkout/pay.yaml:3:1 '))).toBe(true);

    const elsewhere = await tmsync(repo, {}, 'validate');
    expect(elsewhere.errLines.some((l) => l.startsWith('::'))).toBe(false);
  });
});

describe('validate --format codequality', () => {
  it('prints a GitLab Code Quality report with paths relative to CI_PROJECT_DIR and a stable fingerprint', async () => {
    const { checkout, repo } = await brokenRepository();
    const first = await tmsync(repo, { CI_PROJECT_DIR: checkout }, 'validate', '--format', 'codequality');
    expect(first.code).toBe(1);
    const report = JSON.parse(first.out) as ReturnType<typeof codeQualityReport>;
    expect(report).toHaveLength(1);
    expect(report[0]).toMatchObject({ severity: 'major', location: { path: 'tests/cases/Checkout/pay.yaml', lines: { begin: 3 } } });
    expect(report[0].description).toContain('colour');
    expect(report[0].check_name).toMatch(/^[a-z_]+$/);
    expect(report[0].fingerprint).toMatch(/^[0-9a-f]{64}$/);
    const again = JSON.parse((await tmsync(repo, { CI_PROJECT_DIR: checkout }, 'validate', '--format', 'codequality')).out) as typeof report;
    expect(again[0].fingerprint).toBe(report[0].fingerprint);
  });

  it('prints an empty report for a clean repository and exits 0', async () => {
    const dir = await emptyDir();
    expect((await tmsync(dir, {}, 'init')).code).toBe(0);
    const r = await tmsync(dir, {}, 'validate', '--format', 'codequality');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual([]);
  });

  it('refuses an unknown format', async () => {
    const dir = await emptyDir();
    expect((await tmsync(dir, {}, 'init')).code).toBe(0);
    const r = await tmsync(dir, {}, 'validate', '--format', 'sarif');
    expect(r.code).toBe(1);
    expect(r.err).toContain("argument 'sarif' is invalid. Allowed choices are text, codequality.");
  });
});

describe('the GitHub job summary of plan and apply', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('appends the plan, then the apply counts, to GITHUB_STEP_SUMMARY', async () => {
    const dir = await emptyDir();
    expect((await tmsync(dir, { TMSYNC_BASE_URL: emu.baseUrl, TMSYNC_API_KEY: API_KEY }, 'init', '--example')).code).toBe(0);
    const summaryFile = join(dir, 'summary.md');
    await writeFile(summaryFile, '# earlier step\n');
    const env = { TMSYNC_API_KEY: API_KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile };
    expect((await tmsync(dir, env, 'plan')).code).toBe(0);
    let text = await readFile(summaryFile, 'utf8');
    expect(text.startsWith('# earlier step\n')).toBe(true);
    expect(text).toContain('### tmsync plan\n\n**Plan: 3 to create, 0 to update, 0 to move, 0 to delete.**');
    expect(text).not.toContain('<!-- tmsync-plan -->');
    expect((await tmsync(dir, env, 'apply', '--auto-approve')).code).toBe(0);
    text = await readFile(summaryFile, 'utf8');
    expect(text).toContain('### tmsync apply\n\n**Apply complete: 3 created, 0 updated, 0 moved, 0 deleted.**');
    expect(text).not.toContain(API_KEY);
  });

  it('lists plan problems in the summary and writes nothing off GitHub Actions', async () => {
    const dir = await emptyDir();
    await mkdir(join(dir, 'cases', 'A'), { recursive: true });
    await writeFile(join(dir, 'tmsync.yaml'), `project: DEMO\nbase_url: ${emu.baseUrl}\n`);
    await writeFile(join(dir, 'cases', 'A', 'bad.yaml'), 'title: Bad\nowner: nobody@example.com\n');
    const summaryFile = join(dir, 'summary.md');
    const onGithub = await tmsync(dir, { TMSYNC_API_KEY: API_KEY, GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summaryFile }, 'plan');
    expect(onGithub.code).toBe(1);
    expect(onGithub.errLines.some((l) => /^::error file=cases\/A\/bad\.yaml,line=\d+,col=\d+,/.test(l))).toBe(true);
    const text = await readFile(summaryFile, 'utf8');
    expect(text).toContain('### tmsync plan failed');
    expect(text).toMatch(/\| `cases\/A\/bad\.yaml:\d+:\d+` \| .*nobody@example\.com/);

    const other = join(dir, 'other.md');
    expect((await tmsync(dir, { TMSYNC_API_KEY: API_KEY, GITHUB_STEP_SUMMARY: other }, 'plan')).code).toBe(1);
    await expect(readFile(other, 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
