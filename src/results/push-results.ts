import type { LookupEntry, TestCase } from '../api/resources.js';
import type { ResponseOf } from '../api/endpoints.js';
import { runResultRequests, runStatusRequest } from '../apply/operation-requests.js';
import { sendRequest } from '../apply/send-operation.js';
import type { CreateTestRunOp, Ref } from '../plan/operations.js';
import { TmsyncError, toTmsyncError } from '../errors.js';
import type { RemoteProject } from '../model.js';
import { ApiError } from '../remote/api-error.js';
import type { CallBody, TmsClient } from '../remote/client.js';
import { flattenFolders } from '../remote/fetch-state.js';
import type { Outcome as JunitOutcome, TestRecord as JunitTestcase } from './record.js';
import type { AutomationIndex } from '../test-patterns.js';
import { testKeys } from './test-key.js';
import { attachmentSettings, filePart, selectCaseFiles, type AttachmentOptions, type AttachmentScope, type CaseFile, type CaseSelection, type FileNotice } from './attachments.js';
import { matchScenarioNames, type NamedCase } from './scenario-names.js';
import { readLedger, severity, shardNames, withShard, writeLedger, worstOverShards, holdsShard, type ShardLedger } from './shard-ledger.js';
import {
  addCasesToRun,
  createRun,
  describeRunMetadata,
  environmentId,
  getRun,
  linkOf,
  listRunCases,
  resolveTestPlan,
  setRunDescription,
  type RunCase as ResolvedCase,
  type RunMetadata,
} from './test-runs.js';
import {
  describeCaseResult,
  mapResults,
  resolveRunStatuses,
  type CaseResult,
  type ResultMapping,
} from './map-results.js';

/**
 * JUnit results → a test run: resolve the cases the testcases name, find (or create) the run, set
 * each case's run status in batches. Never prints; the result says what was sent, what was not and
 * why, so the command can report it honestly.
 */

interface PushResultsOptions {
  client: TmsClient;
  project: RemoteProject;
  testcases: readonly JunitTestcase[];
  /** an existing run: id or human id (`DEMO-R-3`). Exactly one of testRun and newRun. */
  testRun?: string;
  /** create a STATIC run with this title holding the matched cases */
  newRun?: string;
  /** --new-run only: link the new run to this test plan (id or human id, `DEMO-P-2`) */
  testPlan?: string;
  /**
   * --new-run only: the environments the run covers (`environment_ids`; numeric ids are sent as
   * numbers). The service lists no environments through its API, so they are not checked here.
   */
  environments?: string[];
  /** give every failed or errored case's run row to this user (email or user id) */
  assignFailed?: string;
  /** close the run (`status: CLOSED`) once every result was sent; left open when any was not */
  close?: boolean;
  /**
   * The CI job this push comes from (one of several pushing into one run): a case's row gets the
   * worst outcome over every shard, this shard's earlier result for it replaced (shard-ledger.ts)
   */
  shard?: string;
  /** --new-run: where the run was made (pipeline, commit, branch), written into its description */
  metadata?: RunMetadata;
  mapping?: ResultMapping;
  /** the repository's `automation:` keys (map-results.ts): tried after the mapping file */
  automation?: AutomationIndex;
  /** what a Cucumber id tag holds between `@` and the human id (`tc:` for `@tc:SHOP-12`) @default '' */
  idTagPrefix?: string;
  /** outcome → run status name or alias */
  statusMap?: Partial<Record<JunitOutcome, string>>;
  /** which cases send their files, of which types and sizes (attachments.ts) @default failed cases, the default types and caps */
  attachments?: AttachmentOptions;
  /** rows per update request (the service takes up to 1000) @default 100 */
  batchSize?: number;
  /** resolve and report, create and send nothing @default false */
  dryRun?: boolean;
  /**
   * Up to this many distinct refs are looked up one GET each; more, and the project's case list is
   * read instead (one request per page) @default 20
   */
  lookupThreshold?: number;
  signal?: AbortSignal;
}

/** One run-case update, as planned. */
export interface PushRow {
  caseId: string;
  humanId?: string;
  title?: string;
  outcome: JunitOutcome;
  status: string;
  statusId: string;
  /** testcases that reported to this case */
  testcases: number;
  description: string;
  /** --assign-failed: the user this row is given to */
  userId?: string;
  /** the files sent with this row, as file parts of its update */
  attachments?: { fileName: string; bytes: number; source: string }[];
}

