import { Argument, Command, Option } from 'commander';
import { REPORT_FORMAT_NAMES, REPORT_FORMAT_OPTIONS } from '../results/report-formats.js';
import { ATTACHMENT_SCOPES, DEFAULT_ATTACHMENT_TYPES } from '../results/attachment-defaults.js';
import { colorChoice, red, yellow, type CliIo, type GlobalOptions } from './io.js';
import { VERSION } from '../version.js';
import { IMPORT_FORMATS } from '../import/format-names.js';
import { EXIT, exitCodesHelp } from './exit-codes.js';
import { EXPORT_FORMAT_HELP, EXPORT_FORMAT_NAMES } from '../export/formats.js';
import { RUNNER_FILTER_FORMATS } from '../runs/runner-filters.js';

/**
 * The commander program: flags only. Every command's code is lazy-imported from
 * `./commands/<name>.js`, so `tmsync --help` and `tmsync plan` never load the emulator's
 * dependencies (fastify, better-sqlite3).
 *
 * Each command module exports `run<Name>(options, io): Promise<number>` returning the exit code.
 */
/**
 * A repeatable option. Variadic options (`<v...>`) would swallow the positional arguments that
 * follow them (`restore --map-user a=b FILE`), so repeatable ones collect one value per flag.
 */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/**
 * The commander program. `stderrColor`: whether usage errors colour `Error:` and `Hint:` (decided by
 * the caller from stderr and `--no-color`, as for every other error).
 */
