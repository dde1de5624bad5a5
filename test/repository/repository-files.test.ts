import { execFileSync } from 'node:child_process';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileWriteBack } from '../../src/apply/write-back.js';
import { TmsyncError } from '../../src/errors.js';
import { CONFIG_DEFAULTS, loadRepository, removeStrayTempFiles, setYamlFields, writeFileAtomic, type FileOps, type TmsyncConfig } from '../../src/repository/index.js';
import { makeRepo } from './helpers.js';

const config: TmsyncConfig = { ...CONFIG_DEFAULTS, defaults: {}, profiles: {} };

const outside: string[] = [];
afterEach(async () => {
  await Promise.all(outside.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A directory outside any repository, holding `files`. */
async function outsideDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tmsync-outside-'));
  outside.push(dir);
  for (const [rel, content] of Object.entries(files)) await writeFile(join(dir, rel), content);
  return dir;
}

const errorOf = async (p: Promise<unknown>): Promise<TmsyncError> => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TmsyncError);
  return err as TmsyncError;
};

describe('symbolic links under cases/ and step_groups/', () => {
  it('refuses a case file link leading outside the repository as an error at the link, and never reads the outside file', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    const out = await outsideDir({ 'secret.yaml': 'title: OUTSIDE SECRET\n' });
    await symlink(join(out, 'secret.yaml'), join(root, 'cases/A/leak.yaml'));
    const { state, problems } = await loadRepository(root, config);
    const p = problems.find((x) => x.code === 'link_outside_repository');
    expect(p).toMatchObject({ file: 'cases/A/leak.yaml', line: 1, col: 1 });
    expect(p?.severity).toBeUndefined();
    expect(JSON.stringify(state)).not.toContain('OUTSIDE SECRET');
  });

  it('refuses a directory link and a step group link leading outside the repository', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n', 'step_groups/g.yaml': 'title: G\nsteps:\n  - action: x\n' });
    const out = await outsideDir({ 'b.yaml': 'title: OUTSIDE\n', 'g2.yaml': 'title: OUTSIDE G\nsteps:\n  - action: y\n' });
    await symlink(out, join(root, 'cases/A/Linked'));
    await symlink(join(out, 'g2.yaml'), join(root, 'step_groups/g2.yaml'));
    const { state, problems } = await loadRepository(root, config);
    const links = problems.filter((x) => x.code === 'link_outside_repository').map((x) => x.file);
    expect(links).toEqual(['cases/A/Linked', 'step_groups/g2.yaml']);
    expect(JSON.stringify(state)).not.toContain('OUTSIDE');
  });

  it('follows a link that stays inside the repository', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n', 'shared/b.yaml': 'title: B\n' });
    await symlink('../../shared/b.yaml', join(root, 'cases/A/b.yaml'));
    const { state, problems } = await loadRepository(root, config);
    expect(problems.filter((x) => x.code === 'link_outside_repository')).toEqual([]);
    expect(state.cases.map((c) => c.title).sort()).toEqual(['A', 'B']);
  });

  it('never writes an id through a link leading outside the repository, and says which id to add by hand', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    const out = await outsideDir({ 'x.yaml': 'title: X\n' });
    await symlink(join(out, 'x.yaml'), join(root, 'cases/A/x.yaml'));
    const err = await errorOf(fileWriteBack(root)('cases/A/x.yaml', 'SHOP-7'));
    expect(err.code).toBe('link_outside_repository');
    expect(err.message).toContain('cases/A/x.yaml');
    expect(err.message).toContain('id: SHOP-7');
    expect(await readFile(join(out, 'x.yaml'), 'utf8')).toBe('title: X\n');
  });

  it('calls a path that leads out by itself (`..`, as a journal record may hold) what it is, not a symbolic link', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    const out = await outsideDir({ 'x.yaml': 'title: X\n' });
    const rel = join('..', out.split('/').pop()!, 'x.yaml');
    const err = await errorOf(fileWriteBack(root)(rel, 'SHOP-7'));
    expect(err.code).toBe('path_outside_repository');
    expect(err.message).toContain(`${rel} is outside the repository`);
    expect(err.message).not.toContain('symbolic link');
    expect(await readFile(join(out, 'x.yaml'), 'utf8')).toBe('title: X\n');
    const direct = await errorOf(writeFileAtomic(join(root, '..', 'elsewhere.yaml'), 'id: x\n', { root }));
    expect(direct.code).toBe('path_outside_repository');
  });

  it('never creates a file through a directory link leading outside the repository', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    const out = await outsideDir({});
    await symlink(out, join(root, 'cases/Out'));
    const err = await errorOf(writeFileAtomic(join(root, 'cases/Out/_folder.yaml'), 'id: x\n', { root }));
    expect(err.code).toBe('link_outside_repository');
    expect(await readdir(out)).toEqual([]);
  });

  it('keeps a link inside the repository a link and writes the id into its target', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n', 'shared/b.yaml': 'title: B\n' });
    await symlink('../../shared/b.yaml', join(root, 'cases/A/b.yaml'));
    await fileWriteBack(root)('cases/A/b.yaml', 'SHOP-2');
    expect((await lstat(join(root, 'cases/A/b.yaml'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(root, 'cases/A/b.yaml'))).toBe('../../shared/b.yaml');
    expect(await readFile(join(root, 'shared/b.yaml'), 'utf8')).toBe('id: SHOP-2\ntitle: B\n');
  });
});