/** What became of the files the records name. */
export interface PushAttachments {
  scope: AttachmentScope;
  /** files chosen to go with the rows (listed on each row) */
  planned: number;
  /** of them, files of rows the service confirmed */
  sent: number;
  bytes: number;
  /** files not sent: `type` (not one of the types sent), `too_large` (over the per-file cap), `batch_limit` (the case's files exceed the per-request cap) */
  skipped: FileNotice[];
  /** files not found or not readable (never fatal) */
  missing: FileNotice[];
  /** files of cases the scope leaves out (e.g. passed cases under `failed`) */
  notSelected: number;
}

export interface FailedBatch {
  caseIds: string[];
  /** `hint`: what to do about it (for a refused update, how to choose the encoding) */
  error: { code: string; message: string; hint?: string };
}

export interface PushResultsResult {
  dryRun: boolean;
  /**
   * the run written to; `created` for --new-run (undefined id in a dry run); `closed` when --close
   * closed it, `notClosedReason` when --close was asked for and the run was left open; `url` its
   * page in the service's web UI, when the service's answer gave one
   */
  run: { id?: string; humanId?: string; title: string; created: boolean; closed?: boolean; notClosedReason?: string; url?: string };
  /** --assign-failed: the user the failed rows were given to */
  assignedTo?: { id: string; email?: string; rows: number };
  /** every row that was to be sent */
  rows: PushRow[];
  /** case ids the service confirmed as updated */
  sentCaseIds: string[];
  failedBatches: FailedBatch[];
  /**
   * testcases that named no case; `suiteLevel` marks a suite's own failure or error whose suite
   * maps to no case (`name` is then the suite's name and `message` what failed)
   */
  unmatched: { name: string; classname: string; report: string; outcome: JunitOutcome; suiteLevel?: true; message?: string; ambiguous?: string[]; notApplied?: string[] }[];
  /** refs the service does not know (no case with that id or human id) */
  unknownCases: { ref: string; testcases: number }[];
  /** known cases that are not in the run (--test-run), with what to do about them */
  notInRun: { ref: string; caseId: string }[];
  /** why the cases not in the run were not added to it, and what to do (a DYNAMIC run, a dry run) */
  notInRunHint?: string;
  /** cases the reports named that a STATIC run lacked, added to its selection before sending */
  addedToRun: { ref: string; caseId: string }[];
  /**
   * --shard: this push's shard, every shard the run's record names (this one included), the rows
   * whose status is another shard's worse outcome, and `damaged` when the record was unreadable
   * and was started afresh
   */
  shard?: { name: string; shards: string[]; worseElsewhere: number; damaged?: true };
  /** rows per run status name */
  counts: Record<string, number>;
  /** update requests sent */
  requests: number;
  attachments: PushAttachments;
}

const PUSH_DEFAULTS = Object.freeze({ batchSize: 100, lookupThreshold: 20, maxBatchSize: 1000 });

