import { startEmulator, type Dialect, type EmulatorOptions, type RunningEmulator } from '../src/emulator/index.js';

/**
 * The dialect the end-to-end suite runs against: vitest.config.ts runs every `*.e2e.test.ts` twice,
 * once as the `document` project and once as the `live` one (TMSYNC_TEST_DIALECT=live), with the
 * same assertions. The live runs also cap pages at LIVE_PAGE_SIZE_CAP items, fewer than the suite's
 * lists hold, so every list is read through the live dialect's cursors.
 */
export const TEST_DIALECT: Dialect = process.env.TMSYNC_TEST_DIALECT === 'live' ? 'live' : 'document';

export const LIVE_PAGE_SIZE_CAP = 3;

/** Emulator options of the dialect under test. */
export function dialectOptions(dialect: Dialect = TEST_DIALECT): Partial<EmulatorOptions> {
  return dialect === 'live' ? { dialect: 'live', pageSizeCap: LIVE_PAGE_SIZE_CAP } : {};
}

/** `startEmulator` in the dialect under test (explicit options win). */
export function startTestEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ ...dialectOptions(), ...options });
}
