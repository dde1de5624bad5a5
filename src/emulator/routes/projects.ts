import * as db from '../db/index.js';
import type { ProjectRow } from '../db/index.js';
import { listPage, ok, projectOf, type HandlerTable, type RouteContext } from '../http.js';
import { invalidField } from '../service-error.js';
import { uiPaths } from '../ui/links.js';
import { webUrl } from '../web-url.js';

const projectWire = (c: RouteContext, p: ProjectRow) => ({ ...p, ...webUrl(c, uiPaths.project(p.human_id_prefix)) });

export const projectRoutes = {
  listProjects(c) {
    return listPage(c, 'projects', (p) => db.listProjects(c.db, {}, p), (r) => projectWire(c, r));
  },
  getProject(c) {
    return ok('project', projectWire(c, projectOf(c)));
  },
  createProject(c) {
    const b = c.body;
    return c.db.tx(() => {
      if (db.prefixTaken(c.db, b.human_id_prefix)) {
        throw invalidField('human_id_prefix', `the prefix ${b.human_id_prefix} is used by another project`);
      }
      return ok('project', projectWire(c, db.insertProject(c.db, { name: b.name, description: b.description, prefix: b.human_id_prefix })));
    });
  },
  updateProject(c) {
    const p = projectOf(c);
    return ok('project', projectWire(c, db.updateProject(c.db, p.id, c.body)));
  },
  deleteProject(c) {
    const p = projectOf(c);
    db.deleteProject(c.db, p.id);
    return { body: { message: 'Project deleted' } };
  },
} satisfies Partial<HandlerTable>;

