import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function repo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tmsync-validate-'));
  dirs.push(dir);
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, rel)), { recursive: true });
    await writeFile(join(dir, rel), content);
  }
  return dir;
}

const CLEAN = {
  'tmsync.yaml': 'project: SHOP\n',
  'cases/A/a.yaml': 'title: A\nsteps:\n  - use: g\n',
  'cases/A/B/b.yaml': 'title: B\n',
  'step_groups/g.yaml': 'title: G\nsteps:\n  - action: x\n    expected: y\n',
};

describe('tmsync validate', () => {
  it('exits 0 on a clean repository and says what it checked', async () => {
    const dir = await repo(CLEAN);
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'validate', dir], io, '/')).toBe(0);
    expect(io.out).toEqual([]);
    expect(io.err).toEqual(['Valid: 2 test cases in 2 folders, 1 step group.']);
  });

  it('prints a problem that quotes a title on its line, control characters escaped, none a workflow command', async () => {
    const title = '"Dup\\n::error file=tmsync.yaml,line=1::injected\\e]0;pwned\\a"';
    const dir = await repo({ ...CLEAN, 'cases/A/one.yaml': `title: ${title}\n`, 'cases/A/two.yaml': `title: ${title}\n` });
    const io = memoryIo({ GITHUB_ACTIONS: 'true' });
    expect(await main(['node', 'tmsync', 'validate', dir], io, dir)).toBe(1);
    const err = io.err.join('\n');
    expect(err).toContain('Dup\\n::error file=tmsync.yaml,line=1::injected\\x1b]0;pwned\\x07');
    // the annotation is the one line tmsync means as a workflow command: its message is escaped
    const commands = err.split('\n').filter((l) => /^\s*::/.test(l));
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands) expect(c).toMatch(/^::error file=cases\/A\/(one|two)\.yaml,line=\d+,col=\d+,title=tmsync [a-z_]+::[^\n]*$/);
    // eslint-disable-next-line no-control-regex
    expect(err).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('exits 1 and lists every problem as file:line:col relative to the current directory', async () => {
    const dir = await repo({ ...CLEAN, 'cases/A/bad.yaml': 'title: ""\nstep: []\n', 'cases/A/worse.yaml': 'title: [\n' });
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'validate', 'sub/..'], io, dir)).toBe(1);
    expect(io.err).toEqual([
      'cases/A/bad.yaml:1:8 `title` must not be empty',
      'cases/A/bad.yaml:2:1 unknown key `step` (did you mean `steps`?)',
      'cases/A/worse.yaml:2:1 YAML syntax error: Flow sequence in block collection must be sufficiently indented and end with a ] (check the indentation and closing brackets or quotes)',
      '3 problems; fix the files listed and run `tmsync validate` again.',
    ]);
  });

  it('validates the current directory when DIR is left out', async () => {
    const dir = await repo({ ...CLEAN, 'cases/A/bad.yaml': 'title: 1\n' });
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'validate'], io, dir)).toBe(1);
    expect(io.err[0]).toBe('cases/A/bad.yaml:1:8 `title` must be a text, not a number (quote it: "1")');
  });

  it('gives the problems as objects on stdout with --json, warnings marked by severity', async () => {
    const dir = await repo({
      ...CLEAN,
      'tmsync.yaml': 'project: SHOP\nscope: [A]\n',
      'cases/Old/o.yaml': 'title: O\n',
      'cases/A/c.yaml': 'title: C\nstep_s: 1\n',
    });
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'validate', dir, '--json'], io, '/')).toBe(1);
    expect(io.out).toHaveLength(1);
    const body = JSON.parse(io.out[0]) as { valid: boolean; problems: Record<string, unknown>[] };
    expect(body.valid).toBe(false);
    expect(body.problems).toEqual([
      {
        file: 'cases/A/c.yaml',
        line: 2,
        col: 1,
        code: 'unknown_key',
        message: 'unknown key `step_s`',
        hint: 'did you mean `steps`?',
        severity: 'error',
      },
      {
        file: 'cases/Old/o.yaml',
        line: 1,
        col: 1,
        code: 'outside_scope',
        message: 'folder `Old` (cases/Old) is outside `scope` (A): its 1 test case file is not managed',
        hint: 'add `Old` to `scope` in tmsync.yaml to manage it',
        severity: 'warning',
      },
    ]);
  });

  it('passes with exit 0 when there are only warnings, and shows them', async () => {
    const dir = await repo({ ...CLEAN, 'tmsync.yaml': 'project: SHOP\nscope: [A]\n', 'cases/Old/o.yaml': 'title: O\n' });
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'validate', dir], io, dir)).toBe(0);
    expect(io.err[0]).toMatch(/^cases\/Old\/o\.yaml:1:1 warning: folder `Old`/);
    expect(io.err[1]).toBe('Valid: 2 test cases in 2 folders, 1 step group (1 warning).');
  });

  it('reports the problems of tmsync.yaml itself, and reads the file given with --config', async () => {
    const dir = await repo({ ...CLEAN, 'ci/tmsync.yaml': 'project: SHOP\ncases_dir: ../cases\nrate_limit: fast\n' });
    const io = memoryIo();
    expect(await main(['node', 'tmsync', '--config', 'ci/tmsync.yaml', 'validate'], io, dir)).toBe(1);
    expect(io.err.slice(0, 2)).toEqual([
      'ci/tmsync.yaml:2:12 `cases_dir` must be a directory inside the repository, relative to tmsync.yaml',
      'ci/tmsync.yaml:3:13 `rate_limit` must be a number, not a text',
    ]);
  });

  it('fails with a hint to run tmsync init when there is no tmsync.yaml', async () => {
    const dir = await repo({ 'cases/A/a.yaml': 'title: A\n' });
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'validate', dir], io, '/')).toBe(1);
    expect(io.err.join('\n')).toMatch(/no configuration file at .*tmsync\.yaml\nHint: run `tmsync init`/);
  });

  it('exits 1 on a case file link leading outside the repository, naming the link as file:line:col', async () => {
    const dir = await repo(CLEAN);
    const out = await repo({ 'x.yaml': 'title: Outside\n' });
    await symlink(join(out, 'x.yaml'), join(dir, 'cases/A/x.yaml'));
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'validate'], io, dir)).toBe(1);
    expect(io.err[0]).toMatch(/^cases\/A\/x\.yaml:1:1 a symbolic link leading outside the repository/);
  });

  it('exits 1 on a Latin-1 case file, naming the line and column of the bad byte', async () => {
    const dir = await repo(CLEAN);
    await writeFile(join(dir, 'cases/A/latin.yaml'), Buffer.from('title: Caf\xe9\n', 'latin1'));
    const io = memoryIo();
    expect(await main(['node', 'tmsync', 'validate'], io, dir)).toBe(1);
    expect(io.err[0]).toMatch(/^cases\/A\/latin\.yaml:1:11 the file is not valid UTF-8: byte 0xE9/);
  });
});
