import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { loadReports, REPORT_FORMAT_OPTIONS, type ReportFormatOption } from '../../results/load-reports.js';
import { countTestcases } from '../../results/record.js';
import { parseStatusMap, type ResultMapping } from '../../results/map-results.js';
import { pushResults, type PushResultsResult } from '../../results/push-results.js';
import { attachmentSettings, parseAttachmentTypes, parseByteSize, type AttachmentOptions, type AttachmentScope } from '../../results/attachments.js';
import { TmsyncError } from '../../errors.js';
import { resolveProject } from '../../remote/resolve-project.js';
import { cell, summary } from '../ci-output.js';
import { ciRunMetadata, ciShard } from '../ci-env.js';
import { safeInline, safeMessage } from '../../safe-text.js';
import type { CliIo, GlobalOptions } from '../io.js';
import { jsonOutput } from '../json.js';
import { loadTarget, type Target } from '../target.js';
import { join, relative, resolve } from 'node:path';
import type { LookupEntry } from '../../api/resources.js';
import { automatedTypeName, DEFAULT_AUTOMATED_TYPE } from '../../results/automated-type.js';
import { markAutomated, type MarkAutomatedResult } from '../../results/mark-automated.js';
import { EXIT } from '../exit-codes.js';
import { loadAutomatedCases } from '../../repository/automation-cases.js';
import { buildAutomationIndex, type AutomationIndex } from '../../test-patterns.js';

interface ResultsPushOptions extends GlobalOptions {
  /** positional: report files (JUnit XML, Cucumber JSON, Cucumber messages) */
  args: string[];
  /** the reports' format @default 'auto' (told from each file's content) */
  format?: string;
  /** what a Cucumber id tag holds between `@` and the human id (`tc:` for `@tc:SHOP-12`) */
  idTagPrefix?: string;
  testRun?: string;
  newRun?: string;
  /** YAML/JSON file: `{ "<classname>.<name>" or "<name>": "DEMO-12" | [..] }` */
  mapping?: string;
  /** `outcome=Status` pairs */
  statusMap?: string[];
  /** @default '100' */
  batchSize?: string;
  /** @default false */
  dryRun?: boolean;
  /** send run-case updates as multipart/form-data @default false */
  multipart?: boolean;
  /** --new-run: link the run to this test plan */
  testPlan?: string;
  /** --new-run: environment ids (repeatable) */
  environment?: string[];
  /** email or id of the user failed cases are assigned to */
  assignFailed?: string;
  /** close the run when every result was sent @default false */
  close?: boolean;
  /** the CI job this push comes from (default: TMSYNC_SHARD, else the CI's job) */
  shard?: string;
  /** set automation_type in the pushed cases' files (or `results.mark_automated` of tmsync.yaml) */
  markAutomated?: boolean;
  /** which cases send their files @default 'failed' */
  attachments?: string;
  /** extensions, comma-separated, or `all` */
  attachmentTypes?: string;
  /** @default '10MB' */
  attachmentMaxSize?: string;
  /** @default '50MB' */
  attachmentBatchMaxSize?: string;
}

/** The attachment options of the command line, checked before any report is read. */
function attachmentOptions(options: ResultsPushOptions): AttachmentOptions {
  const out: AttachmentOptions = { cwd: options.cwd };
  if (options.attachments !== undefined) out.scope = options.attachments as AttachmentScope;
  if (options.attachmentTypes !== undefined) out.types = parseAttachmentTypes(options.attachmentTypes);
  if (options.attachmentMaxSize !== undefined) out.maxFileBytes = parseByteSize(options.attachmentMaxSize);
  if (options.attachmentBatchMaxSize !== undefined) out.maxBatchBytes = parseByteSize(options.attachmentBatchMaxSize);
  attachmentSettings(out);
  return out;
}

