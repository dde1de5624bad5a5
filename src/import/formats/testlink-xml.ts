import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedProject, ImportedStep, ImportedStepGroup } from '../imported.js';
import { isUseStep } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import type { ImportReport } from '../report.js';
import { child, childrenNamed, readXmlRecords, textOf, type XmlElement } from '../xml-records.js';
import { flatText, importError, markdownOf, unknownField, withoutBom } from './html-xml.js';

/**
 * TestLink's XML export of test suites and test cases: `<testsuite name>` nested (with `<details>`),
 * `<testcase internalid name>` with its external id, summary, preconditions, steps (actions and
 * expected results, HTML), importance, execution type, status, keywords, custom fields and
 * requirements; or `<testcases>` around cases alone. Old exports (TestLink 1.7, 1.8) hold the steps
 * as one text. Ghost steps (`[ghost]"Step":2,"TestCase":"PRJ-5"[/ghost]`, TestLink's reuse of
 * another case's step) become step groups; ghosts in a summary or preconditions are resolved in
 * place. The mapping is docs/import-formats/testlink-xml.md.
 */

/** TestLink's codes (cfg/const.inc.php) under the names its own screens show (locale strings). */
const IMPORTANCE: Readonly<Record<string, string>> = { '1': 'Low', '2': 'Medium', '3': 'High' };
const EXECUTION_TYPE: Readonly<Record<string, string>> = { '1': 'Manual', '2': 'Automated' };
const STATUS: Readonly<Record<string, string>> = {
  '1': 'Draft',
  '2': 'Ready for review',
  '3': 'Review in progress',
  '4': 'Rework',
  '5': 'Obsolete',
  '6': 'Future',
  '7': 'Final',
};

/** Elements of a `<testcase>` that go to a slot of the model or to a named rule below. */
const HANDLED = new Set([
  'node_order', 'externalid', 'fullexternalid', 'version', 'summary', 'preconditions', 'steps', 'expectedresults',
  'execution_type', 'importance', 'estimated_exec_duration', 'status', 'is_open', 'active', 'keywords', 'custom_fields',
  'requirements', 'platforms', 'attachments',
]);

/** A reference to another case's step, `[ghost]"Step":1,"TestCase":"PRJ-1","Version":1[/ghost]`. */
interface Ghost {
  testCase: string;
  step?: number;
  /** `"Preconditions":1`: the case's preconditions (in a summary or preconditions) */
  preconditions?: boolean;
}

/** A step that was a ghost, resolved once the whole export is read (the case it names may come later). */
interface PendingGhost {
  kase: ImportedCase;
  index: number;
  ghost: Ghost;
  written: string;
  at: ImportAt;
}

const GHOST = /\[ghost\]([\s\S]*?)\[\/ghost\]/i;
/** A ghost in Markdown text, its brackets escaped or not. */
const TEXT_GHOST = /\\?\[ghost\\?\]([\s\S]*?)\\?\[\/ghost\\?\]/gi;

/** The inside of a ghost (`"Step":1,"TestCase":"PRJ-1"`), Markdown escapes removed. */
function parseGhost(inner: string): Ghost | undefined {
  const text = inner.replace(/\\(.)/g, '$1');
  const testCase = /"TestCase"\s*:\s*"([^"]+)"/.exec(text)?.[1];
  const step = /"Step"\s*:\s*"?(\d+)/.exec(text)?.[1];
  const preconditions = /"Preconditions"\s*:\s*"?[1-9a-z]/i.test(text);
  return testCase ? { testCase, ...(step ? { step: Number(step) } : {}), ...(preconditions ? { preconditions } : {}) } : undefined;
}

/** The ghost a text is made of (tags, `&quot;` and blanks around it aside), if it is nothing else. */
function ghostOf(html: string): Ghost | undefined {
  const text = html.replace(/<[^>]*>/g, '').replace(/&quot;/g, '"').replace(/&nbsp;/g, ' ').trim();
  const m = GHOST.exec(text);
  if (!m || text.replace(m[0], '').trim() !== '') return undefined;
  return parseGhost(m[1]);
}

/** A code as TestLink shows it; an unknown code stays as it is, for the value map. */
function named(table: Readonly<Record<string, string>>, code: string): string {
  return table[code] ?? code;
}