export async function pushResults(options: PushResultsOptions): Promise<PushResultsResult> {
  const { client, project, signal } = options;
  const batchSize = checkPushOptions(options);
  const projectId = project.id;

  // statuses first: a bad --status-map fails before anything else is read or written
  const statuses: LookupEntry[] = [];
  for await (const s of client.paginate('listRunStatuses', { signal })) statuses.push(s);
  const choice = resolveRunStatuses(statuses, options.statusMap);
  // the user and the plan next: a typo fails before a run is created or a result sent
  const assignee = options.assignFailed !== undefined ? await resolveUser(client, options.assignFailed, signal) : undefined;
  const testPlanId = options.testPlan !== undefined ? await resolveTestPlan(client, projectId, options.testPlan, signal) : undefined;

  const resolved = new Map<string, ResolvedCase>();
  const { mapped, ambiguous } = await mapWithNames(options, resolved);
  const refs = mapped.cases.map((c) => c.ref);
  const threshold = options.lookupThreshold ?? PUSH_DEFAULTS.lookupThreshold;

  // an existing run first: its case list often names the cases (human ids), which saves lookups
  const existing = options.testRun !== undefined ? await openExistingRun(options, options.testRun, resolved) : undefined;
  const rest = refs.filter((r) => !resolved.has(r.toUpperCase()));
  for (const [k, v] of await resolveCases(client, projectId, rest, threshold, signal)) resolved.set(k, v);
  const { byCaseId, unknownCases } = groupByCase(mapped.cases, resolved);
  const { run, inRun, description } = existing ?? (await newRun(options, byCaseId, { unmatched: mapped.unmatched.length, unknownCases }, testPlanId));
  const missing = existing ? await addMissingCases(options, existing, byCaseId) : { added: [] };

  const planned = planRows(byCaseId, inRun, choice, assignee);
  const own = new Map(planned.rows.map((r) => [r.caseId, r.outcome]));
  const shard = options.shard !== undefined && run.id !== undefined ? await mergeShards(options, run.id, description, planned.rows, choice) : undefined;
  const { rows, notInRun } = planned;
  const selection = await selectCaseFiles(casesWithRecords(rows, byCaseId), options.attachments);
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;

  const result: PushResultsResult = {
    dryRun: Boolean(options.dryRun),
    run,
    rows,
    sentCaseIds: [],
    failedBatches: [],
    unmatched: mapped.unmatched.map((t) =>
      t.suiteLevel
        ? { name: t.name, classname: t.classname, report: t.report, outcome: t.outcome, suiteLevel: true as const, ...(t.message ? { message: t.message } : {}) }
        : { name: t.name, classname: t.classname, report: t.report, outcome: t.outcome, ...(ambiguous.has(t) ? { ambiguous: ambiguous.get(t)! } : {}), ...notApplied(options.automation, t) },
    ),
    unknownCases,
    notInRun,
    ...(notInRun.length > 0 && missing.hint ? { notInRunHint: missing.hint } : {}),
    addedToRun: missing.added,
    ...(shard ? { shard } : {}),
    counts,
    requests: 0,
    attachments: noteFiles(rows, selection, options.attachments?.scope),
    ...(assignee ? { assignedTo: { id: assignee.id, ...(assignee.email ? { email: assignee.email } : {}), rows: rows.filter((r) => r.userId).length } } : {}),
  };
  if (options.dryRun || rows.length === 0) {
    if (options.close && !options.dryRun) result.run.notClosedReason = 'no result was sent';
    return result;
  }
  await sendRows(options, result, batchSize, selection.files);
  // a shard that wrote the record at the same instant may have dropped this one's entry since it
  // was checked: written again, so that `test-run close` and later pushes see it
  if (shard && !options.close && !signal?.aborted) await recordShard(options, run.id!, (await getRun(client, projectId, run.id!, signal)).description ?? '', own);
  return result;
}

/** Each row's case with its outcome and every record mapped to it (the files come from all of them). */
function casesWithRecords(rows: readonly PushRow[], byCaseId: ByCase): { caseId: string; outcome: JunitOutcome; records: JunitTestcase[] }[] {
  return rows.map((r) => ({ caseId: r.caseId, outcome: r.outcome, records: (byCaseId.get(r.caseId)?.results ?? []).flatMap((c) => c.testcases) }));
}

/** The chosen files on their rows; the totals, what was skipped and what is missing. */
function noteFiles(rows: PushRow[], selection: CaseSelection, scope: AttachmentScope | undefined): PushAttachments {
  let planned = 0;
  let bytes = 0;
  for (const row of rows) {
    const files = selection.files.get(row.caseId);
    if (!files) continue;
    row.attachments = files.map((f) => ({ fileName: f.fileName, bytes: f.bytes, source: f.source }));
    planned += files.length;
    for (const f of files) bytes += f.bytes;
  }
  const { skipped, missing, notSelected } = selection;
  return { scope: attachmentSettings({ ...(scope ? { scope } : {}) }).scope, planned, sent: 0, bytes, skipped, missing, notSelected };
}

/**
 * The records mapped to cases (map-results.ts). Cucumber scenarios that no rule maps are then
 * looked up by feature path and name among the project's cases (its folders and cases read once,
 * only when there are such scenarios); the cases found join `resolved`.
 */
async function mapWithNames(
  options: PushResultsOptions,
  resolved: Map<string, ResolvedCase>,
): Promise<{ mapped: ReturnType<typeof mapResults>; ambiguous: ReadonlyMap<JunitTestcase, string[]> }> {
  const base = { mapping: options.mapping, automation: options.automation, prefix: options.project.humanIdPrefix, idTagPrefix: options.idTagPrefix };
  const first = mapResults(options.testcases, base);
  const unnamed = first.unmatched.filter((t) => t.gherkin !== undefined && !t.suiteLevel);
  if (unnamed.length === 0) return { mapped: first, ambiguous: new Map() };
  const cases = await namedCases(options.client, options.project.id, options.signal);
  const { refs, ambiguous } = matchScenarioNames(unnamed, cases);
  if (refs.size === 0) return { mapped: first, ambiguous };
  const found = new Set(refs.values());
  for (const c of cases) {
    const ref = c.humanId ?? c.id;
    if (found.has(ref)) resolved.set(ref.toUpperCase(), { id: c.id, humanId: c.humanId, title: c.title });
  }
  return { mapped: mapResults(options.testcases, { ...base, byName: refs }), ambiguous };
}

