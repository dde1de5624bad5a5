import type { Project } from '../api/resources.js';
import { TmsyncError } from '../errors.js';
import type { RemoteProject } from '../model.js';
import { ApiError } from './api-error.js';
import type { TmsClient } from './client.js';
import { toRemoteProject } from './to-actual.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID-shaped string: the live service's ids are UUIDs, names and prefixes are not. */
export function looksLikeId(ref: string): boolean {
  return UUID.test(ref);
}

/**
 * A project by id (one GET), or by human id prefix or exact name (the project list). A prefix
 * matches case-insensitively; a name matches exactly. Not found: `project_not_found`, listing the
 * projects the key can see.
 */
export async function resolveProject(client: TmsClient, ref: string): Promise<RemoteProject> {
  const wanted = ref.trim();
  if (looksLikeId(wanted)) {
    try {
      const res = await client.call('getProject', { params: { project_id: wanted } });
      return toRemoteProject(res.data.project);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'not_found')) throw err;
    }
  }
  const all: Project[] = [];
  for await (const p of client.paginate('listProjects')) all.push(p);
  const match =
    all.find((p) => p.id === wanted) ??
    all.find((p) => p.human_id_prefix === wanted) ??
    all.find((p) => p.human_id_prefix.toLowerCase() === wanted.toLowerCase()) ??
    all.find((p) => p.name === wanted);
  if (match) return toRemoteProject(match);
  const names = all.map((p) => `${p.name} (${p.human_id_prefix})`);
  throw new TmsyncError('project_not_found', `no project "${wanted}" on the service`, {
    hint: names.length
      ? `use an id, prefix or exact name; available: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}; or create it with \`tmsync project create --name NAME --prefix PREFIX\``
      : 'the API key sees no projects: check the key and the base URL. The service has none yet? Create one with `tmsync project create --name NAME --prefix PREFIX` (an emulator started without `--seed demo` starts empty: `tmsync serve --seed demo` creates DEMO)',
    details: { ref: wanted, available: all.map((p) => ({ id: p.id, name: p.name, prefix: p.human_id_prefix })) },
  });
}
