import { relative, resolve } from 'node:path';
import { TmsyncError } from '../../errors.js';
import { resolveProject } from '../../remote/index.js';
import { readBackupFile } from '../../backup/backup-read.js';
import { describeHeld, restoreBackup, type RestorePhase } from '../../backup/restore.js';
import { fetchRestoreDirectory } from '../../backup/restore-target.js';
import { withoutCredentials } from '../../url-credentials.js';
import { safeInline, safeMessage } from '../../safe-text.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { loadTarget, type Target } from '../target.js';
import { withApplySession } from '../hold-lock.js';
import type { ApplySession } from '../../apply/engine.js';
import { jsonOutput } from '../json.js';
import type { RemoteProject } from '../../model.js';
import { createProject, projectBody } from './project.js';
import { plural } from '../words.js';
import { EXIT } from '../exit-codes.js';

interface RestoreCommandOptions extends GlobalOptions {
  /** positional: the backup file */
  args: string[];
  /** `old@x=new@y`, repeatable */
  mapUser?: string[];
  /** the target user standing in for every backup user without a match */
  defaultOwner?: string;
  /** leave out labels the target lacks instead of refusing @default false */
  dropMissingLabels?: boolean;
  /**
   * create the target when no project matches `--project` (then its prefix); a string names it,
   * `true` takes the backup's project name @default false
   */
  createProject?: boolean | string;
  /** wait this long (a duration) for the repository lock; none: fail at once */
  lockTimeout?: string;
}

const PHASE_WORDS: Record<RestorePhase, string> = {
  folders: 'folders',
  step_groups: 'step groups',
  test_cases: 'test cases',
  test_plans: 'test plans',
  test_runs: 'test runs',
};

/** `a@x=b@y` pairs → a map; a malformed pair is a usage error. */
export function parseUserMap(pairs: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of pairs ?? []) {
    const i = p.indexOf('=');
    if (i <= 0 || i === p.length - 1) {
      throw new TmsyncError('invalid_option', `--map-user ${p}: expected OLD=NEW (two emails or ids)`, {
        hint: 'for example --map-user ana@old.example=ana@new.example',
      });
    }
    out[p.slice(0, i).trim()] = p.slice(i + 1).trim();
  }
  return out;
}

/**
 * `tmsync restore FILE --project P`: recreates a backup in the target project, every id
 * remapped. The file and every name it uses are checked before anything is written. Resumable:
 * run it again after an interruption and it finishes without duplicates. The target must be
 * named on the command line: falling back to tmsync.yaml could restore a project onto itself.
 */
export async function runRestore(options: RestoreCommandOptions, io: CliIo): Promise<number> {
  const fileArg = options.args[0];
  if (!fileArg) throw new TmsyncError('invalid_option', 'restore needs the backup file', { hint: 'tmsync restore FILE --project P' });
  if (!options.project) {
    throw new TmsyncError('missing_project', 'restore needs the target project on the command line; nothing was written', {
      hint: `tmsync restore ${fileArg} --project P (the project named in tmsync.yaml or TMSYNC_PROJECT is not used: it is often the backup's own source)`,
    });
  }
  const mapUsers = parseUserMap(options.mapUser);
  // the file is read and checked before any connection is made
  const backup = await readBackupFile(resolve(options.cwd, fileArg));
  // as apply's (docs/apply.md): the client gets no abort signal, so Ctrl-C never cuts off a create
  // whose answer would be lost; the reads and the engine observe io.signal themselves
  const target = await loadTarget(options, { ...io, signal: undefined });
  // the restore journal lives in <cwd>/.tmsync/: one restore at a time from one directory
  let locked = false;
  try {
    return await withApplySession(options.cwd, 'restore', options.lockTimeout, io, (session) => {
      locked = true;
      return restoreInto(target, session, backup, mapUsers, options, io);
    });
  } finally {
    if (!locked) await target.close();
  }
}

/**
 * The target project, created first with `--create-project` when none matches (a re-run after an
 * interruption finds the one it created and goes on).
 */