export function buildProgram(io: CliIo, cwd: string, setExit: (code: number) => void, stderrColor = false): Command {
  const program = new Command();
  program
    .name('tmsync')
    .description('Test cases as code: plan and apply YAML test cases against a test-management service.')
    .version(VERSION, '-V, --version')
    .option('--config <file>', 'configuration file (default: ./tmsync.yaml)')
    .option('--profile <name>', 'a named target from `profiles:` in tmsync.yaml')
    .option('--base-url <url>', 'service base URL, ending in /api/v1 (or env TMSYNC_BASE_URL)')
    .option('--project <p>', 'project id, human id prefix or exact name')
    .option('--json', 'machine output on stdout, human text on stderr', false)
    .option('--verbose', 'show each request (method, path, status, duration, retries)', false)
    .option('--no-color', 'never colour the output')
    .showHelpAfterError(`${yellow('Hint:', stderrColor)} run with --help for usage`)
    .addHelpText(
      'after',
      '\nThe API key comes only from the environment: TMSYNC_API_KEY, or the variable named by a profile\'s api_key_env.\n' +
        `${exitCodesHelp()}\n` +
        'Durations (request_timeout, --timeout, --poll, …): 30s, 2m, 1h30m, 500ms; a bare number is seconds.\n' +
        'Colour: on a terminal only; NO_COLOR=1 or --no-color turn it off, FORCE_COLOR=1 forces it.',
    );
  program.exitOverride();
  // subcommands inherit this: their --help lists the global options too
  program.configureHelp({ showGlobalOptions: true });
  program.configureOutput({
    writeOut: (s) => io.stdout(s),
    writeErr: (s) => io.stderr(s),
    // usage errors look like every other error: `Error: …` then `Hint: …`
    outputError: (s, write) => write(`${red('Error:', stderrColor)} ${s.replace(/^error:\s*/i, '')}`),
  });

  const globals = (): GlobalOptions => {
    const o = program.opts<Pick<GlobalOptions, 'config' | 'profile' | 'baseUrl' | 'project'> & { json?: boolean; verbose?: boolean; color?: boolean }>();
    return {
      cwd,
      config: o.config,
      profile: o.profile,
      baseUrl: o.baseUrl,
      project: o.project,
      json: Boolean(o.json),
      verbose: Boolean(o.verbose),
      color: colorChoice(io, o.color === false),
    };
  };
  /** Runs a lazily imported command and records its exit code. */
  const lazy =
    <T>(load: () => Promise<(options: T, io: CliIo) => Promise<number>>) =>
    async (...args: unknown[]) => {
      const cmd = args[args.length - 1] as Command;
      const positional = cmd.args;
      const options = { ...globals(), ...cmd.opts(), args: positional } as T;
      const run = await load();
      setExit(await run(options, io));
    };

  program
    .command('init')
    .description('write a starter tmsync.yaml, one example case and one step group')
    .argument('[dir]', 'directory to initialise', '.')
    .option('--example', 'with a service (TMSYNC_BASE_URL and TMSYNC_API_KEY set): also write the example case and step group, which the first apply creates there', false)
    .action(lazy(async () => (await import('./commands/init.js')).runInit));

  /** `--compact` / `--no-compact`: unset, a plan above 50 operations is compact (docs/plan.md) */
  const COMPACT = () => new Option('--compact', 'show the plan as a table per folder with counts, details only for updates and deletes (the default above 50 operations)');
  const NO_COMPACT = () => new Option('--no-compact', 'show every item of the plan in detail, whatever its size');

  /** `--prefer`: settles conflicts with the sync base for one run (docs/sync.md) */
  const PREFER = () =>
    new Option(
      '--prefer <side>',
      "settle conflicts (a field changed in the repository and on the service since the last sync, or on the service while apply runs) for this run: local sends the repository's value, remote keeps the service's",
    ).choices(['local', 'remote']);

  program
    .command('validate')
    .description('check every file offline: schema, references, duplicate ids, folder names (no network)')
    .argument('[dir]', 'the tests repository', '.')
    .addOption(new Option('--format <format>', 'text, or codequality: a GitLab Code Quality report (JSON) on stdout').choices(['text', 'codequality']).default('text'))
    .action(lazy(async () => (await import('./commands/validate.js')).runValidate));

  program
    .command('plan')
    .description('read the repository and the service and print the plan')
    .option('--out <file>', 'save the plan (JSON) for `tmsync apply <file>`')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .option('--detailed-exitcode', 'exit 2 when the repository and the service differ (changes to send, or changes on the service the files do not have yet), 0 when they agree', false)
    .option('--prune', 'delete remote items in scope that the repository does not describe', false)
    .option('--allow-recreate', 'with --prune, accept deleting and recreating cases that look renamed', false)
    .option('--changed-since <ref>', 'plan only the files changed since this git ref (a pull request: its base); reads only what they name; not with --prune')
    .addOption(PREFER())
    .addOption(COMPACT())
    .addOption(NO_COMPACT())
    .action(lazy(async () => (await import('./commands/plan.js')).runPlan));

  program
    .command('apply')
    .description('apply a fresh plan (asks for yes on a terminal) or a saved one; writes ids back into the YAML files')
    .argument('[planfile]', 'a plan saved by `tmsync plan --out`')
    .option('--auto-approve', 'do not ask for confirmation', false)
    .option('--prune', 'delete remote items in scope that the repository does not describe', false)
    .option('--allow-recreate', 'with --prune, accept deleting and recreating cases that look renamed', false)
    .option('--lock-timeout <duration>', 'wait this long (e.g. 30s, 5m) for another tmsync command writing this repository, instead of failing at once')
    .option('-q, --quiet', "print the plan's summary line, not the whole plan", false)
    .addOption(PREFER())
    .addOption(COMPACT())
    .addOption(NO_COMPACT())
    .action(lazy(async () => (await import('./commands/apply.js')).runApply));

  program
    .command('show')
    .description('print a plan saved by `tmsync plan --out` (offline)')
    .argument('<planfile>', 'the saved plan')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'markdown', 'json']).default('text'))
    .addOption(COMPACT())
    .addOption(NO_COMPACT())
    .action(lazy(async () => (await import('./commands/show.js')).runShow));

  program
    .command('pull')
    .description("write the service's state as a tests repository (ids included)")
    .option('--dir <dir>', 'the repository to write (default: the one whose tmsync.yaml is found from here upward, else the current directory); never a directory inside another repository')
    .option('--folder <path>', 'only this folder subtree (names joined by /)')
    .addOption(
      new Option('--prefer <side>', 'settle conflicts (a field changed in the file and on the service since the last sync): local keeps the file, remote writes the service\'s value').choices([
        'local',
        'remote',
      ]),
    )
    .option('--lock-timeout <duration>', 'wait this long (e.g. 30s, 5m) for another tmsync command writing this repository, instead of failing at once')
    .action(lazy(async () => (await import('./commands/pull.js')).runPull));

  program
    .command('import')
    .description("read other tools' exports (TestRail, Xray, Zephyr, Qase, TestLink, testomat.io, Azure DevOps, CSV) into the tests repository, or test reports into cases for the automated tests no case covers; then validate, plan, apply")
    .argument('[format]', `the export's format (left out: detected from the content): ${IMPORT_FORMATS.join(', ')}; or a test report's (required for reports): ${REPORT_FORMAT_NAMES.join(', ')}, cucumber, or report (told from the content)`)
    .argument('[files...]', 'the export or report files (with FORMAT left out, every argument is a file)')
    .option('--dir <dir>', 'the repository to write (default: the one whose tmsync.yaml is found from here upward, else the current directory)')
    .option('--folder <path>', 'put every imported folder under this folder (names joined by /); test reports: every new case goes into it (default: a folder per class or file)')
    .option('--map <file>', 'a YAML file with `values:` (source value → the service\'s name, per field) and `columns:` (field → CSV header names), over `import:` of tmsync.yaml')
    .option('--encoding <encoding>', 'the files\' encoding when detection is wrong (utf-8, utf-16, windows-1252, iso-8859-15)')
    .option('--dry-run', 'print what would be written; write nothing', false)
    .option('--no-service', "do not ask the configured service for its lookups, users and labels (the value map is then proposed from the export alone)")
    .option('--mapping <file>', "test reports: a `results push` mapping file; the tests it names have a case already")
    .action(lazy(async () => (await import('./commands/import.js')).runImport));

  program
    .command('backup')
    .description('a lossless, versioned JSON snapshot of a project (gzip when FILE ends in .gz)')
    .requiredOption('--out <file>', 'where to write the backup (a regular file; .gz compresses)')
    .action(lazy(async () => (await import('./commands/backup.js')).runBackup));

  program
    .command('export')
    .description("write the repository (offline) in another tool's import format; what the format cannot hold is listed")
    .addArgument(new Argument('<format>', 'the format').choices([...EXPORT_FORMAT_NAMES]))
    .requiredOption('--out <file>', 'the file to write')
    .addHelpText('after', `\nFormats:\n${EXPORT_FORMAT_HELP}`)
    .action(lazy(async () => (await import('./commands/export.js')).runExport));

  program
    .command('restore')
    .description(
      'recreate a backup in another (empty or partial) project or instance, named with --project P (required); ' +
        'items already there are adopted by name, never duplicated; resumable',
    )
    .argument('<file>', 'a backup written by `tmsync backup`')
    .option('--map-user <old=new>', 'map a user of the backup to a user of the target (email=email); repeatable', collect)
    .option('--default-owner <user>', 'stand-in for every user of the backup without a match in the target (owners, reviewers, assignees)')
    .option('--drop-missing-labels', 'leave out labels the target lacks (the API cannot create labels) instead of refusing', false)
    .option('--create-project [name]', "create the project when none matches --project (which is then its prefix); its name: NAME, or the backup's project name", false)
    .option('--lock-timeout <duration>', 'wait this long (e.g. 30s, 5m) for another tmsync command writing this repository, instead of failing at once')
    .action(lazy(async () => (await import('./commands/restore.js')).runRestore));

  program
    .command('migrate')
    .description('copy a project between instances or projects through the plan/apply engine')
    .requiredOption('--from <profile>', 'source profile')
    .requiredOption('--to <profile>', 'target profile')
    .option('--folder <path>', 'only this folder subtree')
    .option('--auto-approve', 'do not ask for confirmation', false)
    .option('--lock-timeout <duration>', 'wait this long (e.g. 30s, 5m) for another tmsync command writing this repository, instead of failing at once')
    .addOption(COMPACT())
    .addOption(NO_COMPACT())
    .action(lazy(async () => (await import('./commands/migrate.js')).runMigrate));

  const run = program.command('run').description('trigger test plans through the execution interface');
  run
    .command('trigger')
    .description('start a test plan; with --wait poll until the run ends and exit by its result')
    .requiredOption('--test-plan <id>', 'the test plan: its execution id (a number); or its uuid or human id (with a project), sent as its execution id where the service shows one')
    .option('--environment <id>', 'environment id')
    .option('--build <no>', 'build number or version under test')
    .option('--runtime-data <k=v...>', 'runtime data passed to the run')
    .option('--wait', 'poll until the run completes; exit 0 passed, 3 not passed or timed out', false)
    .option('--timeout <dur>', 'give up waiting after this long (e.g. 30m, 90s)', '30m')
    .option('--poll <dur>', 'first poll interval (backs off)', '10s')
    .option('--junit <file>', "after the run, download its JUnit report to FILE")
    .action(lazy(async () => (await import('./commands/run-trigger.js')).runRunTrigger));
  run
    .command('status')
    .description("print a run's status")
    .argument('<run-id>', 'the run id printed by `run trigger`')
    .action(lazy(async () => (await import('./commands/run-status.js')).runRunStatus));
  run
    .command('report')
    .description("download the JUnit report of a finished run (started by `run trigger` without --wait); starts nothing")
    .argument('<run-id>', 'the run id printed by `run trigger`')
    .requiredOption('--junit <file>', 'where to write the JUnit report')
    .action(lazy(async () => (await import('./commands/run-report.js')).runRunReport));
  run
    .command('cases')
    .description("print the cases a test run holds (or a test plan's runs hold) as a test runner's filter: a regular expression of their human ids for --grep, Playwright's --grep, a pytest -k expression, Allure's testplan.json, a JUnit 5 tag expression, or one id per line")
    .option('--test-run <id>', 'the test run (id or human id)')
    .option('--test-plan <id>', "a test plan (id or human id): the cases of every run linked to it")
    .addOption(new Option('--format <format>', 'the form to print (docs/automation.md)').choices([...RUNNER_FILTER_FORMATS]).default('list'))
    .option('--status <names>', 'only cases whose run status is one of these (run status names such as untested,failed); repeatable, or comma-separated', collect)
    .action(lazy(async () => (await import('./commands/run-cases.js')).runRunCases));

  const results = program.command('results').description('push test results into test runs');
  results
    .command('push')
    .description(
      'map the results of a JUnit XML, TRX, NUnit 2/3, xUnit.net v2, TestNG, Robot Framework, Cucumber JSON or messages, CTRF or Playwright JSON report to test cases and set their statuses in a test run. ' +
        'A testcase maps to a case by, in order: the --mapping file (classname.name, then name; a scenario\'s classname is its feature), ' +
        'a case file\'s `automation:` key (its tests by name, * a wildcard), ' +
        'a scenario\'s id tag (@SHOP-12; an Examples\' tag first), a `test_case` property (human ids or ids), ' +
        'a tag or category that is a human id (TRX TestCategory, NUnit Category, xUnit.net Category trait, TestNG group, Robot/CTRF/Playwright tag), a human id in its name or classname (SHOP-12, also written SHOP_12), and for a scenario its feature path and name; ' +
        'testcases that map to nothing are listed, not sent',
    )
    .argument('<files...>', 'report files: JUnit XML, TRX (dotnet test --logger trx), NUnit 2/3 or xUnit.net v2 XML, TestNG testng-results.xml, Robot Framework output.xml, Cucumber JSON (cucumber-js, cucumber-jvm, behave), Cucumber messages (NDJSON), CTRF JSON or Playwright JSON')
    .option('--test-run <id>', 'an existing test run (id or human id; default: TMSYNC_TEST_RUN, as `test-run create --env-file` writes it); cases it lacks are added to a STATIC run')
    .option('--new-run <title>', 'create a STATIC run holding the matched cases first')
    .option('--mapping <file>', 'a YAML/JSON file mapping JUnit names to case ids')
    .addOption(
      new Option('--format <format>', "the reports' format; auto tells each file's from its content")
        .choices(REPORT_FORMAT_OPTIONS)
        .default('auto'),
    )
    .option('--id-tag-prefix <prefix>', 'Cucumber: what an id tag holds between @ and the human id (tc: for @tc:SHOP-12; default: gherkin.id_tag_prefix of tmsync.yaml)')
    .option(
      '--status-map <outcome=status>',
      'map an outcome (passed, failed, error, skipped) to a run status name; repeatable, or comma-separated',
      collect,
    )
    .option('--batch-size <n>', 'rows per update request', '100')
    .option('--dry-run', 'show what would be sent, send nothing', false)
    .option('--multipart', 'send the updates as multipart/form-data with a `data` part (as the live service needs; same as results.encoding: multipart; default: JSON, then multipart once JSON is refused)', false)
    .option('--test-plan <id>', 'with --new-run: link the new run to this test plan (id or human id)')
    .option('--environment <id>', 'with --new-run: an environment id the run covers; repeatable, or comma-separated', collect)
    .option('--assign-failed <user>', 'assign failed and errored cases of the run to this user (email or id)')
    .option('--close', 'close the run once every result was sent (left open when any was not)', false)
    .option(
      '--shard <name>',
      'the CI job these results come from, when several push into one run: a case keeps the worst outcome over all shards, and a shard pushed again replaces its own earlier result ' +
        '(default: TMSYNC_SHARD, else GITHUB_JOB on GitHub Actions, CI_JOB_NAME on GitLab CI; docs/results.md)',
    )
    .option('--mark-automated', "set automation_type to the service's automated type in the case files of the cases that received a result (same as results.mark_automated: true); the service gets it through tmsync plan and apply")
    .addOption(
      new Option('--attachments <which>', 'send the files the reports attach to tests ([[ATTACHMENT|path]] lines, file:// links, attachment properties…) with the results of failed and errored cases, of all cases, or none; sent as file parts of the update (multipart)')
        .choices(ATTACHMENT_SCOPES)
        .default('failed'),
    )
    .option('--attachment-types <list>', `file extensions sent, comma-separated, or all (default: ${DEFAULT_ATTACHMENT_TYPES.join(',')})`)
    .option('--attachment-max-size <size>', 'skip a file larger than this (bytes, or 512KB, 10MB)', '10MB')
    .option('--attachment-batch-max-size <size>', 'the most file bytes one update request carries; a request is split before it passes this (bytes, or 512KB, 50MB)', '50MB')
    .action(lazy(async () => (await import('./commands/results-push.js')).runResultsPush));

  const testPlan = program.command('test-plan').description('script test plans around a release');
  testPlan
    .command('create')
    .description('create a test plan and print its id')
    .requiredOption('--title <title>', 'title')
    .option('--description <text>', 'description', '')
    .option('--start <date>', 'start date (ISO 8601 or Unix seconds)')
    .option('--end <date>', 'end date (ISO 8601 or Unix seconds)')
    .option('--label <name...>', 'label names or ids')
    .action(lazy(async () => (await import('./commands/test-plan.js')).runTestPlanCreate));
  testPlan
    .command('get')
    .description('print a test plan')
    .argument('<id>', 'test plan id or human id')
    .action(lazy(async () => (await import('./commands/test-plan.js')).runTestPlanGet));
  testPlan
    .command('complete')
    .description('complete a test plan')
    .argument('<id>', 'test plan id or human id')
    .action(lazy(async () => (await import('./commands/test-plan.js')).runTestPlanComplete));

  const testRun = program.command('test-run').description('one test run that several CI shards push their results into');
  testRun
    .command('create')
    .description('create a STATIC test run holding the selected cases and print its id; on GitHub Actions and GitLab CI its description records the pipeline, commit and branch')
    .requiredOption('--title <title>', 'title')
    .option('--test-plan <id>', 'the test plan the run belongs to (id or human id)')
    .option('--environment <id>', 'an environment id the run covers; repeatable, or comma-separated', collect)
    .option('--cases <selection>', 'the cases it holds: all, label:NAME, or a folder path such as Checkout/Payment (with its subfolders)', 'all')
    .option('--env-file <file>', 'append TMSYNC_TEST_RUN=<id> to FILE for later jobs ($GITHUB_OUTPUT, or a GitLab dotenv report)')
    .action(lazy(async () => (await import('./commands/test-run.js')).runTestRunCreate));
  testRun
    .command('close')
    .description('close a test run (after the last shard pushed)')
    .argument('[id]', 'test run id or human id (default: TMSYNC_TEST_RUN)')
    .action(lazy(async () => (await import('./commands/test-run.js')).runTestRunClose));

  const project = program.command('project').description('manage projects (a restore or migrate target)');
  project
    .command('create')
    .description("create a project and print its id")
    .requiredOption('--name <name>', 'the project\'s name')
    .requiredOption('--prefix <prefix>', 'the human id prefix of its items (SHOP → SHOP-12): 1 to 10 upper-case letters or digits, starting with a letter')
    .option('--description <text>', 'description', '')
    .action(lazy(async () => (await import('./commands/project.js')).runProjectCreate));

  program
    .command('coverage')
    .description(
      'how cases and automated tests are linked (docs/automation.md): automated cases no test proves (unproven-cases), ' +
        'tests that map to no case (unmapped-tests, needs reports), `automation:` entries the reports do not contain (missing-tests, needs reports), ' +
        'cases a run has not executed (unexecuted-cases, needs --test-run); offline unless --test-run is given',
    )
    .argument('[reports...]', 'test reports in any format `results push` reads')
    .option('--test-run <id>', "a test run (id or human id): its cases still untested are listed (reads the service)")
    .option('--fail-on <kinds>', 'exit 1 when any of these kinds has findings: unproven-cases, unmapped-tests, missing-tests, unexecuted-cases; repeatable, or comma-separated', collect)
    .addOption(new Option('--format <format>', 'text; markdown (a pull-request comment); json; github (annotations on the case files); gitlab (a Code Quality report)').choices(['text', 'markdown', 'json', 'github', 'gitlab']).default('text'))
    .addOption(new Option('--report-format <format>', "the reports' format; auto tells each file's from its content").choices(REPORT_FORMAT_OPTIONS).default('auto'))
    .option('--out <file>', 'write the output to this file instead of stdout')
    .action(lazy(async () => (await import('./commands/coverage.js')).runCoverage));

  program
    .command('serve')
    .description('run the embedded emulator of the service (SQLite), with a read-only web UI at /')
    .option('--port <port>', 'port (0 picks a free one)', '4010')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(new Option('--db <file>', 'SQLite file (data survives restarts; one emulator per file)').conflicts('memory'))
    .option('--memory', 'keep everything in memory (the default without --db)')
    .option('--api-key <key...>', 'accepted API key (repeatable); without one a random key is printed')
    .addOption(new Option('--seed <name>', 'seed data').choices(['demo']))
    .option('--latency <dur>', 'added latency per request (e.g. 20ms; a bare number is seconds)', '0')
    .option('--rate-limit <n>', 'requests per second per key before refusing')
    .addOption(
      new Option('--rate-limit-style <style>', '429 with Retry-After, or the live service\'s 500 "rate limit exceeded" (default: 429; live with --dialect live)')
        .choices(['429', 'live']),
    )
    .addOption(
      new Option('--dialect <dialect>', 'answer as the interface document shows, or as the live service does (ms timestamps, cursors, 400s, multipart-only results…; docs/emulator.md)')
        .choices(['document', 'live'])
        .default('document'),
    )
    .option('--page-size-cap <n>', 'serve at most this many items per page (larger page_size values are capped, not refused)')
    .option('--fail-rate <p>', 'probability of a random 500/503', '0')
    .option('--reset-rate <p>', 'probability of a dropped connection', '0')
    .option('--fault-seed <n>', 'seed for deterministic faults')
    .option('--fail-after-commit', 'faults hit after the change is stored (ambiguous failures)', false)
    .option('--log <file>', 'one JSON line per request')
    .option('--run-duration <dur>', 'how long an execution-interface run takes to complete (e.g. 3s, 500ms)', '3s')
    .option('--run-queue <dur>', 'how long a run is created, queued and in pre-flight (a third each) before it is in progress (default: half of --run-duration)')
    .addOption(
      new Option('--run-outcome <outcome>', "the result of every execution-interface run (a plan's outcome:<value> marker wins; default: FAILURE when the plan's title contains \"fail\", else SUCCESS)").choices([
        'success',
        'failure',
        'aborted',
        'stopped',
        'not-executed',
        'random',
      ]),
    )
    .action(lazy(async () => (await import('./commands/serve.js')).runServe));

  program
    .command('completion')
    .description('print a shell completion script')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: 'bash' | 'zsh' | 'fish') => {
      const { completionNodes, completionScript } = await import('./completion.js');
      io.stdout(completionScript(shell, completionNodes(program)));
      setExit(EXIT.OK);
    });

  addExamples(program);
  return program;
}

