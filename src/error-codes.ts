/**
 * Every code a `TmsyncError` (and so an `ApiError`) carries, with what it means: scripts match on
 * these codes (`--json` prints `error.code`), so each one is stable and named here once. A code
 * that is not in this table does not compile; docs/errors.md lists them all with the exit status the
 * CLI gives each (`src/cli/exit-codes.ts`), and test/error-codes.test.ts keeps the two in step.
 *
 * The problems of a tests repository (`unknown_key`, `duplicate_id`, …) are not errors of their
 * own: they travel inside `invalid_repository` (docs/cli.md).
 */
export const ERROR_CODES = {
  // a failed request to the service (`ApiError`, src/remote/api-error.ts)
  unauthorized: 'the service refused the API key (401), or the key may not reach the resource (403)',
  not_found: 'the service has no such item (404): a wrong id, or it was deleted',
  invalid_request: 'the service refused a request as invalid (400, 413, 422, …); the message names the field',
  rate_limited: 'the service kept refusing requests for rate (429, or the live 500 `rate limit exceeded`) after every retry',
  server_error: 'the service failed (5xx) after every retry',
  network: 'the service could not be reached: connection refused, reset or closed',
  timeout: 'the service did not answer in time, after every retry',
  invalid_response: 'the service answered in a shape tmsync cannot read (a base URL that is not the API, …)',
  response_too_large: 'an answer was larger than `max_response_size`; it was not read',
  aborted: 'the command was cancelled (Ctrl-C) before it finished; running it again resumes',
  client_closed: 'a request was sent through a closed client (a bug in tmsync)',
  unknown_endpoint: 'a request named no endpoint of the table (a library caller’s typo)',
  list_changed: 'a case changed on the service while it was read and could not be read in full',
  pagination_loop: 'the service sent the same page of a list twice',
  pagination_runaway: 'a list kept sending more pages than `max_pages` allows',

  // the target, the key and the configuration
  missing_api_key: 'no API key: the environment variable (`TMSYNC_API_KEY`, or a profile’s `api_key_env`) is not set',
  invalid_api_key: 'the API key holds something a header cannot carry (a line break, spaces, …); nothing was sent',
  missing_base_url: 'no service URL is configured (tmsync.yaml `base_url`, `TMSYNC_BASE_URL` or `--base-url`)',
  invalid_url: 'the base URL is not a URL of the service’s interface (it must end in /api/v1)',
  missing_project: 'the command needs a project and none was given',
  project_not_found: 'the service has no project of that id, prefix or name',
  project_exists: 'the service already has a project with that prefix',
  unknown_profile: 'tmsync.yaml has no profile of that name',
  config_not_found: 'no tmsync.yaml was found (at `--config`, or in the directory and those above it)',
  invalid_gherkin: 'a `.feature` file does not parse as Gherkin, so tmsync cannot update it in place (write-back, pull)',
  invalid_repository: 'the tests repository (or tmsync.yaml) has problems; `details.problems` lists each with its file and line',
  invalid_duration: 'a duration (`--timeout`, `request_timeout`, …) is not one (30s, 2m, 1h30m, 500ms)',
  invalid_size: 'a size (`max_response_size`, …) is not one (64MiB, 512KiB, bytes)',
  invalid_arguments: 'the command’s arguments do not fit together or are missing',
  invalid_option: 'an option’s value is not valid',
  invalid_date: 'a date option is not an ISO 8601 date or Unix seconds',
  usage: 'the command line is not valid (unknown command or option, missing argument)',

  // the files of the repository
  invalid_yaml: 'a file tmsync was to update is not valid YAML; it is left as it is',
  invalid_encoding: 'a file is not in an encoding tmsync reads (UTF-8, or UTF-16 with a byte order mark)',
  file_read_only: 'a file tmsync was to change is read-only; it is left as it is',
  not_a_regular_file: 'a path tmsync was to write is a directory, device or other special file',
  link_dangling: 'a file tmsync was to write is a symbolic link to a missing file',
  link_outside_repository: 'a file tmsync was to write leads outside the repository through a symbolic link',
  path_outside_repository: 'a path tmsync was to write leads outside the repository',
  io_error: 'the operating system refused a read or write (no space, permission, read-only file system, …)',
  repository_locked: 'another tmsync command is writing the repository (`.tmsync/lock`)',
  lock_failed: 'the repository lock could not be created',
  repository_has_errors: 'pull cannot update a repository whose files have problems',
  pull_inside_repository: 'pull --dir names a directory inside another tests repository',
  folder_not_found: 'pull --folder names a folder the service does not have',
  invalid_sync_base: 'tmsync.base is not a sync base tmsync wrote (damaged or edited)',
  invalid_sync_base_entry: 'an id or field name cannot be recorded in the sync base (a bug in tmsync)',
  sync_base_too_new: 'tmsync.base was written by a newer tmsync; it is left as it is',

  // plan and apply
  changed_since_prune: '`--prune` and `--changed-since` cannot be combined',
  not_a_git_repository: '`--changed-since` needs a git repository',
  git_unavailable: '`--changed-since` needs git, which could not be run',
  git_failed: 'a git command of `--changed-since` failed',
  unknown_git_ref: 'git does not know the ref given to `--changed-since`',
  missing_required_field: 'a new case lacks a field the service requires, and tmsync.yaml `defaults` has none',
  plan_write_failed: 'the plan could not be written to the `--out` file',
  plan_file_not_found: 'the saved plan file could not be read',
  plan_invalid: 'the saved plan file is not a valid tmsync plan',
  plan_format_version: 'the saved plan was written by another version of tmsync',
  stale_plan: 'the saved plan no longer matches the repository or the service',
  approval_required: 'apply needs a confirmation and there is no terminal to ask on (`--auto-approve`)',
  journal_corrupt: 'the journal of an interrupted apply, restore or migrate is damaged',
  journal_version: 'the journal was written by another version of tmsync',
  journal_write: 'the journal could not be written; the command stopped',

  // backup, restore, migrate
  backup_not_found: 'the backup file could not be read',
  backup_invalid: 'the backup file is damaged or not a tmsync backup',
  backup_truncated: 'the backup file was cut short (a backup that did not finish)',
  backup_version: 'the backup was written in a format version this tmsync does not read',
  restore_into_source: 'restore would write into the non-empty project the backup was taken from',
  restore_ambiguous: 'the target holds items the backup has, under names shared by several items',
  restore_unmatched: 'names of the backup (lookups, users, labels) have no match in the target',
  restore_incomplete_case: 'cases of the backup lack a value the service requires',
  restore_failed: 'items of the restore failed; running it again resumes',
  unknown_user: 'a user named by an option (`--map-user`, `--default-owner`, `--assign-failed`) is not on the service',

  // test plans, runs and results
  plan_not_found: 'no test plan of that id or human id',
  complete_failed: 'the service did not complete the test plan',
  unknown_label: 'the service has no label of that name',
  test_plan_not_found: 'results push: no test plan of that id or human id',
  run_not_found: 'no test run of that id or human id',
  run_closed: 'results push into a closed test run',
  shard_record_lost: "results push --shard: the run's description (the shards' record) kept losing this shard's results",
  run_not_finished: 'run report: the run has not finished, so it has no report yet',
  nothing_matched: 'results push: no testcase of the reports names a case of the project',
  env_file_unwritable: 'test-run create --env-file: the run was created but the file could not be written',
  nothing_selected: 'test-run create: --cases selects no case of the project',
  labels_unreadable: "test-run create --cases label: the service's case list does not say which labels the cases have",
  invalid_batch_size: '`--batch-size` is not a whole number in range',
  invalid_junit: 'a report is not JUnit XML tmsync can read',
  invalid_import: 'import: an export file cannot be read (malformed, truncated, wrong format or encoding)',
  import_not_found: 'import: an export file could not be read from disk',
  import_format_unknown: 'import: the FORMAT is not one tmsync reads, or the content matches no format (or several)',
  invalid_import_map: 'import: the value or column map (`--map FILE`, `import:` of tmsync.yaml) is not valid',
  invalid_export: 'export: the repository cannot be written in the asked format',
  junit_not_found: 'a JUnit report could not be read',
  invalid_report: 'results push: a report other than JUnit (Cucumber JSON or messages, TRX, NUnit, xUnit.net, TestNG, Robot Framework, CTRF, Playwright JSON) is not one tmsync can read (malformed, truncated, empty, another root element), or its format cannot be told',
  report_not_found: 'results push: a report (not `.xml`) could not be read',
  junit_write_failed: 'run report: the JUnit report could not be written',
  mapping_not_found: 'results push: the `--mapping` file could not be read',
  invalid_mapping: 'results push: the `--mapping` file is not a map of JUnit names to case ids',
  invalid_status_map: 'results push: a `--status-map` entry is not outcome=status',
  unknown_run_status: 'results push, run cases --status: the service has no run status of that name',
  invalid_runtime_data: 'run trigger: a `--runtime-data` entry is not key=value',

  // tmsync init
  init_would_overwrite: 'init would overwrite files that exist; nothing was written',
  init_choose_project: 'init found several projects and does not pick one',
  init_no_lookup: 'init: the service lists no entry of a lookup a case needs',
  init_no_user: 'init: the service lists no user to own new cases',

  // the emulator (`tmsync serve`)
  emulator_unavailable: 'the emulator cannot start: its optional dependencies are missing or not built',
  emulator_db_unavailable: 'the emulator cannot open its database file',
  emulator_db_in_use: 'another emulator process uses the database file',
  emulator_db_too_new: 'the database file was written by a newer emulator',
  port_in_use: 'the port given to `tmsync serve` is in use',

  internal: 'anything else: a bug in tmsync (`TMSYNC_DEBUG=1` prints its stack)',
} as const satisfies Record<string, string>;

/** A stable error code: a key of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether a string (from a saved document, a service answer) is a known error code. */
export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}
