import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { MIGRATIONS } from '../../src/emulator/db/schema.js';
import type { Database as SqliteDatabase } from 'better-sqlite3';
import { KEY, api, folder, refs, testCase } from './helpers.js';
import { seededEmulator } from '../support/emulator.js';

/** Takes a file written by this emulator back to what schema version 6 wrote: no run-case attachments. */
function backToVersion6(raw: SqliteDatabase): void {
  raw.exec('DROP TABLE run_case_attachments');
}

/** Takes a file written by this emulator back to what schema version 5 wrote: migration 4's list version, no log of the lists' changes. */
function backToVersion5(raw: SqliteDatabase): void {
  backToVersion6(raw);
  for (const t of ['case_list_changes_bound', 'cases_list_log_insert', 'cases_list_log_delete', 'cases_list_log_move']) raw.exec(`DROP TRIGGER ${t}`);
  raw.exec('DROP TABLE case_list_changes');
  raw.exec(MIGRATIONS[3]);
}

/** Takes a file written by this emulator back to what schema version 4 wrote: no log of changed cases. */
function backToVersion4(raw: SqliteDatabase): void {
  backToVersion5(raw);
  for (const t of ['cases_change_update', 'cases_change_delete', 'case_steps_change_insert', 'case_steps_change_delete', 'case_steps_change_update']) raw.exec(`DROP TRIGGER ${t}`);
  raw.exec('DROP TABLE case_changes');
}

describe('storage', () => {
  it('keeps projects, folders, cases and human-id counters across a restart with --db', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'tmsync-db-')), 'emu.sqlite');
    const first = await startEmulator({ db: file, apiKeys: [KEY], seed: 'demo' });
    const h1 = api(first);
    const f = await folder(h1, 'Persisted');
    const c = await testCase(h1, await refs(h1), f, { title: 'Survives', individual_steps: [{ step_description: 'a', expected_results: 'b' }] });
    await h1.del(`/projects/DEMO/test_cases/${c.id}`);
    const kept = await testCase(h1, await refs(h1), f, { title: 'Kept' });
    await first.close();

    const second = await startEmulator({ db: file, apiKeys: [KEY], seed: 'demo' });
    try {
      const h2 = api(second);
      expect((await h2.get('/projects')).body.data.projects.filter((p: any) => p.human_id_prefix === 'DEMO')).toHaveLength(1);
      expect((await h2.get(`/projects/DEMO/folders/${f}`)).body.data.folder.name).toBe('Persisted');
      expect((await h2.get(`/projects/DEMO/test_cases/${kept.human_id}`)).body.data.test_case.title).toBe('Kept');
      expect((await h2.get('/users')).body.data).toHaveLength(3);
      const next = await testCase(h2, await refs(h2), f, { title: 'After restart' });
      expect(Number(next.human_id.split('-')[1])).toBe(Number(kept.human_id.split('-')[1]) + 1);
    } finally {
      await second.close();
    }
  });

  it('keeps nothing between two in-memory emulators', async () => {
    const a = await startEmulator({ memory: true, apiKeys: [KEY] });
    await api(a).post('/projects', { name: 'Temp', human_id_prefix: 'TEMP' });
    await a.close();
    const b = await startEmulator({ memory: true, apiKeys: [KEY] });
    try {
      expect((await api(b).get('/projects')).body.data.projects).toEqual([]);
    } finally {
      await b.close();
    }
  });
});

describe('storage errors', () => {
  it('refuses a --db file in a missing directory with emulator_db_unavailable', async () => {
    const err = await startEmulator({ db: join(tmpdir(), 'no-such-dir-tmsync', 'x', 'emu.sqlite'), apiKeys: [KEY] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'emulator_db_unavailable' });
  });
});

