import { classifyResult, executionWords, formatCounts, getExecution, isCompleted } from '../../runs/execution.js';
import { TmsyncError } from '../../errors.js';
import { webLink } from '../../remote/web-link.js';
import { safeInline, safeLineStart } from '../../safe-text.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { executionStatusDocument, jsonOutput } from '../json.js';
import { loadExecutionTarget } from './run-trigger.js';
import { EXIT } from '../exit-codes.js';

interface RunStatusOptions extends GlobalOptions {
  /** positional: the run id printed by `run trigger` */
  args: string[];
}

/**
 * `tmsync run status RUN_ID`: one status read through the execution interface. Prints
 * `STATUS result counts` on stdout (the whole status object with --json); exit 0 whatever the
 * run's state, 1 when the status cannot be read.
 */
export async function runRunStatus(options: RunStatusOptions, io: CliIo): Promise<number> {
  const runId = options.args[0];
  if (!runId) {
    throw new TmsyncError('invalid_arguments', 'give the run id', { hint: 'tmsync run status <run-id> (printed by `tmsync run trigger`)' });
  }
  const target = await loadExecutionTarget(options, io);
  try {
    const run = await getExecution(target.client, runId, io.signal);
    if (options.json) {
      io.stdout(jsonOutput(executionStatusDocument(run)));
      return EXIT.OK;
    }
    const done = isCompleted(run);
    // stdout keeps the service's values (scripts read them); the line for people says them in words
    const verdict = done ? ` ${classifyResult(run.result) === 'passed' ? 'passed' : 'did not pass'} (${safeInline(executionWords(run.result))})` : ` is ${safeInline(executionWords(run.status))}`;
    // the status, result, message and id are the service's words, each kept on its line (`safe-text.ts`)
    io.stdout(safeLineStart(safeInline(`${run.status} ${run.result ?? ''}`.trim() + ` — ${formatCounts(run)}`)));
    const url = webLink(run);
    io.stderr(safeLineStart(`Run ${safeInline(String(run.id))}${verdict}${run.message ? `: ${safeInline(run.message)}` : ''}`) + (url ? `\n${url}` : ''));
    return EXIT.OK;
  } finally {
    await target.close();
  }
}