/**
 * `tmsync results push (--test-run ID | --new-run TITLE) FILE.xml…`. Exit 0 when every planned
 * update was confirmed (or with --dry-run), 1 when any was not, when nothing matched, or on errors.
 * Unmatched testcases and cases missing from the run are reported, not fatal.
 */
export async function runResultsPush(options: ResultsPushOptions, io: CliIo): Promise<number> {
  // the run `test-run create --env-file` handed to this job ($GITHUB_OUTPUT → env, a GitLab dotenv report)
  const handed = (io.env.TMSYNC_TEST_RUN ?? '').trim();
  if (options.testRun === undefined && options.newRun === undefined && handed !== '') options = { ...options, testRun: handed };
  if ((options.testRun === undefined) === (options.newRun === undefined)) {
    throw new TmsyncError('invalid_arguments', 'give exactly one of --test-run and --new-run', {
      hint: '--test-run DEMO-R-3 pushes into an existing run; --new-run "Nightly build 812" creates one holding the matched cases',
    });
  }
  if (options.args.length === 0) {
    throw new TmsyncError('invalid_arguments', 'give at least one report file (JUnit XML, Cucumber JSON or messages, TRX, NUnit, xUnit.net)', { hint: 'e.g. tmsync results push --test-run DEMO-R-3 reports/*.xml' });
  }
  const format = (options.format ?? 'auto') as ReportFormatOption;
  if (!REPORT_FORMAT_OPTIONS.includes(format)) {
    throw new TmsyncError('invalid_arguments', `--format ${options.format} is not a report format tmsync reads`, {
      hint: `choose one of ${REPORT_FORMAT_OPTIONS.join(', ')} (auto tells each file's format from its content)`,
    });
  }
  const batchSize = Number(options.batchSize ?? '100');
  const statusMap = parseStatusMap(options.statusMap);
  const attachments = attachmentOptions(options);
  const mapping = options.mapping !== undefined ? await loadMapping(resolve(options.cwd, options.mapping), options.mapping) : undefined;
  const { records: testcases, formats } = await loadReports(options.args, options.cwd, format);

  const target = await loadTarget(options, io, { clientOptions: options.multipart ? { multipartRunCases: true } : {} });
  let result: PushResultsResult;
  let marked: MarkAutomatedResult | undefined;
  const mark = options.markAutomated ?? target.config.resultsMarkAutomated ?? false;
  try {
    const automation = await automationIndex(target, io);
    if (mark && target.configFile === undefined) {
      throw new TmsyncError('config_not_found', '--mark-automated edits case files: no tmsync.yaml was found, so nothing was sent', {
        hint: 'run results push inside the tests repository (or pass --config FILE), or leave --mark-automated out',
      });
    }
    const project = await resolveProject(target.client, target.projectRef);
    result = await pushResults({
      client: target.client,
      project,
      testcases,
      testRun: options.testRun,
      newRun: options.newRun,
      mapping,
      ...(automation ? { automation } : {}),
      // the flag, else `gherkin.id_tag_prefix` of tmsync.yaml (the prefix apply writes id tags with)
      ...((options.idTagPrefix ?? target.config.gherkin?.idTagPrefix) !== undefined ? { idTagPrefix: options.idTagPrefix ?? target.config.gherkin!.idTagPrefix } : {}),
      statusMap,
      batchSize,
      dryRun: Boolean(options.dryRun),
      ...(options.testPlan !== undefined ? { testPlan: options.testPlan } : {}),
      ...(options.environment !== undefined ? { environments: options.environment.flatMap((e) => e.split(',')).filter((e) => e.trim() !== '') } : {}),
      ...(options.assignFailed !== undefined ? { assignFailed: options.assignFailed } : {}),
      close: Boolean(options.close),
      ...shardAndMetadata(options, io.env),
      attachments,
      signal: io.signal,
    });
    if (mark) marked = await markPushed(target, result);
  } finally {
    await target.close();
  }

  const failedRows = result.failedBatches.reduce((n, b) => n + b.caseIds.length, 0);
  const nothing = !result.dryRun && result.rows.length === 0;
  const testcaseCount = countTestcases(testcases);
  if (options.json) io.stdout(jsonOutput({ ...result, testcases: testcaseCount, formats, ok: failedRows === 0 && !nothing, ...(marked ? { markAutomated: marked } : {}) }));
  report(result, testcaseCount, io, Boolean(options.json));
  if (marked) reportMarked(marked, result.dryRun, target.root, options.cwd, io);
  await summary(io, pushSummary(result, testcaseCount));
  if (nothing) {
    io.stderr('Error: nothing was sent: no testcase matched a case of the run.');
    io.stderr('Hint: put a human id (DEMO-12) in the test names, an id tag (@DEMO-12) on the scenarios, a test_case property in the report, or pass --mapping FILE');
    return EXIT.FAILED;
  }
  return failedRows > 0 ? EXIT.FAILED : EXIT.OK;
}

