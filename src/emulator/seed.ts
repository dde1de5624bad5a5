import * as db from './db/index.js';
import type { DbContext, LookupKind, ProjectRow, UserRow, LabelRow } from './db/index.js';
import type { Dialect } from './emulator-options.js';

/**
 * The lookup lists of the document dialect: the typical names of `real-service-notes.md`
 * (priorities in their High/Medium/Low form, run statuses as its first list gives them). They are
 * global and read-only through the API, so every new database gets them.
 */
export const LOOKUP_NAMES: Record<LookupKind, string[]> = {
  types: ['Functional', 'Regression', 'Smoke'],
  statuses: ['Draft', 'Ready', 'Active', 'In Review', 'Outdated'],
  priorities: ['Critical', 'High', 'Medium', 'Low'],
  automation_types: ['Automated', 'Not Automated', 'Automation Not Required'],
  run_statuses: ['Passed', 'Failed', 'Blocked', 'Skipped', 'Retest', 'In Progress', 'Untested'],
};

/**
 * The live dialect's lookup lists, exactly as the notes capture the live service: priorities
 * Critical/Major/Medium/Minor, and the run statuses seen live ("Passed, Failed, Blocked, Skipped,
 * UnTested, In Progress": no Retest, and `UnTested` spelled so).
 */
export const LIVE_LOOKUP_NAMES: Record<LookupKind, string[]> = {
  ...LOOKUP_NAMES,
  priorities: ['Critical', 'Major', 'Medium', 'Minor'],
  run_statuses: ['Passed', 'Failed', 'Blocked', 'Skipped', 'UnTested', 'In Progress'],
};

/** The lookup lists a new database of this dialect gets. */
export function lookupNames(dialect: Dialect = 'document'): Record<LookupKind, string[]> {
  return dialect === 'live' ? LIVE_LOOKUP_NAMES : LOOKUP_NAMES;
}

/**
 * Creates the lookup lists in a database that has none, with the names of the given dialect (a
 * database keeps the names it was created with: it is not meant to switch dialect).
 */
export function ensureLookups(ctx: DbContext, dialect: Dialect = 'document'): void {
  if (db.countLookups(ctx) > 0) return;
  ctx.tx(() => {
    for (const [kind, names] of Object.entries(lookupNames(dialect)) as [LookupKind, string[]][]) {
      names.forEach((name, i) => {
        const alias = name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
        db.insertLookup(ctx, kind, name, i + 1, `${kind}-${alias}.svg`);
      });
    }
  });
}

export const DEMO_USERS = [
  { email: 'qa-lead@example.com', first_name: 'Quinn', last_name: 'Lead' },
  { email: 'ana@example.com', first_name: 'Ana', last_name: 'Silva' },
  { email: 'ben@example.com', first_name: 'Ben', last_name: 'Okafor' },
];
export const DEMO_LABELS = ['smoke', 'regression', 'payments', 'auth'];

export interface DemoSeed {
  project: ProjectRow;
  users: UserRow[];
  labels: LabelRow[];
}

/** Something that holds the emulator's database (a RunningEmulator does). */
interface HasDb {
  db: DbContext;
}

/**
 * Project "Demo" (prefix `DEMO`), three users and four labels. Idempotent: seeding a database that
 * already has them returns the existing ones.
 */
export function seedDemo(target: HasDb): DemoSeed {
  const ctx = target.db;
  return ctx.tx(() => {
    ensureLookups(ctx);
    const project =
      db.findProject(ctx, 'DEMO') ?? db.insertProject(ctx, { name: 'Demo', description: 'Demo project of the tmsync emulator', prefix: 'DEMO' });
    const users = DEMO_USERS.map((u) => db.insertUser(ctx, u));
    const labels = DEMO_LABELS.map((n) => db.insertLabel(ctx, n));
    return { project, users, labels };
  });
}

/** Creates a project with the given prefix (or returns the one that has it). */
export function createProject(target: HasDb, p: { prefix: string; name?: string; description?: string }): ProjectRow {
  return (
    db.findProject(target.db, p.prefix) ??
    db.insertProject(target.db, { name: p.name ?? p.prefix, description: p.description, prefix: p.prefix })
  );
}

/** Adds a user (the API cannot); returns the existing one when the email is taken. */
export function createUser(target: HasDb, u: { email: string; first_name?: string; last_name?: string }): UserRow {
  return db.insertUser(target.db, u);
}

/** Adds a label (the API cannot); returns the existing one when the name is taken. */
export function createLabel(target: HasDb, name: string): LabelRow {
  return db.insertLabel(target.db, name);
}