/** `{ notApplied }`: the files of the cases without an id yet whose `automation:` names the test. */
function notApplied(index: AutomationIndex | undefined, t: JunitTestcase): { notApplied?: string[] } {
  const files = (index?.match(testKeys(t)) ?? []).filter((c) => c.id === undefined).map((c) => c.file);
  return files.length > 0 ? { notApplied: files } : {};
}

/** Every case of the project with its folder path: its folders, then its cases, page by page. */
async function namedCases(client: TmsClient, projectId: string, signal?: AbortSignal): Promise<NamedCase[]> {
  const folders = new Map<string, { name: string; parent?: string }>();
  const wire = [];
  for await (const f of client.paginate('listFolders', { params: { project_id: projectId }, signal })) wire.push(f);
  for (const f of flattenFolders(wire)) folders.set(f.id, { name: f.name, ...(f.parent_folder_id ? { parent: f.parent_folder_id } : {}) });
  const paths = new Map<string, string[]>();
  const pathOf = (id: string | null | undefined, depth = 0): string[] => {
    if (!id || depth > 200) return [];
    const known = paths.get(id);
    if (known) return known;
    const f = folders.get(id);
    const path = f ? [...pathOf(f.parent, depth + 1), f.name] : [];
    paths.set(id, path);
    return path;
  };
  const out: NamedCase[] = [];
  for await (const c of client.paginate('listTestCases', { params: { project_id: projectId }, signal })) {
    out.push({ id: c.id, ...(c.human_id ? { humanId: c.human_id } : {}), title: c.title, folderPath: pathOf(c.folder_id) });
  }
  return out;
}

/** The options that contradict each other or are out of range fail before anything is read; the batch size. */
function checkPushOptions(options: PushResultsOptions): number {
  if ((options.testRun === undefined) === (options.newRun === undefined)) {
    throw new TmsyncError('invalid_arguments', 'give exactly one of --test-run and --new-run', {
      hint: '--test-run DEMO-R-3 pushes into an existing run; --new-run "Nightly 2026-11-20" creates one',
    });
  }
  const batchSize = options.batchSize ?? PUSH_DEFAULTS.batchSize;
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > PUSH_DEFAULTS.maxBatchSize) {
    throw new TmsyncError('invalid_batch_size', `--batch-size must be a whole number from 1 to ${PUSH_DEFAULTS.maxBatchSize}`, {
      hint: 'the service takes at most 1000 rows per update; 100 is a safe default',
    });
  }
  if (options.newRun === undefined && (options.testPlan !== undefined || (options.environments ?? []).length > 0)) {
    throw new TmsyncError('invalid_arguments', '--test-plan and --environment describe a run tmsync creates: use them with --new-run', {
      hint: 'an existing run keeps its test plan and environments; change them on the service',
    });
  }
  return batchSize;
}

/** The run written to, the cases it holds, its description (the shards' record) and its selection type. */
type RunAndCases = { run: PushResultsResult['run']; inRun: Set<string>; description?: string; selectionType?: string };

/** --test-run: the run (refused when closed) and its cases, which also resolve the refs they name. */
async function openExistingRun(options: PushResultsOptions, ref: string, resolved: Map<string, ResolvedCase>): Promise<RunAndCases> {
  const { client, signal } = options;
  const projectId = options.project.id;
  const found = await getRun(client, projectId, ref, signal);
  if (found.status.toUpperCase() === 'CLOSED' && !options.dryRun) {
    // the service refuses updates to a closed run; say so once instead of once per batch
    throw new TmsyncError('run_closed', `test run ${found.human_id ?? found.id} "${found.title}" is closed; nothing was sent`, {
      hint: 'reopen it on the service (status ACTIVE), or push into a new run with --new-run TITLE',
      details: { run: found.id },
    });
  }
  const runCases = await listRunCases(client, projectId, found.id, signal);
  for (const c of runCases) {
    resolved.set(c.id.toUpperCase(), c);
    if (c.humanId) resolved.set(c.humanId.toUpperCase(), c);
  }
  return {
    run: { id: found.id, humanId: found.human_id, title: found.title, created: false, ...linkOf(found) },
    inRun: new Set(runCases.map((c) => c.id)),
    description: found.description ?? '',
    ...(found.selection_type ? { selectionType: found.selection_type } : {}),
  };
}

