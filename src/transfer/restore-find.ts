import type { TmsClient } from '../remote/client.js';

/**
 * Natural-key lookups in the target, for creates whose outcome is unknown: a `begin` left in
 * the journal by a killed restore, or an ambiguous failure (timeout, reset, 5xx) in this run.
 * An item is only taken when no other backup item has claimed its id already.
 */

type Wire = { id: string; [key: string]: unknown };

export interface FindContext {
  client: TmsClient;
  projectId: string;
  claimed: { has(id: string): boolean };
  signal?: AbortSignal;
}

const isTop = (parent: unknown) => parent === '' || parent === null || parent === undefined;

/** A new folder is created at the top level and then moved: look in both places. */
export async function findFolder(ctx: FindContext, name: string, parentId: string | null): Promise<Wire | undefined> {
  let top: Wire | undefined;
  for await (const f of ctx.client.paginate('listFolders', { params: { project_id: ctx.projectId }, signal: ctx.signal })) {
    if (f.name !== name || ctx.claimed.has(f.id)) continue;
    if (parentId !== null && f.parent_folder_id === parentId) return f as Wire;
    if (isTop(f.parent_folder_id)) top ??= f as Wire;
  }
  return top;
}

export async function findStepGroup(ctx: FindContext, title: string): Promise<Wire | undefined> {
  for await (const g of ctx.client.paginate('listStepGroups', { params: { project_id: ctx.projectId }, signal: ctx.signal })) {
    if (g.title === title && !ctx.claimed.has(g.id)) return g as Wire;
  }
  return undefined;
}

export async function findCase(ctx: FindContext, title: string, folderId: string): Promise<Wire | undefined> {
  const pages = ctx.client.paginate('listTestCases', {
    params: { project_id: ctx.projectId },
    query: { folder_id: folderId, title__CONTAINS: title },
    signal: ctx.signal,
  });
  for await (const c of pages) {
    if (c.title === title && (c.folder_id === folderId || c.folder_id === undefined) && !ctx.claimed.has(c.id)) return c as Wire;
  }
  return undefined;
}

export async function findPlan(ctx: FindContext, title: string): Promise<Wire | undefined> {
  const pages = ctx.client.paginate('listTestPlans', { params: { project_id: ctx.projectId }, query: { title__CONTAINS: title }, signal: ctx.signal });
  for await (const p of pages) if (p.title === title && !ctx.claimed.has(p.id)) return p as Wire;
  return undefined;
}

export async function findRun(ctx: FindContext, title: string): Promise<Wire | undefined> {
  const pages = ctx.client.paginate('listTestRuns', { params: { project_id: ctx.projectId }, query: { search: title }, signal: ctx.signal });
  for await (const r of pages) if (r.title === title && !ctx.claimed.has(r.id)) return r as Wire;
  return undefined;
}
