import { execFile } from 'node:child_process';
import { relative, resolve, sep } from 'node:path';
import { TmsyncError } from '../errors.js';

/**
 * What git says changed since a ref, for `tmsync plan --changed-since REF`: committed and
 * uncommitted changes (`git diff --name-status -M REF` compares REF with the working tree) plus
 * untracked files that are not ignored. Paths are relative to `root` (the directory of
 * tmsync.yaml, which may be a subfolder of the work tree); files outside it are left out.
 */
export interface GitChanges {
  /** added, modified, type-changed, copied files and the new side of renames, plus untracked files */
  present: string[];
  /** deleted files and the old side of renames, with their text at REF (undefined when unreadable) */
  removed: { file: string; text: string | undefined }[];
}

function git(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    execFile('git', args, { cwd, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err && typeof (err as NodeJS.ErrnoException).code === 'string') {
        // spawn failed: git is not installed
        reject(
          new TmsyncError('git_unavailable', `--changed-since needs git, which could not be run: ${err.message}`, {
            hint: 'install git, or plan without --changed-since',
          }),
        );
        return;
      }
      resolvePromise({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The files changed since `ref`, relative to `root`; the text at REF is read for the removed files `readRemoved` accepts. */
export async function gitChangedFiles(root: string, ref: string, readRemoved: (file: string) => boolean = () => true): Promise<GitChanges> {
  const top = await git(root, ['rev-parse', '--show-toplevel']);
  if (top.code !== 0) {
    throw new TmsyncError('not_a_git_repository', `--changed-since needs a git repository, and ${root} is not inside one`, {
      hint: 'run tmsync from a git checkout of the tests repository, or plan without --changed-since',
    });
  }
  const workTree = top.stdout.trim();
  const verified = await git(root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (verified.code !== 0 || ref.startsWith('-')) {
    throw new TmsyncError('unknown_git_ref', `git does not know "${ref}" (given to --changed-since)`, {
      hint: 'give a branch, tag or commit that exists locally; in CI fetch the base branch first (e.g. `git fetch origin main`, or checkout with fetch-depth: 0)',
      details: { ref },
    });
  }
  const commit = verified.stdout.trim();
  const diff = await git(root, ['-c', 'core.quotepath=off', 'diff', '--name-status', '-M', '-z', '--no-ext-diff', commit, '--', '.']);
  if (diff.code !== 0) throw new TmsyncError('git_failed', `git diff against ${ref} failed: ${diff.stderr.trim()}`, { hint: 'check the repository with `git status`' });
  const untracked = await git(root, ['ls-files', '--others', '--exclude-standard', '-z', '--full-name', '--', '.']);
  if (untracked.code !== 0) throw new TmsyncError('git_failed', `git ls-files failed: ${untracked.stderr.trim()}`, { hint: 'check the repository with `git status`' });

  // git prints work-tree paths; tmsync's are relative to the directory of tmsync.yaml
  const prefix = relative(workTree, resolve(root)).split(sep).join('/');
  const local = (p: string): string | undefined => {
    if (prefix === '') return p;
    return p.startsWith(`${prefix}/`) ? p.slice(prefix.length + 1) : undefined;
  };

  const present = new Set<string>();
  const removedTop: string[] = [];
  const fields = diff.stdout.split('\0');
  for (let i = 0; i < fields.length - 1; ) {
    const status = fields[i++];
    if (status === '') continue;
    if (status.startsWith('R') || status.startsWith('C')) {
      const from = fields[i++];
      const to = fields[i++];
      if (status.startsWith('R')) removedTop.push(from);
      present.add(to);
    } else if (status.startsWith('D')) {
      removedTop.push(fields[i++]);
    } else {
      present.add(fields[i++]);
    }
  }
  for (const p of untracked.stdout.split('\0')) if (p !== '') present.add(p);

  const removed = await Promise.all(
    removedTop
      .filter((p) => local(p) !== undefined)
      .map(async (p) => {
        if (!readRemoved(local(p)!)) return { file: local(p)!, text: undefined };
        const shown = await git(root, ['show', `${commit}:${p}`]);
        return { file: local(p)!, text: shown.code === 0 ? shown.stdout : undefined };
      }),
  );
  return {
    present: [...present].map(local).filter((p): p is string => p !== undefined),
    removed,
  };
}
