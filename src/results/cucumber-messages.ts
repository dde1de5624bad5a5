import type * as M from '@cucumber/messages';
import { TmsyncError } from '../errors.js';
import { normalizeUri, parseJsonText } from './cucumber-json.js';
import { foldSteps, type StepResult } from './cucumber-outcome.js';
import type { GherkinSource, RecordAttachment, TagLevel, TestRecord } from './record.js';

/**
 * Cucumber messages (`--format message` of cucumber-js, the `message` plugin of cucumber-jvm and
 * the other official runners): one JSON envelope per line. The Gherkin documents and pickles come
 * first, then per attempt `testCaseStarted`, its `testStepFinished`s and attachments, and
 * `testCaseFinished`. One record per scenario (pickle) run: an attempt that `willBeRetried` is
 * superseded by the next one, and an attempt the file never finishes (a run killed midway) is an
 * `error`. Tags know where they were written (feature, rule, scenario, examples) from the document.
 */

/** The envelope keys of the messages protocol: a first line holding one of them is a messages file. */
export const ENVELOPE_KEYS = [
  'meta',
  'source',
  'gherkinDocument',
  'pickle',
  'stepDefinition',
  'hook',
  'parameterType',
  'parseError',
  'testRunStarted',
  'testCase',
  'testCaseStarted',
  'testStepStarted',
  'testStepFinished',
  'testCaseFinished',
  'attachment',
  'externalAttachment',
  'testRunFinished',
  'testRunHookStarted',
  'testRunHookFinished',
  'undefinedParameterType',
  'suggestion',
] as const;

interface AstScenario {
  name: string;
  feature: string;
  rule?: string;
  line: number;
}

interface Attempt {
  testCaseId: string;
  steps: Map<string, M.TestStepResult>;
  attachments: RecordAttachment[];
  /** the line of `testCaseStarted`, for the record's order */
  order: number;
}

/** What the envelopes seen so far say; records come out as attempts finish. */
class MessagesReader {
  readonly tagLevels = new Map<string, TagLevel>();
  readonly scenarios = new Map<string, AstScenario>();
  readonly rows = new Map<string, { examples: string; cells: string[]; line: number }>();
  readonly stepKeywords = new Map<string, string>();
  readonly pickles = new Map<string, M.Pickle>();
  readonly hooks = new Map<string, M.Hook>();
  readonly testCases = new Map<string, M.TestCase>();
  readonly attempts = new Map<string, Attempt>();
  readonly done: { order: number; record: TestRecord }[] = [];
  constructor(readonly report: string) {}

  document(doc: M.GherkinDocument): void {
    const feature = doc.feature;
    if (!feature) return;
    for (const t of feature.tags ?? []) this.tagLevels.set(t.id, 'feature');
    const visit = (children: readonly (M.FeatureChild | M.RuleChild)[], rule?: M.Rule) => {
      for (const child of children ?? []) {
        if ('rule' in child && child.rule) {
          for (const t of child.rule.tags ?? []) this.tagLevels.set(t.id, 'rule');
          visit(child.rule.children, child.rule);
        }
        for (const s of child.background?.steps ?? []) this.stepKeywords.set(s.id, s.keyword);
        const sc = child.scenario;
        if (!sc) continue;
        this.scenarios.set(sc.id, { name: sc.name, feature: feature.name, line: sc.location?.line ?? 0, ...(rule ? { rule: rule.name } : {}) });
        for (const t of sc.tags ?? []) this.tagLevels.set(t.id, 'scenario');
        for (const s of sc.steps ?? []) this.stepKeywords.set(s.id, s.keyword);
        for (const ex of sc.examples ?? []) {
          for (const t of ex.tags ?? []) this.tagLevels.set(t.id, 'examples');
          for (const row of ex.tableBody ?? []) this.rows.set(row.id, { examples: ex.name, cells: row.cells.map((c) => c.value), line: row.location?.line ?? 0 });
        }
      }
    };
    visit(feature.children);
  }

  finish(startedId: string, retried: boolean): void {
    const attempt = this.attempts.get(startedId);
    if (!attempt) return;
    this.attempts.delete(startedId);
    if (retried) return;
    this.done.push({ order: attempt.order, record: this.record(attempt) });
  }

