import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { TmsyncError, formatProblem } from '../../errors.js';
import { red, type CliIo, type GlobalOptions } from '../io.js';
import { EXIT } from '../exit-codes.js';
import { assertNever } from '../../assert-never.js';
import { jsonOutput } from '../json.js';
import { cell, summary } from '../ci-output.js';
import { withApplySession } from '../hold-lock.js';
import { loadTarget, type Target } from '../target.js';
import { hasChanges, openConflicts, parsePlanFile, planDocument, summaryLine, type Plan, type PlanDisplay, type Prefer } from '../../plan/index.js';
import { conflictsError } from './plan.js';
import { useCaseContext } from '../use-case-context.js';
import type { RemoteProject } from '../../model.js';
import type { ApplyResult } from '../../apply/executor.js';
import type { ApplySession } from '../../apply/engine.js';
import { createProgressReporter } from '../../apply/progress.js';
import { kindWords } from '../../plan/operation-kinds.js';
import { safeInline, safeMessage } from '../../safe-text.js';
import { applyRepository, type ApplyRepositoryOptions } from '../../usecases/apply-repository.js';
import { writePlanText } from '../../usecases/plan-text.js';

export interface ApplyOptions extends GlobalOptions {
  /** `[planfile]`: a plan saved by `tmsync plan --out` */
  args?: string[];
  /** do not ask for confirmation @default false */
  autoApprove?: boolean;
  /** delete remote items in scope that the repository does not describe @default false */
  prune?: boolean;
  /** with prune, accept deleting and recreating cases that look renamed @default false */
  allowRecreate?: boolean;
  /** wait this long (a duration) for the repository lock; none: fail at once */
  lockTimeout?: string;
  /** print the plan's summary line instead of the whole plan @default false */
  quiet?: boolean;
  /** the plan as a table per folder, details only for updates and deletes; false: every item in detail (docs/plan.md) @default compact above 50 operations */
  compact?: boolean;
  /** settle conflicts with the sync base (docs/sync.md) */
  prefer?: Prefer;
}

const QUESTION = "Do you want to perform these actions? Only 'yes' will be accepted: ";

/**
 * `tmsync apply [PLANFILE]`: plans (or reads a saved plan and checks it is not stale), asks, runs
 * the operations, writes ids back, and reports. Exit 0 when everything succeeded, 1 when anything
 * failed or was refused, 130 after Ctrl-C (the operations in flight are finished first).
 */
export async function runApply(options: ApplyOptions, io: CliIo): Promise<number> {
  const signal = io.signal ?? new AbortController().signal;
  // the client gets no abort signal: on Ctrl-C the requests in flight finish, nothing new starts
  const target = await loadTarget(options, { ...io, signal: undefined });
  try {
    return await withApplySession(target.root, 'apply', options.lockTimeout, io, async (session) => {
      const planFile = options.args?.[0];
      const saved = planFile ? await readPlanFile(resolve(options.cwd, planFile)) : undefined;
      return applyWith(options, io, target, session, saved, signal);
    });
  } catch (err) {
    // Ctrl-C while planning: reads were cancelled, nothing was changed
    if (signal.aborted) {
      io.stderr('Interrupted before anything was applied.');
      return EXIT.INTERRUPTED;
    }
    throw err;
  } finally {
    await target.close();
  }
}

