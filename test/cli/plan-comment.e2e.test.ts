import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { seededEmulator } from '../support/emulator.js';

const KEY = 'plan-comment-key';
const examples = join(import.meta.dirname, '..', '..', 'examples');

async function tmsync(root: string, ...args: string[]) {
  return runCli(args, { cwd: root, env: { TMSYNC_API_KEY: KEY } });
}

/** Human ids depend on the order creates reach the service; the comment's shape does not. */
const masked = (md: string) => md.replace(/\bDEMO-(SG-)?\d+\b/g, 'DEMO-$1#');

describe('the pull-request comment of the CI workflow', () => {
  let emu: RunningEmulator;
  let root: string;
  beforeAll(async () => {
    emu = await seededEmulator(KEY);
    root = mkdtempSync(join(tmpdir(), 'tmsync-comment-'));
    cpSync(examples, root, { recursive: true, filter: (src) => !src.endsWith(`${join('examples', 'ci')}`) });
    const cfg = join(root, 'tmsync.yaml');
    writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/^base_url:.*$/m, `base_url: ${emu.baseUrl}`).replace(/^rate_limit:.*$/m, 'rate_limit: 200'));
    const applied = await tmsync(root, 'apply', '--auto-approve');
    expect(applied.code, applied.err).toBe(0);
  });
  afterAll(async () => {
    await emu?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('matches its golden file for a pull request that edits, moves and deletes cases', async () => {
    // the pull request: a title edited, a case moved to another folder, a case file removed
    const login = join(root, 'cases', 'Authentication', 'valid-login.yaml');
    writeFileSync(login, readFileSync(login, 'utf8').replace('title: Log in with valid credentials', 'title: Sign in with valid credentials'));
    renameSync(join(root, 'cases', 'Checkout', 'guest-checkout.yaml'), join(root, 'cases', 'Checkout', 'Payments', 'guest-checkout.yaml'));
    rmSync(join(root, 'cases', 'Authentication', 'locked-account.yaml'));

    const r = await tmsync(root, 'plan', '--format', 'markdown', '--prune', '--detailed-exitcode');
    expect(r.code, r.err).toBe(2);
    expect(r.out).not.toContain(KEY);
    const md = masked(r.out);
    expect(md.split('\n')[0]).toBe('<!-- tmsync-plan -->');
    expect(md).toContain('Plan: 0 to create, 1 to update, 1 to move, 1 to delete.');
    await expect(md).toMatchFileSnapshot('../fixtures/ci/plan-comment.md');
  });
});
