import { writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { formatProblem, TmsyncError, type Problem } from '../../errors.js';
import { buildPlan, hasChanges, renderPlanJson, renderPlanMarkdown, renderPlanText, summaryLine, type Plan } from '../../plan/index.js';
import { fetchState, resolveProject } from '../../remote/index.js';
import { loadRepository } from '../../spec/index.js';
import { red, type CliIo, type GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { loadTarget } from '../target.js';

export interface PlanOptions extends GlobalOptions {
  /** save the plan (JSON) for `tmsync apply FILE` */
  out?: string;
  /** what stdout gets @default 'text' */
  format?: 'text' | 'markdown' | 'json';
  /** exit 2 when changes are pending, 0 when there are none @default false */
  detailedExitcode?: boolean;
  /** delete remote items in scope that the repository does not describe @default false */
  prune?: boolean;
  /** with prune, accept deleting and recreating cases that look renamed @default false */
  allowRecreate?: boolean;
}

export const EXIT_CHANGES = 2;

/**
 * `tmsync plan`: reads the repository and the service and prints the plan. Exit 0 (no changes,
 * or changes without --detailed-exitcode), 2 with --detailed-exitcode and changes, 1 when the
 * repository or the plan has problems (listed as `file:line:col`).
 */
export async function runPlan(options: PlanOptions, io: CliIo): Promise<number> {
  const target = await loadTarget(options, io);
  try {
    const { config, root, client } = target;
    const shown = (p: Problem): Problem => ({
      ...p,
      file: relative(options.cwd, join(root, p.file)) || p.file,
      message: p.severity === 'warning' ? `warning: ${p.message}` : p.message,
    });

    // the service is read while the files are: both take seconds on a large repository, and the
    // reads are paced by the rate limit anyway; bad files stop the reads
    const stop = new AbortController();
    const signal = io.signal ? AbortSignal.any([io.signal, stop.signal]) : stop.signal;
    const remote = (async () => {
      const project = await resolveProject(client, target.projectRef);
      return fetchState(client, project.id, { scope: config.scope, signal });
    })();
    remote.catch(() => undefined);

    const loaded = await loadRepository(root, config).catch((err: unknown) => {
      stop.abort();
      throw err;
    });
    const loadErrors = loaded.problems.filter((p) => p.severity !== 'warning');
    for (const p of loaded.problems) io.stderr(formatProblem(shown(p)));
    if (loadErrors.length > 0) {
      stop.abort();
      await remote.catch(() => undefined);
      if (options.json) io.stdout(jsonOutput({ problems: loaded.problems }));
      io.stderr(`${red('Error:', options.color.stderr)} ${count(loadErrors.length, 'problem')} in the tests repository; fix the files listed (\`tmsync validate\` checks them offline).`);
      return 1;
    }
    const actual = await remote;
    const { plan, problems } = buildPlan(loaded.state, actual, { prune: options.prune ?? false, allowRecreate: options.allowRecreate ?? false });
    if (problems.length > 0) {
      for (const p of problems) io.stderr(formatProblem(shown(p)));
      if (options.json) io.stdout(jsonOutput({ problems }));
      io.stderr(`${red('Error:', options.color.stderr)} ${count(problems.length, 'problem')} between the repository and the service; the plan cannot be applied until they are fixed.`);
      return 1;
    }

    emit(plan, options, io);
    if (options.out !== undefined) {
      const file = resolve(options.cwd, options.out);
      try {
        await writeFile(file, renderPlanJson(plan), 'utf8');
      } catch (err) {
        throw new TmsyncError('plan_write_failed', `cannot write the plan to ${file}: ${(err as Error).message}`, {
          hint: 'check that the directory exists and is writable',
        });
      }
      io.stderr(`Saved the plan to ${options.out}; apply exactly this plan with \`tmsync apply ${options.out}\`.`);
    }
    return hasChanges(plan) && options.detailedExitcode ? EXIT_CHANGES : 0;
  } finally {
    await target.close();
  }
}

/** stdout gets the chosen format (JSON with --json); with --json the human rendering goes to stderr. */
function emit(plan: Plan, options: PlanOptions, io: CliIo): void {
  const format = options.format ?? 'text';
  const human = (color: boolean) => (format === 'markdown' ? renderPlanMarkdown(plan) : renderPlanText(plan, { color }));
  if (options.json || format === 'json') {
    io.stdout(renderPlanJson(plan));
    io.stderr(format === 'json' ? summaryLine(plan) : human(options.color.stderr));
    return;
  }
  io.stdout(human(options.color.stdout));
}

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
