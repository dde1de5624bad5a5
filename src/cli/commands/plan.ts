import { writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { formatProblem, TmsyncError, type Problem } from '../../errors.js';
import { openConflicts, planDiffers, type Prefer } from '../../plan/index.js';
import { PLAN_COMMENT_MARKER, planTextChunks, renderPlanJson, renderPlanJsonLine, renderPlanMarkdown, summaryLine, type Plan, type PlanDisplay } from '../../plan/index.js';
import { planRepository, type PlanRepositoryOptions } from '../../usecases/plan-repository.js';
import { red, type CliIo, type GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { annotateProblems, problemsSummary, summary } from '../ci-output.js';
import { loadTarget } from '../target.js';
import { useCaseContext } from '../use-case-context.js';
import { EXIT } from '../exit-codes.js';
import { assertNever } from '../../assert-never.js';

interface PlanOptions extends GlobalOptions {
  /** save the plan (JSON) for `tmsync apply FILE` */
  out?: string;
  /** what stdout gets @default 'text' */
  format?: 'text' | 'markdown' | 'json';
  /** exit 2 when the repository and the service differ (changes to send, or changes on the service the files do not have yet), 0 when they agree @default false */
  detailedExitcode?: boolean;
  /** delete remote items in scope that the repository does not describe @default false */
  prune?: boolean;
  /** with prune, accept deleting and recreating cases that look renamed @default false */
  allowRecreate?: boolean;
  /** plan only the files changed since this git ref (docs/plan.md, "A pull request's plan") */
  changedSince?: string;
  /** settle conflicts with the sync base (docs/sync.md) */
  prefer?: Prefer;
  /** text and markdown: a table per folder, details only for updates and deletes; false: every item in detail (docs/plan.md) @default compact above 50 operations */
  compact?: boolean;
}

/**
 * `tmsync plan`: reads the repository and the service and prints the plan. Exit 0 (the two sides
 * agree, or any plan without --detailed-exitcode), 2 with --detailed-exitcode when they differ
 * (something to send, or changes on the service the files do not have yet), 1 when the repository
 * or the plan has problems (listed as `file:line:col`) or conflicts are left open.
 */
export async function runPlan(options: PlanOptions, io: CliIo): Promise<number> {
  const target = await loadTarget(options, io);
  try {
    const { root } = target;
    const shown = (p: Problem): Problem => ({
      ...p,
      file: relative(options.cwd, join(root, p.file)) || p.file,
      message: p.severity === 'warning' ? `warning: ${p.message}` : p.message,
    });
    const printProblems = (problems: readonly Problem[]) => {
      for (const p of problems) io.stderr(formatProblem(shown(p)));
      annotateProblems(problems, root, options.cwd, io);
    };
    const result = await planRepository(target, planOptions(options), {
      ...useCaseContext(io),
      onLoaded: printProblems,
    });
    switch (result.status) {
      case 'invalid_repository': {
        const loadErrors = result.problems.filter((p) => p.severity !== 'warning');
        if (options.json) io.stdout(jsonOutput({ problems: result.problems }));
        io.stderr(`${red('Error:', options.color.stderr)} ${count(loadErrors.length, 'problem')} in the tests repository; fix the files listed (\`tmsync validate\` checks them offline).`);
        await summary(io, problemsSummary('tmsync plan', `${count(loadErrors.length, 'problem')} in the tests repository`, loadErrors, options.cwd, root));
        return EXIT.FAILED;
      }
      case 'plan_problems': {
        const { problems } = result;
        printProblems(problems);
        if (options.json) io.stdout(jsonOutput({ problems }));
        io.stderr(`${red('Error:', options.color.stderr)} ${count(problems.length, 'problem')} between the repository and the service; the plan cannot be applied until they are fixed.`);
        await summary(io, problemsSummary('tmsync plan', `${count(problems.length, 'problem')} between the repository and the service`, problems, options.cwd, root));
        return EXIT.FAILED;
      }
      case 'planned':
        return await planned(result.plan, result.display, options, io);
      default: {
        return assertNever(result);
      }
    }
  } finally {
    await target.close();
  }
}

/** The plan's options from the command line. */
function planOptions(options: PlanOptions): PlanRepositoryOptions {
  return {
    prune: options.prune ?? false,
    allowRecreate: options.allowRecreate ?? false,
    ...(options.prefer ? { prefer: options.prefer } : {}),
    ...(options.changedSince !== undefined ? { changedSince: options.changedSince } : {}),
  };
}

/** A plan made: shown, saved with --out, and the exit code it means. */
async function planned(plan: Plan, display: PlanDisplay, options: PlanOptions, io: CliIo): Promise<number> {
  await emit(plan, display, options, io);
  // the job summary gets the pull-request rendering, without its comment marker
  await summary(io, `### tmsync plan\n\n${renderPlanMarkdown(plan, { display }).replace(PLAN_COMMENT_MARKER, '').trimStart()}`);
  if (options.out !== undefined) {
    const file = resolve(options.cwd, options.out);
    try {
      await writeFile(file, renderPlanJson(plan, display), 'utf8');
    } catch (err) {
      throw new TmsyncError('plan_write_failed', `cannot write the plan to ${file}: ${(err as Error).message}`, {
        hint: 'check that the directory exists and is writable',
      });
    }
    io.stderr(`Saved the plan to ${options.out}; apply exactly this plan with \`tmsync apply ${options.out}\`.`);
  }
  const conflicts = openConflicts(plan);
  if (conflicts > 0) {
    io.stderr(`${red('Error:', options.color.stderr)} ${conflictsError(conflicts)}`);
    return EXIT.FAILED;
  }
  // terraform's meaning: 2 when the two sides differ, whichever side holds the change (a drift
  // check must see an edit made on the service, which the plan keeps rather than sends)
  const differs = planDiffers(plan);
  return options.detailedExitcode && (differs.send || differs.service) ? EXIT.CHANGES : EXIT.OK;
}

/**
 * stdout gets the chosen format (JSON with --json); with --json the human rendering goes to stderr.
 * The text is written in pieces, each once the stream has taken the one before: a large plan's text
 * is neither held whole nor queued whole for a slow reader.
 */
async function emit(plan: Plan, display: PlanDisplay, options: PlanOptions, io: CliIo): Promise<void> {
  const format = options.format ?? 'text';
  const human = async (color: boolean, write: (s: string) => void, drained: (() => Promise<void>) | undefined) => {
    if (format === 'markdown') write(renderPlanMarkdown(plan, { compact: options.compact, display }));
    else
      for (const chunk of planTextChunks(plan, { color, compact: options.compact, display })) {
        write(chunk);
        await drained?.();
      }
  };
  if (options.json || format === 'json') {
    io.stdout(renderPlanJsonLine(plan, display));
    if (format === 'json') io.stderr(summaryLine(plan));
    else await human(options.color.stderr, io.stderr, io.stderrDrained);
    return;
  }
  await human(options.color.stdout, io.stdout, io.stdoutDrained);
}

/** The error line of a plan or apply that conflicts stop. */
export function conflictsError(n: number): string {
  return `${count(n, 'conflict')} with the service (changed on both sides since the last sync); nothing can be applied until they are settled: pass --prefer local (the repository's values are sent) or --prefer remote (the service's values are kept), or edit the files.`;
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

