import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * The inner loop (`npm run test:unit`): the tests of single modules, run straight from src/ (no build).
 * Everything else still runs in `npm test` (vitest.config.ts), which runs every file.
 */

/** End-to-end, browser and demo tests: a whole CLI run against an emulator, in both dialects. */
const END_TO_END = ['test/**/*.e2e.test.ts', 'test/**/*.browser.test.ts', 'test/demo.test.ts'];

/** Tests that start dist/ (the CLI, a worker, a script) as a process or a worker thread: they need `npm run build`. */
const BUILT = [
  'test/apply/lock.test.ts',
  'test/build-prune.test.ts',
  'test/cli/apply.test.ts',
  'test/cli/hold-lock.test.ts',
  'test/cli/read-only.test.ts',
  'test/cli/serve-unavailable.test.ts',
  'test/cli/startup.test.ts',
  'test/emulator/db/connection.test.ts',
  'test/emulator/serve.test.ts',
  'test/library-apply.test.ts',
  'test/repository/parse-workers.test.ts',
  'test/results/examples.test.ts',
];

/** Whole commands or library runs against a seeded emulator (end-to-end in all but the file name). */
const WHOLE_RUNS = [
  'test/apply/faults.test.ts',
  'test/backup/restore-resume.test.ts',
  'test/cli/ci-output.test.ts',
  'test/cli/first-five-minutes.test.ts',
  'test/cli/notices.test.ts',
  'test/cli/output-schemas.test.ts',
  'test/cli/proxy.test.ts',
  'test/cli/slow-reader.test.ts',
  'test/cli/web-links.test.ts',
  'test/library-silent.test.ts',
  'test/pull/pull-stage.test.ts',
];

/** Generated inputs by the thousand: fuzzing and the large-input cases of the readers. */
const BULK = [
  'test/emulator/fuzz.test.ts',
  'test/emulator/ui-security.test.ts',
  'test/repository/fast-yaml.test.ts',
  'test/repository/fuzz.test.ts',
  'test/repository/round-trip.test.ts',
];

export const NOT_UNIT = [...END_TO_END, ...BUILT, ...WHOLE_RUNS, ...BULK];

/** Tests that measure the heap: they need a worker of their own, not the heap other files left behind. */
const OWN_HEAP = ['test/cli/memory.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'threads',
    // one worker per core: vitest's default (one fewer) leaves a 2-core machine running one file at a time
    maxWorkers: availableParallelism(),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...NOT_UNIT, ...OWN_HEAP],
          // the files share one module graph per worker instead of importing src/ again for each file
          // (the largest cost of this subset); npm test keeps every file isolated
          isolate: false,
        },
      },
      { extends: true, test: { name: 'unit-own-heap', include: OWN_HEAP } },
    ],
  },
});
