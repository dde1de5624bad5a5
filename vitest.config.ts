import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // one worker per core: vitest's default (one fewer) runs one file at a time on a 2-core machine,
    // while most files spend their time waiting on an emulator or a child process
    maxWorkers: availableParallelism(),
    projects: [
      // every test, the end-to-end ones against the emulator's document dialect
      { extends: true, test: { name: 'document', include: ['test/**/*.test.ts'] } },
      // the end-to-end suite again, same assertions, against the live dialect (test/dialect.ts)
      // (test/remote/client.e2e.test.ts asserts the document dialect's wire protocol itself: 429 with
      // Retry-After, page URLs; the client against the live wire is test/remote/dialects.test.ts)
      {
        extends: true,
        test: {
          name: 'live',
          include: ['test/**/*.e2e.test.ts'],
          // the packaging and action tests concern no dialect (and two packs at once would race on dist/)
          exclude: ['test/remote/client.e2e.test.ts', 'test/package.e2e.test.ts', 'test/results/action.e2e.test.ts'],
          env: { TMSYNC_TEST_DIALECT: 'live' },
        },
      },
    ],
  },
});
