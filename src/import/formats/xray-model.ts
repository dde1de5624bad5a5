import { TmsyncError } from '../../errors.js';
import { jiraText, unique } from './jira-common.js';
import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject, ImportedStep, ImportedStepGroup } from '../imported.js';
import type { ImportReport } from '../report.js';

/**
 * What Xray's two Test Case Importer formats (`xray-csv.ts`, `xray-json.ts`) hold, before it
 * becomes the neutral model: tests, preconditions and test sets as issues, each with the file-local
 * id the importer links them by (the CSV's test id column, the JSON's `xray_id`) and its Jira key
 * when it has one. Texts are still Jira wiki markup here.
 */

export type XrayIssueKind = 'test' | 'precondition' | 'testset';

export interface XrayStep {
  action: string;
  data: string;
  result: string;
  /** a "Call test" step: the called test's local id or key */
  call?: string;
  /** values of other columns on the step's row (Xray's custom step fields) */
  extra?: ImportedField[];
  at: ImportAt;
}

export interface XrayIssue {
  kind: XrayIssueKind;
  localId: string;
  key: string;
  /** `Manual`, `Cucumber`, `Generic` or a project's own type */
  testType: string;
  summary: string;
  description: string;
  lookups: ImportedLookups;
  labels: string[];
  folder: string[];
  steps: XrayStep[];
  gherkin: string;
  generic: string;
  /** preconditions named by local id or key */
  preconditionRefs: string[];
  /** a precondition given as text on the test itself */
  preconditionText: string;
  /** test sets named by local id or key */
  testSets: string[];
  fields: ImportedField[];
  at: ImportAt;
}

export function issueKind(value: string, at: ImportAt): XrayIssueKind {
  const v = value.trim().toLowerCase().replace(/[\s_-]+/g, '');
  if (v === '' || v === 'test') return 'test';
  if (v === 'precondition') return 'precondition';
  if (v === 'testset') return 'testset';
  throw new TmsyncError('invalid_import', `${at.file}:${at.line ?? 1}: the issue type "${value}" is none of test, precondition, test set`, {
    hint: 'Xray\'s Test Case Importer takes tests, preconditions and test sets only: remove the row or fix its issue type',
    details: { file: at.file, line: at.line, issueType: value },
  });
}

/** A Jira key (`CALC-7`): a precondition or test set named this way may live outside the export. */
export const ISSUE_KEY = /^[A-Z][A-Z0-9_]*-\d+$/;

/** The source identity of an issue: its Jira key, else its local id, else folder path and title. */
function sourceIdOf(issue: XrayIssue): string {
  if (issue.key !== '') return issue.key;
  if (issue.localId !== '') return issue.localId;
  return [...issue.folder, issue.summary].join('/');
}

/**
 * The step group made from a called test: the test stays a case of its own (it is one in Xray),
 * and a source id names one item, so the group's is the test's with `#steps`.
 */
function groupSourceId(called: XrayIssue): string {
  return `${sourceIdOf(called)}#steps`;
}

class Index {
  private readonly byRef = new Map<string, XrayIssue>();
  constructor(issues: readonly XrayIssue[]) {
    for (const issue of issues) {
      if (issue.localId !== '') this.byRef.set(`${issue.kind}:${issue.localId}`, issue);
      if (issue.key !== '') this.byRef.set(`${issue.kind}:${issue.key}`, issue);
    }
  }
  find(kind: XrayIssueKind, ref: string): XrayIssue | undefined {
    return this.byRef.get(`${kind}:${ref}`);
  }
}

/** Each text converted once, so that a called test's attachments and colours are reported once. */
const converted = new WeakMap<XrayStep, ImportedActionStep>();

function stepOf(step: XrayStep, report: ImportReport): ImportedActionStep {
  const done = converted.get(step);
  if (done) return done;
  const data = [jiraText(step.data, report, step.at), ...(step.extra ?? []).map((f) => `${f.name}: ${f.value}`)].filter((v) => v !== '').join('\n');
  const expected = jiraText(step.result, report, step.at);
  const out = { action: jiraText(step.action, report, step.at), ...(expected !== '' ? { expected } : {}), ...(data !== '' ? { data } : {}) };
  converted.set(step, out);
  return out;
}

const descriptions = new WeakMap<XrayIssue, string>();