async function applyWith(options: ApplyOptions, io: CliIo, target: Target, session: ApplySession, saved: Plan | undefined, signal: AbortSignal): Promise<number> {
  const shown = resultStream(options, io);
  const outcome = await applyRepository(
    target,
    {
      ...(saved ? { saved } : {}),
      ...(options.prune !== undefined ? { prune: options.prune } : {}),
      ...(options.allowRecreate !== undefined ? { allowRecreate: options.allowRecreate } : {}),
      ...(options.prefer ? { prefer: options.prefer } : {}),
      session,
      onPlan: (plan, display) => showPlan(plan, display, options, io, shown, Boolean(saved)),
      ...(saved || options.autoApprove ? {} : { approve: () => approve(io) }),
      ...runHooks(io, signal),
    },
    { ...useCaseContext(io), signal, onLoaded: (problems) => problems.forEach((p) => io.stderr(formatProblem(p))) },
  );
  switch (outcome.status) {
    case 'invalid_repository': {
      const errors = outcome.problems.filter((p) => p.severity !== 'warning').length;
      io.stderr(`${red('Error:', options.color.stderr)} ${errors} problem${errors === 1 ? '' : 's'} in the tests repository; nothing was applied.`);
      return EXIT.FAILED;
    }
    case 'plan_problems': {
      const { problems } = outcome;
      for (const p of problems) io.stderr(formatProblem(p));
      io.stderr(`${red('Error:', options.color.stderr)} the plan has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was applied.`);
      return EXIT.FAILED;
    }
    case 'interrupted':
      return EXIT.INTERRUPTED;
    case 'conflicts':
      io.stderr(`${red('Error:', options.color.stderr)} ${conflictsError(outcome.conflicts)}`);
      if (options.json) io.stdout(jsonOutput({ plan: planDocument(outcome.plan, outcome.display), result: null, ...projectLink(outcome.project) }));
      return EXIT.FAILED;
    case 'in_step':
      if (outcome.baseError !== undefined) io.stderr(baseNotWritten(outcome.baseError));
      if (options.json) io.stdout(jsonOutput({ plan: planDocument(outcome.plan, outcome.display), result: null, ...projectLink(outcome.project) }));
      await summary(io, `### tmsync apply\n\n**${summaryLine(outcome.plan)}** Nothing was applied.`);
      return EXIT.OK;
    case 'declined':
      io.stderr('Apply cancelled.');
      return EXIT.FAILED;
    case 'applied': {
      const { result, plan, display, project } = outcome;
      if (result.syncBaseError) io.stderr(baseNotWritten(result.syncBaseError));
      report(result, options, io, plan, display, project, shown);
      await summary(io, applySummary(result, project));
      if (result.journalError) return EXIT.FAILED;
      if (result.interrupted) return EXIT.INTERRUPTED;
      if (result.syncBaseError) return EXIT.FAILED;
      return result.failed.length || result.skipped.length || openRunConflicts(result) ? EXIT.FAILED : EXIT.OK;
    }
    default: {
      return assertNever(outcome);
    }
  }
}

/** The plan, shown before it is asked about or run: whoever is asked for `yes` sees it, also when stdout goes to a file (`apply > apply.log`). */
async function showPlan(plan: Plan, display: PlanDisplay, options: ApplyOptions, io: CliIo, shown: ReturnType<typeof resultStream>, saved: boolean): Promise<void> {
  const asks = !saved && !options.autoApprove && io.isTTY && Boolean(io.prompt) && hasChanges(plan) && openConflicts(plan) === 0;
  const outputs = asks && !options.json && !io.stdoutIsTTY ? [shown, { write: io.stderr, color: options.color.stderr, drained: io.stderrDrained }] : [shown];
  for (const to of outputs) {
    if (options.quiet) to.write(summaryLine(plan));
    // written in pieces: a large plan's text is not held whole, nor queued whole for a slow reader
    else await writePlanText(plan, { color: to.color, compact: options.compact, display }, to, io.memory);
  }
}

/** Asks for `yes` on the terminal; there must be one. */
async function approve(io: CliIo): Promise<boolean> {
  if (!io.isTTY || !io.prompt) {
    throw new TmsyncError('approval_required', 'apply needs a confirmation and there is no terminal to ask on', {
      hint: 'pass --auto-approve to apply without asking (or save the plan with `tmsync plan --out FILE` and run `tmsync apply FILE`)',
    });
  }
  return (await io.prompt(QUESTION)).trim() === 'yes';
}

/** A progress bar (or lines) while the operations run, and a note on Ctrl-C. */
function runHooks(io: CliIo, signal: AbortSignal): Pick<ApplyRepositoryOptions, 'onRun' | 'onProgress'> {
  // a bar needs a real terminal to redraw on; anything else gets progress lines
  const tty = io.isTTY && Boolean(process.stderr.isTTY);
  const progress = createProgressReporter({
    tty,
    write: tty ? (s) => void process.stderr.write(s) : (s) => io.stderr(s),
  });
  return {
    onProgress: (p) => progress.update(p),
    onRun: () => {
      const timer = setInterval(() => progress.tick(), tty ? 250 : 1000);
      timer.unref();
      const onAbort = () => io.stderr('\nInterrupted: finishing the operations in flight, starting no new ones (Ctrl-C again to stop at once).');
      signal.addEventListener('abort', onAbort, { once: true });
      return () => {
        clearInterval(timer);
        progress.finish();
        signal.removeEventListener('abort', onAbort);
      };
    },
  };
}

