import * as db from '../db/index.js';
import type { LookupKind, LookupRow } from '../db/index.js';
import { listPage, passes, type HandlerTable, type RouteContext } from '../http.js';

function lookupWire(c: RouteContext, r: LookupRow) {
  return { id: r.id, name: r.name, order: r.order, alias: r.alias, icon_url: `${c.urls.assetsUrl}/icons/${r.icon}` };
}

function lookupList(kind: LookupKind, key: string) {
  return (c: RouteContext) => {
    return listPage(c, key, (p) => db.listLookups(c.db, kind, p), (r) => lookupWire(c, r));
  };
}

export const lookupRoutes = {
  listCaseTypes: lookupList('types', 'types'),
  listCaseStatuses: lookupList('statuses', 'statuses'),
  listPriorities: lookupList('priorities', 'priorities'),
  listAutomationTypes: lookupList('automation_types', 'automation_types'),
  listRunStatuses: lookupList('run_statuses', 'statuses'),
  listUsers(c) {
    const users = db.listUsers(c.db).filter((u) => c.filters.every((f) => passes({ ...u }, f)));
    return { body: { message: '', data: users } };
  },
  listLabels(c) {
    // camelCase timestamps, as the live service sends them
    const labels = db.listLabels(c.db).map((l) => ({ id: l.id, name: l.name, createdAt: l.created_at, updatedAt: l.updated_at }))
      .filter((l) => c.filters.every((f) => passes(l, f)));
    return { body: { message: '', data: { labels } } };
  },
} satisfies Partial<HandlerTable>;

/** A small SVG icon in the colour of its name, so `icon_url` answers with an image. */
export function iconSvg(name: string): string {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="hsl(${h},60%,50%)"/></svg>`;
}