function readSteps(stepsElement: XmlElement, kase: ImportedCase, report: ImportReport, pending: PendingGhost[]): ImportedStep[] {
  const list = childrenNamed(stepsElement, 'step')
    .map((s, i) => ({ s, n: Number(textOf(child(s, 'step_number')) || i + 1) }))
    .sort((a, b) => a.n - b.n);
  return list.map(({ s }, index) => {
    const at = { file: kase.at.file, line: s.line };
    const raw = textOf(child(s, 'actions'));
    const step: ImportedActionStep = { action: markdownOf(child(s, 'actions'), report, at) };
    const ghost = ghostOf(raw);
    if (ghost) pending.push({ kase, index, ghost, written: step.action, at });
    const expected = markdownOf(child(s, 'expectedresults'), report, at);
    if (expected !== '') step.expected = expected;
    const type = textOf(child(s, 'execution_type'));
    if (type !== '' && type !== '1') report.record('dropped', 'step execution_type', 'a step has no automation type in the repository (the case has)', named(EXECUTION_TYPE, type), at);
    return step;
  });
}

/** The values with no slot: fields, or recorded as dropped. */
function otherFields(element: XmlElement, report: ImportReport, at: ImportAt): ImportedField[] {
  const fields: ImportedField[] = [];
  const add = (name: string, value: string) => {
    if (value !== '') fields.push({ name, value });
  };
  const duration = textOf(child(element, 'estimated_exec_duration'));
  if (duration !== '') add('Estimated duration', `${duration} min`);
  for (const f of childrenNamed(child(element, 'custom_fields') ?? element, 'custom_field')) add(textOf(child(f, 'name')), markdownOf(child(f, 'value'), report, at));
  const requirements = childrenNamed(child(element, 'requirements') ?? element, 'requirement').map((r) => {
    const spec = textOf(child(r, 'req_spec_title'));
    return [textOf(child(r, 'doc_id')), textOf(child(r, 'title')), spec ? `(${spec})` : ''].filter(Boolean).join(' ');
  });
  add('Requirements', requirements.filter(Boolean).join('\n'));
  add('Platforms', childrenNamed(child(element, 'platforms') ?? element, 'platform').map((p) => textOf(child(p, 'name')) || textOf(p)).filter(Boolean).join(', '));
  const version = textOf(child(element, 'version'));
  if (version !== '') report.record('dropped', 'version', 'the repository holds one version of a case: the exported one', version, at);
  for (const flag of ['is_open', 'active']) {
    if (textOf(child(element, flag)) === '0') report.record('dropped', flag, 'a closed or inactive version has no counterpart in the repository', '0', at);
  }
  for (const e of element.children) {
    const f = HANDLED.has(e.name) ? undefined : unknownField(e);
    if (f) fields.push(f);
  }
  return fields;
}

function keywords(element: XmlElement, report: ImportReport, at: ImportAt): string[] {
  return childrenNamed(child(element, 'keywords') ?? element, 'keyword')
    .map((k) => {
      const name = (k.attributes.name ?? textOf(child(k, 'name'))).trim();
      if (name !== '') report.record('labelled', 'keyword', 'each keyword became a label', name, at);
      const notes = markdownOf(child(k, 'notes'), report, at);
      if (notes !== '') report.record('dropped', 'keyword notes', 'a label has no description', notes, at);
      return name;
    })
    .filter((name) => name !== '');
}

/** TestLink exports an attachment's content (base64), not a link: its name is kept, the content is not. */
function attachments(element: XmlElement, report: ImportReport, file: string): string[] {
  return childrenNamed(child(element, 'attachments') ?? element, 'attachment').map((a) => {
    const name = textOf(child(a, 'name')) || textOf(child(a, 'title')) || `attachment ${textOf(child(a, 'id'))}`;
    const at = { file, line: a.line };
    report.attachment(name, at);
    if (textOf(child(a, 'content')) !== '') report.record('dropped', 'attachment content', 'TestLink exports the file itself; its name is kept in the description, upload the file by hand', name, at);
    const title = textOf(child(a, 'title'));
    return title && title !== name ? `- ${name} (${title})` : `- ${name}`;
  });
}