describe('schema versions', () => {
  it('upgrades a database written with an older schema version and refuses a newer one', async () => {
    const { default: Database } = await import('better-sqlite3');
    const { MIGRATIONS, SCHEMA_VERSION } = await import('../../src/emulator/db/schema.js');
    const dir = mkdtempSync(join(tmpdir(), 'tmsync-schema-'));
    const old = join(dir, 'old.sqlite');
    const raw = new Database(old);
    raw.exec(MIGRATIONS[0]);
    raw.pragma('user_version = 1');
    raw.close();
    const emu = await startEmulator({ db: old, apiKeys: [KEY] });
    await emu.close();
    const check = new Database(old);
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    check.close();
    const err = await startEmulator({ db: old, apiKeys: [KEY] }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'emulator_db_too_new' });
  });

  it('upgrades a version 3 database holding cases: its case lists page as before (schema v4 list versions)', async () => {
    const { default: Database } = await import('better-sqlite3');
    const { SCHEMA_VERSION } = await import('../../src/emulator/db/schema.js');
    const file = join(mkdtempSync(join(tmpdir(), 'tmsync-schema-')), 'v3.sqlite');
    const first = await startEmulator({ db: file, apiKeys: [KEY], seed: 'demo' });
    const http = api(first);
    const ids = await refs(http);
    const f = await folder(http, 'Before the upgrade');
    for (const title of ['U1', 'U2', 'U3', 'U4', 'U5']) await testCase(http, ids, f, { title });
    await first.close();
    // back to what version 3 wrote: no list versions, no triggers
    const raw = new Database(file);
    backToVersion4(raw);
    raw.exec('DROP TRIGGER cases_list_insert; DROP TRIGGER cases_list_delete; DROP TRIGGER cases_list_move; DROP TABLE list_versions');
    raw.pragma('user_version = 3');
    raw.close();

    const emu = await startEmulator({ db: file, apiKeys: [KEY] });
    try {
      const again = api(emu);
      const page = async (n: number) => (await again.get(`/projects/DEMO/test_cases?folder_id=${f}&page_size=2&page=${n}`)).body;
      expect((await page(1)).data.test_cases.map((c: { title: string }) => c.title)).toEqual(['U1', 'U2']);
      expect((await page(3)).data.test_cases.map((c: { title: string }) => c.title)).toEqual(['U5']);
      expect((await page(3)).page_info.total_count).toBe(5);
      // the upgraded file follows later writes
      await testCase(again, ids, f, { title: 'U6' });
      expect((await page(3)).data.test_cases.map((c: { title: string }) => c.title)).toEqual(['U5', 'U6']);
    } finally {
      await emu.close();
    }
    const check = new Database(file);
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });
});

