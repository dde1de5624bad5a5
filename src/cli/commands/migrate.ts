import { formatProblem, TmsyncError } from '../../errors.js';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { ApplySession } from '../../apply/engine.js';
import { createProgressReporter } from '../../apply/progress.js';
import { kindWords } from '../../plan/operation-kinds.js';
import { safeInline } from '../../safe-text.js';
import { hasChanges, planDocument, planTextChunks } from '../../plan/index.js';
import { fetchState, resolveProject } from '../../remote/index.js';
import { migrationScope, planMigration, settlePendingCreates } from '../../migrate/migrate.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { withApplySession } from '../hold-lock.js';
import { loadTarget, type Target } from '../target.js';
import { parseFolderPath } from './pull.js';
import { EXIT } from '../exit-codes.js';

interface MigrateOptions extends GlobalOptions {
  /** the source profile (from `profiles:` in tmsync.yaml) */
  from: string;
  /** the target profile */
  to: string;
  /** only this folder subtree: names joined by `/` */
  folder?: string;
  /** do not ask for confirmation @default false */
  autoApprove?: boolean;
  /** wait this long (a duration) for the repository lock; none: fail at once */
  lockTimeout?: string;
  /** the plan as a table per folder, details only for updates; false: every item in detail (docs/plan.md) @default compact above 50 operations */
  compact?: boolean;
}

const QUESTION = "Do you want to copy these items to the target? Only 'yes' will be accepted: ";

/**
 * `tmsync migrate --from A --to B [--folder PATH]`: reads the source project, plans the target
 * through the plan engine (natural keys, so a re-run adopts what exists) and, once approved,
 * applies through the apply engine. Nothing is written to disk: there are no files to write
 * ids back to. Exit 0 on success, 1 when anything failed (run it again to finish).
 */
export async function runMigrate(options: MigrateOptions, io: CliIo): Promise<number> {
  if (options.from === options.to) {
    throw new TmsyncError('invalid_option', `--from and --to name the same profile "${options.from}"`, {
      hint: 'migrate copies between two profiles of tmsync.yaml `profiles:`',
    });
  }
  const source = await loadTarget(options, io, { profile: options.from });
  try {
    // the lock and the journal of a migration live in the source repository's .tmsync/
    return await withApplySession(source.root, 'migrate', options.lockTimeout, io, (session) => migrateFrom(source, session, options, io));
  } finally {
    await source.close();
  }
}

