import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedProject } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import type { ImportReport } from '../report.js';
import { child, childrenNamed, readXmlRecords, textOf, type XmlElement } from '../xml-records.js';
import { importError, markdownOf, unknownField, withoutBom } from './html-xml.js';

/**
 * Zephyr Scale (formerly TM4J) test case export, XML: `<project>` with `<folders>` (each
 * `fullPath`) and `<testCases>`, each `<testCase key="PROJ-T12">` with its name, folder path,
 * objective, precondition, lookups, labels, custom fields and a `<testScript>` of steps, plain
 * text or BDD. Texts are HTML. The mapping is docs/import-formats/zephyr-scale-xml.md.
 */

/** Elements of a `<testCase>` that go to a slot of the model or to a named rule below. */
const HANDLED = new Set([
  'name', 'folder', 'objective', 'precondition', 'priority', 'status', 'owner', 'labels', 'testscript',
  'customfields', 'attachments', 'component', 'components', 'issues', 'estimatedtime', 'confluencepagelinks', 'weblinks',
  'parameters', 'testdatawrapper', 'createdby', 'createdon', 'updatedby', 'updatedon', 'majorversion', 'latestversion',
]);

/** History kept by the tool, not by a tests repository. */
const METADATA = new Set(['createdby', 'createdon', 'updatedby', 'updatedon', 'majorversion', 'latestversion']);

const INLINED_NOTE =
  'Zephyr Scale exports a "call to test" step with the called test case\'s steps already inlined: they arrive as the calling case\'s own steps, so no step groups are made from them.';

