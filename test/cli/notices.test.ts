import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { formatRetryNotice, proxyFromEnv, retryNotifier, retryReason } from '../../src/cli/notices.js';
import { memoryIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { createClient, scaledClock, type RetryEvent } from '../../src/remote/index.js';
import { startScripted, type ScriptedServer } from '../remote/scripted-server.js';
import { manualClock } from '../remote/manual-clock.js';

const event = (over: Partial<RetryEvent> = {}): RetryEvent => ({
  endpoint: 'listProjects',
  method: 'GET',
  path: '/projects',
  attempt: 1,
  attempts: 7,
  error: 'network',
  cause: 'ECONNREFUSED',
  waitMs: 250,
  elapsedMs: 0,
  ...over,
});

describe('retry notices', () => {
  it('say in words why the service is being waited for', () => {
    expect(retryReason(event())).toBe('connection refused');
    expect(retryReason(event({ cause: 'ECONNRESET' }))).toBe('connection reset');
    expect(retryReason(event({ error: 'server_error', cause: undefined, status: 503 }))).toBe('HTTP 503');
    expect(retryReason(event({ error: 'rate_limited', cause: undefined, status: 429 }))).toBe('rate limited (HTTP 429)');
    expect(retryReason(event({ error: 'timeout', cause: 'timeout' }))).toBe('no answer in time');
    expect(formatRetryNotice(event({ attempt: 3, waitMs: 2000 }))).toBe(
      'waiting for the service: attempt 3 of 7, connection refused (GET /projects); next try in 2s',
    );
  });

  it('stay silent while retries are quick, then print one line per attempt number however many requests retry', () => {
    const lines: string[] = [];
    const notify = retryNotifier((l) => lines.push(l), 2000);
    notify(event({ attempt: 1, elapsedMs: 0, waitMs: 250 }));
    notify(event({ attempt: 2, elapsedMs: 300, waitMs: 500 }));
    expect(lines).toEqual([]);
    notify(event({ attempt: 3, elapsedMs: 900, waitMs: 1200 }));
    notify(event({ attempt: 3, elapsedMs: 950, waitMs: 1500, path: '/projects/x/folders' }));
    notify(event({ attempt: 4, elapsedMs: 2200, waitMs: 3000 }));
    expect(lines).toEqual([
      'waiting for the service: attempt 3 of 7, connection refused (GET /projects); next try in 1s',
      'waiting for the service: attempt 4 of 7, connection refused (GET /projects); next try in 3s',
    ]);
  });
});

describe("the client's retry events", () => {
  let refused: Server | undefined;
  afterEach(() => refused?.close());

  it('report each failed attempt against a refused port: the attempt, the limit, the reason, the wait and the time since the first try', async () => {
    // a port that was just free: nothing listens on it any more
    refused = createServer();
    await new Promise<void>((r) => refused!.listen(0, '127.0.0.1', r));
    const port = (refused.address() as AddressInfo).port;
    await new Promise<void>((r) => refused!.close(() => r()));
    refused = undefined;
    const events: RetryEvent[] = [];
    const client = createClient({
      baseUrl: `http://127.0.0.1:${port}/api/v1`,
      apiKey: 'secret-key-123',
      clock: scaledClock(1000),
      // a minute of real time per attempt (the default 30 s is 30 ms on this clock, which a busy machine can
      // exceed and report as a timeout instead of the refusal)
      timeoutMs: 1000 * 60_000,
      random: () => 0.5,
      maxRetries: 3,
      onRetry: (e) => events.push(e),
    });
    await expect(client.call('listProjects')).rejects.toMatchObject({ code: 'network' });
    await client.close();
    // a loopback address that refuses the connection has nothing listening: two quick retries, not max_retries
    expect(events.map((e) => [e.attempt, e.attempts, e.error, e.cause])).toEqual([
      [1, 3, 'network', 'ECONNREFUSED'],
      [2, 3, 'network', 'ECONNREFUSED'],
    ]);
    expect(events.every((e) => e.waitMs > 0 && e.method === 'GET' && e.path.startsWith('/projects'))).toBe(true);
    expect(events[1].elapsedMs).toBeGreaterThan(events[0].elapsedMs);
    expect(JSON.stringify(events)).not.toContain('secret-key-123');
  });
});

describe('a stopped emulator', () => {
  it('fails after the first quick retries with a hint that names `tmsync serve`, and never prints the key', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const io = memoryIo({ TMSYNC_API_KEY: 'k-stopped-123', TMSYNC_BASE_URL: `http://127.0.0.1:${port}/api/v1`, TMSYNC_PROJECT: 'DEMO' });
    expect(await main(['node', 'tmsync', 'test-plan', 'get', 'DEMO-P-1', '--json'], io, process.cwd())).toBe(1);
    const error = JSON.parse(io.out[0]).error;
    expect(error.code).toBe('network');
    expect(error.message).toContain('connection refused (ECONNREFUSED)');
    expect(error.hint).toBe(`nothing listens at http://127.0.0.1:${port}: is \`tmsync serve\` running? (start it with \`tmsync serve --seed demo\`, or check the base URL's port)`);
    expect(io.err.join('\n')).not.toContain('k-stopped-123');
  });
});

describe('tmsync prints the notice on stderr', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => server?.close());

  it('when a request is held back by Retry-After for seconds (the library itself prints nothing)', async () => {
    let n = 0;
    server = await startScripted(() =>
      ++n === 1
        ? { status: 503, headers: { 'retry-after': '2' }, json: { message: 'maintenance' } }
        : { json: { id: 7, status: 'STATUS_COMPLETED', result: 'SUCCESS', totalCount: 1, passedCount: 1, failedCount: 0 } },
    );
    // the client's time moves only when the notice is out: the Retry-After wait is virtual
    const clock = manualClock(1_000_000);
    const io = memoryIo({ TMSYNC_API_KEY: 'k-123', TMSYNC_BASE_URL: `${server.url}/api/v1` });
    const stderr = io.stderr;
    io.clock = clock;
    io.stderr = (s) => {
      stderr(s);
      if (s.startsWith('waiting for the service')) void clock.advance(2000);
    };
    expect(await main(['node', 'tmsync', 'run', 'status', '7'], io, process.cwd())).toBe(0);
    expect(io.err[0]).toBe('waiting for the service: attempt 1 of 7, HTTP 503 (GET /api/v1/execution_results/7); next try in 2s');
    expect(io.out).toEqual(['STATUS_COMPLETED SUCCESS — 1 total, 1 passed, 0 failed']);
    expect(n).toBe(2);
  });
});

describe('proxyFromEnv', () => {
  it('reads HTTP_PROXY, HTTPS_PROXY and NO_PROXY, lower case first, and treats empty ones as unset', () => {
    expect(proxyFromEnv({})).toEqual({});
    expect(proxyFromEnv({ HTTP_PROXY: 'http://p:1', HTTPS_PROXY: 'http://p:2', NO_PROXY: 'localhost' })).toEqual({
      httpProxy: 'http://p:1',
      httpsProxy: 'http://p:2',
      noProxy: 'localhost',
    });
    expect(proxyFromEnv({ http_proxy: 'http://lower:1', HTTP_PROXY: 'http://upper:1' })).toEqual({ httpProxy: 'http://lower:1' });
    expect(proxyFromEnv({ http_proxy: '', HTTP_PROXY: 'http://upper:1', NO_PROXY: '' })).toEqual({ httpProxy: 'http://upper:1' });
  });
});
