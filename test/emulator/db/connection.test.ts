import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';

const LISTEN = /^tmsync emulator listening on (http:\/\/127\.0\.0\.1:\d+\/api\/v1)$/;
const KEY = 'db-lock-key';
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

interface Served {
  child: ChildProcess;
  baseUrl: string;
}

/** `tmsync serve --db FILE` as a child process; resolves once it listens, or with its exit when it does not start. */
function serve(file: string): Promise<{ served?: Served; exit?: { code: number | null; stderr: string } }> {
  const child = spawn(process.execPath, ['bin/tmsync.js', 'serve', '--port', '0', '--db', file, '--api-key', KEY, '--seed', 'demo'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).once('line', (line) => {
      const m = LISTEN.exec(line);
      if (m) resolve({ served: { child, baseUrl: m[1] } });
    });
    child.once('exit', (code) => resolve({ exit: { code, stderr } }));
  });
}

async function createFolder(baseUrl: string, name: string): Promise<number> {
  const r = await fetch(`${baseUrl}/projects/DEMO/folders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  await r.arrayBuffer();
  return r.status;
}

async function folderNames(baseUrl: string): Promise<string[]> {
  const names: string[] = [];
  let url: string | null = `${baseUrl}/projects/DEMO/folders?page_size=100`;
  while (url) {
    const r = await fetch(url, { headers: { authorization: `Bearer ${KEY}` } });
    const body = (await r.json()) as { data: { folders: { name: string }[] }; links?: { next?: string | null } };
    names.push(...body.data.folders.map((f) => f.name));
    url = body.links?.next ?? null;
  }
  return names;
}

describe.runIf(existsSync('dist/cli/main.js'))('one emulator process per --db file', () => {
  it('refuses a second emulator process on the same --db file with a clear message, while the first serves concurrent writes without a 5xx or a lost write', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmsync-db-lock-'));
    try {
      const file = join(dir, 'emu.sqlite');
      const first = await serve(file);
      expect(first.served, first.exit?.stderr).toBeDefined();
      const second = await serve(file);
      expect(second.served).toBeUndefined();
      expect(second.exit?.code).toBe(1);
      expect(second.exit?.stderr).toContain(`Error: the database ${file} is in use by another emulator process`);
      expect(second.exit?.stderr).toContain('one emulator per --db file');

      const names = Array.from({ length: 40 }, (_, i) => `Concurrent ${i}`);
      const statuses = await Promise.all(names.map((n) => createFolder(first.served!.baseUrl, n)));
      expect(statuses.filter((s) => s !== 201)).toEqual([]);
      expect((await folderNames(first.served!.baseUrl)).filter((n) => n.startsWith('Concurrent ')).sort()).toEqual([...names].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lets a new emulator open the file once the holder was killed, with every acknowledged write kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tmsync-db-lock-'));
    try {
      const file = join(dir, 'emu.sqlite');
      const first = await serve(file);
      expect(first.served, first.exit?.stderr).toBeDefined();
      const names = Array.from({ length: 20 }, (_, i) => `Before kill ${i}`);
      expect(await Promise.all(names.map((n) => createFolder(first.served!.baseUrl, n)))).toEqual(names.map(() => 201));
      const exited = new Promise((resolve) => first.served!.child.once('exit', resolve));
      first.served!.child.kill('SIGKILL');
      await exited;

      const next = await serve(file);
      expect(next.served, next.exit?.stderr).toBeDefined();
      expect((await folderNames(next.served!.baseUrl)).filter((n) => n.startsWith('Before kill ')).sort()).toEqual([...names].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
