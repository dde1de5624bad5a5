import { findProject } from './db/index.js';
import type { RouteContext } from './http.js';

/**
 * The `web_url` extension: the item's page in the emulator's web UI (ui/links.ts), absolute, on
 * the host and port the client reached the API on. Projects, test cases (their own answers, not
 * the list), test plans and test runs carry it in the document dialect. The live service sends no
 * link to its UI on these, so the live dialect leaves it out (docs/emulator.md, "Extensions").
 */
export function webUrl(c: RouteContext, path: string): { web_url?: string } {
  return c.dialect === 'live' ? {} : { web_url: `${c.urls.origin}${path}` };
}

/** Project prefixes read for one answer: a list of runs or plans reads its project's once. */
const prefixes = new WeakMap<RouteContext, Map<string, string | undefined>>();

/** `web_url` of an item of the project `projectId`, whose page path needs the project's prefix. */
export function itemWebUrl(c: RouteContext, projectId: string, path: (prefix: string) => string): { web_url?: string } {
  if (c.dialect === 'live') return {};
  let known = prefixes.get(c);
  if (!known) prefixes.set(c, (known = new Map<string, string | undefined>()));
  if (!known.has(projectId)) known.set(projectId, findProject(c.db, projectId)?.human_id_prefix);
  const prefix = known.get(projectId);
  return prefix === undefined ? {} : webUrl(c, path(prefix));
}