/** `Examples:` of every command's --help, by command path. */
export const EXAMPLES: Record<string, string[]> = {
  '': [
    'tmsync init && tmsync validate',
    'tmsync plan --out plan.json && tmsync apply plan.json',
    'eval "$(tmsync completion bash)"',
  ],
  init: ['tmsync init', 'tmsync init tests', 'TMSYNC_BASE_URL=https://tms.example/api/v1 tmsync init --project SHOP'],
  validate: ['tmsync validate', 'tmsync validate tests --json'],
  plan: [
    'tmsync plan',
    'tmsync plan --out plan.json --detailed-exitcode',
    'tmsync plan --format markdown > plan.md',
    'tmsync plan --prune',
  ],
  apply: ['tmsync apply', 'tmsync apply --auto-approve --quiet', 'tmsync apply plan.json'],
  show: ['tmsync show plan.json', 'tmsync show plan.json --format markdown'],
  pull: ['tmsync pull --project DEMO --dir tests', 'tmsync pull --folder "Checkout/Payments"', 'tmsync pull --prefer remote'],
  import: [
    'tmsync import testrail-xml export.xml --folder "From TestRail"',
    'tmsync import export.csv --dry-run',
    'tmsync import xray-csv tests.csv --map import-map.yaml',
    'tmsync import junit target/surefire-reports/*.xml --folder "Automated/Checkout" && tmsync plan',
  ],
  backup: ['tmsync backup --out demo-backup.json.gz'],
  export: ['tmsync export testrail-xml --out testrail.xml', 'tmsync export xray-csv --out xray.csv', 'tmsync export csv --out cases.csv --json'],
  restore: [
    'tmsync restore demo-backup.json.gz --project NEW --map-user old@example.com=new@example.com',
    'tmsync restore demo-backup.json.gz --project COPY --create-project "Demo (copy)"',
  ],
  project: ['tmsync project create --name "Shop" --prefix SHOP'],
  'project create': ['tmsync project create --name "Shop (staging copy)" --prefix SHOPSTG', 'tmsync project create --name Shop --prefix SHOP --json'],
  migrate: ['tmsync migrate --from old --to new', 'tmsync migrate --from old --to new --folder Checkout --auto-approve'],
  run: ['tmsync run trigger --test-plan DEMO-P-1 --wait --junit report.xml', 'tmsync run report 42 --junit report.xml'],
  'run trigger': [
    'tmsync run trigger --test-plan DEMO-P-1',
    'tmsync run trigger --test-plan DEMO-P-1 --build 812 --wait --timeout 45m --junit reports/run.xml',
  ],
  'run status': ['tmsync run status 42', 'tmsync run status 42 --json'],
  'run report': ['tmsync run report 42 --junit reports/run.xml'],
  'run cases': [
    'npx playwright test --grep "$(tmsync run cases --test-run DEMO-R-3 --format playwright)"',
    'pytest -k "$(tmsync run cases --test-plan DEMO-P-2 --format pytest --status untested,failed)"',
    'mvn test -Dgroups="$(tmsync run cases --test-run DEMO-R-3 --format junit-filter)"',
    'tmsync run cases --test-run DEMO-R-3 --format testplan-json > testplan.json && ALLURE_TESTPLAN_PATH=testplan.json npm test',
  ],
  results: ['tmsync results push junit.xml --test-run DEMO-R-3'],
  'results push': [
    'tmsync results push reports/*.xml --test-run DEMO-R-3',
    'tmsync results push junit.xml --new-run "Nightly 2026-11-23" --dry-run',
    'tmsync results push reports/cucumber.json --test-run DEMO-R-3 --id-tag-prefix tc:',
    'tmsync results push reports/*.xml --test-run "$TMSYNC_TEST_RUN" --shard "chrome 2/3"',
    'tmsync results push junit.xml --test-run DEMO-R-3 --mark-automated && git diff && tmsync plan',
  ],
  'test-run': ['tmsync test-run create --title "CI build 812" --env-file "$GITHUB_OUTPUT"', 'tmsync test-run close "$TMSYNC_TEST_RUN"'],
  'test-run create': [
    'tmsync test-run create --title "CI build 812" --cases all --env-file "$GITHUB_OUTPUT"',
    'tmsync test-run create --title "Smoke on staging" --cases label:smoke --test-plan DEMO-P-2 --environment 3',
    'tmsync test-run create --title "Checkout nightly" --cases Checkout/Payment --json',
  ],
  'test-run close': ['tmsync test-run close DEMO-R-4', 'tmsync test-run close   # the run TMSYNC_TEST_RUN names'],
  coverage: [
    'tmsync coverage',
    'tmsync coverage reports/*.xml --fail-on unmapped-tests,unproven-cases',
    'tmsync coverage reports/*.xml --format github',
    'tmsync coverage reports/*.xml --format gitlab --out gl-code-quality-report.json',
    'tmsync coverage --test-run DEMO-R-3 --fail-on unexecuted-cases --format markdown --out coverage.md',
  ],
  'test-plan': ['tmsync test-plan create --title "Release 2.4"'],
  'test-plan create': ['tmsync test-plan create --title "Release 2.4" --start 2026-12-01 --end 2026-12-15'],
  'test-plan get': ['tmsync test-plan get DEMO-P-2 --json'],
  'test-plan complete': ['tmsync test-plan complete DEMO-P-2'],
  serve: ['tmsync serve --seed demo --api-key dev-key', 'tmsync serve --port 0 --memory --json', 'tmsync serve --db tms.sqlite --latency 20ms'],
  completion: ['eval "$(tmsync completion bash)"   # in ~/.bashrc', 'eval "$(tmsync completion zsh)"    # in ~/.zshrc', 'tmsync completion fish > ~/.config/fish/completions/tmsync.fish'],
};

function addExamples(cmd: Command, path: string[] = []): void {
  const examples = EXAMPLES[path.join(' ')];
  if (examples) cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}`);
  for (const sub of cmd.commands) addExamples(sub, [...path, sub.name()]);
}