type ByCase = Map<string, { target: ResolvedCase; results: CaseResult[] }>;

/** Several refs (an id and a human id) may name one case: their results are merged under it. */
function groupByCase(cases: readonly CaseResult[], resolved: ReadonlyMap<string, ResolvedCase>): { byCaseId: ByCase; unknownCases: PushResultsResult['unknownCases'] } {
  const unknownCases: PushResultsResult['unknownCases'] = [];
  const byCaseId: ByCase = new Map();
  for (const c of cases) {
    const target = resolved.get(c.ref.toUpperCase());
    if (!target) {
      unknownCases.push({ ref: c.ref, testcases: c.testcases.length });
      continue;
    }
    const entry = byCaseId.get(target.id) ?? { target, results: [] };
    entry.results.push(c);
    byCaseId.set(target.id, entry);
  }
  return { byCaseId, unknownCases };
}

/** --new-run: the run created with the matched cases (a dry run creates none), and the cases it holds. */
async function newRun(
  options: PushResultsOptions,
  byCaseId: ByCase,
  unmatched: { unmatched: number; unknownCases: PushResultsResult['unknownCases'] },
  testPlanId: string | undefined,
): Promise<RunAndCases> {
  const { client, signal } = options;
  const projectId = options.project.id;
  if (options.dryRun) return { run: { title: options.newRun!, created: false }, inRun: new Set(byCaseId.keys()) };
  if (byCaseId.size === 0) {
    throw new TmsyncError('nothing_matched', 'no testcase of the reports names a case of the project, so no run was created', {
      hint: `put a human id (${options.project.humanIdPrefix}-12) in the test names, an id tag (@${options.project.humanIdPrefix}-12) on the scenarios, a test_case property, or pass --mapping FILE`,
      details: { unmatched: unmatched.unmatched, unknownCases: unmatched.unknownCases.map((u) => u.ref) },
    });
  }
  // the shards' record goes in with the CI metadata: a later shard pushing into this run reads it
  const meta = describeRunMetadata(options.metadata);
  const shard = options.shard;
  const description = shard !== undefined ? writeLedger(meta, withShard({ shards: {} }, shard, ownOutcomes(byCaseId))) : meta;
  const created = await createRun(client, projectId, options.newRun!, [...byCaseId.keys()], signal, {
    ...(testPlanId !== undefined ? { plan: { id: testPlanId } } : {}),
    ...((options.environments ?? []).length > 0 ? { environmentIds: options.environments!.map(environmentId) } : {}),
    ...(description !== '' ? { description } : {}),
  });
  // read back: a STATIC selection the service trimmed must not be reported as sent
  const inRun = new Set((await listRunCases(client, projectId, created.id, signal)).map((c) => c.id));
  return { run: { id: created.id, humanId: created.human_id, title: created.title, created: true, ...linkOf(created) }, inRun, description: created.description ?? description };
}

/** One row per case in the run, with the worst outcome of its testcases; the cases not in the run apart. */
function planRows(
  byCaseId: ByCase,
  inRun: ReadonlySet<string>,
  choice: ReturnType<typeof resolveRunStatuses>,
  assignee: { id: string } | undefined,
): { rows: PushRow[]; notInRun: PushResultsResult['notInRun'] } {
  const notInRun: PushResultsResult['notInRun'] = [];
  const rows: PushRow[] = [];
  for (const [caseId, { target, results }] of byCaseId) {
    if (!inRun.has(caseId)) {
      notInRun.push({ ref: results[0].ref, caseId });
      continue;
    }
    const worst = results.reduce((a, b) => (severity(b.outcome) > severity(a.outcome) ? b : a));
    const merged: CaseResult = { ref: worst.ref, outcome: worst.outcome, testcases: results.flatMap((r) => r.testcases) };
    const status = choice[merged.outcome];
    rows.push({
      caseId,
      humanId: target.humanId,
      title: target.title,
      outcome: merged.outcome,
      status: status.name,
      statusId: status.id,
      testcases: merged.testcases.length,
      description: describeCaseResult(merged),
      ...(assignee && (merged.outcome === 'failed' || merged.outcome === 'error') ? { userId: assignee.id } : {}),
    });
  }
  return { rows, notInRun };
}

