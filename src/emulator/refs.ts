import { LOOKUP_WORDS } from '../fields.js';
import * as db from './db/index.js';
import type { DbContext, LookupKind } from './db/index.js';
import { invalid } from './http.js';
import type { FieldProblem } from './service-error.js';

/**
 * Reference checks: every id a body names must exist (in the project, for project-owned items),
 * else 422 listing each offending field path.
 */
export class RefChecker {
  readonly problems: FieldProblem[] = [];
  constructor(
    private readonly ctx: DbContext,
    private readonly projectId: string,
  ) {}

  private miss(field: string, what: string): void {
    this.problems.push({ field, message: `no ${what} with this id` });
  }

  lookup(field: string, kind: LookupKind, id: string | null | undefined): this {
    if (id && !db.lookupExists(this.ctx, kind, id)) this.miss(field, LOOKUP_WORDS[kind]);
    return this;
  }
  user(field: string, id: string | null | undefined): this {
    if (id && !db.userExists(this.ctx, id)) this.miss(field, 'user');
    return this;
  }
  folder(field: string, id: string | null | undefined): this {
    if (id && !db.findFolder(this.ctx, this.projectId, id)) this.miss(field, 'folder in this project');
    return this;
  }
  labels(field: string, ids: string[] | undefined): this {
    ids?.forEach((id, i) => {
      if (!db.labelExists(this.ctx, id)) this.miss(`${field}.${i}`, 'label');
    });
    return this;
  }
  /** Resolves a step group id or human id to its id; records a problem when unknown. */
  stepGroup(field: string, id: string | null | undefined): string | null {
    if (!id) return null;
    const g = db.findStepGroup(this.ctx, this.projectId, id);
    if (!g) this.miss(field, 'step group in this project');
    return g?.id ?? null;
  }
  /** Resolves a case id or human id to its id; records a problem when unknown. */
  testCase(field: string, id: string): string | null {
    const c = db.findCase(this.ctx, this.projectId, id);
    if (!c) this.miss(field, 'test case in this project');
    return c?.id ?? null;
  }
  plan(field: string, id: string | null | undefined): string | null {
    if (!id) return null;
    const p = db.findPlan(this.ctx, this.projectId, id);
    if (!p) this.miss(field, 'test plan in this project');
    return p?.id ?? null;
  }

  /** Throws the 422 when any reference was missing. */
  check(): void {
    if (this.problems.length > 0) throw invalid(this.problems);
  }
}
