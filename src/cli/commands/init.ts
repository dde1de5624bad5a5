import { readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { TmsyncError } from '../../errors.js';
import { GITIGNORE_LINE, starterFiles, writeFileAtomic } from '../../spec/index.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';

export interface InitOptions extends GlobalOptions {
  /** positional: [dir] (default `.`); created when missing */
  args: string[];
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

/**
 * `tmsync init [DIR]`: a starter tests repository. Refuses (and writes nothing) when any of
 * its files exists already; `.gitignore` is appended to, never replaced.
 */
export async function runInit(options: InitOptions, io: CliIo): Promise<number> {
  const dir = resolve(options.cwd, options.args[0] ?? '.');
  const files = starterFiles();
  const present: string[] = [];
  for (const f of files) if (await exists(join(dir, f.path))) present.push(f.path);
  if (present.length > 0) {
    throw new TmsyncError('init_would_overwrite', `${present.join(', ')} already exist${present.length === 1 ? 's' : ''} in ${dir}; nothing was written`, {
      hint: 'run `tmsync init` in an empty directory, or remove those files first',
      details: { existing: present },
    });
  }
  const created: string[] = [];
  for (const f of files) {
    await writeFileAtomic(join(dir, f.path), f.content);
    created.push(f.path);
  }

  const gitignore = join(dir, '.gitignore');
  let previous: string | undefined;
  try {
    previous = await readFile(gitignore, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const updated: string[] = [];
  const hasLine = previous !== undefined && previous.split(/\r?\n/).some((l) => /^\/?\.tmsync\/?\s*$/.test(l));
  if (!hasLine) {
    const sep = previous === undefined || previous === '' || previous.endsWith('\n') ? '' : '\n';
    const header = '# tmsync: apply journal and local state\n';
    await writeFileAtomic(gitignore, `${previous ?? ''}${sep}${header}${GITIGNORE_LINE}\n`);
    (previous === undefined ? created : updated).push('.gitignore');
  }

  if (options.json) io.stdout(jsonOutput({ created, updated }));
  const where = relative(options.cwd, dir) || '.';
  io.stderr(
    [
      `Created a tests repository in ${where}:`,
      ...created.map((f) => `  + ${f}`),
      ...updated.map((f) => `  ~ ${f} (added ${GITIGNORE_LINE})`),
      '',
      'Next: set `project` and `base_url` in tmsync.yaml (or try the emulator: `tmsync serve --seed demo`),',
      'export TMSYNC_API_KEY, then run `tmsync validate` and `tmsync plan`.',
    ].join('\n'),
  );
  return 0;
}