/** Each case's worst outcome over this push's testcases. */
function ownOutcomes(byCaseId: ByCase): Map<string, JunitOutcome> {
  const out = new Map<string, JunitOutcome>();
  for (const [caseId, { results }] of byCaseId) out.set(caseId, results.reduce((a, b) => (severity(b.outcome) > severity(a.outcome) ? b : a)).outcome);
  return out;
}

/**
 * --test-run: the cases the reports name that the run lacks. A STATIC run gets them added to its
 * selection (sparse PUT, read back; `inRun` grows by what the service took); a DYNAMIC run is left
 * as it is (its selection is the service's query, which tmsync cannot see to extend): the hint says
 * to create the run with the selection that holds them.
 */
async function addMissingCases(options: PushResultsOptions, existing: RunAndCases, byCaseId: ByCase): Promise<{ added: PushResultsResult['addedToRun']; hint?: string }> {
  const missing = [...byCaseId.keys()].filter((id) => !existing.inRun.has(id));
  if (missing.length === 0) return { added: [] };
  const create = 'create the run holding them: tmsync test-run create --title T --cases FOLDER|label:NAME|all, then push with --test-run';
  if ((existing.selectionType ?? 'STATIC').toUpperCase() !== 'STATIC') {
    return { added: [], hint: `the run is ${existing.selectionType}: its selection is the service's query, which tmsync does not change; ${create}` };
  }
  if (options.dryRun) return { added: [], hint: 'a dry run adds nothing: without --dry-run they are added to the run (STATIC) before the results are sent' };
  const { client, signal } = options;
  const now = await addCasesToRun(client, options.project.id, existing.run.id!, [...existing.inRun], missing, signal);
  const added = missing.filter((id) => now.has(id));
  for (const id of now) existing.inRun.add(id);
  return {
    added: added.map((caseId) => ({ ref: byCaseId.get(caseId)!.results[0].ref, caseId })),
    ...(added.length < missing.length ? { hint: `the service did not add them to the run's selection; ${create}` } : {}),
  };
}

/**
 * --shard: this shard's outcomes written into the run's record (its description), read back and
 * written again when another shard's write replaced it; then each row gets the worst outcome over
 * every shard. A dry run reads the record and writes nothing.
 */
async function mergeShards(
  options: PushResultsOptions,
  runId: string,
  description: string | undefined,
  rows: PushRow[],
  choice: ReturnType<typeof resolveRunStatuses>,
): Promise<PushResultsResult['shard']> {
  const shard = options.shard!;
  const own = new Map(rows.map((r) => [r.caseId, r.outcome]));
  const first = readLedger(description);
  const ledger = options.dryRun ? withShard(first.ledger, shard, own) : await recordShard(options, runId, description ?? '', own);
  let worseElsewhere = 0;
  for (const row of rows) {
    const { outcome, from } = worstOverShards(ledger, shard, row.caseId, row.outcome);
    if (outcome === row.outcome) {
      row.description = `Shard ${shard}: ${row.outcome}.\n${row.description}`;
      continue;
    }
    worseElsewhere++;
    const status = choice[outcome];
    row.description = `${cap(outcome)} in shard ${from.join(', ')} (the worst over the run's shards); shard ${shard}: ${row.outcome}.\n${row.description}`;
    Object.assign(row, { outcome, status: status.name, statusId: status.id });
  }
  return { name: shard, shards: shardNames(ledger), worseElsewhere, ...(first.damaged ? { damaged: true as const } : {}) };
}