async function restoreTarget(target: Target, backupName: string, create: boolean | string, io: CliIo): Promise<RemoteProject> {
  try {
    return await resolveProject(target.client, target.projectRef);
  } catch (err) {
    if (!(err instanceof TmsyncError && err.code === 'project_not_found')) throw err;
    if (create === false) {
      throw new TmsyncError('project_not_found', err.message, {
        hint: `create it first: add --create-project to this command, or run \`tmsync project create --name NAME --prefix ${target.projectRef}\``,
        ...(err.details ? { details: err.details } : {}),
      });
    }
    const name = typeof create === 'string' && create.trim() !== '' ? create : backupName;
    const project = await createProject(target.client, projectBody(name, target.projectRef, ''), io.signal);
    io.stderr(`Created project ${safeInline(project.name)} (${safeInline(project.humanIdPrefix)}).`);
    return project;
  }
}

async function restoreInto(
  target: Target,
  session: ApplySession,
  backup: Awaited<ReturnType<typeof readBackupFile>>,
  mapUsers: ReturnType<typeof parseUserMap>,
  options: RestoreCommandOptions,
  io: CliIo,
): Promise<number> {
  let phase: { phase: RestorePhase; done: number; total: number } | undefined;
  const timer = setInterval(() => {
    if (phase) io.stderr(`restore: ${phase.done}/${phase.total} ${PHASE_WORDS[phase.phase]}…`);
  }, 5000);
  timer.unref();
  try {
    const project = await restoreTarget(target, backup.source.project.name, options.createProject ?? false, io);
    // a backup an older tmsync wrote may hold the URL's credentials; the target's has none
    const sameInstance = withoutCredentials(backup.source.base_url).replace(/\/+$/, '') === target.baseUrl.replace(/\/+$/, '');
    const directory = await fetchRestoreDirectory(target.client, io.signal);
    const result = await restoreBackup(backup, {
      client: target.client,
      session,
      target: project,
      directory,
      root: options.cwd,
      mapUsers,
      ...(options.defaultOwner !== undefined ? { defaultOwner: options.defaultOwner } : {}),
      dropMissingLabels: options.dropMissingLabels ?? false,
      // environments are ids of the instance the backup came from
      keepEnvironments: sameInstance,
      targetBaseUrl: target.baseUrl,
      parallel: Math.max(4, target.config.concurrency * 2),
      signal: io.signal,
      onProgress: (p) => {
        phase = p;
      },
    });
    const held = Object.values(result.held).reduce((x, y) => x + y, 0);
    if (result.skipped === 0 && held > 0) {
      const others = held - result.adopted;
      io.stderr(
        `Note: ${project.name} already held ${describeHeld(result.held)}; ${result.adopted} of them matched backup items by name and were adopted as they are` +
          `${others > 0 ? `, the other ${others} were left untouched` : ''}.`,
      );
    }
    // notes name the backup's items (titles, names): made safe (`safe-text.ts`)
    for (const n of result.notes) io.stderr(`Note: ${safeMessage(n)}`);
    if (!sameInstance && backup.test_runs.some((r) => r.environment_ids.length > 0)) {
      io.stderr('Note: the environments of test runs were left out: their ids belong to the instance the backup came from.');
    }
    const c = result.created;
    const resumed = result.skipped + result.adopted > 0 ? ` (${result.skipped} already restored by an earlier run, ${result.adopted} found in the target and adopted)` : '';
    io.stderr(
      `Restored ${safeInline(backup.source.project.name)} (${safeInline(backup.source.project.human_id_prefix)}) into ${safeInline(project.name)} (${safeInline(project.humanIdPrefix)}): ` +
        `${plural(c.folders, 'folder')}, ${plural(c.step_groups, 'step group')}, ${plural(c.test_cases, 'test case')}, ${plural(c.test_plans, 'test plan')}, ${plural(c.test_runs, 'test run')} created${resumed}.`,
    );
    io.stderr(`Journal: ${relative(options.cwd, result.journal)}`);
    if (options.json) {
      io.stdout(jsonOutput({ project: { id: project.id, name: project.name, human_id_prefix: project.humanIdPrefix }, ...result }));
    }
    return EXIT.OK;
  } finally {
    clearInterval(timer);
    await target.close();
  }
}