function readCase(element: XmlElement, ancestors: readonly XmlElement[], context: ReadImportContext, pending: PendingGhost[]): ImportedCase {
  const { file, report } = context;
  const at = { file, line: element.line };
  const folder = suitePath(ancestors);
  const title = (element.attributes.name ?? '').trim();
  const internal = element.attributes.internalid ?? '';
  const sourceId = textOf(child(element, 'fullexternalid')) || textOf(child(element, 'externalid')) || (internal ? `internal-${internal}` : [...folder, title].join('/'));
  if (title === '') throw importError(file, element.line, `the test case ${sourceId} has no name`, 'give the test case a name in TestLink and export it again');
  const kase: ImportedCase = { sourceId, folder, title, at };
  const description = [markdownOf(child(element, 'summary'), report, at)];
  const links = attachments(element, report, file);
  if (links.length > 0) description.push(`Attachments:\n${links.join('\n')}`);
  const text = description.filter((d) => d !== '').join('\n\n');
  if (text !== '') kase.description = text;
  const preconditions = markdownOf(child(element, 'preconditions'), report, at);
  if (preconditions !== '') kase.preconditions = preconditions;
  const steps = child(element, 'steps');
  if (steps && childrenNamed(steps, 'step').length > 0) kase.steps = readSteps(steps, kase, report, pending);
  else if (steps && textOf(steps) !== '') kase.stepsText = markdownOf(steps, report, at);
  const expected = markdownOf(child(element, 'expectedresults'), report, at);
  // the case's own expected results belong to the steps text (the old layout); beside steps, a field
  if (expected !== '' && kase.steps) (kase.fields ??= []).push({ name: 'Expected results', value: expected });
  else if (expected !== '') kase.expectedResults = expected;
  const lookups = {
    priority: named(IMPORTANCE, textOf(child(element, 'importance'))),
    automation_type: named(EXECUTION_TYPE, textOf(child(element, 'execution_type'))),
    status: named(STATUS, textOf(child(element, 'status'))),
  };
  const given = Object.fromEntries(Object.entries(lookups).filter(([, v]) => v !== ''));
  if (Object.keys(given).length > 0) kase.lookups = given;
  const labels = keywords(element, report, at);
  if (labels.length > 0) kase.labels = labels;
  const fields = [...(kase.fields ?? []), ...otherFields(element, report, at)];
  if (fields.length > 0) kase.fields = fields;
  return kase;
}

function suitePath(ancestors: readonly XmlElement[]): string[] {
  return ancestors
    .filter((a) => a.name === 'testsuite')
    .map((a) => (a.attributes.name ?? '').trim())
    .filter((n) => n !== '');
}

/** A suite's own values: a folder has no description, keywords or fields in the repository. */
function closeSuite(suite: XmlElement, report: ImportReport, file: string): void {
  const at = { file, line: suite.line };
  for (const part of ['details', 'keywords', 'custom_fields', 'attachments'] as const) {
    const e = child(suite, part);
    if (!e) continue;
    const value = part === 'details' ? markdownOf(e, report, at) : flatText(e);
    if (value !== '') report.record('dropped', `testsuite ${part}`, 'a folder has no description, labels or fields in the repository', value, at);
  }
  // the finished suite stays in its parent's children: keep the tree small
  suite.children = suite.children.filter((c) => c.name === 'testsuite');
}

/** Cases by the ids a ghost may name: the full external id, or its number in an export without prefixes. */
function ghostTargets(project: ImportedProject): (id: string) => ImportedCase | undefined {
  const byId = new Map<string, ImportedCase>();
  for (const c of project.cases) byId.set(c.sourceId, c);
  return (id) => byId.get(id) ?? byId.get(/-(\d+)$/.exec(id)?.[1] ?? id);
}

/**
 * Ghosts in a summary or preconditions, as TestLink shows them: a step's action, the case's
 * preconditions, or the case named (`PRJ-5: title`); one it cannot resolve stays as written, recorded.
 */
