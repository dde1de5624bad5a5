import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/remote/index.js';
import { manualClock } from './manual-clock.js';

/** A proxy that takes the connection, reads the CONNECT and never answers it. */
let proxy: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise<void>((r) => (proxy ? proxy.close(() => r()) : r()));
  proxy = undefined;
});

async function silentProxy(): Promise<{ url: string; connects: () => number; connected: Promise<void> }> {
  let connects = 0;
  let firstConnect!: () => void;
  const connected = new Promise<void>((r) => (firstConnect = r));
  proxy = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (d) => {
      if (d.toString('latin1').startsWith('CONNECT ')) {
        connects++;
        firstConnect();
      }
    });
  });
  await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
  const address = proxy.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { url: `http://127.0.0.1:${address.port}`, connects: () => connects, connected };
}

describe('a proxy that never answers', () => {
  it('ends each attempt at the request timeout with a timeout error, and the client still closes at once', async () => {
    const { url, connects, connected } = await silentProxy();
    // the request timeout runs on this clock alone: undici's own timeouts (minutes) never come due
    // in the test, so the call ends only if the client's timeout ends each attempt
    const clock = manualClock();
    const client = createClient({
      baseUrl: 'https://tms.example.test/api/v1',
      apiKey: 'proxy-secret-key',
      proxy: { httpsProxy: url },
      timeoutMs: 300,
      maxRetries: 1,
      random: () => 0,
      clock,
    });
    let settled = false;
    const pending = client.call('listProjects').then(
      () => undefined,
      (e: unknown) => e,
    );
    void pending.finally(() => (settled = true));
    await connected;
    // time moves only while the proxy holds the CONNECT unanswered: each attempt's 0.3 s, the wait between them
    while (!settled) {
      await clock.advance(100);
      await new Promise((r) => setImmediate(r));
    }
    const err = await pending;
    expect(err).toMatchObject({ code: 'timeout' });
    expect(String((err as Error).message)).not.toContain('proxy-secret-key');
    expect(connects()).toBeGreaterThanOrEqual(1);
    // closing does not wait for the connections the silent proxy still holds open
    await client.close();
  });
});