async function migrateFrom(source: Target, session: ApplySession, options: MigrateOptions, io: CliIo): Promise<number> {
  let target: Target | undefined;
  try {
    // as apply's (docs/apply.md): the client writing the target gets no abort signal, so Ctrl-C
    // never cuts off a create whose answer would be lost; the engine starts nothing new
    target = await loadTarget(options, { ...io, signal: undefined }, { profile: options.to });
    const folder = parseFolderPath(options.folder);
    const scope = migrationScope(folder);
    const [srcProject, dstProject] = await Promise.all([
      resolveProject(source.client, source.projectRef),
      resolveProject(target.client, target.projectRef),
    ]);
    if (srcProject.id === dstProject.id && source.baseUrl === target.baseUrl) {
      throw new TmsyncError('invalid_option', `--from ${options.from} and --to ${options.to} are the same project`, {
        hint: 'point the profiles at two different projects or instances',
      });
    }
    const [srcState, dstState] = await Promise.all([
      fetchState(source.client, srcProject.id, { ...(scope ? { scope } : {}), signal: io.signal }),
      fetchState(target.client, dstProject.id, { ...(scope ? { scope } : {}), signal: io.signal }),
    ]);
    const { plan, display, problems, warnings, claimedIds } = planMigration(srcState, dstState, folder ? { folder } : {});
    for (const w of warnings) io.stderr(`Warning: ${safeInline(w.message)}`);
    if (problems.length > 0) {
      for (const p of problems) io.stderr(formatProblem(p));
      if (options.json) io.stdout(jsonOutput({ problems }));
      io.stderr(`Error: ${problems.length} problem${problems.length === 1 ? '' : 's'} between the source and the target; nothing was copied.`);
      return EXIT.FAILED;
    }
    // the result (the plan, the summary line) on stdout as apply's; with --json stdout holds only the document
    const shown = options.json
      ? { write: io.stderr, color: options.color.stderr, drained: io.stderrDrained }
      : { write: io.stdout, color: options.color.stdout, drained: io.stdoutDrained };
    // whoever is asked for `yes` sees the plan, also when stdout goes to a file
    const asks = !options.autoApprove && io.isTTY && Boolean(io.prompt) && hasChanges(plan);
    const outputs = asks && !options.json && !io.stdoutIsTTY ? [shown, { write: io.stderr, color: options.color.stderr, drained: io.stderrDrained }] : [shown];
    for (const to of outputs) {
      to.write(`Migrating ${safeInline(srcProject.name)} (${options.from}) → ${safeInline(dstProject.name)} (${options.to})${folder ? `, folder ${safeInline(folder.join('/'))}` : ''}:`);
      // in pieces, each once the stream has taken the one before (a slow reader does not get it queued whole)
      for (const chunk of planTextChunks(plan, { color: to.color, compact: options.compact, migration: true, display })) {
        to.write(chunk);
        await to.drained?.();
      }
    }
    if (!hasChanges(plan)) {
      if (options.json) io.stdout(jsonOutput({ plan: planDocument(plan, display), result: null }));
      return EXIT.OK;
    }
    if (!options.autoApprove) {
      if (!io.isTTY || !io.prompt) {
        throw new TmsyncError('approval_required', 'migrate needs a confirmation and there is no terminal to ask on', {
          hint: 'pass --auto-approve to copy without asking',
        });
      }
      if ((await io.prompt(QUESTION)).trim() !== 'yes') {
        io.stderr('Migration cancelled.');
        return EXIT.FAILED;
      }
    }
    // the apply journal, kept apart per source/target pair: a killed migration's half-done creates
    // (a folder created but not yet moved) are finished, not made again
    const pairHash = createHash('sha256')
      .update([source.baseUrl, srcProject.id, target.baseUrl, dstProject.id].join('\u0000'))
      .digest('hex')
      .slice(0, 16);
    const journalRoot = join(source.root, '.tmsync', `migrate-${pairHash}`);
    const progress = createProgressReporter({ tty: io.isTTY, write: io.isTTY ? (s) => void process.stderr.write(s) : (s) => io.stderr(s) });
    const timer = setInterval(() => progress.tick(), io.isTTY ? 250 : 1000);
    timer.unref();
    let result;
    try {
      result = await session.apply(plan, {
        client: target.client,
        journalRoot,
        // no files: the target's ids stay on the target; natural keys find them next time
        existingIds: [...dstState.folders.map((f) => f.id), ...dstState.cases.map((c) => c.id), ...dstState.stepGroups.map((g) => g.id)],
        settlePending: (pending, resumeIds) => settlePendingCreates(plan, dstState, claimedIds, pending, resumeIds),
        ...(io.signal ? { signal: io.signal } : {}),
        onProgress: (p) => progress.update(p),
      });
    } finally {
      clearInterval(timer);
      progress.finish();
    }
    for (const f of result.failed.filter((x) => x.stage === 'request')) io.stderr(`Error: ${kindWords(f.kind)} (${safeInline(f.key)}) failed: ${safeInline(f.message)}`);
    const failed = result.failed.filter((x) => x.stage === 'request').length;
    const line = `${result.created} created, ${result.updated} updated, ${result.moved} moved, ${result.adopted} adopted`;
    if (result.interrupted) shown.write(`Migration interrupted: ${line}; run the same command again to finish.`);
    else shown.write(`Migration complete: ${line}.`);
    if (failed || result.skipped.length) {
      io.stderr(`${failed} operation${failed === 1 ? '' : 's'} failed and ${result.skipped.length} were skipped; run the same command again to finish.`);
    }
    if (options.json) {
      io.stdout(
        jsonOutput({
          plan: planDocument(plan, display),
          result: { created: result.created, updated: result.updated, moved: result.moved, adopted: result.adopted, failed: result.failed, skipped: result.skipped.map(({ key, reason }) => ({ key, reason })), interrupted: result.interrupted },
        }),
      );
    }
    if (result.interrupted) return EXIT.INTERRUPTED;
    return failed || result.skipped.length ? EXIT.FAILED : EXIT.OK;
  } finally {
    await target?.close();
  }
}
