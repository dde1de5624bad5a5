/**
 * The emulator's SQLite schema, as numbered migrations. `PRAGMA user_version` records how many have
 * run, so a `--db` file written by an older emulator is brought up to date on start, and a file
 * from a newer one is refused instead of being misread.
 *
 * Every entity has a UUID `id` (the wire id) and an integer `seq` (insertion order): lists are
 * ordered by `seq`, which never changes, so pagination is stable while items move or change.
 * Human-id counters live in `counters` and only ever grow: numbers are never reused.
 */
export const MIGRATIONS: readonly string[] = [
  /* 1 */ `
  CREATE TABLE projects (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    prefix TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE counters (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    last INTEGER NOT NULL,
    PRIMARY KEY (project_id, kind)
  );
  CREATE TABLE users (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    email TEXT NOT NULL UNIQUE,
    first_name TEXT NOT NULL DEFAULT '',
    last_name TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'ACTIVE',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE labels (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE lookups (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    ord INTEGER NOT NULL,
    alias TEXT NOT NULL,
    icon TEXT NOT NULL
  );
  CREATE INDEX lookups_kind ON lookups(kind, ord);
  CREATE TABLE folders (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    parent_id TEXT REFERENCES folders(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    ord INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX folders_project ON folders(project_id, seq);
  CREATE INDEX folders_parent ON folders(project_id, parent_id, ord);
  CREATE TABLE cases (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    human_id TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    template_type TEXT NOT NULL,
    preconditions TEXT NOT NULL,
    steps TEXT NOT NULL,
    expected_results TEXT NOT NULL,
    type_id TEXT NOT NULL,
    status_id TEXT NOT NULL,
    automation_type_id TEXT NOT NULL,
    priority_id TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    reviewer_id TEXT NOT NULL,
    folder_id TEXT NOT NULL REFERENCES folders(id) ON DELETE CASCADE,
    label_ids TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX cases_project ON cases(project_id, seq);
  CREATE INDEX cases_human ON cases(project_id, human_id);
  CREATE INDEX cases_folder ON cases(folder_id);
  CREATE TABLE step_groups (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    human_id TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    label_ids TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX step_groups_project ON step_groups(project_id, seq);
  CREATE TABLE step_group_steps (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    step_group_id TEXT NOT NULL REFERENCES step_groups(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    step_description TEXT NOT NULL,
    expected_results TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX step_group_steps_group ON step_group_steps(step_group_id, ord);
  CREATE TABLE case_steps (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    case_id TEXT NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    step_description TEXT NOT NULL,
    expected_results TEXT NOT NULL,
    step_type TEXT NOT NULL,
    step_group_id TEXT REFERENCES step_groups(id) ON DELETE SET NULL
  );
  CREATE INDEX case_steps_case ON case_steps(case_id, ord);
  CREATE INDEX case_steps_group ON case_steps(step_group_id);
  CREATE TABLE plans (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    human_id TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    status TEXT NOT NULL,
    start_date INTEGER,
    end_date INTEGER,
    label_ids TEXT NOT NULL,
    completed_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX plans_project ON plans(project_id, seq);
  CREATE INDEX plans_human ON plans(human_id);
  CREATE TABLE runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    human_id TEXT NOT NULL,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    status TEXT NOT NULL,
    selection_type TEXT NOT NULL,
    filters TEXT NOT NULL,
    start_date INTEGER,
    end_date INTEGER,
    assignee_id TEXT,
    labels TEXT NOT NULL,
    environment_ids TEXT NOT NULL,
    test_plan_id TEXT REFERENCES plans(id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX runs_project ON runs(project_id, seq);
  CREATE INDEX runs_plan ON runs(test_plan_id);
  CREATE TABLE run_cases (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id TEXT NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
    status_id TEXT,
    user_id TEXT,
    description TEXT NOT NULL DEFAULT '',
    updated_at INTEGER NOT NULL,
    UNIQUE (run_id, case_id)
  );
  CREATE TABLE junit_imports (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    run_id TEXT NOT NULL,
    status TEXT NOT NULL,
    summary TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE executions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    execution_id TEXT NOT NULL,
    plan_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    run_id TEXT,
    environment_id TEXT,
    build_no TEXT NOT NULL,
    runtime_data TEXT NOT NULL,
    started_ms INTEGER NOT NULL,
    result TEXT NOT NULL,
    total INTEGER NOT NULL,
    failed INTEGER NOT NULL,
    settled INTEGER NOT NULL DEFAULT 0
  );
  `,
  /* 2: human-id lookups without scanning the project */ `
  CREATE INDEX step_groups_human ON step_groups(project_id, human_id);
  CREATE INDEX runs_human ON runs(project_id, human_id);
  `,
  /* 3: a run's results in order (the web UI's run page, the run-case list) without sorting the run */ `
  CREATE INDEX run_cases_run ON run_cases(run_id, seq);
  `,
  /* 4: a version of the case lists, bumped by every insert, delete (cascades too) or move of a case:
        the emulator kept each list's order in memory while the version stood (dropped by 6) */ `
  CREATE TABLE list_versions (
    name TEXT PRIMARY KEY,
    version INTEGER NOT NULL
  );
  INSERT INTO list_versions (name, version) VALUES ('cases', 0);
  CREATE TRIGGER cases_list_insert AFTER INSERT ON cases
    BEGIN UPDATE list_versions SET version = version + 1 WHERE name = 'cases'; END;
  CREATE TRIGGER cases_list_delete AFTER DELETE ON cases
    BEGIN UPDATE list_versions SET version = version + 1 WHERE name = 'cases'; END;
  CREATE TRIGGER cases_list_move AFTER UPDATE OF project_id, folder_id, seq ON cases
    WHEN OLD.project_id IS NOT NEW.project_id OR OLD.folder_id IS NOT NEW.folder_id OR OLD.seq IS NOT NEW.seq
    BEGIN UPDATE list_versions SET version = version + 1 WHERE name = 'cases'; END;
  `,
  /* 5: a log of changed cases, written by every change of a case's row or of its steps (a step
        group's deletion clearing a step's group too), keeping its last 4,096 to 4,351 entries
        (trimmed every 256th): the emulator keeps each case's serialized list item in memory and
        drops the ones the log names (routes/test-cases.ts) */ `
  CREATE TABLE case_changes (
    seq INTEGER PRIMARY KEY,
    case_id TEXT NOT NULL
  );
  CREATE TRIGGER case_changes_bound AFTER INSERT ON case_changes WHEN NEW.seq % 256 = 0
    BEGIN DELETE FROM case_changes WHERE seq <= NEW.seq - 4096; END;
  CREATE TRIGGER cases_change_update AFTER UPDATE ON cases
    BEGIN INSERT INTO case_changes (case_id) VALUES (NEW.id); END;
  CREATE TRIGGER cases_change_delete AFTER DELETE ON cases
    BEGIN INSERT INTO case_changes (case_id) VALUES (OLD.id); END;
  CREATE TRIGGER case_steps_change_insert AFTER INSERT ON case_steps
    BEGIN INSERT INTO case_changes (case_id) VALUES (NEW.case_id); END;
  CREATE TRIGGER case_steps_change_delete AFTER DELETE ON case_steps
    BEGIN INSERT INTO case_changes (case_id) VALUES (OLD.case_id); END;
  CREATE TRIGGER case_steps_change_update AFTER UPDATE ON case_steps
    BEGIN INSERT INTO case_changes (case_id) VALUES (OLD.case_id), (NEW.case_id); END;
  `,
  /* 6: a log of the case lists' changes in place of migration 4's version: every insert, delete (a
        folder's or project's cascade too) and move of a case appends where it was and where it is
        (position, project, folder), keeping its last 4,096 to 4,351 entries (trimmed every 256th).
        The emulator applies the entries to the lists it keeps in memory (db/cases.ts): a write
        changes one item of a list instead of making the next page read the whole list again */ `
  DROP TRIGGER cases_list_insert;
  DROP TRIGGER cases_list_delete;
  DROP TRIGGER cases_list_move;
  DROP TABLE list_versions;
  CREATE TABLE case_list_changes (
    seq INTEGER PRIMARY KEY,
    case_id TEXT NOT NULL,
    old_seq INTEGER,
    old_project TEXT,
    old_folder TEXT,
    new_seq INTEGER,
    new_project TEXT,
    new_folder TEXT
  );
  CREATE TRIGGER case_list_changes_bound AFTER INSERT ON case_list_changes WHEN NEW.seq % 256 = 0
    BEGIN DELETE FROM case_list_changes WHERE seq <= NEW.seq - 4096; END;
  CREATE TRIGGER cases_list_log_insert AFTER INSERT ON cases
    BEGIN INSERT INTO case_list_changes (case_id, new_seq, new_project, new_folder) VALUES (NEW.id, NEW.seq, NEW.project_id, NEW.folder_id); END;
  CREATE TRIGGER cases_list_log_delete AFTER DELETE ON cases
    BEGIN INSERT INTO case_list_changes (case_id, old_seq, old_project, old_folder) VALUES (OLD.id, OLD.seq, OLD.project_id, OLD.folder_id); END;
  CREATE TRIGGER cases_list_log_move AFTER UPDATE OF id, project_id, folder_id, seq ON cases
    WHEN OLD.id IS NOT NEW.id OR OLD.project_id IS NOT NEW.project_id OR OLD.folder_id IS NOT NEW.folder_id OR OLD.seq IS NOT NEW.seq
    BEGIN
      INSERT INTO case_list_changes (case_id, old_seq, old_project, old_folder, new_seq, new_project, new_folder)
      VALUES (NEW.id, OLD.seq, OLD.project_id, OLD.folder_id, NEW.seq, NEW.project_id, NEW.folder_id);
    END;
  `,
  /* 7: the files a run-case update carries (file parts `attachments_<case index>_<n>`), per run
        case; the same file sent again (a retried update) is stored once */ `
  CREATE TABLE run_case_attachments (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    case_id TEXT NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
    file_name TEXT NOT NULL,
    media_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    body BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (run_id, case_id, file_name, sha256)
  );
  CREATE INDEX run_case_attachments_case ON run_case_attachments(run_id, case_id, seq);
  `,
];

/** The schema version this emulator writes (the number of migrations). */
export const SCHEMA_VERSION = MIGRATIONS.length;
