import { appendFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { TmsyncError } from '../../errors.js';
import { resolveProject } from '../../remote/resolve-project.js';
import { closeTestRun, createTestRun } from '../../runs/test-run.js';
import { safeInline, safeLineStart } from '../../safe-text.js';
import { ciRunMetadata } from '../ci-env.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { loadTarget } from '../target.js';
import { EXIT } from '../exit-codes.js';

/** The variable later CI jobs read the run from (`results push` and `test-run close` default to it). */
export const TEST_RUN_VARIABLE = 'TMSYNC_TEST_RUN';

interface TestRunCreateOptions extends GlobalOptions {
  title: string;
  testPlan?: string;
  /** environment ids (repeatable, or comma-separated) */
  environment?: string[];
  /** `all`, `label:NAME` or a folder path @default 'all' */
  cases?: string;
  /** append `TMSYNC_TEST_RUN=<id>` to this file ($GITHUB_OUTPUT, a GitLab dotenv report) */
  envFile?: string;
  args?: string[];
}

interface TestRunCloseOptions extends GlobalOptions {
  /** positional: the run's id or human id (default: TMSYNC_TEST_RUN) */
  args: string[];
}

/**
 * `tmsync test-run create --title T`: a STATIC run for several CI shards to push into. Prints its id
 * on stdout (the run with --json), its human id and page on stderr.
 */
export async function runTestRunCreate(options: TestRunCreateOptions, io: CliIo): Promise<number> {
  const envFile = options.envFile !== undefined ? resolve(options.cwd, options.envFile) : undefined;
  const target = await loadTarget(options, io);
  try {
    const project = await resolveProject(target.client, target.projectRef);
    const metadata = ciRunMetadata(io.env);
    const run = await createTestRun({
      client: target.client,
      project,
      title: options.title,
      ...(options.testPlan !== undefined ? { testPlan: options.testPlan } : {}),
      ...(options.environment !== undefined ? { environments: options.environment.flatMap((e) => e.split(',')).filter((e) => e.trim() !== '') } : {}),
      ...(options.cases !== undefined ? { cases: options.cases } : {}),
      ...(metadata ? { metadata } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    });
    if (envFile !== undefined) {
      try {
        await appendFile(envFile, `${TEST_RUN_VARIABLE}=${run.id}\n`);
      } catch (err) {
        throw new TmsyncError('env_file_unwritable', `test run ${run.humanId ?? run.id} was created, but ${options.envFile} could not be written: ${(err as Error).message}`, {
          hint: `pass the run to later jobs by hand: ${TEST_RUN_VARIABLE}=${run.id}`,
          details: { run: run.id },
        });
      }
    }
    if (options.json) {
      io.stdout(jsonOutput({ test_run: { id: run.id, human_id: run.humanId ?? null, title: run.title, description: run.description, ...(run.url ? { url: run.url } : {}) }, cases: run.cases, selection: run.selection }));
    } else io.stdout(safeInline(run.id));
    const n = run.cases;
    io.stderr(
      safeLineStart(`Created test run ${safeInline(run.humanId ?? run.id)} "${safeInline(run.title)}" (id ${safeInline(run.id)}) holding ${n} case${n === 1 ? '' : 's'} (${safeInline(run.selection)}).`),
    );
    if (envFile !== undefined) io.stderr(`Wrote ${TEST_RUN_VARIABLE}=${safeInline(run.id)} to ${options.envFile}.`);
    if (run.url) io.stderr(`View run: ${run.url}`);
    return EXIT.OK;
  } finally {
    await target.close();
  }
}

/** `tmsync test-run close [ID]`: closes the run (ID, else TMSYNC_TEST_RUN); a closed run is left as it is. */
export async function runTestRunClose(options: TestRunCloseOptions, io: CliIo): Promise<number> {
  const ref = options.args[0] ?? (io.env[TEST_RUN_VARIABLE] ?? '').trim();
  if (!ref) {
    throw new TmsyncError('invalid_arguments', `give the test run's id or human id (or set ${TEST_RUN_VARIABLE})`, { hint: 'e.g. tmsync test-run close DEMO-R-4' });
  }
  const target = await loadTarget(options, io);
  try {
    const project = await resolveProject(target.client, target.projectRef);
    const run = await closeTestRun({ client: target.client, project, ref, ...(io.signal ? { signal: io.signal } : {}) });
    if (options.json) {
      const test_run = { id: run.id, human_id: run.humanId ?? null, title: run.title, status: 'CLOSED', ...(run.url ? { url: run.url } : {}) };
      io.stdout(jsonOutput({ test_run, already_closed: run.alreadyClosed, repaired: run.repaired }));
    } else io.stdout(safeInline(run.id));
    if (run.repaired.length > 0) {
      const n = run.repaired.length;
      io.stderr(`Set ${n} case${n === 1 ? '' : 's'} to the worst outcome the shards recorded (a push that raced another had written a better one):`);
      for (const r of run.repaired) io.stderr(`  ${safeInline(r.humanId ?? r.caseId)}: ${r.outcome} in shard ${r.shards.map(safeInline).join(', ')}`);
    }
    const name = `${safeInline(run.humanId ?? run.id)} "${safeInline(run.title)}"`;
    io.stderr(safeLineStart(run.alreadyClosed ? `Test run ${name} was already closed.` : `Closed test run ${name}.`));
    if (run.url) io.stderr(`View run: ${run.url}`);
    return EXIT.OK;
  } finally {
    await target.close();
  }
}
