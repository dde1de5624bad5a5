import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { seededEmulator } from '../support/emulator.js';

const API_KEY = 'proxy-test-key';

/**
 * A tiny forwarding proxy on 127.0.0.1 (absolute-URI requests and CONNECT tunnels) that counts the
 * requests and tunnels passing. It alone knows the host `tms.invalid`: 127.0.0.1.
 */
const real = (host: string) => (host === 'tms.invalid' ? '127.0.0.1' : host);
async function startProxy(): Promise<{ url: string; count: () => number; close(): Promise<void> }> {
  let n = 0;
  const server: Server = createServer((req, res) => {
    n++;
    const target = new URL(req.url ?? '/');
    const out = request(
      { host: real(target.hostname), port: target.port, path: `${target.pathname}${target.search}`, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  server.on('connect', (req, socket, head) => {
    n++;
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), real(host), () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    count: () => n,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

describe('HTTP_PROXY / NO_PROXY', () => {
  let emu: RunningEmulator;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let root: string;
  beforeAll(async () => {
    emu = await seededEmulator(API_KEY);
    proxy = await startProxy();
    root = await mkdtemp(join(tmpdir(), 'tmsync-proxy-'));
    await writeFile(join(root, 'tmsync.yaml'), `project: DEMO\nbase_url: ${emu.baseUrl}\nmax_retries: 0\n`);
    await mkdir(join(root, 'cases'));
  });
  afterAll(async () => {
    await proxy?.close();
    await emu?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  const plan = async (env: NodeJS.ProcessEnv, ...flags: string[]) => {
    const { code, err } = await runCli(['plan', ...flags], { cwd: root, env: { TMSYNC_API_KEY: API_KEY, ...env } });
    return { code, err };
  };

  it('sends every request through the proxy HTTP_PROXY names (the service host resolves only there)', async () => {
    const before = proxy.count();
    const viaProxy = emu.baseUrl.replace('127.0.0.1', 'tms.invalid');
    const r = await plan({ HTTP_PROXY: proxy.url }, '--base-url', viaProxy);
    expect(r.code, r.err).toBe(0);
    expect(proxy.count()).toBeGreaterThan(before);
    // without the proxy the same URL cannot be reached
    const direct = await plan({ TMSYNC_BASE_URL: '' }, '--base-url', viaProxy);
    expect(direct.code).toBe(1);
  }, 60_000);

  it('reads the lower-case http_proxy too', async () => {
    const before = proxy.count();
    expect((await plan({ http_proxy: proxy.url })).code).toBe(0);
    expect(proxy.count()).toBeGreaterThan(before);
  });

  it('goes direct for hosts NO_PROXY lists, and without a proxy variable', async () => {
    const before = proxy.count();
    expect((await plan({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' })).code).toBe(0);
    expect((await plan({})).code).toBe(0);
    expect(proxy.count()).toBe(before);
  });
});