function cap(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Writes this shard's outcomes into the run's record until a read-back shows them (a few tries); the record as read back. */
async function recordShard(options: PushResultsOptions, runId: string, description: string, own: ReadonlyMap<string, JunitOutcome>): Promise<ShardLedger> {
  const { client, signal, shard } = options;
  const projectId = options.project.id;
  let current = description;
  for (let attempt = 0; attempt < 3; attempt++) {
    const next = writeLedger(current, withShard(readLedger(current).ledger, shard!, own));
    if (next !== current) await setRunDescription(client, projectId, runId, next, signal);
    const back = (await getRun(client, projectId, runId, signal)).description ?? '';
    const read = readLedger(back).ledger;
    if (holdsShard(read, shard!, own)) return read;
    current = back;
  }
  throw new TmsyncError('shard_record_lost', `shard ${shard}: the run's description did not keep this shard's results after 3 writes; nothing was sent`, {
    hint: "another shard (or a person editing the run's description) kept replacing it: run the same push again",
    details: { run: runId, shard },
  });
}

/**
 * The rows in batches one after another (the operation table's run-case requests): a failed batch
 * does not stop the others, and only what the service confirmed counts as sent. --close closes the
 * run when every row was sent.
 */
async function sendRows(options: PushResultsOptions, result: PushResultsResult, batchSize: number, files: ReadonlyMap<string, CaseFile[]>): Promise<void> {
  const { signal } = options;
  const send = { client: options.client, projectId: options.project.id, ...(signal ? { signal } : {}) };
  const params = { project_id: options.project.id, test_run_id: result.run.id! };
  const op = pushOperation(result.run.title, result.rows, batchSize);
  const maxBatchBytes = attachmentSettings(options.attachments).maxBatchBytes;
  for (const batch of rowBatches(result.rows, batchSize, files, maxBatchBytes)) {
    result.requests++;
    try {
      const res = await sendBatch(options, params, batch, files, result.attachments);
      const confirmed = new Set((res.data.test_run_cases ?? []).map((x: { test_case_id: string }) => x.test_case_id));
      const missing = batch.filter((r) => !confirmed.has(r.caseId));
      result.sentCaseIds.push(...batch.filter((r) => confirmed.has(r.caseId)).map((r) => r.caseId));
      for (const r of batch) if (confirmed.has(r.caseId)) result.attachments.sent += r.attachments?.length ?? 0;
      if (missing.length > 0) {
        result.failedBatches.push({
          caseIds: missing.map((r) => r.caseId),
          error: { code: 'not_confirmed', message: `the service did not confirm ${missing.length} of ${batch.length} rows` },
        });
      }
    } catch (err) {
      if (signal?.aborted) throw interrupted(options, result, err);
      const e = toTmsyncError(err);
      result.failedBatches.push({ caseIds: batch.map((r) => r.caseId), error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } });
    }
  }
  if (!options.close) return;
  if (signal?.aborted) throw interrupted(options, result, signal.reason);
  // a closed run takes no more results: leave it open while any can still be re-sent
  const unsent = result.failedBatches.reduce((n, b) => n + b.caseIds.length, 0);
  if (unsent > 0) {
    result.run.notClosedReason = `${unsent} result${unsent === 1 ? ' was' : 's were'} not sent`;
    return;
  }
  await sendRequest(op, runStatusRequest(params, 'CLOSED'), send);
  result.run.closed = true;
}

/**
 * The rows in update requests: at most `batchSize` rows, and a request's files within
 * `maxBatchBytes` (a row whose files would pass it starts the next request).
 */
