import { open as fsOpen, readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TmsyncError } from '../../src/errors.js';
import { writeFilesAtomic, type FileOps } from '../../src/repository/index.js';
import { stageTempFile } from '../../src/repository/atomic-write.js';
import { makeRepo } from './helpers.js';

const exists = (p: string) => stat(p).then(() => true, () => false);
const files = (root: string, n: number) => Array.from({ length: n }, (_, i) => ({ file: join(root, 'cases', `d${i % 3}`, `c${i}.yaml`), content: `title: Case ${i}\n` }));

describe('writeFilesAtomic', () => {
  it('flushes every new file to the disk together before any of them is renamed into place', async () => {
    const root = await makeRepo({});
    const batch = files(root, 7);
    const atFlush: { targets: boolean[]; temps: string[] }[] = [];
    await writeFilesAtomic(batch, {
      root,
      syncFileSystem: async (dir) => {
        atFlush.push({ targets: await Promise.all(batch.map((f) => exists(f.file))), temps: await readdir(dir) });
        return true;
      },
    });
    expect(atFlush).toHaveLength(1);
    expect(atFlush[0].targets.every((e) => !e)).toBe(true);
    expect(atFlush[0].temps.filter((n) => n.endsWith('.tmp'))).toHaveLength(7);
    for (const f of batch) expect(await readFile(f.file, 'utf8')).toBe(f.content);
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });

  it('fsyncs each file on its own when the file system cannot be flushed at once', async () => {
    const root = await makeRepo({});
    const synced: string[] = [];
    const ops: Partial<FileOps> = {
      open: (async (path: string, flags?: string | number) => {
        const fh = await fsOpen(path, flags);
        if (flags === 'r+') {
          const sync = fh.sync.bind(fh);
          fh.sync = async () => {
            synced.push(path);
            await sync();
          };
        }
        return fh;
      }) as FileOps['open'],
    };
    const batch = files(root, 5);
    await writeFilesAtomic(batch, { root, ops, syncFileSystem: async () => false });
    expect(synced).toHaveLength(5);
    for (const f of batch) expect(await readFile(f.file, 'utf8')).toBe(f.content);
  });

  it('renders a file given as a function when its turn comes', async () => {
    const root = await makeRepo({});
    let rendered = 0;
    await writeFilesAtomic(
      [{ file: join(root, 'a.yaml'), content: () => `title: A${++rendered}\n` }],
      { root, syncFileSystem: async () => true },
    );
    expect(await readFile(join(root, 'a.yaml'), 'utf8')).toBe('title: A1\n');
    expect(rendered).toBe(1);
  });

  it('leaves no file written and no temporary file when one write fails before the renames', async () => {
    const root = await makeRepo({});
    const ops: Partial<FileOps> = {
      open: (async (path: string, flags?: string | number) => {
        const fh = await fsOpen(path, flags);
        if (flags === 'wx' && path.includes('c4.yaml.')) {
          fh.writeFile = async () => {
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
          };
        }
        return fh;
      }) as FileOps['open'],
    };
    const batch = files(root, 9);
    const err = (await writeFilesAtomic(batch, { root, ops, parallel: 2, syncFileSystem: async () => true }).catch((e: unknown) => e)) as TmsyncError;
    expect(err).toBeInstanceOf(TmsyncError);
    expect(err.code).toBe('io_error');
    expect(err.message).toContain('cases/d1/c4.yaml');
    for (const f of batch) expect(await exists(f.file)).toBe(false);
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });

  it('takes a temporary file staged ahead with exactly the content instead of writing it again', async () => {
    const root = await makeRepo({});
    const batch = files(root, 4);
    const ahead = await stageTempFile(root, batch[2].content);
    const asked: string[] = [];
    await writeFilesAtomic(batch, {
      root,
      syncFileSystem: async () => true,
      staged: (content) => {
        asked.push(String(content));
        return content === batch[2].content ? ahead : undefined;
      },
    });
    expect(asked).toHaveLength(4);
    for (const f of batch) expect(await readFile(f.file, 'utf8')).toBe(f.content);
    // renamed into place: the staged file is the written one, no other temporary file is left
    expect(await exists(ahead)).toBe(false);
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });

  it('names the file and writes none of the batch when the directory of a staged file cannot be made', async () => {
    const root = await makeRepo({});
    const batch = files(root, 3);
    const ahead = new Map<string, string>();
    for (const f of batch) ahead.set(f.content, await stageTempFile(root, f.content));
    const { mkdir } = await import('node:fs/promises');
    const ops: Partial<FileOps> = {
      mkdir: (async (path: string, opts?: { recursive?: boolean }) => {
        if (path.endsWith('d1')) throw Object.assign(new Error('EACCES: permission denied, mkdir'), { code: 'EACCES', syscall: 'mkdir' });
        return mkdir(path, opts);
      }) as FileOps['mkdir'],
    };
    const err = (await writeFilesAtomic(batch, { root, ops, syncFileSystem: async () => true, staged: (c) => ahead.get(String(c)) }).catch((e: unknown) => e)) as TmsyncError;
    expect(err.code).toBe('io_error');
    expect(err.message).toContain('cases/d1/c1.yaml');
    for (const f of batch) expect(await exists(f.file)).toBe(false);
    expect(await readdir(join(root, '.tmsync/tmp'))).toEqual(['.gitignore']);
  });

  it('refuses a read-only file as writeFileAtomic does, writing none of the batch', async () => {
    const root = await makeRepo({ 'cases/d0/c0.yaml': 'title: old\n' });
    const { chmod } = await import('node:fs/promises');
    await chmod(join(root, 'cases/d0/c0.yaml'), 0o444);
    const batch = files(root, 4);
    const err = (await writeFilesAtomic(batch, { root, syncFileSystem: async () => true }).catch((e: unknown) => e)) as TmsyncError;
    expect(err.code).toBe('file_read_only');
    expect(await readFile(join(root, 'cases/d0/c0.yaml'), 'utf8')).toBe('title: old\n');
    for (const f of batch.slice(1)) expect(await exists(f.file)).toBe(false);
  });
});
