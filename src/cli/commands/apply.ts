import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { TmsyncError, formatProblem } from '../../errors.js';
import { envTuning } from '../env-tuning.js';
import { red, type CliIo, type GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { cell, summary } from '../ci-output.js';
import { withApplySession } from '../hold-lock.js';
import { loadTarget } from '../target.js';
import { checkMemory, collectMemory } from '../memory.js';
import { loadRepository, removeStrayTempFiles } from '../../repository/index.js';
import { confirmMissing, fetchState, resolveProject } from '../../remote/index.js';
import { buildPlan, hasChanges, openConflicts, parsePlanFile, planDocument, planTextChunks, summaryLine, type BuildPlanResult, type Plan, type PlanDisplay, type Prefer, type SyncRecords } from '../../plan/index.js';
import type { SyncBase } from '../../base/base.js';
import { readSyncBase } from '../../base/base-file.js';
import { writeSynced } from '../../apply/engine.js';
import { conflictsError } from './plan.js';
import type { ActualState, RemoteProject } from '../../model.js';
import type { ApplyResult } from '../../apply/executor.js';
import type { ApplyPlanResult, ApplyRunOptions, ApplySession } from '../../apply/engine.js';
import { createProgressReporter } from '../../apply/progress.js';
import { staleItems, staleMessage } from '../../apply/stale.js';
import { claimedRemoteIds } from '../../apply/finders.js';
import { fileWriteBack } from '../../apply/write-back.js';
import { kindWords } from '../../plan/operation-kinds.js';
import { safeInline, safeMessage } from '../../safe-text.js';
import { EXIT } from '../exit-codes.js';

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
  const interrupt = interruption(io);
  // the client gets no abort signal: on Ctrl-C the requests in flight finish, nothing new starts
  const target = await loadTarget(options, { ...io, signal: undefined });
  try {
    return await withApplySession(target.root, 'apply', options.lockTimeout, io, (session) => applyWith(options, io, target, session, interrupt.signal));
  } catch (err) {
    // Ctrl-C while planning: reads were cancelled, nothing was changed
    if (interrupt.signal.aborted) {
      io.stderr('Interrupted before anything was applied.');
      return EXIT.INTERRUPTED;
    }
    throw err;
  } finally {
    interrupt.dispose();
    await target.close();
  }
}

async function applyWith(
  options: ApplyOptions,
  io: CliIo,
  target: Awaited<ReturnType<typeof loadTarget>>,
  session: ApplySession,
  signal: AbortSignal,
): Promise<number> {
  const { config, root, client } = target;
  const planFile = options.args?.[0];
  const saved = planFile ? await readPlanFile(resolve(options.cwd, planFile)) : undefined;

  const project = await resolveProject(client, target.projectRef);
  if (saved && saved.project.id !== project.id) {
    throw new TmsyncError(
      'stale_plan',
      `the saved plan is for project ${saved.project.name} (${saved.project.humanIdPrefix}), not ${project.name} (${project.humanIdPrefix})`,
      { hint: 'apply it with the configuration it was made with, or run `tmsync plan --out FILE` for this project', details: { changed: [{ key: 'project', message: 'another project' }] } },
    );
  }
  const writeBack = fileWriteBack(root);

  // ids an interrupted apply recorded but did not write: written first, so the plan sees them
  // (with a saved plan, only after the staleness check, which compares the files as planned)
  const finishWriteBacks = async () => {
    const { written, failed } = await session.finishWriteBacks(project.id, root, writeBack);
    if (written.length) io.stderr(`Wrote ${written.length} id${written.length === 1 ? '' : 's'} recorded by an interrupted apply.`);
    for (const f of failed) io.stderr(`Warning: ${safeInline(f.file)}: the id ${safeInline(f.id)} could not be written: ${safeInline(f.message)}`);
  };
  if (!saved) await finishWriteBacks();

  // the repository's state is not held while the plan runs: only what the plan and the run need
  const planned = await planFromRepository(options, io, target, { project, saved, signal, finishWriteBacks });
  if (typeof planned === 'number') return planned;
  const { plan, built, actual, base, claimedIds } = planned;
  // the repository's state is garbage now: collected before the plan's text piles on it
  collectMemory();

  const shown = resultStream(options, io);
  // whoever is asked for `yes` sees the plan, also when stdout goes to a file (`apply > apply.log`)
  const asks = !saved && !options.autoApprove && io.isTTY && Boolean(io.prompt) && hasChanges(plan) && openConflicts(plan) === 0;
  const outputs = asks && !options.json && !io.stdoutIsTTY ? [shown, { write: io.stderr, color: options.color.stderr, drained: io.stderrDrained }] : [shown];
  for (const to of outputs) {
    if (options.quiet) to.write(summaryLine(plan));
    // written in pieces: a large plan's text is not held whole, nor queued whole for a slow reader;
    // the pieces are large strings that only a full collection frees, collected as they pile up
    else
      for (const chunk of planTextChunks(plan, { color: to.color, compact: options.compact, display: built.display })) {
        to.write(chunk);
        await to.drained?.();
        checkMemory();
      }
  }
  collectMemory();
  const conflicts = openConflicts(plan);
  if (conflicts > 0) {
    io.stderr(`${red('Error:', options.color.stderr)} ${conflictsError(conflicts)}`);
    if (options.json) io.stdout(jsonOutput({ plan: planDocument(plan, built.display), result: null, ...projectLink(project) }));
    return EXIT.FAILED;
  }
  const syncBase = built.synced ? { root, base, records: built.synced } : undefined;
  if (!hasChanges(plan)) {
    // nothing to send: every item compared is in step, and is recorded as synced
    if (syncBase) await recordBase(syncBase, io);
    if (options.json) io.stdout(jsonOutput({ plan: planDocument(plan, built.display), result: null, ...projectLink(project) }));
    await summary(io, `### tmsync apply\n\n**${summaryLine(plan)}** Nothing was applied.`);
    // the service matches the repository: nothing an earlier run left is still to do
    await session.settled(project.id);
    return EXIT.OK;
  }

  if (!saved && !options.autoApprove) {
    if (!io.isTTY || !io.prompt) {
      throw new TmsyncError('approval_required', 'apply needs a confirmation and there is no terminal to ask on', {
        hint: 'pass --auto-approve to apply without asking (or save the plan with `tmsync plan --out FILE` and run `tmsync apply FILE`)',
      });
    }
    const answer = await io.prompt(QUESTION);
    if (answer.trim() !== 'yes') {
      io.stderr('Apply cancelled.');
      return EXIT.FAILED;
    }
  }
  if (signal.aborted) return EXIT.INTERRUPTED;

  // the conflicts the write guard finds while the run goes are settled as the plan's were
  const prefer = options.prefer ?? plan.sync?.prefer;
  const result = await execute(plan, actual, session, {
    io,
    client,
    signal,
    writeBack,
    scoped: config.scope !== undefined,
    claimedIds,
    ...(syncBase ? { syncBase } : {}),
    ...(prefer ? { prefer } : {}),
  });
  if (result.syncBaseError) io.stderr(baseNotWritten(result.syncBaseError));
  report(result, options, io, plan, built.display, project, shown);
  await summary(io, applySummary(result, project));
  if (result.journalError) return EXIT.FAILED;
  if (result.interrupted) return EXIT.INTERRUPTED;
  if (result.syncBaseError) return EXIT.FAILED;
  return result.failed.length || result.skipped.length || openRunConflicts(result) ? EXIT.FAILED : EXIT.OK;
}