/** --shard, else the CI job's (ci-env.ts); the CI's pipeline, commit and branch for a new run. */
function shardAndMetadata(options: ResultsPushOptions, env: NodeJS.ProcessEnv): { shard?: string; metadata?: ReturnType<typeof ciRunMetadata> } {
  if (options.shard !== undefined && options.shard.trim() === '') {
    throw new TmsyncError('invalid_arguments', '--shard is empty', { hint: 'name the CI job the results come from, e.g. --shard "test 2/3"' });
  }
  const shard = options.shard?.trim() ?? ciShard(env);
  const metadata = options.newRun !== undefined ? ciRunMetadata(env) : undefined;
  return { ...(shard !== undefined ? { shard } : {}), ...(metadata ? { metadata } : {}) };
}

/**
 * --mark-automated: the cases whose results the service confirmed (a dry run: every row) get the
 * automated type in their case files; sent only by plan and apply.
 */
async function markPushed(target: Target, result: PushResultsResult): Promise<MarkAutomatedResult> {
  const sent = new Set(result.sentCaseIds);
  const cases = result.rows.filter((r) => result.dryRun || sent.has(r.caseId)).map((r) => ({ id: r.caseId, ...(r.humanId ? { humanId: r.humanId } : {}) }));
  const types: LookupEntry[] = [];
  for await (const t of target.client.paginate('listAutomationTypes')) types.push(t);
  const automatedType = automatedTypeName(types) ?? DEFAULT_AUTOMATED_TYPE;
  const defaultType = target.config.defaults.automationType;
  return markAutomated({
    root: target.root,
    casesDir: target.config.casesDir,
    cases,
    automatedType,
    types,
    ...(typeof defaultType === 'string' ? { defaultType } : {}),
    dryRun: result.dryRun,
  });
}

function reportMarked(marked: MarkAutomatedResult, dryRun: boolean, root: string, cwd: string, io: CliIo): void {
  const shown = (p: string) => relative(cwd, join(root, p)) || p;
  const n = marked.edited.length;
  if (n > 0) {
    io.stderr(`${dryRun ? 'Would set' : 'Set'} automation_type ${safeInline(marked.automatedType)} in ${n} case file${n === 1 ? '' : 's'} (nothing sent to the service):`);
    for (const e of marked.edited.slice(0, 50)) io.stderr(`  ~ ${safeInline(shown(e.path))}  ${safeInline(e.ref)}${e.from !== undefined ? ` (was ${safeInline(e.from)})` : ''}`);
    if (n > 50) io.stderr(`  … and ${n - 50} more (--json lists all)`);
    if (!dryRun) io.stderr(`Next: review with git diff, then tmsync plan (shows ${n} update${n === 1 ? '' : 's'}) and tmsync apply.`);
  } else {
    io.stderr(`Every pushed case held in the repository is already ${safeInline(marked.automatedType)}${marked.already > 0 ? ` (${marked.already})` : ''}; no case file changed.`);
  }
  if (marked.notInRepository.length > 0) {
    io.stderr(`${marked.notInRepository.length} pushed case${marked.notInRepository.length === 1 ? ' has' : 's have'} no YAML file in the repository, so ${marked.notInRepository.length === 1 ? 'it was' : 'they were'} not marked: ${marked.notInRepository.slice(0, 20).map(safeInline).join(', ')} (tmsync pull writes them)`);
  }
}