/** An issue's description (a precondition's: its definition), converted once. */
function descriptionOf(issue: XrayIssue, report: ImportReport): string {
  let text = descriptions.get(issue);
  const source = issue.kind === 'precondition' ? issue.generic || issue.description : issue.description;
  if (text === undefined) descriptions.set(issue, (text = jiraText(source, report, issue.at)));
  return text;
}

/** A called test's steps, calls inside it inlined (a step group holds no `use`). */
function inlineSteps(issue: XrayIssue, index: Index, report: ImportReport, seen: Set<XrayIssue>): ImportedActionStep[] {
  const out: ImportedActionStep[] = [];
  for (const step of issue.steps) {
    const called = step.call === undefined ? undefined : index.find('test', step.call);
    if (step.call === undefined) out.push(stepOf(step, report));
    else if (called && !seen.has(called)) {
      report.note('A called test that itself calls tests has those calls inlined into its step group (a step group cannot use another).');
      out.push(...inlineSteps(called, index, report, new Set([...seen, called])));
    } else out.push(unresolvedCall(step, report));
  }
  return out;
}

function unresolvedCall(step: XrayStep, report: ImportReport): ImportedActionStep {
  report.record('folded', 'Call test', 'kept as a step "Call test KEY": the called test is not in the export (or calls itself)', step.call ?? '', step.at);
  return { action: `Call test ${step.call ?? ''}` };
}

interface Built {
  groups: Map<string, ImportedStepGroup>;
  index: Index;
  report: ImportReport;
}

function caseSteps(issue: XrayIssue, built: Built): ImportedStep[] {
  return issue.steps.map((step) => {
    if (step.call === undefined) return stepOf(step, built.report);
    const called = built.index.find('test', step.call);
    if (!called || called === issue) return unresolvedCall(step, built.report);
    const sourceId = groupSourceId(called);
    if (!built.groups.has(sourceId)) {
      const description = descriptionOf(called, built.report);
      built.groups.set(sourceId, {
        sourceId,
        title: called.summary || sourceId,
        ...(description !== '' ? { description } : {}),
        steps: inlineSteps(called, built.index, built.report, new Set([called])),
        at: called.at,
      });
    }
    return { use: sourceId };
  });
}

function preconditionsOf(issue: XrayIssue, built: Built): string {
  const parts: string[] = [];
  for (const ref of issue.preconditionRefs) {
    const pre = built.index.find('precondition', ref);
    if (!pre) {
      built.report.record('folded', 'Precondition', 'kept as its key in the preconditions: the precondition issue is not in the export', ref, issue.at);
      parts.push(`Precondition ${ref}`);
      continue;
    }
    const definition = descriptionOf(pre, built.report);
    parts.push([pre.summary !== '' ? `**${pre.summary}**` : '', definition].filter((p) => p !== '').join('\n\n'));
  }
  const own = jiraText(issue.preconditionText, built.report, issue.at);
  return [...parts, own].filter((p) => p !== '').join('\n\n');
}

function testSetsOf(issue: XrayIssue, built: Built): ImportedField[] {
  if (issue.testSets.length === 0) return [];
  const names = issue.testSets.map((ref) => {
    const set = built.index.find('testset', ref);
    return set ? set.summary || set.key || ref : ref;
  });
  return [{ name: 'Test Set', value: unique(names).join(', ') }];
}