/**
 * Loads the repository, reads the service and plans (a saved plan: checks it is not stale). Its own
 * function so that the repository's state, which the plan no longer needs once built, is not held
 * by `applyWith` while the plan runs (tens of megabytes on a large repository). A number: the exit
 * code, nothing was applied.
 */
async function planFromRepository(
  options: ApplyOptions,
  io: CliIo,
  target: Awaited<ReturnType<typeof loadTarget>>,
  ctx: { project: RemoteProject; saved: Plan | undefined; signal: AbortSignal; finishWriteBacks: () => Promise<void> },
): Promise<number | { plan: Plan; built: BuildPlanResult; actual: ActualState; base: SyncBase; claimedIds: string[] }> {
  const { config, root, client } = target;
  const { project, saved, signal, finishWriteBacks } = ctx;
  const loaded = await loadRepository(root, config, envTuning(io.env).load);
  const strays = await removeStrayTempFiles(root, loaded.strays);
  if (strays.length) io.stderr(`Removed ${strays.length} temporary file${strays.length === 1 ? '' : 's'} a stopped run left: ${strays.join(', ')}`);
  const errors = loaded.problems.filter((p) => p.severity !== 'warning');
  for (const p of loaded.problems) io.stderr(formatProblem(p));
  if (errors.length) {
    io.stderr(`${red('Error:', options.color.stderr)} ${errors.length} problem${errors.length === 1 ? '' : 's'} in the tests repository; nothing was applied.`);
    return EXIT.FAILED;
  }
  if (signal.aborted) return EXIT.INTERRUPTED;
  // an `id:` the lists did not hold is read by id before the plan may call it deleted
  const actual = await confirmMissing(client, await fetchState(client, project.id, { scope: config.scope, signal }), loaded.state, {
    signal,
    ...(config.scope ? { scope: config.scope } : {}),
  });
  // what loading and reading left behind is collected before the plan is built (see memory.ts)
  checkMemory();
  const { base, notes: baseNotes } = await readSyncBase(root, project.id);
  for (const n of baseNotes) io.stderr(`Note: ${safeMessage(n)}`);
  const planWith = (prefer: Prefer | undefined) =>
    buildPlan(loaded.state, actual, { prune: saved?.prune ?? options.prune, allowRecreate: options.allowRecreate, base, ...(prefer ? { prefer } : {}) });
  // a saved plan is checked as it was made (its own --prefer); a --prefer given now settles its conflicts
  let built = planWith(saved ? saved.sync?.prefer : options.prefer);
  checkMemory();

  let plan: Plan;
  if (saved) {
    const stale = staleItems(saved, { contentHash: loaded.state.contentHash, actual, fresh: built.plan });
    if (stale.length) {
      throw new TmsyncError('stale_plan', staleMessage(stale), {
        hint: 'run `tmsync plan --out FILE` again and apply the new plan',
        details: { changed: stale },
      });
    }
    plan = saved;
    if (options.prefer && (saved.sync?.conflicts.length ?? 0) > 0 && options.prefer !== saved.sync?.prefer) {
      // the same inputs as the saved plan (checked above), its conflicts settled as --prefer says
      built = planWith(options.prefer);
      plan = built.plan;
    }
    await finishWriteBacks();
  } else {
    if (built.problems.length) {
      for (const p of built.problems) io.stderr(formatProblem(p));
      io.stderr(`${red('Error:', options.color.stderr)} the plan has ${built.problems.length} problem${built.problems.length === 1 ? '' : 's'}; nothing was applied.`);
      return EXIT.FAILED;
    }
    plan = built.plan;
  }

  return { plan, built, actual, base, claimedIds: claimedRemoteIds(loaded.state, actual) };
}

