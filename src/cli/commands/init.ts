import { readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { TmsyncError } from '../../errors.js';
import { lookupNames, type LookupEntry, type RemoteUser } from '../../model.js';
import { resolveProject } from '../../remote/index.js';
import {
  GITIGNORE_LINE,
  SCHEMA_DIR,
  STARTER_DEFAULTS,
  starterFiles,
  writeFileAtomic,
  writeSchemaFiles,
  type StarterTarget,
} from '../../repository/index.js';
import { fetchRestoreDirectory } from '../../backup/restore-target.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { effectiveEnv, loadTarget } from '../target.js';
import { EXIT } from '../exit-codes.js';

interface InitOptions extends GlobalOptions {
  /** positional: [dir] (default `.`); created when missing */
  args: string[];
  /**
   * write the example case and step group also when init reads a real service (the offline
   * starter always has them) @default false
   */
  example?: boolean;
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

/**
 * `tmsync init [DIR]`: a starter tests repository. Refuses (and writes nothing) when any of
 * its files exists already; `.gitignore` is appended to, never replaced.
 */
export async function runInit(options: InitOptions, io: CliIo): Promise<number> {
  const dir = resolve(options.cwd, options.args[0] ?? '.');
  const target = await readServiceDefaults(options, io);
  // against a real service the examples would be created there by the first apply: only on request
  const files = starterFiles(target, { example: target === undefined || options.example === true });
  const present: string[] = [];
  for (const f of files) if (await exists(join(dir, f.path))) present.push(f.path);
  if (present.length > 0) {
    throw new TmsyncError('init_would_overwrite', `${present.join(', ')} already exist${present.length === 1 ? 's' : ''} in ${dir}; nothing was written`, {
      hint: 'run `tmsync init` in an empty directory, or remove those files first',
      details: { existing: present },
    });
  }
  const created: string[] = [];
  for (const f of files) {
    await writeFileAtomic(join(dir, f.path), f.content);
    created.push(f.path);
  }

  created.push(...(await writeSchemaFiles(dir, target?.lookupNames ? { lookupNames: target.lookupNames } : {})));

  const gitignore = join(dir, '.gitignore');
  let previous: string | undefined;
  try {
    previous = await readFile(gitignore, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const updated: string[] = [];
  const hasLine = previous !== undefined && previous.split(/\r?\n/).some((l) => /^\/?\.tmsync\/?\s*$/.test(l));
  if (!hasLine) {
    const sep = previous === undefined || previous === '' || previous.endsWith('\n') ? '' : '\n';
    const header = '# tmsync: apply journal and local state\n';
    await writeFileAtomic(gitignore, `${previous ?? ''}${sep}${header}${GITIGNORE_LINE}\n`);
    (previous === undefined ? created : updated).push('.gitignore');
  }

  if (options.json) io.stdout(jsonOutput({ created, updated }));
  const where = relative(options.cwd, dir) || '.';
  io.stderr(
    [
      `Created a tests repository in ${where}:`,
      ...created.map((f) => `  + ${f}`),
      ...updated.map((f) => `  ~ ${f} (added ${GITIGNORE_LINE})`),
      '',
      ...(target
        ? [
            `tmsync.yaml targets ${target.project} at ${target.baseUrl}, with defaults the service accepts.`,
            ...(options.example
              ? ['Next: run `tmsync validate` and `tmsync plan` (the example case and step group are created on the service by the first `tmsync apply`).']
              : ['Next: `tmsync pull` writes the project\'s folders, cases and step groups here; or write cases under cases/ (one YAML file each), then `tmsync plan`.']),
          ]
        : [
            'tmsync.yaml targets the demo emulator (`tmsync serve --seed demo`); for your service set `project`,',
            '`base_url` and `defaults` (or run `tmsync init` with TMSYNC_BASE_URL and TMSYNC_API_KEY set to fill them in).',
            'Next: export TMSYNC_API_KEY, then run `tmsync validate` and `tmsync plan`.',
          ]),
      `Commit ${SCHEMA_DIR}/: the files' \`$schema\` lines point there for editor completion.`,
    ].join('\n'),
  );
  return EXIT.OK;
}

/**
 * With a service URL (`--base-url` or TMSYNC_BASE_URL) and TMSYNC_API_KEY at hand, reads the
 * service's projects, lookups and users so the starter's `project` and `defaults` are names the
 * service accepts. Undefined without them (the starter then aims at the demo emulator). A service
 * that cannot be read is an error: nothing is written, and the message says how to go offline.
 */
async function readServiceDefaults(options: InitOptions, io: CliIo): Promise<StarterTarget | undefined> {
  const env = effectiveEnv(io.env);
  if (!(options.baseUrl ?? env.TMSYNC_BASE_URL) || !env.TMSYNC_API_KEY || options.profile !== undefined) return undefined;
  // the URL comes from the flag or the environment, which win over any tmsync.yaml above
  const target = await loadTarget(options, { ...io, env }, { requireProject: false });
  try {
    let project;
    try {
      project = target.projectRef ? await resolveProject(target.client, target.projectRef) : await onlyProject(target.client);
    } catch (err) {
      throw withOfflineHint(err);
    }
    const dir = await fetchRestoreDirectory(target.client, io.signal).catch((err: unknown) => {
      throw withOfflineHint(err);
    });
    const pick = (list: LookupEntry[], preferred: string, what: string) => {
      const sorted = [...list].sort((a, b) => (a.order ?? 0) - (b.order ?? 0));
      const hit = sorted.find((e) => e.name.toLowerCase() === preferred.toLowerCase()) ?? sorted[0];
      if (!hit) throw new TmsyncError('init_no_lookup', `the service lists no ${what}`, { hint: 'a case needs one; add one on the service, then run `tmsync init` again' });
      return hit.name;
    };
    const owner = pickUser(dir.users);
    return {
      project: project.humanIdPrefix,
      baseUrl: target.baseUrl,
      source: `read from the service by \`tmsync init\` (project ${project.name})`,
      lookupNames: lookupNames(dir.lookups),
      defaults: {
        type: pick(dir.lookups.types, STARTER_DEFAULTS.type, 'case types'),
        status: pick(dir.lookups.statuses, STARTER_DEFAULTS.status, 'case statuses'),
        priority: pick(dir.lookups.priorities, STARTER_DEFAULTS.priority, 'priorities'),
        automationType: pick(dir.lookups.automationTypes, STARTER_DEFAULTS.automationType, 'automation types'),
        owner,
      },
    };
  } finally {
    await target.close();
  }
}

function pickUser(users: RemoteUser[]): string {
  const user = users.find((u) => u.email === STARTER_DEFAULTS.owner) ?? users.find((u) => u.email);
  if (!user?.email) {
    throw new TmsyncError('init_no_user', 'the service lists no user to own new cases', { hint: 'add a user on the service, then run `tmsync init` again' });
  }
  return user.email;
}

/** The project, when the key sees exactly one; with several, init does not guess. */
async function onlyProject(client: Parameters<typeof resolveProject>[0]) {
  const all: { id: string; name: string; humanIdPrefix: string }[] = [];
  for await (const p of client.paginate('listProjects')) all.push({ id: p.id, name: p.name, humanIdPrefix: p.human_id_prefix });
  const [first] = all;
  if (first && all.length === 1) return first;
  if (!first) {
    throw new TmsyncError('project_not_found', 'the service has no project yet', {
      hint: 'create one with `tmsync project create --name NAME --prefix PREFIX` (or on the service), then run `tmsync init` again',
    });
  }
  const listed = all.slice(0, 20).map((p) => `${p.humanIdPrefix} (${p.name})`);
  throw new TmsyncError('init_choose_project', `the service has ${all.length} projects; tmsync init does not pick one for you`, {
    hint: `run \`tmsync init --project PREFIX\` with one of: ${listed.join(', ')}${all.length > 20 ? ', …' : ''}`,
    details: { projects: all.map((p) => ({ id: p.id, name: p.name, human_id_prefix: p.humanIdPrefix })) },
  });
}

function withOfflineHint(err: unknown): unknown {
  if (err instanceof TmsyncError && err.code !== 'init_choose_project' && !err.hint?.includes('offline')) {
    return new TmsyncError(err.code, `tmsync init could not read the service: ${err.message}`, {
      hint: `${err.hint ? `${err.hint}; ` : ''}nothing was written. To write the offline starter instead, unset TMSYNC_BASE_URL (or TMSYNC_API_KEY)`,
      ...(err.details ? { details: err.details } : {}),
    });
  }
  return err;
}
