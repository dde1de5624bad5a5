import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { safeInline, safeLineStart } from '../../safe-text.js';
import type { ExecutionResult } from '../../api/resources.js';
import { formatDuration, parseDuration } from '../../duration.js';
import {
  executionWords,
  formatCounts,
  fetchExecutionJunit,
  getExecution,
  parseRuntimeData,
  triggerExecution,
  waitForExecution,
  type WaitClock,
  type WaitResult,
} from '../../runs/execution.js';
import { TmsyncError, toTmsyncError } from '../../errors.js';
import { ApiError } from '../../remote/api-error.js';
import type { TmsClient } from '../../remote/client.js';
import { webLink } from '../../remote/web-link.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { executionId, executionStatusDocument, jsonOutput } from '../json.js';
import { loadTarget, loadTargetConfig, type Target } from '../target.js';
import { EXIT } from '../exit-codes.js';

interface RunTriggerOptions extends GlobalOptions {
  /** test plan id (or human id `DEMO-P-2` when a project is configured) */
  testPlan: string;
  environment?: string;
  build?: string;
  /** `k=v` pairs */
  runtimeData?: string[];
  /** @default false */
  wait?: boolean;
  /** @default '30m' */
  timeout?: string;
  /** first poll interval @default '10s' */
  poll?: string;
  /** write the run's JUnit report here after the wait */
  junit?: string;
  args?: string[];
  /** time for the wait loop (tests) @default the system clock */
  clock?: WaitClock;
}

const PLAN_HUMAN_ID = /^[A-Za-z][A-Za-z0-9]*-P-\d+$/;

/**
 * `tmsync run trigger --test-plan ID [--wait]`: starts a test plan through the execution interface
 * and prints the run id on stdout. With `--wait`: follows the run; exit 0 when it passed, 3 when it
 * did not or the timeout passed, 1 on errors.
 */
export async function runRunTrigger(options: RunTriggerOptions, io: CliIo): Promise<number> {
  // each line quotes the service's words (ids, statuses, error messages): kept on it, made safe (`safe-text.ts`)
  const say = (text: string) => io.stderr(safeLineStart(safeInline(text)));
  const timeoutMs = parseDuration(options.timeout ?? '30m', '--timeout');
  const pollMs = parseDuration(options.poll ?? '10s', '--poll');
  const runtimeData = parseRuntimeData(options.runtimeData);
  if (options.junit !== undefined && !options.wait) {
    throw new TmsyncError('invalid_arguments', '--junit needs --wait: the report exists only once the run has finished', {
      hint: 'add --wait, or download it once the run has finished with `tmsync run report RUN_ID --junit FILE` (RUN_ID is the id this command prints)',
    });
  }
  const target = await loadExecutionTarget(options, io);
  try {
    const testPlanId = await planId(target.client, options.testPlan, target.projectRef, io.signal);
    const run = await triggerExecution(target.client, {
      testPlanId,
      environmentId: options.environment,
      buildNo: options.build,
      runtimeData,
      signal: io.signal,
    }).catch((err: unknown) => {
      throw refusedPlan(err, testPlanId);
    });
    // the trigger's answer carries only the id; the status carries the link
    let first: ExecutionResult | undefined;
    if (!run.url) {
      try {
        first = await getExecution(target.client, run.id, io.signal);
        const url = webLink(first);
        if (url) run.url = url;
      } catch {
        // the link is a courtesy: the wait (or `run status`) reads the status again
      }
    }
    if (!options.json) io.stdout(safeLineStart(safeInline(String(run.id))));
    say(`Started run ${run.id} of test plan ${options.testPlan}${run.url ? `: ${run.url}` : ''}`);

    if (!options.wait) {
      if (options.json) io.stdout(jsonOutput({ run: { ...run, id: executionId(run.id) } }));
      return EXIT.OK;
    }

    let lastStatus = first?.status;
    const waited = await waitForExecution(target.client, run.id, {
      timeoutMs,
      pollMs,
      clock: options.clock,
      signal: io.signal,
      onPoll: (r) => {
        if (r.status !== lastStatus) {
          say(`Run ${run.id}: ${executionWords(r.status)}${r.totalCount ? ` (${formatCounts(r)})` : ''}`);
          lastStatus = r.status;
        }
      },
      onTransientError: (e) => say(`Warning: reading the status of run ${run.id} failed (${e.message}); still waiting`),
    });
    say(summary(run.id, waited, timeoutMs));

    let junitFile: string | undefined;
    let junitError: TmsyncError | undefined;
    if (options.junit !== undefined) {
      if (waited.outcome === 'timeout') {
        say(`No JUnit report: run ${run.id} has not finished.`);
      } else {
        try {
          const xml = await fetchExecutionJunit(target.client, run.id, io.signal);
          junitFile = resolve(options.cwd, options.junit);
          await mkdir(dirname(junitFile), { recursive: true });
          await writeFile(junitFile, xml);
          say(`JUnit report written to ${options.junit}`);
        } catch (err) {
          junitError = toTmsyncError(err);
        }
      }
    }

    if (options.json) {
      io.stdout(
        jsonOutput({
          run: { ...run, id: executionId(run.id) },
          outcome: waited.outcome,
          status: waited.run ? executionStatusDocument(waited.run) : null,
          polls: waited.polls,
          transientErrors: waited.transientErrors,
          elapsedMs: waited.elapsedMs,
          ...(junitFile ? { junit: options.junit } : {}),
          ...(junitError ? { error: junitError.toJSON() } : {}),
        }),
      );
    }
    if (junitError) {
      // the report was asked for and is missing: that is an error, whatever the run's result
      say(`Error: ${junitError.message}`);
      if (junitError.hint) say(`Hint: ${junitError.hint}`);
      return EXIT.FAILED;
    }
    return waited.outcome === 'passed' ? EXIT.OK : EXIT.RUN_NOT_PASSED;
  } catch (err) {
    if (io.signal?.aborted) {
      say('Interrupted; the run goes on on the service (check it with `tmsync run status`).');
      return EXIT.INTERRUPTED;
    }
    throw err;
  } finally {
    await target.close();
  }
}