/** `/Web/Cart` or `Web/Cart` → ['Web', 'Cart']. */
function folderPath(path: string): string[] {
  return path
    .split('/')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Zephyr Scale keeps estimates in milliseconds: `5400000` → `1h 30m (5400000 ms)`. */
function estimate(raw: string): string {
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms <= 0 || ms % 60_000 !== 0) return raw;
  const minutes = ms / 60_000;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${[h > 0 ? `${h}h` : '', m > 0 ? `${m}m` : ''].filter(Boolean).join(' ')} (${raw} ms)`;
}

/** Every `<value>` of a custom field (a multiple choice has several), Markdown for HTML text fields. */
function customFields(element: XmlElement | undefined, report: ImportReport, at: ImportAt): ImportedField[] {
  if (!element) return [];
  const fields: ImportedField[] = [];
  for (const field of childrenNamed(element, 'customfield')) {
    const name = field.attributes.name ?? textOf(child(field, 'name'));
    const values = childrenNamed(field, 'value').map((v) => markdownOf(v, report, at));
    const value = (values.length > 0 ? values : [markdownOf(field, report, at)]).filter((v) => v !== '').join(', ');
    if (name !== '' && value !== '') fields.push({ name, value });
  }
  return fields;
}

function steps(script: XmlElement, report: ImportReport, at: ImportAt): ImportedActionStep[] {
  const list = childrenNamed(child(script, 'steps') ?? script, 'step');
  const ordered = list.map((s, i) => ({ s, i: Number(s.attributes.index ?? i) })).sort((a, b) => a.i - b.i);
  return ordered.map(({ s }) => {
    const stepAt = { file: at.file, line: s.line };
    const called = textOf(child(s, 'testcasekey')) || (s.attributes.testcasekey ?? '');
    let action = markdownOf(child(s, 'description'), report, stepAt);
    if (action === '' && called !== '') {
      // a call the export did not inline (the called case was not exported with it): named, not lost
      action = `Call to test ${called}`;
      report.record('folded', 'call to test', 'kept as a step naming the called test case', called, stepAt);
    }
    const step: ImportedActionStep = { action };
    const expected = markdownOf(child(s, 'expectedresult'), report, stepAt);
    if (expected !== '') step.expected = expected;
    const data = [markdownOf(child(s, 'testdata'), report, stepAt)];
    for (const f of customFields(child(s, 'customfields'), report, stepAt)) {
      data.push(`${f.name}: ${f.value}`);
      report.record('folded', `step custom field ${f.name}`, "appended to the step's test data", f.value, stepAt);
    }
    const joined = data.filter((d) => d !== '').join('\n');
    if (joined !== '') step.data = joined;
    return step;
  });
}

/** The script's text: `<details>` (the export's plain text and BDD scripts), `<text>`, or its own text. */
function scriptText(script: XmlElement, report: ImportReport, at: ImportAt): string {
  const holder = child(script, 'details') ?? child(script, 'text') ?? child(script, 'plaintext') ?? script;
  return markdownOf(holder, report, at);
}

/** `<testScript>` → steps (type `steps`), or the steps text of template TCD (`plain`, `plain text`, `bdd`). */
function testScript(element: XmlElement, kase: ImportedCase, report: ImportReport): void {
  const script = child(element, 'testscript');
  if (!script) return;
  const type = (script.attributes.type ?? '').toLowerCase().replace(/[\s_-]+/g, ' ').trim();
  if (type === 'steps' || type === 'step by step' || (type === '' && child(script, 'steps'))) {
    const list = steps(script, report, kase.at);
    if (list.length > 0) kase.steps = list;
    return;
  }
  const text = scriptText(script, report, kase.at);
  if (text === '') return;
  kase.stepsText = text;
  if (type === 'bdd') report.record('folded', 'BDD test script', 'kept as the steps text (template TCD)', text, kase.at);
}

/** Attachments are names and links only: listed under the description and in the report. */
function attachments(element: XmlElement, report: ImportReport, at: ImportAt): string[] {
  const list = child(element, 'attachments');
  if (!list) return [];
  return list.children.map((a) => {
    const name = textOf(child(a, 'name')) || textOf(child(a, 'filename')) || a.attributes.name || a.attributes.filename || textOf(a);
    const url = textOf(child(a, 'url')) || a.attributes.url || '';
    report.attachment(url || name, { file: at.file, line: a.line });
    return url ? `- [${name || url}](${url})` : `- ${name}`;
  });
}

function issues(element: XmlElement): string {
  const list = child(element, 'issues');
  if (!list) return '';
  return list.children
    .map((i) => {
      const key = textOf(child(i, 'key')) || i.attributes.key || textOf(i);
      const summary = textOf(child(i, 'summary'));
      return summary ? `${key} (${summary})` : key;
    })
    .filter((s) => s !== '')
    .join(', ');
}

/** The values with no slot, in the export's order: fields, or dropped and recorded. */
function otherFields(element: XmlElement, report: ImportReport, at: ImportAt): ImportedField[] {
  const fields: ImportedField[] = [];
  const add = (name: string, value: string) => {
    if (value !== '') fields.push({ name, value });
  };
  const components = child(element, 'components');
  add('Component', [textOf(child(element, 'component')), ...(components ? components.children.map(textOf) : [])].filter(Boolean).join(', '));
  add('Issues', issues(element));
  const estimated = textOf(child(element, 'estimatedtime'));
  if (estimated !== '') add('Estimated time', estimate(estimated));
  fields.push(...customFields(child(element, 'customfields'), report, at));
  for (const [tag, name] of [['confluencepagelinks', 'Confluence pages'], ['weblinks', 'Web links'], ['parameters', 'Parameters'], ['testdatawrapper', 'Test data']] as const) {
    const e = child(element, tag);
    const f = e && e.children.length + e.text.trim().length > 0 ? unknownField(e, name) : undefined;
    if (f) fields.push(f);
  }
  for (const e of element.children) {
    if (METADATA.has(e.name) && textOf(e) !== '') report.record('dropped', e.name, 'history of the source tool: a tests repository keeps none', textOf(e), at);
    else if (!HANDLED.has(e.name)) {
      const f = unknownField(e);
      if (f) fields.push(f);
    }
  }
  return fields;
}

function readCase(element: XmlElement, context: ReadImportContext): ImportedCase {
  const { file, report } = context;
  const at = { file, line: element.line };
  const title = textOf(child(element, 'name'));
  const folder = folderPath(textOf(child(element, 'folder')));
  const sourceId = element.attributes.key || element.attributes.id || [...folder, title].join('/');
  if (title === '') throw importError(file, element.line, `the test case ${sourceId} has no <name>`, 'give the test case a name in Zephyr Scale and export it again');
  const kase: ImportedCase = { sourceId, folder, title, at };
  const description = [markdownOf(child(element, 'objective'), report, at)];
  const links = attachments(element, report, at);
  if (links.length > 0) description.push(`Attachments:\n${links.join('\n')}`);
  if (description.join('') !== '') kase.description = description.filter((d) => d !== '').join('\n\n');
  const preconditions = markdownOf(child(element, 'precondition'), report, at);
  if (preconditions !== '') kase.preconditions = preconditions;
  testScript(element, kase, report);
  const lookups = { priority: textOf(child(element, 'priority')), status: textOf(child(element, 'status')), owner: textOf(child(element, 'owner')) };
  const given = Object.fromEntries(Object.entries(lookups).filter(([, v]) => v !== ''));
  if (Object.keys(given).length > 0) kase.lookups = given;
  const labels = childrenNamed(child(element, 'labels') ?? element, 'label').map(textOf).filter((l) => l !== '');
  if (labels.length > 0) kase.labels = labels;
  const fields = otherFields(element, report, at);
  if (fields.length > 0) kase.fields = fields;
  return kase;
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const { file, report } = context;
  const project: ImportedProject = { folders: [], stepGroups: [], cases: [] };
  const seen = new Map<string, number>();
  const root = readXmlRecords(withoutBom(text), file, {
    records: new Set(['testcase', 'folder']),
    onOpen(element, ancestors) {
      if (ancestors.length === 0 && element.name !== 'project' && element.name !== 'testcases') {
        throw importError(file, element.line, `<${element.name}> is not a Zephyr Scale test case export (its root element is <project>)`, 'export the test cases from Zephyr Scale as XML, or name the right format');
      }
    },
    onRecord(element) {
      if (element.name === 'folder') {
        const path = folderPath(element.attributes.fullpath ?? textOf(element));
        if (path.length > 0) project.folders.push(path);
        return;
      }
      const kase = readCase(element, context);
      const before = seen.get(kase.sourceId);
      if (before !== undefined) {
        throw importError(file, element.line, `the test case key ${kase.sourceId} appears twice (first at line ${before})`, 'export the project again; a test case key is unique in Zephyr Scale');
      }
      seen.set(kase.sourceId, element.line);
      project.cases.push(kase);
    },
  });
  if (root === undefined || project.cases.length + project.folders.length === 0) report.note(`${file} holds no test case: nothing to import.`);
  else if (project.cases.some((c) => c.steps)) report.note(INLINED_NOTE);
  return project;
}

function detect(head: string, file: string): number {
  if (/<testScript\b[^>]*\btype\s*=/.test(head) || /<testCase\b[^>]*\bkey\s*=\s*["'][A-Z][A-Z0-9_]*-T\d+/.test(head)) return 3;
  if (/<project\b/.test(head) && /<(testCases|folders)\b/.test(head)) return 2;
  return /(zephyr|tm4j).*\.xml$/i.test(file) ? 1 : 0;
}

export const zephyrScaleXmlReader: ImportReader = {
  name: 'zephyr-scale-xml',
  tool: 'zephyr-scale',
  about: 'Zephyr Scale (TM4J) test case export, XML: folders, objective, precondition, steps with test data, labels, custom fields',
  detect,
  read,
};
