import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/remote/index.js';

/** A proxy that takes the connection, reads the CONNECT and never answers it. */
let proxy: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  proxy = undefined;
});

async function silentProxy(): Promise<{ url: string; connects: () => number }> {
  let connects = 0;
  proxy = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (d) => {
      if (d.toString('latin1').startsWith('CONNECT ')) connects++;
    });
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
  const address = proxy.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, connects: () => connects };
}

describe('a proxy that never answers', () => {
  it('ends each attempt at the request timeout with a timeout error, and the client still closes at once', async () => {
    const { url, connects } = await silentProxy();
    const client = createClient({
      baseUrl: 'https://tms.example.test/api/v1',
      apiKey: 'proxy-secret-key',
      proxy: { httpsProxy: url },
      timeoutMs: 300,
      maxRetries: 1,
      random: () => 0,
    });
    const started = performance.now();
    const err = await client.call('listProjects').catch((e: unknown) => e);
    const took = performance.now() - started;
    expect(err).toMatchObject({ code: 'timeout' });
    expect(String((err as Error).message)).not.toContain('proxy-secret-key');
    // two attempts of 0.3 s and a short wait between them: nowhere near undici's own minutes
    expect(took).toBeLessThan(10_000);
    expect(connects()).toBeGreaterThanOrEqual(1);
    const closing = performance.now();
    await client.close();
    expect(performance.now() - closing).toBeLessThan(5_000);
  });
});
