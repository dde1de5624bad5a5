import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { RemoteProject } from '../../src/model.js';
import type { TmsClient } from '../../src/remote/index.js';
import { runCli } from './cli.js';
import { KEY, seedCases, setupClient, type Emulator } from './ci-helpers.js';
import { seededEmulator } from './emulator.js';

/** What a report-push test works with, set once its `beforeAll` has run. */
export interface ReportPushFixture {
  emu: Emulator;
  setup: TmsClient;
  project: RemoteProject;
  projectId: string;
  /** the ids of DEMO-1 … DEMO-n, in order */
  caseIds: string[];
  /** a fresh directory holding the fixtures under `reports/` */
  cwd: string;
  /** the CLI in `cwd` against the emulator's DEMO project */
  tmsync: (args: string[]) => ReturnType<typeof runCli>;
}

/**
 * The set-up of the `results push` end-to-end tests of a report format: an emulator in the dialect
 * under test with `cases` seeded cases (DEMO-1 … DEMO-n in the folder Checkout), a working directory
 * with `fixtures` copied to `reports/`; registered as the file's `beforeAll` and `afterAll`.
 */
export function reportPushFixture(fixtures: string, cases: number, name: string): ReportPushFixture {
  const f = {
    tmsync: (args: string[]) => runCli(args, { cwd: f.cwd, env: { TMSYNC_BASE_URL: f.emu.baseUrl, TMSYNC_API_KEY: KEY, TMSYNC_PROJECT: 'DEMO' } }),
  } as ReportPushFixture;
  beforeAll(async () => {
    f.emu = await seededEmulator(KEY);
    f.setup = setupClient(f.emu);
    const seeded = await seedCases(f.setup, cases);
    f.project = seeded.project;
    f.projectId = seeded.project.id;
    f.caseIds = seeded.caseIds;
    f.cwd = await mkdtemp(join(tmpdir(), `tmsync-${name}-`));
    await cp(fixtures, join(f.cwd, 'reports'), { recursive: true });
  });
  afterAll(async () => {
    await f.setup?.close();
    await f.emu?.close();
    if (f.cwd) await rm(f.cwd, { recursive: true, force: true });
  });
  return f;
}