/** The job summary of a push: the run, the counts per status, and what was not sent. */
function pushSummary(result: PushResultsResult, testcaseCount: number): string {
  const sent = new Set(result.sentCaseIds);
  const perStatus: Record<string, number> = {};
  for (const r of result.rows) if (result.dryRun || sent.has(r.caseId)) perStatus[r.status] = (perStatus[r.status] ?? 0) + 1;
  const lines = [
    `### tmsync results push${result.dryRun ? ' (dry run)' : ''}`,
    '',
    result.dryRun
      ? `**Would send ${result.rows.length} results to ${cell(runName(result.run))}; nothing was sent.**`
      : `**Pushed ${sent.size} of ${result.rows.length} results from ${testcaseCount} testcases into ${cell(runName(result.run))}.**`,
  ];
  if (result.run.url) lines.push('', `View run: <${result.run.url}>`);
  const statuses = Object.entries(perStatus);
  if (statuses.length) lines.push('', '| Status | Cases |', '|---|---|', ...statuses.map(([s, n]) => `| ${cell(s)} | ${n} |`));
  const notes: string[] = [];
  const unsent = result.failedBatches.reduce((n, b) => n + b.caseIds.length, 0);
  if (unsent) notes.push(`${unsent} results were NOT sent (${result.failedBatches.map((b) => b.error.code).join(', ')}); see the job log.`);
  if (result.unmatched.length) notes.push(`${result.unmatched.length} testcases named no test case.`);
  if (result.unknownCases.length) notes.push(`Unknown cases: ${result.unknownCases.map((u) => cell(u.ref)).join(', ')}.`);
  if (result.addedToRun.length) notes.push(`Added to the run: ${result.addedToRun.map((n) => cell(n.ref)).join(', ')}.`);
  if (result.notInRun.length) notes.push(`Not in the run: ${result.notInRun.map((n) => cell(n.ref)).join(', ')}.`);
  if (result.shard?.worseElsewhere) notes.push(`${result.shard.worseElsewhere} cases keep a worse outcome another shard pushed.`);
  if (result.assignedTo?.rows) notes.push(`Assigned ${result.assignedTo.rows} failed cases to ${cell(result.assignedTo.email ?? result.assignedTo.id)}.`);
  const files = result.attachments;
  if (files.planned > 0) notes.push(result.dryRun ? `Would attach ${files.planned} files.` : `Attached ${files.sent} of ${files.planned} files.`);
  if (files.skipped.length) notes.push(`${files.skipped.length} attached files were skipped (type or size); see the job log.`);
  if (files.missing.length) notes.push(`${files.missing.length} attached files are missing; see the job log.`);
  if (result.run.closed) notes.push('The run was closed.');
  if (result.run.notClosedReason) notes.push(`The run was left open: ${cell(result.run.notClosedReason)}.`);
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

/** The run by its id and title, on one line (the title is the service's or the report's text). */
function runName(r: PushResultsResult['run']): string {
  const id = r.humanId ?? r.id;
  return id ? `${safeInline(id)} "${safeInline(r.title)}"` : `a new run "${safeInline(r.title)}"`;
}

function report(result: PushResultsResult, testcaseCount: number, given: CliIo, json: boolean): void {
  // every line quotes the reports' and the service's texts (names, messages, statuses): made safe (`safe-text.ts`)
  const io = { stdout: (t: string) => given.stdout(safeMessage(t)), stderr: (t: string) => given.stderr(safeMessage(t)) };
  const counts = Object.entries(result.counts)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const rowLabel = (r: PushResultsResult['rows'][number]) => safeInline(`${r.humanId ?? r.caseId}${r.title ? ` ${r.title}` : ''}`);

  if (result.dryRun) {
    if (!json) {
      // what would be sent, one row per line, on stdout
      for (const r of result.rows) {
        io.stdout(`${r.status.padEnd(10)} ${rowLabel(r)}  (${r.testcases} testcase${r.testcases === 1 ? '' : 's'})`);
        for (const f of r.attachments ?? []) io.stdout(`${''.padEnd(10)}   + ${safeInline(f.fileName)} (${sizeText(f.bytes)})`);
      }
    }
    io.stderr(`Dry run: would send ${result.rows.length} result${result.rows.length === 1 ? '' : 's'} to ${runName(result.run)}${counts ? ` (${counts})` : ''}; nothing was sent.`);
  } else {
    if (result.run.created) io.stderr(`Created test run ${runName(result.run)} with the matched cases.`);
    if (result.addedToRun.length > 0) {
      const n = result.addedToRun.length;
      io.stderr(`Added ${n} case${n === 1 ? '' : 's'} the run did not hold to its selection: ${result.addedToRun.map((a) => a.ref).join(', ')}`);
    }
    const sent = new Set(result.sentCaseIds);
    const sentCounts: Record<string, number> = {};
    for (const r of result.rows) if (sent.has(r.caseId)) sentCounts[r.status] = (sentCounts[r.status] ?? 0) + 1;
    const sentText = Object.entries(sentCounts).map(([s, n]) => `${n} ${s}`).join(', ');
    io.stderr(
      `Pushed ${sent.size} of ${result.rows.length} result${result.rows.length === 1 ? '' : 's'} from ${testcaseCount} testcase${testcaseCount === 1 ? '' : 's'} into ${runName(result.run)}${sentText ? `: ${sentText}` : ''}.`,
    );
    for (const b of result.failedBatches) {
      const rows = result.rows.filter((r) => b.caseIds.includes(r.caseId));
      io.stderr(`Error: ${b.caseIds.length} result${b.caseIds.length === 1 ? ' was' : 's were'} NOT sent (${b.error.code}): ${b.error.message}`);
      io.stderr(`  not sent: ${rows.map((r) => r.humanId ?? r.caseId).join(', ')}`);
      if (b.error.hint) io.stderr(`  Hint: ${b.error.hint}`);
    }
    if (result.assignedTo && result.assignedTo.rows > 0) {
      io.stderr(`Assigned ${result.assignedTo.rows} failed case${result.assignedTo.rows === 1 ? '' : 's'} to ${result.assignedTo.email ?? result.assignedTo.id}.`);
    }
    if (result.run.closed) io.stderr(`Closed test run ${runName(result.run)}.`);
    if (result.run.notClosedReason) io.stderr(`Left test run ${runName(result.run)} open: ${result.run.notClosedReason}.`);
  }
  reportFiles(result, io);
  const suiteFailures = result.unmatched.filter((t) => t.suiteLevel);
  if (suiteFailures.length > 0) {
    // a suite that failed as a whole (its set-up, say) and maps to no case: never silent
    const n = suiteFailures.length;
    io.stderr(`${n} suite-level failure${n === 1 ? '' : 's'} named no test case, so no case was marked failed for ${n === 1 ? 'it' : 'them'} (add a --mapping entry for the suite name, or a human id to it):`);
    for (const t of suiteFailures.slice(0, 50)) io.stderr(`  ${t.report}: suite ${safeInline(t.name) || '(unnamed)'} ${t.outcome}${t.message ? ` — ${safeInline(t.message)}` : ''}`);
    if (n > 50) io.stderr(`  … and ${n - 50} more (--json lists all)`);
  }
  const unmatched = result.unmatched.filter((t) => !t.suiteLevel);
  if (unmatched.length > 0) {
    io.stderr(`${unmatched.length} testcase${unmatched.length === 1 ? '' : 's'} named no test case (add a human id to the name, a test_case property, an id tag such as @SHOP-12 to a scenario, the test to a case's \`automation:\`, or a --mapping entry):`);
    for (const t of unmatched.slice(0, 50)) {
      const also = t.ambiguous
        ? ` (its feature path and name fit ${t.ambiguous.map(safeInline).join(', ')}: add the id tag)`
        : t.notApplied
          ? ` (named by the \`automation:\` of ${t.notApplied.map(safeInline).join(', ')}, a case not applied yet: run \`tmsync apply\` first)`
          : '';
      io.stderr(`  ${t.report}: ${t.classname && !t.name.startsWith(t.classname) ? `${safeInline(t.classname)} › ` : ''}${safeInline(t.name) || '(unnamed testcase)'}${also}`);
    }
    if (unmatched.length > 50) io.stderr(`  … and ${unmatched.length - 50} more (--json lists all)`);
  }
  if (result.unknownCases.length > 0) {
    const n = result.unknownCases.length;
    io.stderr(`${n} case${n === 1 ? '' : 's'} named in the reports ${n === 1 ? 'does' : 'do'} not exist in the project: ${result.unknownCases.map((u) => u.ref).join(', ')}`);
  }
  if (result.notInRun.length > 0) {
    io.stderr(`${result.notInRun.length} case${result.notInRun.length === 1 ? ' is' : 's are'} not in the run, so ${result.notInRun.length === 1 ? 'its result was' : 'their results were'} not sent: ${result.notInRun.map((n) => n.ref).join(', ')}`);
    if (result.notInRunHint) io.stderr(`  Hint: ${result.notInRunHint}`);
  }
  if (result.shard) shardLines(result.shard, io);
  // last, where the eye lands: the run's page, when the service gave one (no line otherwise)
  if (result.run.url) io.stderr(`View run: ${result.run.url}`);
}

/** What --shard did: the shards the run's record names, and the rows that keep another shard's worse outcome. */
function shardLines(shard: NonNullable<PushResultsResult['shard']>, io: { stderr: (t: string) => void }): void {
  if (shard.damaged) io.stderr("Warning: the shards' record in the run's description was unreadable (edited by hand?) and was started afresh; earlier shards' outcomes are not in it.");
  const n = shard.worseElsewhere;
  io.stderr(
    `Shard ${safeInline(shard.name)} of ${shard.shards.length} (${shard.shards.map(safeInline).join(', ')})` +
      (n > 0 ? `: ${n} case${n === 1 ? ' keeps' : 's keep'} a worse outcome another shard pushed.` : '.'),
  );
}

/**
 * The `automation:` keys of the repository tmsync.yaml belongs to (docs/automation.md); none
 * without a tmsync.yaml, or when no case file has one.
 */
async function automationIndex(target: { configFile?: string; root: string; config: Parameters<typeof loadAutomatedCases>[1] }, io: CliIo): Promise<AutomationIndex | undefined> {
  if (target.configFile === undefined) return undefined;
  const { cases, problems } = await loadAutomatedCases(target.root, target.config);
  const files = [...new Set(problems.map((p) => p.file))];
  if (files.length > 0) {
    // their tests stay unmatched rather than failing the push; validate says what is wrong
    io.stderr(`Warning: ${files.length} case file${files.length === 1 ? '' : 's'} with problems ${files.length === 1 ? 'was' : 'were'} left out of the \`automation:\` mapping (${files.slice(0, 5).join(', ')}${files.length > 5 ? ', …' : ''}); run \`tmsync validate\`.`);
  }
  return cases.length > 0 ? buildAutomationIndex(cases) : undefined;
}

const SKIP_WORDS = { type: 'not a type sent (--attachment-types)', too_large: 'larger than --attachment-max-size', batch_limit: "the case's files pass --attachment-batch-max-size" } as const;

/** The files: how many went with the results, which were skipped and why, which are missing. */
function reportFiles(result: PushResultsResult, io: Pick<CliIo, 'stderr'>): void {
  const a = result.attachments;
  const label = new Map(result.rows.map((r) => [r.caseId, r.humanId ?? r.caseId]));
  const caseOf = (id: string) => safeInline(label.get(id) ?? id);
  if (a.planned > 0) {
    const cases = result.rows.filter((r) => (r.attachments?.length ?? 0) > 0).length;
    const what = `${a.planned} file${a.planned === 1 ? '' : 's'} (${sizeText(a.bytes)}) of ${cases} case${cases === 1 ? '' : 's'}`;
    io.stderr(result.dryRun ? `Would attach ${what}.` : `Attached ${a.sent} of ${what}:`);
    if (!result.dryRun) {
      const sent = new Set(result.sentCaseIds);
      const withFiles = result.rows.filter((r) => (r.attachments?.length ?? 0) > 0 && sent.has(r.caseId));
      for (const r of withFiles.slice(0, 50)) io.stderr(`  ${caseOf(r.caseId)}: ${r.attachments!.map((f) => safeInline(f.fileName)).join(', ')}`);
      if (withFiles.length > 50) io.stderr(`  … and ${withFiles.length - 50} more cases (--json lists all)`);
    }
  }
  if (a.skipped.length > 0) {
    io.stderr(`${a.skipped.length} file${a.skipped.length === 1 ? ' was' : 's were'} skipped:`);
    for (const f of a.skipped.slice(0, 50)) {
      const why = f.reason in SKIP_WORDS ? SKIP_WORDS[f.reason as keyof typeof SKIP_WORDS] : f.reason;
      io.stderr(`  ${caseOf(f.caseId)}: ${safeInline(f.source)}${f.bytes !== undefined ? ` (${sizeText(f.bytes)})` : ''}: ${why}`);
    }
    if (a.skipped.length > 50) io.stderr(`  … and ${a.skipped.length - 50} more (--json lists all)`);
  }
  if (a.missing.length > 0) {
    io.stderr(`${a.missing.length} attached file${a.missing.length === 1 ? ' is' : 's are'} missing (the results were sent without ${a.missing.length === 1 ? 'it' : 'them'}):`);
    for (const f of a.missing.slice(0, 50)) io.stderr(`  ${caseOf(f.caseId)}: ${safeInline(f.source)}: ${f.reason}`);
    if (a.missing.length > 50) io.stderr(`  … and ${a.missing.length - 50} more (--json lists all)`);
  }
}

/** `812 B`, `14.2 KB`, `3.1 MB` (binary multiples, as the size options read them). */
function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A mapping file: YAML or JSON object of JUnit name → case ref (or list of refs). */
export async function loadMapping(path: string, shown: string): Promise<ResultMapping> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new TmsyncError('mapping_not_found', `cannot read the mapping file ${shown}: ${(err as Error).message}`, {
      hint: 'pass --mapping with the path of a YAML or JSON file',
    });
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (err) {
    throw new TmsyncError('invalid_mapping', `${shown} is not valid YAML or JSON: ${(err as Error).message}`);
  }
  if (data === null || data === undefined) return {};
  const bad = () =>
    new TmsyncError('invalid_mapping', `${shown} must map JUnit names to case ids`, {
      hint: 'write e.g. `com.shop.CheckoutTest.paysWithCard: SHOP-12` or `"pays with card": [SHOP-12, SHOP-13]`',
    });
  if (typeof data !== 'object' || Array.isArray(data)) throw bad();
  const out: ResultMapping = {};
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    if (typeof v === 'string' || typeof v === 'number') out[k] = String(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v;
    else throw bad();
  }
  return out;
}