function baseNotWritten(message: string): string {
  return `Warning: tmsync.base could not be written (${safeInline(message)}); the service holds what was applied, and the next plan compares against the older base.`;
}

/** `{ projectUrl }` when the service's answer for the project linked to its web UI page, else nothing. */
function projectLink(project: RemoteProject): { projectUrl?: string } {
  return project.webUrl ? { projectUrl: project.webUrl } : {};
}

/** The job summary of an apply: the counts, the project's page, then what failed or was skipped. */
function applySummary(result: ApplyResult, project: RemoteProject): string {
  const state = result.interrupted ? 'Apply interrupted' : result.failed.length || result.skipped.length || openRunConflicts(result) ? 'Apply finished with failures' : 'Apply complete';
  const lines = [
    '### tmsync apply',
    '',
    `**${state}: ${result.created} created, ${result.updated} updated, ${result.moved} moved, ${result.deleted} deleted${result.adopted ? `, ${result.adopted} adopted` : ''}.**`,
  ];
  if (project.webUrl) lines.push('', `View project: <${project.webUrl}>`);
  const rows = [
    ...(result.conflicts ?? [])
      .filter((c) => !c.settled)
      .map((c) => `| conflict | ${cell(c.file ?? c.key)} | ${cell(`${c.field} changed on the service while the apply ran; not sent`)} |`),
    ...result.failed.map((f) => `| failed | ${cell(f.file ?? f.key)} | ${cell(f.message)} |`),
    ...result.skipped.map((s) => `| skipped | ${cell(s.key)} | ${cell(s.reason)} |`),
  ];
  if (rows.length) lines.push('', '| | Item | Why |', '|---|---|---|', ...rows.slice(0, 200));
  if (rows.length > 200) lines.push('', `… and ${rows.length - 200} more (see the job log)`);
  return lines.join('\n');
}

/**
 * Where apply's result goes (the plan shown, the summary line, the project's page): stdout, as
 * terraform's, so `apply > apply.log` keeps it; progress, prompts, notices and errors stay on
 * stderr. With --json stdout holds the one JSON document only, and the result goes to stderr.
 */
function resultStream(options: ApplyOptions, io: CliIo): { write: (text: string) => void; color: boolean; drained?: () => Promise<void> } {
  if (options.json) return { write: io.stderr, color: options.color.stderr, ...(io.stderrDrained ? { drained: io.stderrDrained } : {}) };
  return { write: io.stdout, color: options.color.stdout, ...(io.stdoutDrained ? { drained: io.stdoutDrained } : {}) };
}

