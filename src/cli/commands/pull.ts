import { envTuning } from '../env-tuning.js';
import { EXIT } from '../exit-codes.js';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { TmsyncError } from '../../errors.js';
import { CONFIG_DEFAULTS, CONFIG_FILE_NAME, findConfigFile } from '../../repository/config.js';
import { safeInline, safeMessage } from '../../safe-text.js';
import type { Prefer, PullMergeSummary } from '../../pull/pull-merge.js';
import { pullRepository, type PullRepositoryResult } from '../../usecases/pull-repository.js';
import { red, yellow, type CliIo, type GlobalOptions } from '../io.js';
import { loadTarget, type Target } from '../target.js';
import { withRepositoryLock } from '../hold-lock.js';
import { jsonOutput } from '../json.js';
import { plural } from '../words.js';
import { useCaseContext } from '../use-case-context.js';

interface PullOptions extends GlobalOptions {
  /** the repository to write into @default the repository of the tmsync.yaml found from `cwd` upward, else `cwd` */
  dir?: string;
  /** only this folder subtree: names joined by `/` */
  folder?: string;
  /** wait this long (a duration) for the repository lock; none: fail at once */
  lockTimeout?: string;
  /** settle conflicts with the sync base one way (docs/sync.md) @default none: listed, left, exit 1 */
  prefer?: Prefer;
}


/** `Checkout/Payments` → `['Checkout', 'Payments']`. */
export function parseFolderPath(path: string | undefined): string[] | undefined {
  if (path === undefined) return undefined;
  const parts = path.split('/').filter((p) => p.trim() !== '');
  return parts.length > 0 ? parts : undefined;
}

/**
 * `tmsync pull [--dir DIR] [--folder PATH] [--prefer local|remote]`: writes the service's state as a
 * tests repository (see `pullRoot` for which). Existing files are updated in place and keep their names; local files whose
 * items are gone are listed, never deleted. With a sync base (`tmsync.base`), items it knows are
 * merged field by field (docs/sync.md); pull records the base for what it synced. Exit 0 on success,
 * 1 when conflicts are left (no `--prefer`): the files are written all the same, conflicts aside.
 */
export async function runPull(options: PullOptions, io: CliIo): Promise<number> {
  const { root, config, hasConfig } = await pullRoot(options);
  const target = await loadTarget({ ...options, ...(config ? { config } : {}) }, io);
  try {
    return await withRepositoryLock(root, 'pull', options.lockTimeout, io, () => pullWith(target, root, hasConfig, options, io));
  } finally {
    await target.close();
  }
}

/**
 * Where pull writes, and the configuration it reads. Without `--dir`: the repository whose
 * tmsync.yaml is found from the working directory upward (or named by --config), as every other
 * command finds it; a new repository in the working directory only when there is none. With
 * `--dir`: that directory; one without tmsync.yaml inside another repository is refused, since
 * pull would write a second repository (tmsync.yaml, cases/, tmsync.base) into the first one's files.
 */
async function pullRoot(options: PullOptions): Promise<{ root: string; config?: string; hasConfig: boolean }> {
  const given = options.config !== undefined ? resolve(options.cwd, options.config) : undefined;
  if (options.dir === undefined) {
    const file = given ?? (await findConfigFile(options.cwd)).file;
    return file ? { root: dirname(file), config: file, hasConfig: true } : { root: resolve(options.cwd), hasConfig: false };
  }
  const root = resolve(options.cwd, options.dir);
  // the repository's own tmsync.yaml when it has one; else --config, else the one found from here
  const own = join(root, CONFIG_FILE_NAME);
  const hasConfig = await stat(own).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!hasConfig && dirname(root) !== root) {
    const outer = (await findConfigFile(dirname(root))).file;
    if (outer) {
      const repo = dirname(outer);
      throw new TmsyncError('pull_inside_repository', `${root} is inside the tests repository ${repo}: pull would write a second repository (tmsync.yaml, ${CONFIG_DEFAULTS.casesDir}/, tmsync.base) among its files`, {
        hint: `to update that repository, run \`tmsync pull\` without --dir (from anywhere inside it); to start another repository, give --dir a directory outside ${repo}`,
        details: { dir: root, repository: repo },
      });
    }
  }
  return { root, ...(given ? { config: given } : hasConfig ? { config: own } : {}), hasConfig };
}

async function pullWith(target: Target, root: string, hasConfig: boolean, options: PullOptions, io: CliIo): Promise<number> {
  const folder = parseFolderPath(options.folder);
  const pulled = await pullRepository(
    { ...target, root },
    {
      ...(folder ? { folder } : {}),
      ...(options.prefer ? { prefer: options.prefer } : {}),
      writeConfig: !hasConfig,
      ...pullWriting(envTuning(io.env).pullWriteMode),
      lockHeld: true,
    },
    useCaseContext(io),
  );
  await report(pulled, options, io);
  return pulled.merge.unsettled > 0 ? EXIT.FAILED : EXIT.OK;
}