  /** The record of an attempt; `unfinished` when the file ends before its testCaseFinished. */
  record(attempt: Attempt, unfinished = false): TestRecord {
    const testCase = this.testCases.get(attempt.testCaseId);
    const pickle = testCase ? this.pickles.get(testCase.pickleId) : undefined;
    const steps = testCase?.testSteps ?? [];
    const results: StepResult[] = [];
    let seenStep = false;
    for (const ts of steps) {
      const result = attempt.steps.get(ts.id);
      if (ts.pickleStepId !== undefined) seenStep = true;
      if (!result) continue;
      results.push({
        status: String(result.status ?? 'UNKNOWN'),
        what: this.stepName(ts, pickle, seenStep),
        ...(result.message !== undefined ? { error: result.message } : result.exception?.message !== undefined ? { error: result.exception.message } : {}),
        ...(result.duration ? { durationMs: (Number(result.duration.seconds) || 0) * 1000 + (Number(result.duration.nanos) || 0) / 1e6 } : {}),
      });
    }
    if (unfinished) results.push({ status: 'unknown', what: 'the scenario', error: 'the report ends before this scenario finished (no testCaseFinished): the run was stopped' });
    const folded = foldSteps(results);
    const scenario = pickle ? this.scenarios.get(pickle.astNodeIds[0]) : undefined;
    const row = pickle && pickle.astNodeIds.length > 1 ? this.rows.get(pickle.astNodeIds[pickle.astNodeIds.length - 1]) : undefined;
    const uri = normalizeUri(pickle?.uri ?? '');
    const feature = scenario?.feature ?? '';
    const gherkin: GherkinSource = {
      uri,
      feature,
      scenario: scenario?.name ?? pickle?.name ?? '',
      tags: (pickle?.tags ?? []).map((t) => ({ name: t.name, level: this.tagLevels.get(t.astNodeId) ?? 'scenario' })),
    };
    if (scenario?.rule !== undefined) gherkin.rule = scenario.rule;
    if (row) gherkin.row = { examples: row.examples, cells: row.cells };
    const line = row?.line ?? scenario?.line;
    if (line) gherkin.line = line;
    const record: TestRecord = {
      name: pickle?.name ?? '',
      classname: feature,
      outcome: folded.outcome,
      properties: {},
      suites: scenario?.rule !== undefined ? [feature, scenario.rule] : [feature],
      report: this.report,
      gherkin,
    };
    if (uri !== '') record.file = uri;
    if (folded.message !== undefined) record.message = folded.message;
    if (folded.durationMs !== undefined) record.durationMs = Math.round(folded.durationMs);
    if (attempt.attachments.length > 0) record.attachments = attempt.attachments;
    return record;
  }

  private stepName(ts: M.TestStep, pickle: M.Pickle | undefined, afterFirstStep: boolean): string {
    if (ts.pickleStepId === undefined) {
      const hook = ts.hookId !== undefined ? this.hooks.get(ts.hookId) : undefined;
      const type = String(hook?.type ?? '');
      const before = type === '' ? !afterFirstStep : type.startsWith('BEFORE');
      const name = hook?.name ?? hook?.sourceReference?.uri;
      return `${before ? 'Before' : 'After'}${type.endsWith('STEP') ? 'Step' : ''} hook${name ? ` (${name})` : ''}`;
    }
    const step = pickle?.steps.find((s) => s.id === ts.pickleStepId);
    if (!step) return 'a step';
    const keyword = this.stepKeywords.get(step.astNodeIds[0])?.trim() ?? '';
    return `${keyword} ${step.text}`.trim();
  }
}

/** Parses the text of a Cucumber messages (NDJSON) report. */
export function parseCucumberMessages(text: string, report: string): TestRecord[] {
  if (text.trim() === '') {
    throw new TmsyncError('invalid_report', `${report} is empty`, {
      hint: 'check that the test run wrote its report (a run that crashed early leaves an empty file)',
      details: { file: report, format: 'cucumber-messages' },
    });
  }
  const reader = new MessagesReader(report);
  let start = 0;
  let lineNo = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (line === '') continue;
    const envelope = parseJsonText(line, report, lineNo - 1);
    if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
      throw new TmsyncError('invalid_report', `${report}:${lineNo}: is not a Cucumber message: a line holds a JSON ${Array.isArray(envelope) ? 'array' : typeof envelope}, not an envelope object`, {
        hint: 'pass the file cucumber wrote with --format message (one JSON object per line)',
        details: { file: report, line: lineNo, format: 'cucumber-messages' },
      });
    }
    readEnvelope(reader, envelope, lineNo);
  }
  // attempts the file never finishes: the run was killed; never dropped
  for (const attempt of reader.attempts.values()) reader.done.push({ order: attempt.order, record: reader.record(attempt, true) });
  reader.done.sort((a, b) => a.order - b.order);
  return reader.done.map((d) => d.record);
}

function readEnvelope(r: MessagesReader, e: M.Envelope, lineNo: number): void {
  if (e.gherkinDocument) r.document(e.gherkinDocument);
  else if (e.pickle) r.pickles.set(e.pickle.id, e.pickle);
  else if (e.hook) r.hooks.set(e.hook.id, e.hook);
  else if (e.testCase) r.testCases.set(e.testCase.id, e.testCase);
  else if (e.testCaseStarted) r.attempts.set(e.testCaseStarted.id, { testCaseId: e.testCaseStarted.testCaseId, steps: new Map(), attachments: [], order: lineNo });
  else if (e.testStepFinished) r.attempts.get(e.testStepFinished.testCaseStartedId)?.steps.set(e.testStepFinished.testStepId, e.testStepFinished.testStepResult ?? { status: 'UNKNOWN' });
  else if (e.attachment) {
    const a = e.attachment;
    const attempt = a.testCaseStartedId !== undefined ? r.attempts.get(a.testCaseStartedId) : undefined;
    if (attempt && typeof a.body === 'string') {
      const item: RecordAttachment = { mediaType: a.mediaType ?? 'application/octet-stream', body: a.body, encoding: String(a.contentEncoding) === 'BASE64' ? 'base64' : 'identity' };
      if (a.fileName !== undefined) item.fileName = a.fileName;
      attempt.attachments.push(item);
    }
  } else if (e.testCaseFinished) r.finish(e.testCaseFinished.testCaseStartedId, e.testCaseFinished.willBeRetried === true);
}
