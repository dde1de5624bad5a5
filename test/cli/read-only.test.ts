import { execFile, execFileSync } from 'node:child_process';
import { access, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExamples } from '../apply/helpers.js';

/**
 * A repository on a read-only file system, for real: the CLI (dist/) runs in a mount namespace of
 * its own (`unshare`, no root needed where user namespaces are allowed) where the repository is
 * bind-mounted read-only. Where that cannot be made, the test says so and is skipped.
 */
const CLI = resolve(import.meta.dirname, '../../bin/tmsync.js');

function canMountReadOnly(): boolean {
  let dir: string | undefined;
  try {
    dir = execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim();
    execFileSync('unshare', ['-rm', 'sh', '-c', 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"', 'sh', dir], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  } finally {
    if (dir) execFileSync('rm', ['-rf', dir]);
  }
}
const readOnlyMounts = canMountReadOnly();

/** Runs the CLI in `root`, mounted read-only in a namespace of its own (the host sees no mount). */
function tmsyncReadOnly(root: string, args: string[]): Promise<{ code: number; out: string; err: string }> {
  const script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && cd "$1" && shift && exec "$@"';
  return new Promise((done) => {
    execFile(
      'unshare',
      ['-rm', 'sh', '-c', script, 'sh', root, process.execPath, CLI, ...args],
      { env: { ...process.env, TMSYNC_API_KEY: 'read-only-test-key', NO_COLOR: '1' }, timeout: 60_000 },
      (error, out, err) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err }),
    );
  });
}

describe.skipIf(!readOnlyMounts)('a repository on a read-only file system', () => {
  let root: string;
  beforeAll(async () => {
    await access(join(import.meta.dirname, '../../dist/cli/main.js'));
    // nothing listens there: the commands must fail before their first request
    root = await copyExamples('http://127.0.0.1:9/api/v1');
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it.each([['apply', '--auto-approve'], ['pull']])('%s says EROFS and the path of .tmsync/, not ENOENT', async (...args) => {
    const r = await tmsyncReadOnly(root, args);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`cannot create the directory ${join(root, '.tmsync')}: the file system is read-only (EROFS)`);
    expect(r.err).not.toContain('ENOENT');
    expect(r.err).not.toContain('no such file');
  });
});

describe('makeDirectory', () => {
  it("names the error of the first directory it could not make where Node's recursive mkdir says ENOENT", async () => {
    const { makeDirectory } = await import('../../src/repository/file-ops.js');
    const made: string[] = [];
    const mkdir = (async (path: string, options?: { recursive?: boolean }) => {
      made.push(`${options?.recursive ? 'mkdir -p' : 'mkdir'} ${path}`);
      if (options?.recursive) throw Object.assign(new Error(`ENOENT: no such file or directory, mkdir '${path}'`), { code: 'ENOENT' });
      throw Object.assign(new Error(`EROFS: read-only file system, mkdir '${path}'`), { code: 'EROFS' });
    }) as unknown as typeof import('node:fs/promises').mkdir;
    const dir = join(tmpdir(), 'tmsync-no-such-parent', 'repo', '.tmsync');
    await expect(makeDirectory(dir, mkdir)).rejects.toMatchObject({ code: 'EROFS' });
    // the first missing directory from the top: the temporary directory exists, its child does not
    expect(made).toEqual([`mkdir -p ${dir}`, `mkdir ${join(tmpdir(), 'tmsync-no-such-parent')}`]);
  });
});
