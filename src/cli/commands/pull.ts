import { access, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { confirmMissing } from '../../remote/confirm-missing.js';
import { TmsyncError } from '../../errors.js';
import { CONFIG_DEFAULTS, CONFIG_FILE_NAME, findConfigFile } from '../../repository/config.js';
import { fetchState } from '../../remote/fetch-state.js';
import { resolveProject } from '../../remote/resolve-project.js';
import { safeInline, safeMessage } from '../../safe-text.js';
import { lookupNames, type ActualState, type RemoteCase, type RemoteProject } from '../../model.js';
import type { LocalRepository } from '../../pull/pull.js';
import type { PullStage } from '../../pull/pull-stage.js';
import type { Prefer } from '../../pull/pull-merge.js';
import { envTuning } from '../env-tuning.js';
import { red, yellow, type CliIo, type GlobalOptions } from '../io.js';
import { loadTarget, type Target } from '../target.js';
import { withRepositoryLock } from '../hold-lock.js';
import { jsonOutput } from '../json.js';
import { finishMemory } from '../memory.js';
import { plural } from '../words.js';
import { EXIT } from '../exit-codes.js';

/**
 * What pull needs once its first request is under way (rendering, writing, the sync base, the
 * merge's plan): loaded while that request and the reads after it wait on the service and the
 * rate limit, not before them (docs/architecture.md, "Start-up").
 */
async function loadPullModules() {
  const [pull, stage, merge, sync, base, baseFile, schemas, implicit] = await Promise.all([
    import('../../pull/pull.js'),
    import('../../pull/pull-stage.js'),
    import('../../pull/pull-merge.js'),
    import('../../pull/pull-sync.js'),
    import('../../base/base.js'),
    import('../../base/base-file.js'),
    import('../../repository/schema-comment.js'),
    import('../../pull/pull-implicit.js'),
  ]);
  return { ...pull, ...stage, ...merge, ...sync, ...base, ...baseFile, ...schemas, ...implicit };
}
type PullModules = Awaited<ReturnType<typeof loadPullModules>>;

export interface PullOptions extends GlobalOptions {
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
  {
    const { client } = target;
    const folder = parseFolderPath(options.folder);
    const dirs = target.config;
    const tuning = envTuning(io.env);
    // the first request goes out before anything it does not need is loaded
    const projectP = resolveProject(client, target.projectRef);
    projectP.catch(() => undefined); // awaited by pullRead
    // the rest is loaded while it is under way; then the repository's own files are read while
    // the service is (its reads wait on the rate limit); a problem there is reported after the
    // service's reads, as before
    const preparedP = (async () => {
      const m = await loadPullModules();
      // with a sync base, the repository is kept as loaded: the merge plans with it
      const hasBase = await access(join(root, m.SYNC_BASE_FILE)).then(
        () => true,
        () => false,
      );
      const existing = m.loadExistingRepository(root, dirs, { state: hasBase, ...tuning.load });
      existing.catch(() => undefined); // awaited by pullIntoRepository
      // cases are laid out, rendered and staged as their pages arrive (a whole pull; a subtree's
      // step group names depend on the cases it holds)
      const stage = folder ? undefined : m.createPullStage({ root, config: dirs, existing, stageNewFiles: tuning.pullWriteMode !== 'each' });
      return { m, hasBase, existing, stage };
    })();
    preparedP.catch(() => undefined); // awaited below
    // pages read before the stage is made wait for it, in the order they came
    const onRead = folder
      ? undefined
      : {
          context: (state: ActualState) => void preparedP.then((p) => p.stage?.onRead.context(state), () => undefined),
          cases: (cases: readonly RemoteCase[]) => void preparedP.then((p) => p.stage?.onRead.cases(cases), () => undefined),
        };
    const actualP = projectP.then((p) => fetchState(client, p.id, { scope: target.config.scope, signal: io.signal, ...(onRead ? { onRead } : {}) }));
    actualP.catch(() => undefined); // awaited by pullRead
    const { m, hasBase, existing, stage } = await preparedP;
    try {
      return await pullRead(target, root, hasConfig, options, io, m, { folder, projectP, actualP, existing, hasBase, ...(stage ? { stage } : {}) });
    } finally {
      await stage?.discard();
    }
  }
}

async function pullRead(
  target: Target,
  root: string,
  hasConfig: boolean,
  options: PullOptions,
  io: CliIo,
  m: PullModules,
  read: { folder: string[] | undefined; projectP: Promise<RemoteProject>; actualP: Promise<ActualState>; existing: Promise<LocalRepository>; hasBase: boolean; stage?: PullStage },
): Promise<number> {
  {
    const { folder, projectP, actualP, existing, hasBase, stage } = read;
    const { pullIntoRepository, preparePullMerge, implicitKeys, readSyncBase, recordPull, writeSyncBase, writeSchemaFiles, describeConflict, SCHEMA_DIR, SYNC_BASE_FILE } = m;
    const dirs = target.config;
    const project = await projectP;
    const { base, notes, text: baseText } = await readSyncBase(root, project.id);
    for (const n of notes) io.stderr(`Note: ${safeMessage(n)}`);
    const local = await existing.catch(() => undefined);
    // an `id:` the lists did not hold is read by id before pull may list its file as gone
    const listed = await actualP;
    const actual = local ? await confirmMissing(target.client, listed, local, { ...(io.signal ? { signal: io.signal } : {}), ...(target.config.scope ? { scope: target.config.scope } : {}) }) : listed;
    const repoRoot = root;
    const merge = base.size > 0 && local ? preparePullMerge({ base, actual, local: local.state, ...(options.prefer ? { prefer: options.prefer } : {}), ...(stage ? { hashed: stage.hashed } : {}) }) : undefined;
    // the merge keeps each field's standing only: the repository as loaded is not needed any more
    if (local) delete local.state;
    const result = await pullIntoRepository(actual, {
      root: repoRoot,
      config: dirs,
      existing,
      writeMode: envTuning(io.env).pullWriteMode,
      ...(merge ? { merge: merge.hooks } : {}),
      // a key a file leaves out stays out unless the service changed it (docs/transfer.md)
      keepImplicit: implicitKeys({ actual, defaults: target.config.defaults, base, ...(stage ? { hashed: stage.hashed } : {}) }),
      ...(stage ? { stage } : {}),
      ...(folder ? { folder } : {}),
      ...(hasConfig
        ? {}
        : {
            writeConfig: {
              project: project.humanIdPrefix,
              baseUrl: target.baseUrl,
              // the pulled subtree exactly: a top-level scope would let --prune delete its siblings
              ...(folder ? { scope: [folder.join('/')] } : target.config.scope ? { scope: target.config.scope } : {}),
              ...(dirs.casesDir !== 'cases' ? { casesDir: dirs.casesDir } : {}),
              ...(dirs.stepGroupsDir !== 'step_groups' ? { stepGroupsDir: dirs.stepGroupsDir } : {}),
            },
          }),
    });

    // the files are written: what is left (the base, the messages) is short, and a full collection
    // there would only delay the exit that releases the heap
    finishMemory();
    // the base records what this pull synced (written atomically, after every file; not at all
    // when its text is the one read)
    // only a pull of the whole project can tell an item deleted on both sides from one it did not read
    const synced = recordPull(base, actual, result, merge, stage?.hashed, !folder && target.config.scope === undefined);
    const baseWritten = await writeSyncBase(repoRoot, synced.base, undefined, baseText);
    const merged = synced.summary;

    // the modelines of the files just written point at these
    const schemasBefore = new Set(await readdir(join(repoRoot, SCHEMA_DIR)).catch(() => [] as string[]));
    const schemas = await writeSchemaFiles(repoRoot, { lookupNames: lookupNames(actual.lookups) });
    // every file this pull wrote is counted, the base and the schemas too
    const extra = [...(baseWritten ? [SYNC_BASE_FILE] : []), ...schemas];
    const isNew = (f: string) => (f === SYNC_BASE_FILE ? baseText === undefined : !schemasBefore.has(basename(f)));
    const created = [...result.created, ...extra.filter(isNew)];
    const updated = [...result.updated, ...extra.filter((f) => !isNew(f))];
    if (schemas.length > 0) io.stderr(`Wrote the JSON Schemas editors use to ${SCHEMA_DIR}/ (commit them).`);
    if (!hasBase) io.stderr(`Wrote the sync base ${SYNC_BASE_FILE}: what the files and the service held at this pull (commit it with the files; docs/sync.md).`);
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
    return merged.unsettled > 0 ? EXIT.FAILED : EXIT.OK;
  }
}