/** A Gherkin definition as a fenced block, its fence longer than any backtick run inside (doc strings may use ```). */
function gherkinBlock(text: string): string {
  const body = text.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}gherkin\n${body}\n${fence}`;
}

/** The body of a test: steps (Manual), the Gherkin (Cucumber) or the definition (Generic); the others kept as fields. */
function bodyOf(issue: XrayIssue, built: Built): Pick<ImportedCase, 'steps' | 'stepsText' | 'fields'> {
  const fields: ImportedField[] = [];
  const gherkin = issue.gherkin.trim() === '' ? '' : gherkinBlock(issue.gherkin);
  const generic = issue.generic.replace(/\r\n?/g, '\n').trim();
  if (issue.steps.length > 0) {
    if (gherkin !== '') fields.push({ name: 'Gherkin definition', value: issue.gherkin.trim() });
    if (generic !== '') fields.push({ name: 'Generic definition', value: generic });
    return { steps: caseSteps(issue, built), fields };
  }
  if (gherkin !== '') {
    if (generic !== '') fields.push({ name: 'Generic definition', value: generic });
    return { stepsText: gherkin, fields };
  }
  if (generic !== '') return { stepsText: generic, fields };
  return { fields };
}

function caseOf(issue: XrayIssue, built: Built): ImportedCase {
  const sourceId = sourceIdOf(issue);
  if (issue.summary === '') built.report.note(`A test without a summary is titled by its id (${sourceId}).`);
  const description = descriptionOf(issue, built.report);
  const preconditions = preconditionsOf(issue, built);
  const body = bodyOf(issue, built);
  const fields = [...issue.fields, ...testSetsOf(issue, built), ...(body.fields ?? [])];
  const lookups = Object.fromEntries(Object.entries(issue.lookups).filter(([, v]) => v !== undefined && v !== '')) as ImportedLookups;
  return {
    sourceId,
    folder: issue.folder,
    title: issue.summary || sourceId,
    ...(description !== '' ? { description } : {}),
    ...(preconditions !== '' ? { preconditions } : {}),
    ...(body.steps ? { steps: body.steps } : {}),
    ...(body.stepsText !== undefined ? { stepsText: body.stepsText } : {}),
    ...(Object.keys(lookups).length > 0 ? { lookups } : {}),
    ...(issue.labels.length > 0 ? { labels: unique(issue.labels) } : {}),
    ...(fields.length > 0 ? { fields } : {}),
    at: issue.at,
  };
}

/** A precondition or test set keeps its summary and definition only: the rest is reported. */
function droppedFields(issue: XrayIssue, report: ImportReport): void {
  const values = [
    ...Object.entries(issue.lookups).filter(([k, v]) => k !== 'automation_type' && v !== undefined && v !== '').map(([k, v]) => `${k}: ${v ?? ''}`),
    ...issue.labels.map((l) => `label: ${l}`),
    ...issue.fields.map((f) => `${f.name}: ${f.value}`),
  ];
  const field = issue.kind === 'precondition' ? 'precondition field' : 'test set field';
  for (const value of values) report.record('dropped', field, 'a precondition or test set becomes text or a field of its tests: its own fields have no place', value, issue.at);
}

/** Xray's issues → the neutral model: tests become cases, called tests step groups, preconditions and test sets text and fields. */
export function buildXrayProject(issues: readonly XrayIssue[], report: ImportReport): ImportedProject {
  const built: Built = { groups: new Map(), index: new Index(issues), report };
  const tests = issues.filter((i) => i.kind === 'test');
  const seen = new Map<string, XrayIssue>();
  for (const test of tests) {
    const id = sourceIdOf(test);
    const before = seen.get(id);
    if (before) {
      throw new TmsyncError('invalid_import', `${test.at.file}:${test.at.line ?? 1}: the test ${id} appears twice (first at line ${before.at.line ?? 1})`, {
        hint: 'give each test its own key or id in the export',
        details: { file: test.at.file, line: test.at.line, sourceId: id },
      });
    }
    seen.set(id, test);
  }
  for (const other of issues.filter((i) => i.kind !== 'test')) droppedFields(other, report);
  const cases = tests.map((t) => caseOf(t, built));
  const isGherkin = (text: string | undefined) => text !== undefined && /^`{3,}gherkin\n/.test(text);
  const gherkin = cases.filter((c) => isGherkin(c.stepsText)).length;
  if (gherkin > 0) report.note(`${gherkin} Cucumber test(s): the Gherkin definition became the steps text (template TCD) as a fenced gherkin block.`);
  const generic = cases.filter((c) => c.stepsText !== undefined && !isGherkin(c.stepsText)).length;
  if (generic > 0) report.note(`${generic} Generic test(s): the unstructured definition became the steps text (template TCD).`);
  const sets = issues.filter((i) => i.kind === 'testset').length;
  if (sets > 0) report.note(`${sets} test set(s): each test's sets became its "Test Set" field (the service has no test sets).`);
  const unused = issues.filter((i) => i.kind === 'precondition').length;
  if (unused > 0) report.note(`${unused} precondition issue(s): their text is copied into the preconditions of the tests that name them.`);
  const folders = unique(cases.filter((c) => c.folder.length > 0).map((c) => c.folder.join('\u0000'))).map((f) => f.split('\u0000'));
  return { folders, stepGroups: [...built.groups.values()], cases };
}