function summary(runId: string, w: WaitResult, timeoutMs: number): string {
  const counts = formatCounts(w.run);
  if (w.outcome === 'passed') return `Run ${runId} passed (${executionWords(w.run?.result)}): ${counts}.`;
  if (w.outcome === 'failed') return `Run ${runId} did not pass (${w.run?.result ? executionWords(w.run.result) : 'no result'}): ${counts}.`;
  const last = w.run ? `last status: ${executionWords(w.run.status)}` : 'no status could be read';
  return `Run ${runId} did not finish within ${formatDuration(timeoutMs)} (${last}): ${counts}.`;
}

/**
 * What the trigger names the plan by. The execution interface takes a plan's execution id, a
 * number (what the live service's clients send); a number is sent as it is. With a project
 * configured, a plan's human id or uuid is read through the management interface and its
 * `execution_id` sent when the service gives one (the emulator's document dialect does); otherwise
 * its uuid, which a service may refuse (see {@link refusedPlan}).
 */
async function planId(client: TmsClient, ref: string, projectRef: string, signal?: AbortSignal): Promise<string> {
  if (/^\d+$/.test(ref.trim()) || !projectRef) return ref;
  const { resolveProject, looksLikeId } = await import('../../remote/resolve-project.js');
  if (!PLAN_HUMAN_ID.test(ref) && !looksLikeId(ref)) return ref;
  const project = await resolveProject(client, projectRef);
  try {
    const res = await client.call('getTestPlan', { params: { project_id: project.id, test_plan_id: ref }, signal });
    const plan = res.data.test_plan;
    return typeof plan.execution_id === 'number' ? String(plan.execution_id) : plan.id;
  } catch (err) {
    // a uuid the project does not hold may still be a plan the execution interface knows
    if (looksLikeId(ref) && err instanceof ApiError && err.code === 'not_found') return ref;
    throw err;
  }
}

/** A trigger refused because the plan was not named by a number gets a hint saying what to send. */
function refusedPlan(err: unknown, sent: string): unknown {
  if (!(err instanceof ApiError) || err.code !== 'invalid_request' || /^\d+$/.test(sent.trim())) return err;
  return new TmsyncError('invalid_request', err.message, {
    hint: `the service refused the test plan "${sent}": its execution interface names a plan by its execution id, a number (the one its own CI scripts send as executionId); pass --test-plan <number>`,
    details: err.details,
    cause: err,
  });
}

/**
 * The target of the execution-interface commands. They need no project, and the execution
 * interface has its own variables: with only `TMSYNC_APP_URL` and `TMSYNC_APP_API_KEY` set (no
 * management URL or key anywhere), those stand in for the management ones.
 */
export async function loadExecutionTarget(options: GlobalOptions, io: CliIo): Promise<Target> {
  const env = { ...io.env };
  if (options.profile === undefined) {
    if (env.TMSYNC_APP_URL && !options.baseUrl && !env.TMSYNC_BASE_URL) {
      const { config } = await loadTargetConfig(options);
      if (!config.baseUrl) env.TMSYNC_BASE_URL = `${env.TMSYNC_APP_URL.replace(/\/+$/, '')}/api/v1`;
    }
    if (!env.TMSYNC_API_KEY && env.TMSYNC_APP_API_KEY) env.TMSYNC_API_KEY = env.TMSYNC_APP_API_KEY;
  }
  return loadTarget(options, { ...io, env }, { requireProject: false });
}
