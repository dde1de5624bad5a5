import { describe, expect, it } from 'vitest';
import * as db from '../../src/emulator/db/index.js';
import { DbContext, openDatabase, type CaseFields } from '../../src/emulator/db/index.js';
import { seededRandom } from '../../src/emulator/faults.js';

/**
 * The case lists the emulator keeps in memory (db/cases.ts) against the database itself: after
 * any mix of creates, moves and deletes, every list read through the kept order equals the list a
 * fresh emulator on the same database reads (a new context keeps nothing yet).
 */

/** A small seeded generator: the same runs every time, a failing seed named. */
const random = seededRandom;

const fieldsIn = (folderId: string, title: string): CaseFields => ({
  title,
  description: '',
  template_type: 'STEPS',
  preconditions: '',
  steps: '',
  expected_results: '',
  type_id: 'type',
  status_id: 'status',
  automation_type_id: 'automation',
  priority_id: 'priority',
  owner_id: 'owner',
  reviewer_id: '',
  folder_id: folderId,
  label_ids: [],
});

const ALL = { limit: -1, offset: 0 };

/** Every list of every project (the whole project's and each folder's), as `ctx` answers it. */
function lists(ctx: DbContext, projects: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of projects) {
    out[p] = db.listCaseIds(ctx, p, {}, ALL).ids;
    for (const f of db.allFolders(ctx, p)) out[`${p}/${f.id}`] = db.listCaseIds(ctx, p, { folderId: f.id }, ALL).ids;
  }
  return out;
}

/** One list read in pages of `size` (the ids and the total of every page), as a client walks it. */
function walk(ctx: DbContext, projectId: string, folderId: string | undefined, size: number): { ids: string[]; totals: Set<number> } {
  const ids: string[] = [];
  const totals = new Set<number>();
  for (let offset = 0; ; offset += size) {
    const page = db.listCases(ctx, projectId, { folderId }, { limit: size, offset });
    totals.add(page.total);
    ids.push(...page.items.map((c) => c.id));
    if (page.items.length < size) return { ids, totals };
  }
}

function setUp() {
  const ctx = new DbContext(openDatabase(undefined), Date.now);
  const projects = ['One', 'Two'].map((name) => db.insertProject(ctx, { name, prefix: name.toUpperCase() }));
  for (const p of projects) for (const name of ['A', 'B', 'C']) db.insertFolder(ctx, p.id, name, undefined);
  return { ctx, projects };
}