/** Runs the plan through the engine, with a progress bar (or lines) and a note on Ctrl-C. */
async function execute(
  plan: Plan,
  actual: ActualState,
  session: ApplySession,
  ctx: {
    io: CliIo;
    client: ApplyRunOptions['client'];
    signal: AbortSignal;
    writeBack: ReturnType<typeof fileWriteBack>;
    /** the configuration limits the managed folders (`scope`) */
    scoped: boolean;
    /** remote ids the repository's files claim with `id:` */
    claimedIds: string[];
    syncBase?: { root: string; base: SyncBase; records: SyncRecords };
    /** how conflicts the write guard finds are settled */
    prefer?: Prefer;
  },
): Promise<ApplyPlanResult> {
  const existingIds = [...actual.folders.map((f) => f.id), ...actual.cases.map((c) => c.id), ...actual.stepGroups.map((g) => g.id)];
  // every top-level folder, in scope or not: fetchState only reads the folders in scope
  const topFolders = ctx.scoped ? 'read' : actual.folders.filter((f) => f.parentId === null).map((f) => ({ id: f.id, name: f.name }));
  // a bar needs a real terminal to redraw on; anything else gets progress lines
  const tty = ctx.io.isTTY && Boolean(process.stderr.isTTY);
  const progress = createProgressReporter({
    tty,
    write: tty ? (s) => void process.stderr.write(s) : (s) => ctx.io.stderr(s),
  });
  const timer = setInterval(() => progress.tick(), tty ? 250 : 1000);
  timer.unref();
  const onAbort = () => ctx.io.stderr('\nInterrupted: finishing the operations in flight, starting no new ones (Ctrl-C again to stop at once).');
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await session.apply(plan, {
      client: ctx.client,
      signal: ctx.signal,
      writeBack: ctx.writeBack,
      existingIds,
      claimedIds: ctx.claimedIds,
      existingTopFolders: topFolders,
      ...(ctx.syncBase ? { syncBase: ctx.syncBase } : {}),
      // every update is checked against the service just before it is sent (docs/sync.md)
      guard: { before: actual, ...(ctx.prefer ? { prefer: ctx.prefer } : {}) },
      onProgress: (p) => progress.update(p),
    });
  } finally {
    clearInterval(timer);
    progress.finish();
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

/** Records an apply that had nothing to send in the base; a base that cannot be written is said, not fatal. */
async function recordBase(syncBase: { root: string; base: SyncBase; records: SyncRecords }, io: CliIo): Promise<void> {
  try {
    await writeSynced(syncBase);
  } catch (err) {
    io.stderr(baseNotWritten((err as Error).message));
  }
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
  const skippedByFailure = result.skipped.filter((s) => !s.reason.startsWith('interrupted') && !s.reason.startsWith('not started: the journal'));
  for (const s of skippedByFailure) io.stderr(`Skipped: ${safeInline(s.key)}: ${safeInline(s.reason)}`);
  reportRunChanges(result, options, io);
  const adopted = result.adopted > 0 ? `, ${result.adopted} adopted (ids written back)` : '';
  const counts = `${result.created} created, ${result.updated} updated, ${result.moved} moved, ${result.deleted} deleted${adopted}.`;
  if (result.journalError) {
    const left = result.skipped.filter((s) => s.reason.startsWith('not started: the journal')).length;
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
          skipped: result.skipped,
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

/**
 * The abort signal of this command: the one main gives (io.signal) or, when there is none, a
 * SIGINT handler installed for the duration of the command. A second Ctrl-C stops at once.
 */
function interruption(io: CliIo): { signal: AbortSignal; dispose(): void } {
  if (io.signal) return { signal: io.signal, dispose: () => undefined };
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) process.exit(EXIT.INTERRUPTED);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  return { signal: controller.signal, dispose: () => void process.off('SIGINT', onSigint) };
}
