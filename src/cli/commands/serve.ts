import { TmsyncError } from '../../errors.js';
import { parseDuration } from '../../duration.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import type { RunOutcome } from '../../emulator/emulator-options.js';
import { EXIT } from '../exit-codes.js';

/** Flags of `tmsync serve`, as commander hands them over (numbers arrive as strings). */
interface ServeOptions extends Partial<GlobalOptions> {
  /** @default '4010' */
  port?: string | number;
  /** @default '127.0.0.1' */
  host?: string;
  db?: string;
  memory?: boolean;
  apiKey?: string[];
  seed?: 'demo';
  /** a duration (bare number: seconds) @default '0' */
  latency?: string | number;
  rateLimit?: string | number;
  /** @default '429' (`live` with `--dialect live`) */
  rateLimitStyle?: '429' | 'live';
  /** @default 'document' */
  dialect?: 'document' | 'live';
  pageSizeCap?: string | number;
  failRate?: string | number;
  resetRate?: string | number;
  faultSeed?: string | number;
  failAfterCommit?: boolean;
  log?: string;
  /** a duration (bare number: seconds) @default '3s' */
  runDuration?: string | number;
  /** a duration: the time before a run is in progress @default half of --run-duration */
  runQueue?: string | number;
  runOutcome?: RunOutcome;
}

function num(name: string, v: string | number | undefined, check: (n: number) => boolean, what: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || !check(n)) {
    throw new TmsyncError('invalid_option', `--${name} must be ${what}, got ${JSON.stringify(String(v))}`, {
      hint: `run tmsync serve --help for the accepted values`,
    });
  }
  return n;
}

function dur(flag: string, v: string | number | undefined): number | undefined {
  return v === undefined || v === '' ? undefined : parseDuration(v, flag);
}

const isInt = (n: number) => Number.isInteger(n) && n >= 0;
const isProb = (n: number) => n >= 0 && n <= 1;

/** Loads the emulator, which needs the optional dependencies fastify and better-sqlite3. */
async function loadEmulator(): Promise<typeof import('../../emulator/index.js')> {
  try {
    return await import('../../emulator/index.js');
  } catch (err) {
    throw new TmsyncError('emulator_unavailable', `the emulator cannot start: ${err instanceof Error ? err.message : String(err)}`, {
      hint: 'its optional dependencies are missing or not built for this platform: npm install better-sqlite3 fastify',
      cause: err,
    });
  }
}

/**
 * `tmsync serve`: starts the emulator, prints `tmsync emulator listening on <base url>` as the first
 * stdout line (then `api key: <key>` when it generated one; with --json one JSON line instead), and runs until SIGINT/SIGTERM.
 */
export async function runServe(options: ServeOptions, io: CliIo): Promise<number> {
  const port = num('port', options.port ?? 4010, (n) => isInt(n) && n <= 65535, 'a port number (0 to 65535)') ?? 4010;
  const emulatorOptions = {
    port,
    host: options.host ?? '127.0.0.1',
    db: options.memory ? undefined : options.db,
    memory: Boolean(options.memory) || !options.db,
    apiKeys: options.apiKey ?? [],
    seed: options.seed,
    latencyMs: dur('--latency', options.latency),
    rateLimit: num('rate-limit', options.rateLimit, (n) => isInt(n) && n > 0, 'a positive whole number'),
    rateLimitStyle: options.rateLimitStyle,
    dialect: options.dialect ?? 'document',
    pageSizeCap: num('page-size-cap', options.pageSizeCap, (n) => Number.isInteger(n) && n >= 1 && n <= 100, 'a whole number from 1 to 100'),
    failRate: num('fail-rate', options.failRate, isProb, 'a probability between 0 and 1'),
    resetRate: num('reset-rate', options.resetRate, isProb, 'a probability between 0 and 1'),
    faultSeed: num('fault-seed', options.faultSeed, Number.isInteger, 'an integer'),
    failAfterCommit: Boolean(options.failAfterCommit),
    logFile: options.log,
    runDurationMs: dur('--run-duration', options.runDuration),
    runQueueMs: dur('--run-queue', options.runQueue),
    runOutcome: options.runOutcome,
  } as const;
  const { startEmulator } = await loadEmulator();
  let emu;
  try {
    emu = await startEmulator(emulatorOptions);
  } catch (err) {
    if (err instanceof TmsyncError) throw err;
    const code = (err as { code?: string }).code;
    const message = err instanceof Error ? err.message : String(err);
    // better-sqlite3 loads its native addon on first use, so a broken build surfaces here
    if (code === 'ERR_DLOPEN_FAILED' || /better_sqlite3\.node|bindings file/.test(message)) {
      throw new TmsyncError('emulator_unavailable', `the emulator cannot start: ${message}`, {
        hint: 'better-sqlite3 is not built for this platform: npm install better-sqlite3 fastify',
        cause: err,
      });
    }
    if (code === 'EADDRINUSE') {
      throw new TmsyncError('port_in_use', `port ${port} on ${emulatorOptions.host} is already in use`, {
        hint: 'pick another with --port, or --port 0 for a free one',
      });
    }
    throw err;
  }
  if (options.json) {
    // one JSON line (schemas/output/serve.schema.json): scripts read the address without parsing text
    io.stdout(
      jsonOutput({
        base_url: emu.baseUrl,
        app_url: emu.appUrl,
        storage: emulatorOptions.db ?? 'memory',
        ...(emu.generatedKey ? { api_key: emu.generatedKey } : {}),
      }),
    );
  } else {
    io.stdout(`tmsync emulator listening on ${emu.baseUrl}`);
    if (emu.generatedKey) io.stdout(`api key: ${emu.generatedKey}`);
  }
  io.stderr(
    `execution interface at ${emu.appUrl}/api/v1/execution_results; web UI at ${emu.appUrl}/; storage: ${emulatorOptions.db ?? 'memory'}; dialect: ${emulatorOptions.dialect}` +
      (options.seed === 'demo' ? '; demo project DEMO seeded' : '') +
      '. Stop with Ctrl-C.',
  );

  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      io.signal?.removeEventListener('abort', stop);
      resolve();
    };
    // Ctrl-C aborts io.signal (main owns SIGINT)
    process.on('SIGTERM', stop);
    if (io.signal?.aborted) stop();
    else io.signal?.addEventListener('abort', stop);
  });
  await emu.close();
  io.stderr('tmsync emulator stopped');
  return EXIT.OK;
}
