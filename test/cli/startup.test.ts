import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { memoryIo } from '../../src/cli/io.js';
import { VERSION } from '../../src/version.js';
import { staticGraph } from '../support/import-graph.js';

const root = join(import.meta.dirname, '..', '..');

describe('the CLI program', () => {
  it('prints its version, which matches package.json', async () => {
    const io = memoryIo();
    const code = await main(['node', 'tmsync', '--version'], io, root);
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(code).toBe(0);
    expect(VERSION).toBe(pkg.version);
    expect(io.out.join('')).toContain(pkg.version);
  });

  it('lists every command of the contract in --help', async () => {
    const io = memoryIo();
    const code = await main(['node', 'tmsync', '--help'], io, root);
    expect(code).toBe(0);
    const help = io.out.join('');
    for (const cmd of ['init', 'validate', 'plan', 'apply', 'pull', 'backup', 'restore', 'migrate', 'run', 'results', 'test-plan', 'serve']) {
      expect(help).toMatch(new RegExp(`\\n\\s+${cmd}\\b`));
    }
  });

  it('rejects an unknown command with exit code 1', async () => {
    const io = memoryIo();
    const code = await main(['node', 'tmsync', 'frobnicate'], io, root);
    expect(code).toBe(1);
    expect(io.err.join('')).toMatch(/unknown command/);
  });

  /** Runs the built CLI's main in a fresh process with a loader hook; answers its exit code and every module resolved. */
  async function probe(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; modules: string[]; stderr: string }> {
    const source = `
      import { register } from 'node:module';
      const seen = [];
      const { port1, port2 } = new MessageChannel();
      // the port keeps its order: once the last import's url is in, so is every url before it
      const LAST = 'data:text/javascript,export%20default%20%22last%22';
      let lastSeen;
      const last = new Promise((r) => (lastSeen = r));
      port1.on('message', (m) => (m === LAST ? lastSeen() : seen.push(m)));
      port1.unref();
      register('data:text/javascript,' + encodeURIComponent(\`
        let port; export function initialize(d) { port = d.port; }
        export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }
      \`), { data: { port: port2 }, transferList: [port2] });
      const { main } = await import(${JSON.stringify(join(root, 'dist', 'cli', 'main.js'))});
      const err = [];
      const io = { stdout() {}, stderr(s) { err.push(s); }, isTTY: false, env: ${JSON.stringify(env)} };
      const code = await main(${JSON.stringify(['node', 'tmsync', ...args])}, io, process.cwd());
      port1.ref();
      await import(LAST);
      await last;
      port1.unref();
      process.stdout.write(JSON.stringify({ code, seen, stderr: err.join('\\n') }));
    `;
    // asynchronous: the service the CLI talks to may run in this very process
    const r = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', source], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { code: number; seen: string[]; stderr: string };
    return { code: out.code, modules: out.seen, stderr: out.stderr };
  }
  const EMULATOR_MODULES = /better-sqlite3|fastify|playwright|\/emulator\//;

  it('starts and runs --help without loading the emulator dependencies', async () => {
    const { modules } = await probe(['plan', '--help'], root, {});
    expect(modules.some((m) => m.includes('commander'))).toBe(true);
    expect(modules.filter((m) => EMULATOR_MODULES.test(m))).toEqual([]);
  });

  it('plans against a running service without loading the emulator, its web UI or their dependencies', async () => {
    const { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { startEmulator } = await import('../../src/emulator/index.js');
    const emu = await startEmulator({ memory: true, seed: 'demo', apiKeys: ['startup-key'] });
    const dir = mkdtempSync(join(tmpdir(), 'tmsync-startup-'));
    try {
      cpSync(join(root, 'examples'), dir, { recursive: true, filter: (src) => !src.includes(join('examples', 'ci')) });
      const cfg = join(dir, 'tmsync.yaml');
      writeFileSync(cfg, readFileSync(cfg, 'utf8').replace(/^base_url:.*$/m, `base_url: ${emu.baseUrl}`));
      const { code, modules, stderr } = await probe(['plan', '--detailed-exitcode'], dir, { TMSYNC_API_KEY: 'startup-key' });
      expect(code, stderr).toBe(2);
      expect(modules.some((m) => m.includes('/dist/plan/'))).toBe(true);
      expect(modules.filter((m) => EMULATOR_MODULES.test(m))).toEqual([]);
    } finally {
      await emu.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('start-up: what a command loads before its first request', () => {
  // loaded with import() once the first request is under way (docs/architecture.md, "Start-up")
  // (the repository lock is taken before the first request: src/apply/lock.ts and its journal directory)
  const LATER = /^src\/(pull|plan|base)\/|^src\/apply\/(?!lock\.ts|journal\.ts)|^src\/repository\/(writer|loader|parse-|index)/;

  it('pull and backup import only the configuration, the client and the lock before their first request', () => {
    for (const command of ['pull', 'backup']) {
      const { files, packages } = staticGraph(`src/cli/commands/${command}.ts`);
      expect(files.length, command).toBeGreaterThan(10);
      expect(files.filter((f) => LATER.test(f)), command).toEqual([]);
      expect(packages.filter((p) => p === 'js-yaml' || p === 'diff'), command).toEqual([]);
    }
  });

  it('the graph walk sees what the commands load later, so the test above can fail', () => {
    expect(staticGraph('src/pull/pull.ts').files.some((f) => LATER.test(f))).toBe(true);
    expect(staticGraph('src/cli/commands/plan.ts').files.filter((f) => f.startsWith('src/plan/')).length).toBeGreaterThan(0);
  });
});

describe('errors in tmsync.yaml', () => {
  it('are listed with file:line:col by every command that reads the configuration, not only validate', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'tmsync-badcfg-'));
    writeFileSync(join(dir, 'tmsync.yaml'), 'project: DEMO\nbase_url: http://127.0.0.1:9/api/v1\nrate_limt: 5\n');
    for (const cmd of [['plan'], ['apply', '--auto-approve']]) {
      const io = memoryIo({ TMSYNC_API_KEY: 'k' });
      const code = await main(['node', 'tmsync', ...cmd], io, dir);
      expect(code).toBe(1);
      expect(io.err.join('\n')).toMatch(/tmsync\.yaml:3:1 .*rate_limt.*rate_limit/);
    }
  });
});

describe('flag parsing', () => {
  it('keeps the positional FILE of restore when --map-user comes before it', async () => {
    const io = memoryIo({});
    const code = await main(['node', 'tmsync', 'restore', '--map-user', 'a@x=b@y', '--map-user', 'c@x=d@y', 'missing-backup.json', '--project', 'P'], io, root);
    expect(io.err.join('\n')).not.toMatch(/missing required argument/);
    expect(io.err.join('\n')).toMatch(/missing-backup\.json/);
    expect(code).toBe(1);
  });

  it('refuses serve --memory together with --db instead of ignoring one of them', async () => {
    const io = memoryIo({});
    const code = await main(['node', 'tmsync', 'serve', '--memory', '--db', 'x.sqlite'], io, root);
    expect(code).toBe(1);
    expect(io.err.join('\n')).toMatch(/cannot be used with/);
  });
});

describe('the base URL', () => {
  it('must end in /api/v1, and the error says which URL to use instead', async () => {
    const io = memoryIo({ TMSYNC_API_KEY: 'k' });
    const code = await main(['node', 'tmsync', 'plan', '--base-url', 'http://127.0.0.1:9', '--project', 'DEMO'], io, root);
    expect(code).toBe(1);
    expect(io.err.join('\n')).toMatch(/does not end in \/api\/v1/);
    expect(io.err.join('\n')).toContain('http://127.0.0.1:9/api/v1');
  });
});

describe('dependencies', () => {
  it('holds in `dependencies` only packages the library or the CLI imports outside the optional emulator', async () => {
    const { readdirSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const used = new Set<string>();
    for (const entry of readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      const file = join(entry.parentPath, entry.name);
      if (relative(root, file).startsWith(join('src', 'emulator'))) continue;
      // static imports and exports, and import() of a literal name
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"./][^'"]*)['"]/gm)) {
        const spec = m[1];
        if (spec.startsWith('node:')) continue;
        used.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      }
    }
    expect(Object.keys(pkg.dependencies).filter((d) => !used.has(d))).toEqual([]);
  });
});
