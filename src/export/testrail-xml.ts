import type { DesiredState } from '../model.js';
import type { ImportReport } from '../import/report.js';
import { exportView, sourceOf, templateOf, type ExportCase } from './view.js';

/**
 * `tmsync export testrail-xml`: the XML of TestRail's "Export to XML" / "Import from XML" of a
 * suite: `<suite>` → nested `<sections>`/`<section>` (the folder tree, empty folders included) →
 * `<cases>`/`<case>`. Template STEPS is "Test Case (Steps)" with `custom/steps_separated`,
 * TCD is "Test Case (Text)" with `custom/steps` and `custom/expected`; preconditions go to
 * `custom/preconds`; status and owner are `<status>` and `<assignedto>`, as TestRail Enterprise
 * exports them; automation type is `custom/automation_type` (TestRail's own custom field). The
 * fields TestRail has no field for (description, reviewer, labels) are custom fields under
 * `<custom>` by their tmsync names: TestRail imports them into custom fields of those system
 * names, when the instance has them. TestRail's XML has no shared-step reference: step groups are inlined.
 */

/**
 * The name TestRail gives the one suite of a single-repository project. TestRail's XML import puts
 * the cases into the suite it is started from, whatever the file names; tmsync's reader adds no
 * folder for a suite of this name, so the folders come back as they went out.
 */
const SUITE_NAME = 'Master';
/** TestRail puts every case in a section; cases outside any folder go to one of this name. */
const ROOT_SECTION = 'Test Cases';

// XML 1.0 allows tab, LF, CR and U+0020 up; lone surrogates and U+FFFE/U+FFFF are not characters either
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function escape(text: string, report: ImportReport, file: string): string {
  let clean = text;
  if (NOT_XML.test(text)) {
    report.record('dropped', 'control character', 'XML 1.0 cannot hold it: replaced by U+FFFD', JSON.stringify(text), { file });
    clean = text.replace(NOT_XML, '\uFFFD');
  }
  NOT_XML.lastIndex = 0;
  return clean.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

class XmlOut {
  private readonly lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  constructor(private readonly report: ImportReport) {}

  open(depth: number, name: string): void {
    this.lines.push(`${'  '.repeat(depth)}<${name}>`);
  }

  close(depth: number, name: string): void {
    this.lines.push(`${'  '.repeat(depth)}</${name}>`);
  }

  /** `<name>text</name>`; nothing when the text is undefined. */
  text(depth: number, name: string, value: string | undefined, file: string): void {
    if (value === undefined) return;
    this.lines.push(`${'  '.repeat(depth)}<${name}>${escape(value, this.report, file)}</${name}>`);
  }

  toString(): string {
    return this.lines.join('\n') + '\n';
  }
}

interface SectionNode {
  name: string;
  children: Map<string, SectionNode>;
  cases: ExportCase[];
}

function sectionTree(folders: readonly string[][], cases: readonly ExportCase[], report: ImportReport): SectionNode {
  const root: SectionNode = { name: '', children: new Map(), cases: [] };
  const at = (path: readonly string[]) => {
    let node = root;
    for (const name of path) {
      let next = node.children.get(name);
      if (!next) node.children.set(name, (next = { name, children: new Map(), cases: [] }));
      node = next;
    }
    return node;
  };
  for (const path of folders) at(path);
  const loose = cases.filter((c) => c.case.folderPath.length === 0);
  if (loose.length > 0) {
    report.note(`testrail-xml: TestRail keeps every case in a section: the ${loose.length} case(s) outside any folder are in a section "${ROOT_SECTION}"`);
    at([ROOT_SECTION]).cases.push(...loose);
  }
  for (const c of cases) if (c.case.folderPath.length > 0) at(c.case.folderPath).cases.push(c);
  return root;
}

function writeCase(out: XmlOut, depth: number, item: ExportCase): void {
  const { case: kase, externalId, steps } = item;
  const f = kase.fields;
  const file = kase.file;
  const tcd = templateOf(kase) === 'TCD';
  // a case that came from TestRail goes back under its TestRail id; TestRail gives new cases theirs
  const fromTestrail = sourceOf(kase)?.tool === 'testrail';
  out.open(depth, 'case');
  out.text(depth + 1, 'id', fromTestrail ? externalId : undefined, file);
  out.text(depth + 1, 'title', kase.title, file);
  out.text(depth + 1, 'template', tcd ? 'Test Case (Text)' : 'Test Case (Steps)', file);
  out.text(depth + 1, 'type', f.type, file);
  out.text(depth + 1, 'priority', f.priority, file);
  // the case statuses and the assignee of TestRail Enterprise, where its export has them
  out.text(depth + 1, 'status', f.status, file);
  out.text(depth + 1, 'assignedto', f.owner, file);
  // the service's id (or another tool's) goes where TestRail keeps references to other systems
  out.text(depth + 1, 'references', fromTestrail ? kase.id : externalId, file);
  out.open(depth + 1, 'custom');
  const d = depth + 2;
  out.text(d, 'description', f.description, file);
  out.text(d, 'preconds', f.preconditions, file);
  if (tcd) {
    out.text(d, 'steps', f.stepsText, file);
    out.text(d, 'expected', f.expectedResults, file);
  } else if (steps !== undefined && steps.length > 0) {
    out.open(d, 'steps_separated');
    steps.forEach((s, i) => {
      out.open(d + 1, 'step');
      out.text(d + 2, 'index', String(i + 1), file);
      out.text(d + 2, 'content', s.action, file);
      out.text(d + 2, 'expected', s.expected, file);
      out.close(d + 1, 'step');
    });
    out.close(d, 'steps_separated');
  }
  out.text(d, 'automation_type', f.automationType, file);
  out.text(d, 'reviewer', f.reviewer, file);
  out.text(d, 'labels', f.labels !== undefined && f.labels.length > 0 ? f.labels.join(', ') : undefined, file);
  out.close(depth + 1, 'custom');
  out.close(depth, 'case');
}

function writeSections(out: XmlOut, depth: number, nodes: Iterable<SectionNode>): void {
  const list = [...nodes];
  if (list.length === 0) return;
  out.open(depth, 'sections');
  for (const node of list) {
    out.open(depth + 1, 'section');
    out.text(depth + 2, 'name', node.name, '');
    if (node.cases.length > 0) {
      out.open(depth + 2, 'cases');
      for (const c of node.cases) writeCase(out, depth + 3, c);
      out.close(depth + 2, 'cases');
    }
    writeSections(out, depth + 2, node.children.values());
    out.close(depth + 1, 'section');
  }
  out.close(depth, 'sections');
}

export function exportTestrailXml(repository: DesiredState, report: ImportReport, suiteName = SUITE_NAME): string {
  const view = exportView(repository, report, 'testrail-xml', 'testrail');
  const labelled = view.cases.filter((c) => c.case.fields.labels?.some((l) => l.includes(',')));
  if (labelled.length > 0) report.note('testrail-xml: labels are one comma-separated custom field; a label holding a comma reads back as two');
  const out = new XmlOut(report);
  out.open(0, 'suite');
  out.text(1, 'name', suiteName, '');
  writeSections(out, 1, sectionTree(view.folders, view.cases, report).children.values());
  out.close(0, 'suite');
  return out.toString();
}