function rowBatches(rows: readonly PushRow[], batchSize: number, files: ReadonlyMap<string, CaseFile[]>, maxBatchBytes: number): PushRow[][] {
  const batches: PushRow[][] = [];
  let batch: PushRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    const rowBytes = (files.get(row.caseId) ?? []).reduce((n, f) => n + f.bytes, 0);
    if (batch.length >= batchSize || (batch.length > 0 && bytes + rowBytes > maxBatchBytes)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(row);
    bytes += rowBytes;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * One update request: the batch's rows, and the files of exactly these rows as the parts
 * `attachments_<row index in this request>_<n>`, read when the body is built (so the client's
 * retry of a refused or failed request sends the same files again).
 */
function sendBatch(
  options: PushResultsOptions,
  params: { project_id: string; test_run_id: string },
  batch: readonly PushRow[],
  files: ReadonlyMap<string, CaseFile[]>,
  notes: PushAttachments,
): Promise<ResponseOf<'updateRunCases'>> {
  const [req] = runResultRequests(pushOperation('', batch, batch.length).results, batch.length, byId, params);
  if (req?.endpoint !== 'updateRunCases') throw new Error('results push: a batch of rows makes one run-case update');
  const unreadable = (caseId: string) => (file: CaseFile, reason: string) => {
    if (!notes.missing.some((m) => m.caseId === caseId && m.source === file.source)) notes.missing.push({ caseId, source: file.source, reason });
  };
  const parts = batch.flatMap((row, i) => (files.get(row.caseId) ?? []).map((f, n) => filePart(f, i, n, unreadable(row.caseId))));
  const body: CallBody<'updateRunCases'> = { test_run_cases: req.body?.test_run_cases ?? [], files: parts };
  return options.client.call('updateRunCases', { params, body, ...(options.signal ? { signal: options.signal } : {}) });
}

/**
 * Ctrl-C between or during batches: no batch starts after it, and the one in flight is abandoned
 * (its answer is not awaited, so it counts as unconfirmed). Says how far the push got and how to
 * finish it: sending a result again sets the same status, so the same push again completes it.
 */
function interrupted(options: PushResultsOptions, result: PushResultsResult, cause: unknown): TmsyncError {
  const run = `${result.run.humanId ?? result.run.id} "${result.run.title}"`;
  const sent = result.sentCaseIds.length;
  return new TmsyncError(
    'aborted',
    `results push was interrupted: the service confirmed ${sent} of ${result.rows.length} result${result.rows.length === 1 ? '' : 's'} for ${run}${options.close ? '; the run was left open' : ''}`,
    {
      hint: result.run.created
        ? `send them all into that run: the same command with --test-run ${result.run.humanId ?? result.run.id} in place of --new-run (a result sent again sets the same status)`
        : 'run the same command again: it sends every result again (a result sent again sets the same status)',
      cause,
    },
  );
}

/** A run's ids are known here: a ref is always an id. */
function byId(ref: Ref): string {
  if ('id' in ref) return ref.id;
  throw new Error(`results push refers to operation ${ref.op}`);
}

/** The run operation `results push` sends: the run (created, or given), its rows as results. */
function pushOperation(title: string, rows: readonly PushRow[], batchSize: number, cases: string[] = []): CreateTestRunOp {
  return {
    kind: 'create_test_run',
    key: 'test_run',
    dependsOn: [],
    title,
    cases: cases.map((id) => ({ id })),
    results: rows.map((r) => ({ case: { id: r.caseId }, statusId: r.statusId, description: r.description, ...(r.userId ? { userId: r.userId } : {}) })),
    batchSize,
    close: false,
  };
}

/** A user by email (case-insensitive) or id, from the service's user list. */
async function resolveUser(client: TmsClient, ref: string, signal?: AbortSignal): Promise<{ id: string; email?: string }> {
  const res = await client.call('listUsers', { signal });
  const users = res.data as { id: string; email?: string | null }[];
  const wanted = ref.trim().toLowerCase();
  const user = users.find((u) => u.id === ref.trim()) ?? users.find((u) => (u.email ?? '').toLowerCase() === wanted);
  if (!user) {
    const known = users.map((u) => u.email).filter(Boolean);
    throw new TmsyncError('unknown_user', `no user "${ref}" on the service, so failed cases cannot be assigned to them; nothing was sent`, {
      hint: known.length ? `pass the email or id of one of: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''}` : 'the service lists no users',
      details: { ref },
    });
  }
  return { id: user.id, ...(user.email ? { email: user.email } : {}) };
}

/**
 * Refs (human ids or case ids) → cases, keyed by the upper-cased ref. A few refs: one GET each
 * (the endpoint takes both spellings); many: the project's case list, one request per page.
 */
async function resolveCases(
  client: TmsClient,
  projectId: string,
  refs: readonly string[],
  threshold: number,
  signal?: AbortSignal,
): Promise<Map<string, ResolvedCase>> {
  const out = new Map<string, ResolvedCase>();
  const toCase = (c: TestCase): ResolvedCase => ({ id: c.id, humanId: c.human_id, title: c.title });
  if (refs.length === 0) return out;
  if (refs.length <= threshold) {
    await Promise.all(
      refs.map(async (ref) => {
        try {
          const res = await client.call('getTestCase', { params: { project_id: projectId, test_case_id: ref }, signal });
          out.set(ref.toUpperCase(), toCase(res.data.test_case));
        } catch (err) {
          if (err instanceof ApiError && err.code === 'not_found') return;
          throw err;
        }
      }),
    );
    return out;
  }
  const wanted = new Set(refs.map((r) => r.toUpperCase()));
  for await (const item of client.paginate('listTestCases', { params: { project_id: projectId }, signal })) {
    const c = item;
    for (const key of [c.id.toUpperCase(), c.human_id?.toUpperCase()]) {
      if (key !== undefined && wanted.has(key)) out.set(key, toCase(c));
    }
  }
  return out;
}