function resolveTextGhosts(project: ImportedProject, ghostSteps: ReadonlySet<string>, report: ImportReport): void {
  const find = ghostTargets(project);
  const resolve = (text: string, at: ImportAt): string =>
    text.replace(TEXT_GHOST, (whole: string, inner: string) => {
      const ghost = parseGhost(inner);
      const target = ghost && find(ghost.testCase);
      if (ghost && target) {
        const step = ghost.step === undefined ? undefined : target.steps?.[ghost.step - 1];
        if (step && !isUseStep(step) && !ghostSteps.has(`${target.sourceId}#${ghost.step! - 1}`)) return step.action;
        if (ghost.step === undefined && ghost.preconditions && target.preconditions !== undefined) return target.preconditions;
        if (ghost.step === undefined && !ghost.preconditions) return `${target.sourceId}: ${target.title}`;
      }
      report.record('folded', 'ghost text', 'kept as written: the case or step it names is not in this export', whole, at);
      return whole;
    });
  for (const c of project.cases) {
    if (c.description?.includes('ghost')) c.description = resolve(c.description, c.at);
    if (c.preconditions?.includes('ghost')) c.preconditions = resolve(c.preconditions, c.at);
  }
}

/**
 * Ghost steps → step groups, one per referenced step (`PRJ-5#2`: its second step, as exported
 * with that case); a ghost whose case or step is not in this export stays the text it was, recorded.
 */
function resolveGhosts(project: ImportedProject, pending: PendingGhost[], report: ImportReport): void {
  const find = ghostTargets(project);
  const ghostSteps = new Set(pending.map((p) => `${p.kase.sourceId}#${p.index}`));
  // texts first: they show the steps as written, before ghost steps become `use:`
  resolveTextGhosts(project, ghostSteps, report);
  const groups = new Map<string, ImportedStepGroup>();
  for (const p of pending) {
    const target = find(p.ghost.testCase);
    const index = p.ghost.step === undefined ? -1 : p.ghost.step - 1;
    const step = target?.steps?.[index];
    if (!target || !step || isUseStep(step) || ghostSteps.has(`${target.sourceId}#${index}`)) {
      report.record('folded', 'ghost step', 'kept as written: the case or step it names is not in this export', p.written, p.at);
      continue;
    }
    const id = `${p.ghost.testCase}#${p.ghost.step}`;
    if (!groups.has(id)) groups.set(id, { sourceId: id, title: `${target.title} – step ${p.ghost.step}`, steps: [{ ...step }], at: target.at });
    p.kase.steps![p.index] = { use: id };
  }
  project.stepGroups.push(...groups.values());
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const { file, report } = context;
  const project: ImportedProject = { folders: [], stepGroups: [], cases: [] };
  const pending: PendingGhost[] = [];
  const seen = new Map<string, number>();
  const root = readXmlRecords(withoutBom(text), file, {
    records: new Set(['testcase']),
    onOpen(element, ancestors) {
      if (ancestors.length === 0 && element.name !== 'testsuite' && element.name !== 'testcases') {
        throw importError(file, element.line, `<${element.name}> is not a TestLink export (its root element is <testsuite> or <testcases>)`, 'export the test suite or test cases from TestLink as XML, or name the right format');
      }
      if (element.name === 'testsuite') {
        const path = suitePath([...ancestors, element]);
        if (path.length > 0) project.folders.push(path);
      }
    },
    onClose(element) {
      if (element.name === 'testsuite') closeSuite(element, report, file);
    },
    onRecord(element, ancestors) {
      const kase = readCase(element, ancestors, context, pending);
      const before = seen.get(kase.sourceId);
      if (before !== undefined) {
        throw importError(file, element.line, `the test case ${kase.sourceId} appears twice (first at line ${before})`, 'export again; an external id is unique in a TestLink project');
      }
      seen.set(kase.sourceId, element.line);
      project.cases.push(kase);
    },
  });
  resolveGhosts(project, pending, report);
  if (root === undefined || project.cases.length + project.folders.length === 0) report.note(`${file} holds no test case: nothing to import.`);
  return project;
}

function detect(head: string, file: string): number {
  if (/<testcase\b[^>]*\binternalid\s*=/.test(head) || (/<testsuite\b/.test(head) && /<details>|<node_order>/.test(head))) return 3;
  if (/<(testsuite|testcases)\b/.test(head) && /<testcase\b[^>]*\bname\s*=/.test(head) && !/\bclassname\s*=/.test(head)) return 2;
  return /testlink.*\.xml$/i.test(file) ? 1 : 0;
}

export const testlinkXmlReader: ImportReader = {
  name: 'testlink-xml',
  tool: 'testlink',
  about: 'TestLink test suite or test case export, XML: suites, summary, preconditions, steps, importance, execution type, keywords, custom fields',
  detect,
  read,
};
