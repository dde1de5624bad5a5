import { writeFile } from 'node:fs/promises';
import { basename, join, relative, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { formatProblem, TmsyncError, type Problem } from '../../errors.js';
import { safeMessage } from '../../safe-text.js';
import type { DesiredState, RemoteCase } from '../../model.js';
import { repositoryTexts } from '../../text-sharer.js';
import { changedCaseQueries, folderSubtreeFiles, planChanged, stepGroupsToRead, type ChangedFiles, type RemovedCaseFile } from '../../plan/changed.js';
import { readSyncBase } from '../../base/base-file.js';
import { openConflicts, planDiffers, type Prefer } from '../../plan/index.js';
import { buildPlan, PLAN_COMMENT_MARKER, planTextChunks, renderPlanJson, renderPlanJsonLine, renderPlanMarkdown, summaryLine, type BuildPlanResult, type Plan, type PlanDisplay } from '../../plan/index.js';
import { confirmMissing, fetchState, resolveProject } from '../../remote/index.js';
import { ReadCache } from '../../remote/read-cache.js';
import { loadRepository, type TmsyncConfig } from '../../repository/index.js';
import { gitChangedFiles, type GitChanges } from '../git.js';
import { envTuning } from '../env-tuning.js';
import { red, type CliIo, type GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { annotateProblems, problemsSummary, summary } from '../ci-output.js';
import { loadTarget } from '../target.js';
import { checkMemory, collectMemory } from '../memory.js';
import { EXIT } from '../exit-codes.js';

export interface PlanOptions extends GlobalOptions {
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
  if (options.changedSince !== undefined && options.prune) {
    throw new TmsyncError('changed_since_prune', '--prune cannot be combined with --changed-since: a plan of the changed files does not read the items the repository no longer describes', {
      hint: 'plan deletions with a full `tmsync plan --prune` (without --changed-since)',
    });
  }
  const target = await loadTarget(options, io);
  try {
    const { config, root, client } = target;
    let changes: GitChanges | undefined;
    if (options.changedSince !== undefined) {
      changes = await gitChangedFiles(root, options.changedSince, (file) => isCaseFile(config, file));
      const configName = target.configFile ? basename(target.configFile) : 'tmsync.yaml';
      if (changes.present.includes(configName) || changes.removed.some((r) => r.file === configName)) {
        io.stderr(`Note: ${configName} changed since ${options.changedSince}, which can change the plan of every file: planning everything.`);
        changes = undefined;
      }
    }
    const shown = (p: Problem): Problem => ({
      ...p,
      file: relative(options.cwd, join(root, p.file)) || p.file,
      message: p.severity === 'warning' ? `warning: ${p.message}` : p.message,
    });

    // the service is read while the files are: both take seconds on a large repository, and the
    // reads are paced by the rate limit anyway; bad files stop the reads
    const stop = new AbortController();
    const signal = io.signal ? AbortSignal.any([io.signal, stop.signal]) : stop.signal;
    const loading = loadRepository(root, config, envTuning(io.env).load);
    loading.catch(() => undefined);
    let changed: ChangedFiles | undefined;
    const changedP = loading.then((l) => (changed = changes ? toChangedFiles(l.state, changes) : undefined));
    changedP.catch(() => undefined);
    // once the files are loaded, cases read keep the repository's strings for equal texts (see `repositoryTexts`)
    let reuse: ((c: RemoteCase) => void) | undefined;
    loading.then(
      (l) => {
        // what the load left behind (its results as they came, the texts shared away) is collected
        // before the sync base is read on it: the load ends in a synchronous step, where no timer
        // of the governor fires (issue 15)
        checkMemory();
        reuse = repositoryTexts(l.state);
      },
      () => undefined,
    );
    // the cache keys on the service and project: one repository may plan against several
    let cache: ReadCache | undefined;
    const projectP = resolveProject(client, target.projectRef);
    projectP.catch(() => undefined);
    const remote = (async () => {
      const project = await projectP;
      cache = await ReadCache.load(root, `${target.baseUrl}|${project.id}`);
      return fetchState(client, project, {
        scope: config.scope,
        signal,
        cache,
        reuseTexts: (c) => reuse?.(c),
        ...(changes
          ? {
              changed: {
                caseQueries: async (folders) => {
                  const l = await loading;
                  return changedCaseQueries(l.state, folders, (await changedP)!);
                },
                readStepGroup: async (g) => stepGroupsToRead((await loading).state, (await changedP)!)(g),
              },
            }
          : {}),
      });
    })();
    remote.catch(() => undefined);
    // the sync base is read while the service is, once the files are loaded (its lines take a few
    // hundred milliseconds at 50,000 cases: not after the last answer, where they would add to the wait)
    const baseP = Promise.all([projectP, loading])
      .then(([project]) => readSyncBase(root, project.id))
      .then((read) => {
        // the file's text and what reading it left behind, likewise
        checkMemory();
        return read;
      });
    baseP.catch(() => undefined);

    const loaded = await loading.catch((err: unknown) => {
      stop.abort();
      throw err;
    });
    const loadErrors = loaded.problems.filter((p) => p.severity !== 'warning');
    for (const p of loaded.problems) io.stderr(formatProblem(shown(p)));
    annotateProblems(loaded.problems, root, options.cwd, io);
    if (loadErrors.length > 0) {
      stop.abort();
      await remote.catch(() => undefined);
      if (options.json) io.stdout(jsonOutput({ problems: loaded.problems }));
      io.stderr(`${red('Error:', options.color.stderr)} ${count(loadErrors.length, 'problem')} in the tests repository; fix the files listed (\`tmsync validate\` checks them offline).`);
      await summary(io, problemsSummary('tmsync plan', `${count(loadErrors.length, 'problem')} in the tests repository`, loadErrors, options.cwd, root));
      return EXIT.FAILED;
    }
    // an `id:` the lists did not hold is read by id before the plan may call it deleted (a
    // --changed-since read holds only some cases: its reads of the named ones are by id already)
    const read = await remote;
    const actual = changes ? read : await confirmMissing(client, read, loaded.state, { signal, ...(config.scope ? { scope: config.scope } : {}) });
    reuse = undefined;
    const { base, notes: baseNotes } = await baseP;
    for (const n of baseNotes) io.stderr(`Note: ${safeMessage(n)}`);
    // an optimisation only: a cache that cannot be written costs the next run its reads, nothing else
    await cache?.save(root).catch(() => undefined);
    await changedP;
    // what loading and reading left behind is collected before the plan is built (see memory.ts),
    // whatever the heap's growth since the last collection: the plan's own work then starts from
    // what is alive, and the heap V8 commits for it stays lower (50,000 cases: peak 260 → 247 MB
    // for one full collection, some 0.1 s, after the last answer; issue 15)
    collectMemory();
    const { plan, problems, display } = changed
      ? withChangedSinceNotes(planChanged(loaded.state, actual, changed, { allowRecreate: options.allowRecreate ?? false, base, collectSynced: false, ...(options.prefer ? { prefer: options.prefer } : {}) }), loaded.state, changed, changes!, options.changedSince!)
      : buildPlan(loaded.state, actual, { prune: options.prune ?? false, allowRecreate: options.allowRecreate ?? false, base, collectSynced: false, ...(options.prefer ? { prefer: options.prefer } : {}) });
    if (problems.length > 0) {
      for (const p of problems) io.stderr(formatProblem(shown(p)));
      annotateProblems(problems, root, options.cwd, io);
      if (options.json) io.stdout(jsonOutput({ problems }));
      io.stderr(`${red('Error:', options.color.stderr)} ${count(problems.length, 'problem')} between the repository and the service; the plan cannot be applied until they are fixed.`);
      await summary(io, problemsSummary('tmsync plan', `${count(problems.length, 'problem')} between the repository and the service`, problems, options.cwd, root));
      return EXIT.FAILED;
    }

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
  } finally {
    await target.close();
  }
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

/** A case file of the repository: a YAML file under the cases directory other than `_folder.yaml`. */
function isCaseFile(config: TmsyncConfig, file: string): boolean {
  return file.startsWith(`${config.casesDir}/`) && /\.ya?ml$/.test(file) && basename(file) !== '_folder.yaml';
}

/**
 * git's answer in the plan's terms: the removed case files with the id and title they had at REF,
 * and, for each `_folder.yaml` added, edited or deleted, every file of its folder's subtree (see
 * `folderSubtreeFiles`).
 */
function toChangedFiles(desired: DesiredState, changes: GitChanges): ChangedFiles {
  const isFolderFile = (f: string) => f.startsWith(`${desired.casesDir}/`) && basename(f) === '_folder.yaml';
  const folderFiles = [...changes.present.filter(isFolderFile), ...changes.removed.map((r) => r.file).filter(isFolderFile)];
  const present = [...new Set([...changes.present, ...folderSubtreeFiles(desired, folderFiles)])];
  const removed: RemovedCaseFile[] = [];
  const folderByDir = new Map(desired.folders.map((f) => [f.dir, f.path]));
  for (const r of changes.removed) {
    if (!r.file.startsWith(`${desired.casesDir}/`) || !/\.ya?ml$/.test(r.file) || basename(r.file) === '_folder.yaml') continue;
    const dir = r.file.slice(0, r.file.lastIndexOf('/'));
    const folderPath = folderByDir.get(dir) ?? dir.slice(desired.casesDir.length + 1).split('/').filter((s) => s !== '');
    let id: string | undefined;
    let title: string | undefined;
    try {
      const doc = r.text === undefined ? undefined : (parseYaml(r.text) as unknown);
      if (doc && typeof doc === 'object' && !Array.isArray(doc)) {
        const d = doc as Record<string, unknown>;
        if (typeof d.id === 'string' || typeof d.id === 'number') id = String(d.id);
        if (typeof d.title === 'string') title = d.title;
      }
    } catch {
      // an old version that does not parse names no case: nothing to list
    }
    removed.push({ file: r.file, folderPath, ...(id !== undefined ? { id } : {}), ...(title !== undefined ? { title } : {}) });
  }
  return { present, removed };
}

/** Says in the plan what a --changed-since plan does not see. */
function withChangedSinceNotes(result: BuildPlanResult, desired: DesiredState, changed: ChangedFiles, git: GitChanges, ref: string): BuildPlanResult {
  const present = new Set(changed.present);
  const inRepository = (f: string) => f.startsWith(`${desired.casesDir}/`) || f.startsWith(`${desired.stepGroupsDir}/`);
  const files = new Set([...git.present, ...git.removed.map((r) => r.file)].filter(inRepository));
  // the files a changed _folder.yaml brought in (its folder's subtree), beside git's own
  const widened = changed.present.filter((f) => !files.has(f) && inRepository(f)).length;
  const folders = widened > 0 ? ` and the ${count(widened, 'other file')} of the folders whose _folder.yaml changed` : '';
  const warnings = [
    {
      code: 'changed_since',
      message: `planned only the ${count(files.size, 'file')} changed since ${ref}${folders}; items elsewhere (drift, unmanaged cases) are not read: a full \`tmsync plan\` shows them`,
    },
    ...desired.stepGroups
      .filter((g) => present.has(g.file) && result.plan.operations.some((op) => op.kind === 'update_step_group' && op.localKey === g.key))
      .map((g) => ({
        code: 'changed_since_step_group',
        file: g.file,
        message: `step group ${g.key} changes: the cases that use it outside the changed files are not read here, so their updates are not planned (a full \`tmsync plan\` plans them)`,
      })),
  ];
  return { ...result, plan: { ...result.plan, warnings: [...result.plan.warnings, ...warnings] } };
}