describe('schema version 5: the log of changed cases', () => {
  it('upgrades a version 4 database holding cases: its list shows them, and then every later edit of a case or its steps', async () => {
    const { default: Database } = await import('better-sqlite3');
    const { SCHEMA_VERSION } = await import('../../src/emulator/db/schema.js');
    const file = join(mkdtempSync(join(tmpdir(), 'tmsync-schema5-')), 'v4.sqlite');
    const first = await startEmulator({ db: file, apiKeys: [KEY], seed: 'demo' });
    const h1 = api(first);
    const ids = await refs(h1);
    const f = await folder(h1, 'Before revisions');
    const steps = [{ step_description: 'old step', expected_results: 'ok' }];
    const made = [await testCase(h1, ids, f, { title: 'R1', individual_steps: steps }), await testCase(h1, ids, f, { title: 'R2' })];
    await first.close();
    const raw = new Database(file);
    backToVersion4(raw);
    raw.pragma('user_version = 4');
    raw.close();

    const emu = await startEmulator({ db: file, apiKeys: [KEY] });
    try {
      const http = api(emu);
      const list = async () =>
        (await http.get(`/projects/DEMO/test_cases?folder_id=${f}`)).body.data.test_cases as { title: string; individual_steps: { step_description: string }[] }[];
      expect((await list()).map((c) => [c.title, c.individual_steps.map((s) => s.step_description)])).toEqual([['R1', ['old step']], ['R2', []]]);
      await http.put(`/projects/DEMO/test_cases/${made[1].id}`, { title: 'R2 edited' });
      await http.put(`/projects/DEMO/test_cases/${made[0].id}`, { individual_steps: [{ step_description: 'new step', expected_results: 'ok' }] });
      expect((await list()).map((c) => [c.title, c.individual_steps.map((s) => s.step_description)])).toEqual([['R1', ['new step']], ['R2 edited', []]]);
    } finally {
      await emu.close();
    }
    const check = new Database(file, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    check.close();
  });
});

describe('schema version 3: the run_cases(run_id, seq) index', () => {
  it("upgrades a version-2 database with a run's results: the index is added, the results kept, and a run's results are read in order without a sort", async () => {
    const { default: Database } = await import('better-sqlite3');
    const { SCHEMA_VERSION } = await import('../../src/emulator/db/schema.js');
    const file = join(mkdtempSync(join(tmpdir(), 'tmsync-schema3-')), 'emu.sqlite');
    const first = await startEmulator({ db: file, apiKeys: [KEY], seed: 'demo' });
    const h1 = api(first);
    const r = await refs(h1);
    const f = await folder(h1, 'Upgrade');
    const cases = [await testCase(h1, r, f, { title: 'One' }), await testCase(h1, r, f, { title: 'Two' })];
    const run = (await h1.post('/projects/DEMO/test_runs', { title: 'Old run', static_selection_filters: [{ field: 'id', operator: 'IN', values: cases.map((c) => c.id) }] })).body.data.test_run;
    await first.close();

    // what an emulator of schema version 2 left: the same tables, without the index
    const raw = new Database(file);
    backToVersion4(raw);
    raw.exec('DROP INDEX run_cases_run');
    raw.exec('DROP TRIGGER cases_list_insert; DROP TRIGGER cases_list_delete; DROP TRIGGER cases_list_move; DROP TABLE list_versions');
    raw.pragma('user_version = 2');
    raw.close();

    const second = await startEmulator({ db: file, apiKeys: [KEY] });
    try {
      const listed = (await api(second).get(`/projects/DEMO/test_runs/${run.id}/test_cases`)).body.data.test_cases as { id: string }[];
      expect(listed.map((c) => c.id)).toEqual(cases.map((c) => c.id));
    } finally {
      await second.close();
    }
    const check = new Database(file, { readonly: true });
    try {
      expect(check.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      expect((check.pragma('index_info(run_cases_run)') as { name: string }[]).map((c) => c.name)).toEqual(['run_id', 'seq']);
      const plan = (check.prepare('EXPLAIN QUERY PLAN SELECT case_id FROM run_cases WHERE run_id = ? ORDER BY seq').all(run.id) as { detail: string }[]).map((p) => p.detail);
      expect(plan.join('\n')).toContain('USING INDEX run_cases_run');
      expect(plan.join('\n')).not.toContain('TEMP B-TREE');
    } finally {
      check.close();
    }
  });
});

describe('a full database', () => {
  it('answers 507 naming the limit and --db when the database is full, and keeps everything written before', async () => {
    const emu = await seededEmulator(KEY);
    try {
      const http = api(emu);
      const r = await refs(http);
      const f = await folder(http, 'Full');
      const kept = await testCase(http, r, f, { title: 'Before full' });
      // SQLite's own cap on pages stands in for the memdb limit (1 GiB) here: the same SQLITE_FULL
      emu.db.db.pragma(`max_page_count = ${Number(emu.db.db.pragma('page_count', { simple: true }))}`);
      const { users: _u, labels: _l, ...ids } = r;
      const big = 'x'.repeat(64 * 1024);
      const full = await http.post('/projects/DEMO/test_cases', { title: 'Too much', folder_id: f, ...ids, description: big });
      expect(full.status).toBe(507);
      expect(full.body.message).toContain("the emulator's database is full (1 GiB with --memory");
      expect(full.body.message).toContain('--db FILE');
      const listed = (await http.get(`/projects/DEMO/test_cases?folder_id=${f}`)).body.data.test_cases as { title: string }[];
      expect(listed.map((c) => c.title)).toEqual([kept.title]);
    } finally {
      await emu.close();
    }
  });
});
