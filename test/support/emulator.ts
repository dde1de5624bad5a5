import { startEmulator, type Dialect, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { attachmentBody, runAttachments } from '../../src/emulator/db/index.js';
import { createClient, type TmsClient } from '../../src/remote/index.js';
import { TEST_DIALECT, dialectOptions } from '../dialect.js';

/**
 * The emulator fixture of the tests: in memory, on 127.0.0.1 port 0, the demo project seeded, one
 * API key, in the dialect under test (test/dialect.ts) unless `dialect` names one; explicit options
 * win. The caller closes it (`await emu.close()`).
 */
export function seededEmulator(key: string, options: Partial<EmulatorOptions> = {}, dialect: Dialect = TEST_DIALECT): Promise<RunningEmulator> {
  return startEmulator({ memory: true, apiKeys: [key], seed: 'demo', port: 0, ...dialectOptions(dialect), ...options });
}

/** A client for a test's set-up and checks: a high rate, quick retries. */
export function setupClient(baseUrl: string, key: string, extra: Record<string, unknown> = {}): TmsClient {
  return createClient({ baseUrl, apiKey: key, rateLimit: 1000, concurrency: 8, retryBaseMs: 5, retryMaxDelayMs: 50, ...extra });
}

/** The run-case update: `PUT …/test_runs/:id/test_cases`. */
export const isRunCaseUpdate = (method: string, path: string): boolean => method === 'PUT' && /\/test_runs\/[^/]+\/test_cases$/.test(path);

/**
 * {@link seededEmulator} that answers the next run-case update with a scripted 5xx once, after
 * `refuseNextUpdate()` is called (the emulator's `failRate`, set to 1 for exactly that request):
 * the client's retry must send the same batch again.
 */
export async function emulatorRefusingOnce(key: string): Promise<{ emu: RunningEmulator; refuseNextUpdate: () => void }> {
  let armed = false;
  let failing = false;
  const emu: RunningEmulator = await seededEmulator(key, {
    onRequest: ({ method, path }) => {
      // failRate 1 for the refused update, 0 again from the request after it on
      if (failing) {
        emu.setFaults({ failRate: 0 });
        failing = false;
      }
      if (armed && isRunCaseUpdate(method, path)) {
        armed = false;
        failing = true;
        emu.setFaults({ failRate: 1 });
      }
    },
  });
  return { emu, refuseNextUpdate: () => void (armed = true) };
}

/** The files the emulator stored with a run's cases, by case number (the case of `caseIds[n - 1]` → n), each as its name and bytes. */
export function storedAttachments(emu: RunningEmulator, caseIds: readonly string[], runId: string): Map<number, { name: string; bytes: Buffer }[]> {
  const out = new Map<number, { name: string; bytes: Buffer }[]>();
  for (const [caseId, files] of runAttachments(emu.db, runId)) {
    out.set(caseIds.indexOf(caseId) + 1, files.map((f) => ({ name: f.file_name, bytes: attachmentBody(emu.db, f.id)!.body })));
  }
  return out;
}
