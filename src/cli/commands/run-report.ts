import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { classifyResult, executionWords, fetchExecutionJunit, formatCounts, getExecution, isCompleted } from '../../runs/execution.js';
import { TmsyncError } from '../../errors.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { executionId, jsonOutput } from '../json.js';
import { loadExecutionTarget } from './run-trigger.js';
import { EXIT } from '../exit-codes.js';

interface RunReportOptions extends GlobalOptions {
  /** positional: the run id printed by `run trigger` */
  args: string[];
  /** where to write the run's JUnit report */
  junit: string;
}

/**
 * `tmsync run report RUN_ID --junit FILE`: downloads the JUnit report of a run that already
 * finished (one started by `run trigger` without `--wait`). Starts nothing. Exit 0 when the report
 * is written, whatever the run's result (`run status` or `run trigger --wait` exit by the result);
 * 1 when the run has not finished yet or the report cannot be read.
 */
export async function runRunReport(options: RunReportOptions, io: CliIo): Promise<number> {
  const runId = options.args[0];
  if (!runId) {
    throw new TmsyncError('invalid_arguments', 'give the run id', { hint: 'tmsync run report <run-id> --junit FILE (the id `tmsync run trigger` printed)' });
  }
  const target = await loadExecutionTarget(options, io);
  try {
    const run = await getExecution(target.client, runId, io.signal);
    if (!isCompleted(run)) {
      throw new TmsyncError('run_not_finished', `run ${runId} has not finished (${executionWords(run.status)}); its JUnit report does not exist yet`, {
        hint: `try again once it has, or wait for it: \`tmsync run status ${runId}\` shows where it is`,
        details: { status: run.status },
      });
    }
    const xml = await fetchExecutionJunit(target.client, runId, io.signal);
    const file = resolve(options.cwd, options.junit);
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, xml);
    } catch (err) {
      throw new TmsyncError('junit_write_failed', `cannot write the JUnit report to ${file}: ${(err as Error).message}`, {
        hint: 'check that the directory is writable',
      });
    }
    const verdict = classifyResult(run.result);
    io.stderr(`JUnit report of run ${runId} (${verdict === 'passed' ? 'passed' : 'did not pass'}: ${formatCounts(run)}) written to ${options.junit}`);
    if (options.json) {
      io.stdout(jsonOutput({ run_id: executionId(runId), status: run.status, result: run.result ?? null, outcome: verdict, junit: options.junit }));
    }
    return EXIT.OK;
  } finally {
    await target.close();
  }
}