describe('file encodings', () => {
  const latin1 = Buffer.concat([Buffer.from('title: Login\ndescription: caf'), Buffer.from([0xe9]), Buffer.from(' au lait\n')]);

  it('reports a Latin-1 case file as invalid UTF-8 at the line and column of the first bad byte', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    await writeFile(join(root, 'cases/A/latin.yaml'), latin1);
    const { state, problems } = await loadRepository(root, config);
    const p = problems.find((x) => x.file === 'cases/A/latin.yaml');
    expect(p).toMatchObject({ code: 'invalid_encoding', line: 2, col: 17 });
    expect(p?.severity).toBeUndefined();
    expect(p?.message).toContain('0xE9');
    expect(JSON.stringify(state)).not.toContain('\uFFFD');
  });

  it('never rewrites a file that is not valid UTF-8: write-back fails naming the file and the id, bytes unchanged', async () => {
    const root = await makeRepo({});
    await mkdir(join(root, 'cases/A'), { recursive: true });
    await writeFile(join(root, 'cases/A/latin.yaml'), latin1);
    const err = await errorOf(fileWriteBack(root)('cases/A/latin.yaml', 'SHOP-3'));
    expect(err.code).toBe('invalid_encoding');
    expect(err.message).toContain('cases/A/latin.yaml:2:17');
    expect(err.message).toContain('id: SHOP-3');
    expect((await readFile(join(root, 'cases/A/latin.yaml')).then((b) => b.equals(latin1)))).toBe(true);
  });

  it('reads a UTF-8 file with a byte-order mark without a problem', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': '\uFEFFtitle: Café\n' });
    const { state, problems } = await loadRepository(root, config);
    expect(problems).toEqual([]);
    expect(state.cases[0].title).toBe('Café');
  });

  for (const encoding of ['utf-16le', 'utf-16be'] as const) {
    it(`reads a ${encoding.toUpperCase()} file with a byte-order mark correctly and writes an id back in the same encoding`, async () => {
      const text = '\uFEFF# comment\ntitle: Café 日本\n';
      const le = Buffer.from(text, 'utf16le');
      const bytes = encoding === 'utf-16le' ? le : Buffer.from(le).swap16();
      const root = await makeRepo({});
      await mkdir(join(root, 'cases/A'), { recursive: true });
      await writeFile(join(root, 'cases/A/w.yaml'), bytes);
      const { state, problems } = await loadRepository(root, config);
      expect(problems).toEqual([]);
      expect(state.cases[0].title).toBe('Café 日本');
      await fileWriteBack(root)('cases/A/w.yaml', 'SHOP-9');
      const after = await readFile(join(root, 'cases/A/w.yaml'));
      const decoded = encoding === 'utf-16le' ? after.toString('utf16le') : Buffer.from(after).swap16().toString('utf16le');
      expect(decoded).toBe('\uFEFF# comment\nid: SHOP-9\ntitle: Café 日本\n');
    });
  }
});