describe('the case lists kept in memory', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`equal a fresh read of the same database through random creates, moves and deletes, in every folder and project (seed ${seed})`, () => {
      const rnd = random(seed);
      const pick = <T>(xs: T[]): T | undefined => (xs.length === 0 ? undefined : xs[Math.floor(rnd() * xs.length)]);
      const { ctx, projects } = setUp();
      const projectIds = projects.map((p) => p.id);
      const casesOf = (projectId: string) => ctx.db.prepare('SELECT id FROM cases WHERE project_id = ?').pluck().all(projectId) as string[];
      let n = 0;
      const ops: [weight: number, name: string, run: () => void][] = [
        [6, 'create', () => {
          const p = pick(projects)!;
          const f = pick(db.allFolders(ctx, p.id));
          if (f) db.insertCase(ctx, p.id, p.human_id_prefix, fieldsIn(f.id, `case ${n++}`), []);
        }],
        [3, 'move', () => {
          const p = pick(projects)!;
          const id = pick(casesOf(p.id));
          const f = pick(db.allFolders(ctx, p.id));
          if (id && f) db.updateCase(ctx, db.findCase(ctx, p.id, id)!, { folder_id: f.id }, undefined);
        }],
        [2, 'delete', () => {
          const id = pick(casesOf(pick(projects)!.id));
          if (id) db.deleteCase(ctx, id);
        }],
        [0.4, 'create a folder', () => {
          const p = pick(projects)!;
          db.insertFolder(ctx, p.id, `F${n++}`, undefined);
        }],
        [0.3, 'delete a folder (its cases with it)', () => {
          const p = pick(projects)!;
          const f = pick(db.allFolders(ctx, p.id));
          if (f) db.deleteFolder(ctx, f);
        }],
        [0.5, 'move through SQL, not through the emulator', () => {
          const p = pick(projects)!;
          const id = pick(casesOf(p.id));
          const f = pick(db.allFolders(ctx, p.id));
          if (id && f) ctx.db.prepare('UPDATE cases SET folder_id = ? WHERE id = ?').run(f.id, id);
        }],
        [1, 'a create, a move and a delete rolled back', () => {
          const p = pick(projects)!;
          const f = pick(db.allFolders(ctx, p.id));
          const ids = casesOf(p.id);
          const rollback = new Error('roll back');
          expect(() =>
            ctx.tx(() => {
              if (f) db.insertCase(ctx, p.id, p.human_id_prefix, fieldsIn(f.id, 'rolled back'), []);
              const moved = pick(ids);
              if (moved && f) db.updateCase(ctx, db.findCase(ctx, p.id, moved)!, { folder_id: f.id }, undefined);
              const gone = pick(ids);
              if (gone) db.deleteCase(ctx, gone);
              // read inside: what the transaction sees, never kept
              expect(lists(ctx, projectIds)).toEqual(lists(new DbContext(ctx.db, Date.now), projectIds));
              throw rollback;
            }),
          ).toThrow(rollback);
        }],
      ];
      const total = ops.reduce((s, [w]) => s + w, 0);
      const history: string[] = [];
      for (let step = 0; step < 400; step++) {
        let r = rnd() * total;
        const op = ops.find(([w]) => (r -= w) < 0) ?? ops[0];
        history.push(op[1]);
        op[2]();
        // lists read now and then: entries pile up between reads, and lists not read for a while are kept too
        if (rnd() < 0.3) expect(lists(ctx, projectIds), `after ${history.length} steps: ${history.slice(-5).join(', ')}`).toEqual(lists(new DbContext(ctx.db, Date.now), projectIds));
      }
      const fresh = new DbContext(ctx.db, Date.now);
      expect(lists(ctx, projectIds)).toEqual(lists(fresh, projectIds));
      // and walked in pages, as a client reads them
      for (const p of projectIds) {
        for (const folderId of [undefined, ...db.allFolders(ctx, p).map((f) => f.id)]) {
          const kept = walk(ctx, p, folderId, 7);
          expect(kept.ids).toEqual(walk(fresh, p, folderId, 7).ids);
          expect(kept.totals.size).toBe(1);
        }
      }
      expect(history.filter((h) => h === 'create').length).toBeGreaterThan(50);
    });
  }

  it('follow a write of more cases than they apply one by one (a bulk delete): read again, and right', () => {
    const { ctx, projects } = setUp();
    const [p] = projects;
    const [a, b] = db.allFolders(ctx, p.id);
    ctx.tx(() => {
      for (let i = 0; i < 1500; i++) db.insertCase(ctx, p.id, p.human_id_prefix, fieldsIn(i % 2 ? a.id : b.id, `bulk ${i}`), []);
    });
    const before = lists(ctx, [p.id]);
    expect(before[p.id]).toHaveLength(1500);
    db.deleteFolder(ctx, a);
    db.insertCase(ctx, p.id, p.human_id_prefix, fieldsIn(b.id, 'after'), []);
    expect(lists(ctx, [p.id])).toEqual(lists(new DbContext(ctx.db, Date.now), [p.id]));
    expect(lists(ctx, [p.id])[p.id]).toHaveLength(751);
  });

  it('change in place on a create, a move and a delete: no page reads a whole list again', () => {
    const { ctx, projects } = setUp();
    const [p] = projects;
    const [a, b] = db.allFolders(ctx, p.id);
    const made = Array.from({ length: 30 }, (_, i) => db.insertCase(ctx, p.id, p.human_id_prefix, fieldsIn(i % 2 ? a.id : b.id, `c${i}`), []));
    // the lists read once: the project's and both folders'
    for (const folderId of [undefined, a.id, b.id]) db.listCases(ctx, p.id, { folderId }, { limit: 10, offset: 0 });
    const sql: string[] = [];
    const stmt = ctx.stmt.bind(ctx);
    ctx.stmt = (text: string) => {
      sql.push(text);
      return stmt(text);
    };
    const created = db.insertCase(ctx, p.id, p.human_id_prefix, fieldsIn(a.id, 'new'), []);
    db.updateCase(ctx, db.findCase(ctx, p.id, made[0].id)!, { folder_id: a.id }, undefined);
    db.deleteCase(ctx, made[1].id);
    const pages = [undefined, a.id, b.id].map((folderId) => db.listCases(ctx, p.id, { folderId }, { limit: 100, offset: 0 }));
    const wholeListReads = sql.filter((s) => /SELECT seq, id FROM cases/.test(s));
    expect(wholeListReads).toEqual([]);
    expect(pages[0].items.map((c) => c.title)).toEqual([...made.slice(0).filter((_, i) => i !== 1).map((c) => c.title), 'new']);
    expect(pages[1].items.map((c) => c.title)).toEqual(['c0', ...made.filter((_, i) => i % 2 === 1 && i !== 1).map((c) => c.title), 'new']);
    expect(pages[2].items.map((c) => c.title)).toEqual(made.filter((_, i) => i % 2 === 0 && i !== 0).map((c) => c.title));
    expect(created.id).toBe(pages[1].items.at(-1)!.id);
  });
});

describe('projects found by id or prefix', () => {
  it('are looked up once, then kept until a project is written (a rename and a delete are seen at once)', () => {
    const { ctx, projects } = setUp();
    const [one] = projects;
    const sql: string[] = [];
    const stmt = ctx.stmt.bind(ctx);
    ctx.stmt = (text: string) => {
      sql.push(text);
      return stmt(text);
    };
    const lookups = () => sql.filter((s) => /FROM projects WHERE/.test(s)).length;
    expect(db.findProject(ctx, 'ONE')?.id).toBe(one.id);
    expect(db.findProject(ctx, one.id)?.human_id_prefix).toBe('ONE');
    const afterFirst = lookups();
    for (let i = 0; i < 5; i++) {
      expect(db.findProject(ctx, 'ONE')?.id).toBe(one.id);
      expect(db.findProject(ctx, one.id)?.id).toBe(one.id);
    }
    expect(lookups()).toBe(afterFirst);
    db.updateProject(ctx, one.id, { name: 'Renamed' });
    expect(db.findProject(ctx, 'ONE')?.name).toBe('Renamed');
    // a rename rolled back: the name read inside is never kept
    expect(() =>
      ctx.tx(() => {
        db.updateProject(ctx, one.id, { name: 'Rolled back' });
        expect(db.findProject(ctx, 'ONE')?.name).toBe('Rolled back');
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(db.findProject(ctx, 'ONE')?.name).toBe('Renamed');
    db.deleteProject(ctx, one.id);
    expect(db.findProject(ctx, 'ONE')).toBeUndefined();
    expect(db.findProject(ctx, one.id)).toBeUndefined();
  });
});