/** What the pull wrote and merged, on stderr (and the JSON document on stdout with --json). */
async function report(pulled: PullRepositoryResult, options: PullOptions, io: CliIo): Promise<void> {
  // loaded by the pull already: no module of these is loaded before its first request
  const [{ SCHEMA_DIR }, { SYNC_BASE_FILE }, { describeConflict }] = await Promise.all([import('../../repository/schema-comment.js'), import('../../base/base.js'), import('../../pull/pull-merge.js')]);
  const { project, root: repoRoot, pull: result, created, updated, merge: merged } = pulled;
  if (pulled.schemas.length > 0) io.stderr(`Wrote the JSON Schemas editors use to ${SCHEMA_DIR}/ (commit them).`);
  if (!pulled.hadBase) io.stderr(`Wrote the sync base ${SYNC_BASE_FILE}: what the files and the service held at this pull (commit it with the files; docs/sync.md).`);
  // messages and paths come from the service's titles and names: each kept on its line (`safe-text.ts`)
  for (const w of result.warnings) io.stderr(`Warning: ${safeInline(w.message)}`);
  for (const m of result.moved) io.stderr(`Moved ${safeInline(m.from)} → ${safeInline(m.to)}`);
  if (result.gone.length > 0) {
    io.stderr(`${plural(result.gone.length, 'local file')} describe items the service no longer has (not deleted):`);
    for (const g of result.gone) io.stderr(`  ${safeInline(g.file)} (${g.itemType.replace('_', ' ')} ${safeInline(g.id)})`);
    io.stderr('Delete them, or remove their `id:` line to create them again with the next apply.');
  }
  const c = result.counts;
  io.stderr(
    `Pulled ${plural(c.cases, 'test case')} in ${plural(c.folders, 'folder')} and ${plural(c.stepGroups, 'step group')} from ${safeInline(project.name)} (${safeInline(project.humanIdPrefix)}) into ${repoRoot}: ` +
      `${plural(created.length, 'file')} created, ${updated.length} updated, ${result.unchanged} unchanged.`,
  );
  reportMerge(merged, options, io, SYNC_BASE_FILE, describeConflict);
  if (options.json) {
    io.stdout(
      jsonOutput({
        project: { id: project.id, name: project.name, human_id_prefix: project.humanIdPrefix },
        root: repoRoot,
        // the names `backup` counts by, the service's
        counts: { folders: c.folders, step_groups: c.stepGroups, test_cases: c.cases },
        created,
        updated,
        unchanged: result.unchanged,
        moved: result.moved,
        gone: result.gone,
        warnings: result.warnings,
        conflicts: merged.conflicts,
        keptLocal: merged.keptLocal,
        withoutBase: merged.withoutBase,
        uncompared: merged.uncompared,
      }),
    );
  }
}

/** What the three-way merge did: items without a base, files it could not compare, changes kept, conflicts. */
function reportMerge(merged: PullMergeSummary, options: PullOptions, io: CliIo, SYNC_BASE_FILE: string, describeConflict: (c: PullMergeSummary['conflicts'][number]) => string): void {
  if (merged.withoutBase > 0) {
    io.stderr(
      `${plural(merged.withoutBase, 'item')} had no sync base (${SYNC_BASE_FILE}): pulled as before, the service's values written over the files' (${SYNC_BASE_FILE} now records them).`,
    );
  }
  if (merged.uncompared.length > 0) {
    io.stderr(
      `${plural(merged.uncompared.length, 'file')} could not be compared with the sync base (a problem in the file; \`tmsync plan\` names it), left as ${merged.uncompared.length === 1 ? 'it is' : 'they are'}: ${merged.uncompared.slice(0, 5).map(safeInline).join(', ')}${merged.uncompared.length > 5 ? ', …' : ''}`,
    );
  }
  if (merged.keptLocal > 0) {
    io.stderr(`Kept ${plural(merged.keptLocal, 'change')} made in the repository since the last sync (the service's value there is unchanged): \`tmsync apply\` sends them.`);
  }
  const color = options.color.stderr;
  if (merged.conflicts.length > 0) {
    const n = plural(merged.conflicts.length, 'conflict');
    const head =
      options.prefer === 'remote'
        ? `${n} settled with the service's values (--prefer remote):`
        : options.prefer === 'local'
          ? `${n} left as the files have them (--prefer local); the next plan still lists them, and \`tmsync apply --prefer local\` sends the files' values:`
          : `${red('Conflicts:', color)} ${n}, changed both in the repository and on the service since the last sync, left as the files have them:`;
    io.stderr(head);
    for (const c of merged.conflicts) io.stderr(safeMessage(describeConflict(c)));
    if (!options.prefer) {
      io.stderr(
        `Settle them: pull again with ${yellow('--prefer remote', color)} (the service's values into the files), or keep the files' values with ${yellow('tmsync apply --prefer local', color)}, or edit the files.`,
      );
    }
  }
}

/** `TMSYNC_PULL_WRITE=each`: new files written and flushed one by one, none staged. */
function pullWriting(mode: 'batch' | 'each'): { stageNewFiles: boolean; writeMode: 'batch' | 'each' } {
  return { stageNewFiles: mode !== 'each', writeMode: mode };
}
