import { CreateProjectBody } from '../../api/request-schemas.js';
import { TmsyncError } from '../../errors.js';
import type { RemoteProject } from '../../model.js';
import type { TmsClient } from '../../remote/client.js';
import { toRemoteProject } from '../../remote/to-actual.js';
import { safeInline } from '../../safe-text.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { loadTarget } from '../target.js';
import { EXIT } from '../exit-codes.js';

interface ProjectCreateOptions extends GlobalOptions {
  name: string;
  /** the human id prefix of the new project's items (`SHOP` → `SHOP-12`) */
  prefix: string;
  /** @default '' */
  description?: string;
  args?: string[];
}

/**
 * `tmsync project create --name N --prefix P`: prints the new project's id on stdout (the project
 * with --json). A project already holding the prefix is an error: two projects with one prefix
 * would make every `--project P` ambiguous.
 */
export async function runProjectCreate(options: ProjectCreateOptions, io: CliIo): Promise<number> {
  const body = projectBody(options.name, options.prefix, options.description ?? '');
  const target = await loadTarget(options, io, { requireProject: false });
  try {
    const existing = await findProjectByPrefix(target.client, body.human_id_prefix);
    if (existing) {
      throw new TmsyncError('project_exists', `the service already has a project with prefix ${existing.humanIdPrefix}: ${safeInline(existing.name)}`, {
        hint: `use it with --project ${existing.humanIdPrefix}, or choose another --prefix`,
        details: { project: { id: existing.id, name: existing.name, human_id_prefix: existing.humanIdPrefix } },
      });
    }
    const project = await createProject(target.client, body, io.signal);
    if (options.json) io.stdout(jsonOutput({ project: { id: project.id, name: project.name, human_id_prefix: project.humanIdPrefix } }));
    else io.stdout(project.id);
    io.stderr(`Created project ${safeInline(project.name)} (${safeInline(project.humanIdPrefix)}).`);
    return EXIT.OK;
  } finally {
    await target.close();
  }
}

/** A create body checked before anything is sent: the prefix rule is the service's. */
export function projectBody(name: string, prefix: string, description: string) {
  const parsed = CreateProjectBody.safeParse({ name: name.trim(), human_id_prefix: prefix.trim(), description });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path[0] === 'human_id_prefix' ? '--prefix' : '--name';
    throw new TmsyncError('invalid_option', `${field} ${field === '--prefix' ? prefix : JSON.stringify(name)}: ${issue?.message ?? 'invalid'}`, {
      hint: field === '--prefix' ? 'for example --prefix SHOP (1 to 10 upper-case letters or digits, starting with a letter)' : 'give the project a name of 1 to 255 characters',
    });
  }
  return parsed.data;
}

/** The project holding this human id prefix (case-insensitive, as `--project` matches), if any. */
async function findProjectByPrefix(client: TmsClient, prefix: string): Promise<RemoteProject | undefined> {
  const wanted = prefix.toLowerCase();
  for await (const p of client.paginate('listProjects')) {
    if (p.human_id_prefix.toLowerCase() === wanted) return toRemoteProject(p);
  }
  return undefined;
}

/**
 * Creates a project. A create is not repeated blindly: after an ambiguous failure, a project
 * with the prefix is looked up first (the prefix is unique, so it is ours).
 */
export async function createProject(
  client: TmsClient,
  body: ReturnType<typeof projectBody>,
  signal?: AbortSignal,
): Promise<RemoteProject> {
  const res = await client.call('createProject', {
    body,
    ...(signal ? { signal } : {}),
    reconcile: async () => {
      for await (const p of client.paginate('listProjects')) {
        const project = p;
        if (project.human_id_prefix === body.human_id_prefix) return { message: '', data: { project } };
      }
      return undefined;
    },
  });
  return toRemoteProject(res.data.project);
}
