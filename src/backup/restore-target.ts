import type { LookupListName } from '../api/endpoints.js';
import type { TmsClient } from '../remote/client.js';
import { toLabel, toLookup, toUser } from '../remote/to-actual.js';
import type { RestoreTargetDirectory } from './restore-mapping.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/**
 * A project's directory: lookups, users and labels. What a backup records to remap ids elsewhere,
 * and what a restore matches those names against.
 */
export async function fetchRestoreDirectory(client: TmsClient, signal?: AbortSignal): Promise<RestoreTargetDirectory> {
  const list = (name: LookupListName) => collect(client.paginate(name, { signal })).then((xs) => xs.map(toLookup));
  const [types, statuses, priorities, automationTypes, runStatuses, users, labels] = await Promise.all([
    list('listCaseTypes'),
    list('listCaseStatuses'),
    list('listPriorities'),
    list('listAutomationTypes'),
    list('listRunStatuses'),
    client.call('listUsers', { signal }).then((r) => r.data.map(toUser)),
    client.call('listLabels', { signal }).then((r) => r.data.labels.map(toLabel)),
  ]);
  return { lookups: { types, statuses, priorities, automationTypes, runStatuses }, users, labels };
}