describe('writing files back', () => {
  it('refuses to write a read-only file, naming it and the id to add by hand, and leaves it unchanged', async () => {
    const root = await makeRepo({ 'cases/A/ro.yaml': 'title: RO\n' });
    await chmod(join(root, 'cases/A/ro.yaml'), 0o444);
    const err = await errorOf(fileWriteBack(root)('cases/A/ro.yaml', 'SHOP-4'));
    expect(err.code).toBe('file_read_only');
    expect(err.message).toContain('cases/A/ro.yaml');
    expect(err.message).toContain('id: SHOP-4');
    expect(await readFile(join(root, 'cases/A/ro.yaml'), 'utf8')).toBe('title: RO\n');
    expect((await stat(join(root, 'cases/A/ro.yaml'))).mode & 0o777).toBe(0o444);
  });

  for (const [kind, make, words] of [
    ['a named pipe', (p: string) => void execFileSync('mkfifo', [p]), 'a named pipe (FIFO)'],
    ['a directory', (p: string) => mkdir(p), 'a directory'],
  ] as const) {
    it(`refuses to replace a path that is ${kind} instead of a regular file, and leaves it and the temporary directory as they were`, async () => {
      const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
      const target = join(root, 'cases/A/b.yaml');
      await make(target);
      const before = await lstat(target);
      const err = await errorOf(writeFileAtomic(target, 'title: B\n', { root }));
      expect(err.code).toBe('not_a_regular_file');
      expect(err.message).toBe(`cases/A/b.yaml is ${words}, not a regular file; tmsync writes only regular files and does not replace it`);
      const after = await lstat(target);
      expect([after.ino, after.mode]).toEqual([before.ino, before.mode]);
      expect(await readdir(join(root, 'cases/A'))).toEqual(['a.yaml', 'b.yaml']);
      expect(await readdir(join(root, '.tmsync/tmp')).catch(() => [])).not.toContainEqual(expect.stringMatching(/\.tmp$/));
    });
  }

  it('refuses to write an id back into a case file that has become a named pipe, without waiting on it, and names the id to add by hand', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    execFileSync('mkfifo', [join(root, 'cases/A/p.yaml')]);
    const err = await errorOf(fileWriteBack(root)('cases/A/p.yaml', 'SHOP-7'));
    expect(err.code).toBe('not_a_regular_file');
    expect(err.message).toContain('cases/A/p.yaml is a named pipe (FIFO)');
    expect(err.message).toContain('add `id: SHOP-7` to cases/A/p.yaml by hand');
    expect((await lstat(join(root, 'cases/A/p.yaml'))).isFIFO()).toBe(true);
  });

  it('keeps the mode of the file it rewrites', async () => {
    const root = await makeRepo({ 'cases/A/p.yaml': 'title: P\n' });
    await chmod(join(root, 'cases/A/p.yaml'), 0o600);
    await fileWriteBack(root)('cases/A/p.yaml', 'SHOP-5');
    expect((await stat(join(root, 'cases/A/p.yaml'))).mode & 0o7777).toBe(0o600);
    expect(await readFile(join(root, 'cases/A/p.yaml'), 'utf8')).toBe('id: SHOP-5\ntitle: P\n');
  });

  it.skipIf(process.getuid?.() !== 0)('keeps the owner and group of the file it rewrites (when run as root, who may give files away)', async () => {
    const root = await makeRepo({ 'cases/A/o.yaml': 'title: O\n' });
    await chown(join(root, 'cases/A/o.yaml'), 4321, 4322);
    await fileWriteBack(root)('cases/A/o.yaml', 'SHOP-6');
    const s = await stat(join(root, 'cases/A/o.yaml'));
    expect([s.uid, s.gid]).toEqual([4321, 4322]);
  });

  it('writes the data to a temporary file under .tmsync/tmp, fsyncs it, and only then renames it over the file', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    const events: string[] = [];
    const nodeFs = await import('node:fs/promises');
    const ops: Partial<FileOps> = {
      open: (async (path: string, flags?: string | number) => {
        const fh = await nodeFs.open(path, flags);
        if (flags !== 'wx') return fh;
        events.push(`open ${path.slice(root.length + 1)}`);
        const sync = fh.sync.bind(fh);
        fh.sync = async () => {
          events.push('sync');
          return sync();
        };
        return fh;
      }) as FileOps['open'],
      rename: async (from, to) => {
        events.push(`rename ${String(from).slice(root.length + 1)} -> ${String(to).slice(root.length + 1)}`);
        return nodeFs.rename(from, to);
      },
    };
    await setYamlFields(join(root, 'cases/A/a.yaml'), { id: 'SHOP-1' }, { root, ops });
    const data = events.filter((e) => !e.includes('.gitignore'));
    expect(data).toHaveLength(3);
    expect(data[0]).toMatch(/^open \.tmsync\/tmp\/a\.yaml\.\d+\.[0-9a-f]+\.tmp$/);
    expect(data[1]).toBe('sync');
    expect(data[2]).toBe(`rename ${data[0].slice(5)} -> cases/A/a.yaml`);
    expect(await readFile(join(root, '.tmsync/tmp/.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });

  it('keeps temporary files out of `git add --all`', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    await setYamlFields(join(root, 'cases/A/a.yaml'), { id: 'SHOP-1' }, { root });
    // what a kill between write and rename leaves
    await writeFile(join(root, '.tmsync/tmp/a.yaml.4194305.abcdef.tmp'), 'partial');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_DIR: join(root, '.git'), GIT_WORK_TREE: root } });
    git('init', '-q');
    git('add', '--all');
    const staged = git('diff', '--cached', '--name-only').split('\n').filter(Boolean);
    expect(staged).toEqual(['cases/A/a.yaml']);
  });

  it('removes temporary files a killed run left, old ones next to files and new ones under .tmsync/tmp, but not a live run\'s', async () => {
    const root = await makeRepo({
      'cases/A/a.yaml': 'title: A\n',
      // an older version's `.NAME.yaml.PID.tmp`, of a process that is gone (above the largest pid)
      'cases/A/.a.yaml.4194305.tmp': 'title: half',
      'cases/A/.b.yaml.4194306.0123abcd.tmp': 'x',
      'step_groups/.g.yaml.4194307.tmp': 'x',
      '.tmsync/tmp/a.yaml.4194305.00aa11.tmp': 'x',
      // the parent process is alive: its temporary file is not a stray
      [`.tmsync/tmp/b.yaml.${process.ppid}.00aa11.tmp`]: 'x',
      'cases/A/.notes.tmp': 'not ours',
    });
    const { strays, problems } = await loadRepository(root, config);
    expect(problems.filter((p) => p.severity !== 'warning')).toEqual([]);
    expect([...strays].sort()).toEqual(['cases/A/.a.yaml.4194305.tmp', 'cases/A/.b.yaml.4194306.0123abcd.tmp', 'step_groups/.g.yaml.4194307.tmp']);
    const removed = await removeStrayTempFiles(root, strays);
    expect(removed.sort()).toEqual([...strays, '.tmsync/tmp/a.yaml.4194305.00aa11.tmp'].sort());
    expect((await readdir(join(root, 'cases/A'))).sort()).toEqual(['.notes.tmp', 'a.yaml']);
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual([`b.yaml.${process.ppid}.00aa11.tmp`]);
  });

  it('reports a full disk while writing as an I/O error naming the file, and leaves no temporary file', async () => {
    const root = await makeRepo({ 'cases/A/a.yaml': 'title: A\n' });
    const nodeFs = await import('node:fs/promises');
    const ops: Partial<FileOps> = {
      open: (async (path: string, flags?: string | number) => {
        const fh = await nodeFs.open(path, flags);
        if (flags === 'wx' && !path.endsWith('.gitignore')) {
          fh.writeFile = async () => {
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
          };
        }
        return fh;
      }) as FileOps['open'],
    };
    const err = await errorOf(setYamlFields(join(root, 'cases/A/a.yaml'), { id: 'SHOP-1' }, { root, ops }));
    expect(err.code).toBe('io_error');
    expect(err.message).toBe('cannot write cases/A/a.yaml: no space left on the device (ENOSPC)');
    expect(await readFile(join(root, 'cases/A/a.yaml'), 'utf8')).toBe('title: A\n');
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });
});

describe('names that are one entry on macOS and Windows', () => {
  it('warns about folders differing only by letter case and files differing only by Unicode normalisation', async () => {
    const root = await makeRepo({
      'cases/Login/a.yaml': 'title: A\n',
      'cases/login/b.yaml': 'title: B\n',
      'cases/C/Caf\u00e9.yaml': 'title: C1\n',
      'cases/C/Cafe\u0301.yaml': 'title: C2\n',
    });
    const { problems } = await loadRepository(root, config);
    const twins = problems.filter((p) => p.code === 'name_twins');
    expect(twins.map((p) => [p.file, p.severity])).toEqual([
      ['cases/C/Caf\u00e9.yaml', 'warning'],
      ['cases/login', 'warning'],
    ]);
    expect(twins[0].message).toContain('Unicode normalisation');
    expect(twins[1].message).toContain('letter case');
  });
});
