import { KeyRing, generateKey } from './auth.js';
import { buildApp } from './app.js';
import { DbContext, openDatabase } from './db/index.js';
import { Faults } from './faults.js';
import type { EmulatorOptions, RunningEmulator } from './emulator-options.js';
import { RequestLog } from './request-log.js';
import { handlers } from './routes/index.js';
import { ensureLookups, seedDemo } from './seed.js';

/**
 * Starts the emulator: management and execution interfaces on one port, SQLite underneath.
 * Resolves once it listens; `close()` stops it and closes the database.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const now = options.now ?? Date.now;
  const host = options.host ?? '127.0.0.1';
  const sqlite = openDatabase(options.memory || !options.db ? undefined : options.db);
  const db = new DbContext(sqlite, now, options.dialect === 'live' ? 'milliseconds' : 'seconds');
  ensureLookups(db, options.dialect);
  if (options.seed === 'demo') seedDemo({ db });

  const given = (options.apiKeys ?? []).filter((k) => k.length > 0);
  const generatedKey = given.length === 0 ? generateKey() : undefined;
  const apiKeys = generatedKey ? [generatedKey] : given;
  const faults = new Faults(
    {
      latencyMs: options.latencyMs,
      rateLimit: options.rateLimit,
      rateLimitStyle: options.rateLimitStyle ?? (options.dialect === 'live' ? 'live' : '429'),
      failRate: options.failRate,
      resetRate: options.resetRate,
      faultSeed: options.faultSeed,
      failAfterCommit: options.failAfterCommit,
    },
    now,
  );
  const log = new RequestLog(options.logFile);
  let origin = '';
  const app = await buildApp({
    db,
    keys: new KeyRing(apiKeys),
    faults,
    log,
    handlers,
    now,
    runDurationMs: options.runDurationMs ?? 3000,
    execution: { queueMs: options.runQueueMs, outcome: options.runOutcome },
    fallbackOrigin: () => origin,
    dialect: options.dialect ?? 'document',
    pageSizeCap: options.pageSizeCap,
    ...(options.onRequest ? { onRequest: options.onRequest } : {}),
  });
  try {
    await app.listen({ port: options.port ?? 0, host });
  } catch (err) {
    sqlite.close();
    await log.close();
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  origin = `http://${shownHost}:${port}`;

  let closed = false;
  return {
    baseUrl: `${origin}/api/v1`,
    appUrl: origin,
    assetsUrl: `${origin}/assets`,
    port,
    apiKeys,
    generatedKey,
    requestLog: () => log.snapshot(),
    clearRequestLog: () => log.clear(),
    setFaults: (partial) => faults.set(partial),
    db,
    async close() {
      if (closed) return;
      closed = true;
      await app.close();
      sqlite.close();
      await log.close();
    },
  };
}