function report(result: ApplyResult, options: ApplyOptions, io: CliIo, plan: Plan, display: PlanDisplay, project: RemoteProject, shown: ReturnType<typeof resultStream>): void {
  // keys, files and messages hold titles and the service's words: each kept on its line (`safe-text.ts`)
  for (const f of result.failed) {
    const where = f.file ? `${safeInline(f.file)}: ` : '';
    const what = f.stage === 'write_back' ? 'id not written back' : kindWords(f.kind);
    io.stderr(`${red('Error:', options.color.stderr)} ${where}${what} (${safeInline(f.key)}) failed: ${safeInline(f.message)}`);
  }
  // those a failure left, not those the interrupt or the journal stopped
  const skippedByFailure = result.skipped.filter((s) => s.cause.kind !== 'interrupted' && s.cause.kind !== 'journal_unwritable');
  for (const s of skippedByFailure) io.stderr(`Skipped: ${safeInline(s.key)}: ${safeInline(s.reason)}`);
  reportRunChanges(result, options, io);
  const adopted = result.adopted > 0 ? `, ${result.adopted} adopted (ids written back)` : '';
  const counts = `${result.created} created, ${result.updated} updated, ${result.moved} moved, ${result.deleted} deleted${adopted}.`;
  if (result.journalError) {
    const left = result.skipped.filter((s) => s.cause.kind === 'journal_unwritable').length;
    io.stderr(`Error: ${safeMessage(result.journalError)}`);
    shown.write(
      `Apply stopped: ${counts} ${left} operation${left === 1 ? '' : 's'} not started because the journal could not be written; the operations in flight were finished and their ids written back. Free the disk or fix the permissions, then run \`tmsync apply\` again.`,
    );
  } else if (result.interrupted) {
    const left = result.skipped.length - skippedByFailure.length;
    shown.write(`Apply interrupted: ${counts} ${left} operation${left === 1 ? '' : 's'} not started; run \`tmsync apply\` again to finish.`);
  } else {
    shown.write(`${openRunConflicts(result) ? 'Apply finished with conflicts' : 'Apply complete'}: ${counts}`);
  }
  const open = openRunConflicts(result);
  if (open) {
    io.stderr(
      `${red('Error:', options.color.stderr)} ${open} field${open === 1 ? ' was' : 's were'} changed on the service while the apply ran, to another value than the repository's; ${open === 1 ? 'its update was' : 'their updates were'} not sent. Run \`tmsync apply --prefer local\` (the repository's values are sent) or \`--prefer remote\` (the service's are kept), or \`tmsync pull\` to take them into the files.`,
    );
  }
  const requestFailures = result.failed.filter((f) => f.stage === 'request').length;
  const writeFailures = result.failed.length - requestFailures;
  if (requestFailures || skippedByFailure.length) {
    io.stderr(
      `${requestFailures} operation${requestFailures === 1 ? '' : 's'} failed and ${skippedByFailure.length} depending on them were skipped; the successful ones are kept. Fix the cause and run \`tmsync apply\` again.`,
    );
  }
  if (writeFailures) {
    io.stderr(`${writeFailures} id${writeFailures === 1 ? '' : 's'} could not be written back; the next apply adopts those items by natural key instead of creating them again.`);
  }
  // the project's page in the service's web UI, when the service gave one (no line otherwise)
  if (project.webUrl) shown.write(`View project: ${safeInline(project.webUrl)}`);
  if (options.json) {
    io.stdout(
      jsonOutput({
        plan: planDocument(plan, display),
        result: {
          created: result.created,
          updated: result.updated,
          moved: result.moved,
          deleted: result.deleted,
          adopted: result.adopted,
          failed: result.failed,
          skipped: result.skipped.map(({ key, reason }) => ({ key, reason })),
          interrupted: result.interrupted,
          ...(result.conflicts?.length ? { conflicts: result.conflicts } : {}),
          ...(result.merged?.length ? { merged: result.merged } : {}),
          ...(result.journalError ? { journal_error: result.journalError } : {}),
        },
        ...projectLink(project),
      }),
    );
  }
}

/** Conflicts the write guard found and `--prefer` did not settle: those updates were not sent. */
function openRunConflicts(result: ApplyResult): number {
  return (result.conflicts ?? []).filter((c) => !c.settled).length;
}

/** What the write guard found changed on the service while the apply ran (docs/sync.md). */
function reportRunChanges(result: ApplyResult, options: ApplyOptions, io: CliIo): void {
  const name = (c: { file?: string; humanId?: string; id: string }) => c.file ?? c.humanId ?? c.id;
  for (const m of result.merged ?? []) {
    io.stderr(`Merged: ${name(m)}: ${m.fields.join(', ')} changed on the service while the apply ran; the service's value was sent with the update (\`tmsync pull\` takes it into the files).`);
  }
  for (const c of result.conflicts ?? []) {
    const what = c.field === 'deleted' ? 'was deleted on the service while the apply ran' : `${c.field} changed on the service while the apply ran`;
    const outcome = c.settled === 'local' ? "the repository's value was sent (--prefer local)" : c.settled === 'remote' ? "the service's value was kept (--prefer remote)" : 'not sent';
    const prefix = c.settled ? 'Settled:' : `${red('Conflict:', options.color.stderr)}`;
    const values = c.field === 'deleted' ? '' : `\n    repository: ${JSON.stringify(c.local)}\n    service:    ${JSON.stringify(c.remote)}`;
    io.stderr(`${prefix} ${name(c)}: ${what}; ${outcome}.${values}`);
  }
}

async function readPlanFile(file: string): Promise<Plan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new TmsyncError('plan_file_not_found', `cannot read the plan file ${file}: ${(err as Error).message}`, {
      hint: 'save a plan with `tmsync plan --out FILE` first',
    });
  }
  return parsePlanFile(text);
}
