import type { ImportAt, ImportedActionStep, ImportedCase, ImportedField, ImportedLookups, ImportedProject, ImportedStep, ImportedStepGroup } from '../imported.js';
import type { ImportReader, ReadImportContext } from '../reader.js';
import type { ImportReport } from '../report.js';
import { testrailMarkdown } from '../text/testrail-markdown.js';
import { child, childText, childrenNamed, readXmlRecords, textOf, type XmlElement } from '../xml-records.js';
import {
  caseSourceId,
  fallbackSourceId,
  FIELD,
  fieldLabel,
  importError,
  isLayoutTemplate,
  sharedStepSourceId,
  stepData,
  suiteFolder,
} from './testrail-shared.js';

/**
 * TestRail's XML export of a suite (Test Cases → Export → XML): `<suite>` (or `<sections>`, the
 * import format; or several `<suite>`s under one root) → nested `<sections><section>` → `<cases><case>`.
 * Read as a stream (`readXmlRecords`): each `<case>` is read and forgotten, so a 50,000-case export
 * never becomes one tree. docs/import-formats/testrail-xml.md has the mapping.
 */

/** Root elements of an export: a suite, the import format's section list, a wrapper of suites. */
const ROOTS = new Set(['suite', 'sections', 'suites']);

/** `<custom>` children the case model has a slot for (names with or without TestRail's `custom_`). */
type CustomSlot = 'preconds' | 'steps_separated' | 'steps' | 'expected' | 'mission' | 'goals' | 'automation_type';
const CUSTOM_SLOTS = new Set<string>(['preconds', 'steps_separated', 'steps_case', 'steps', 'expected', 'mission', 'goals', 'automation_type']);

function customSlot(name: string): CustomSlot | undefined {
  const bare = name.replace(/^custom_/, '');
  if (!CUSTOM_SLOTS.has(bare)) return undefined;
  return bare === 'steps_case' ? 'steps_separated' : (bare as CustomSlot);
}

/** One case being read: the model's case and the state of its shared steps. */
interface CaseState {
  c: ImportedCase;
  at: ImportAt;
  report: ImportReport;
  groups: Map<string, SharedGroup>;
}

interface SharedGroup {
  group: ImportedStepGroup;
  /** the export gave no title: the group is named by its id */
  untitled: boolean;
  /** the line of the case whose inlined copy filled the group */
  filledBy?: number;
}

/** A field's value in any of the export's forms: text, `<id>`/`<value>` (a dropdown, with its leading space), `<item>`s (a multi-select). */
function valueOf(el: XmlElement, state: CaseState): string {
  if (el.children.length === 0) return testrailMarkdown(el.text, state.report, { file: state.at.file, line: el.line });
  const items = childrenNamed(el, 'item');
  if (items.length > 0) return items.map((i) => valueOf(i, state)).filter((v) => v !== '').join(', ');
  const value = child(el, 'value');
  if (value) return textOf(value);
  const id = child(el, 'id');
  if (id && el.children.length <= 2) return textOf(id);
  return el.children.map((c) => `${c.name}: ${valueOf(c, state)}`).join('\n');
}

function addField(state: CaseState, name: string, value: string): void {
  if (value === '') return;
  (state.c.fields ??= []).push({ name, value });
}

function setLookup(state: CaseState, key: keyof ImportedLookups, value: string): void {
  if (value !== '') (state.c.lookups ??= {})[key] = value;
}

function actionStep(step: XmlElement, state: CaseState): ImportedActionStep {
  const at = { file: state.at.file, line: step.line };
  const text = (name: string) => {
    const el = child(step, name);
    return el ? testrailMarkdown(el.text, state.report, at) : '';
  };
  const expected = text('expected');
  const data = stepData(text('additional_info'), text('refs'));
  return { action: text('content'), ...(expected !== '' ? { expected } : {}), ...(data !== undefined ? { data } : {}) };
}

/**
 * `<steps_separated>` → steps. A run of steps carrying one `<shared_step_id>` is a shared step set
 * inlined by the export: it becomes one `use` step, and the first case that holds its steps fills
 * the step group.
 */
function readSteps(list: XmlElement, state: CaseState): ImportedStep[] {
  const steps: ImportedStep[] = [];
  let current: string | undefined;
  for (const step of childrenNamed(list, 'step')) {
    const shared = childText(step, 'shared_step_id');
    if (shared === '') {
      current = undefined;
      steps.push(actionStep(step, state));
      continue;
    }
    const id = sharedStepSourceId(shared);
    let entry = state.groups.get(id);
    if (!entry) {
      const title = childText(step, 'shared_step_title') || childText(step, 'title');
      entry = { group: { sourceId: id, title: title || `Shared steps ${shared}`, steps: [], at: { file: state.at.file, line: step.line } }, untitled: title === '' };
      state.groups.set(id, entry);
    }
    if (current !== id) steps.push({ use: id });
    current = id;
    const content = actionStep(step, state);
    if (content.action === '' && content.expected === undefined && content.data === undefined) continue;
    entry.filledBy ??= state.at.line;
    if (entry.filledBy === state.at.line) entry.group.steps.push(content);
  }
  return steps;
}

function readCustom(custom: XmlElement, state: CaseState): void {
  const { c } = state;
  for (const el of custom.children) {
    const slot = customSlot(el.name);
    switch (slot) {
      case 'preconds':
        c.preconditions = valueOf(el, state) || undefined;
        break;
      case 'steps_separated':
        c.steps = readSteps(el, state);
        break;
      case 'steps':
        c.stepsText = valueOf(el, state) || undefined;
        break;
      case 'expected':
        c.expectedResults = valueOf(el, state) || undefined;
        break;
      case 'mission':
        c.description = valueOf(el, state) || undefined;
        break;
      case 'goals':
        addField(state, FIELD.goals, valueOf(el, state));
        break;
      case 'automation_type':
        setLookup(state, 'automation_type', valueOf(el, state));
        break;
      case undefined:
        addField(state, fieldLabel(el.name), valueOf(el, state));
        break;
    }
  }
}

function folderOf(ancestors: readonly XmlElement[], file: string): string[] {
  const path: string[] = [];
  for (const a of ancestors) {
    if (a.name === 'suite') path.push(...suiteFolder(childText(a, 'name')));
    else if (a.name === 'section') {
      const name = childText(a, 'name');
      if (name === '') throw importError(file, a.line, 'a <section> has no <name> (before its cases)', 'give the section a <name> as the first child, as TestRail exports it');
      path.push(name);
    }
  }
  return path;
}

function readCase(el: XmlElement, ancestors: readonly XmlElement[], context: ReadImportContext, groups: Map<string, SharedGroup>): ImportedCase {
  const { file, report } = context;
  const at = { file, line: el.line };
  const folder = folderOf(ancestors, file);
  const title = childText(el, 'title').replace(/\s+/g, ' ');
  if (title === '') throw importError(file, el.line, 'a <case> has no <title>', 'every TestRail case has a title: export the suite again, or add the <title>');
  const sourceId = caseSourceId(childText(el, 'id')) ?? fallbackSourceId(folder, title);
  const state: CaseState = { c: { sourceId, folder, title, at }, at, report, groups };
  let fields: ImportedField[] = [];
  for (const f of el.children) {
    switch (f.name) {
      case 'id':
      case 'title':
        break;
      case 'custom':
        // custom fields come after the built-in ones in the Fields block, whatever the order here
        readCustom(f, state);
        break;
      case 'template': {
        const template = textOf(f);
        if (!isLayoutTemplate(template)) fields.push({ name: FIELD.template, value: template });
        break;
      }
      case 'type':
        setLookup(state, 'type', valueOf(f, state));
        break;
      case 'priority':
        setLookup(state, 'priority', valueOf(f, state));
        break;
      case 'status':
        setLookup(state, 'status', valueOf(f, state));
        break;
      case 'assignedto':
        setLookup(state, 'owner', valueOf(f, state));
        break;
      case 'estimate':
        fields.push({ name: FIELD.estimate, value: valueOf(f, state) });
        break;
      case 'references':
      case 'refs':
        fields.push({ name: FIELD.references, value: valueOf(f, state) });
        break;
      case 'milestone':
        fields.push({ name: FIELD.milestone, value: valueOf(f, state) });
        break;
      default:
        fields.push({ name: fieldLabel(f.name), value: valueOf(f, state) });
    }
  }
  fields = fields.filter((f) => f.value !== '');
  if (fields.length > 0 || state.c.fields) state.c.fields = [...fields, ...(state.c.fields ?? [])];
  return state.c;
}

function detect(head: string, file: string): number {
  const body = head.replace(/^\uFEFF/, '').replace(/<\?xml[^>]*\?>|<!--[\s\S]*?-->/g, '');
  const root = /^\s*<([A-Za-z_][\w.-]*)/.exec(body)?.[1]?.toLowerCase();
  if (root !== undefined && ROOTS.has(root)) {
    if (/<(custom_)?steps_separated>|<template>\s*(Test Case \((Steps|Text)\)|Exploratory Session)/.test(body) || /^\s*<suite>\s*<id>S\d+<\/id>/.test(body)) return 3;
    if (/<section>/.test(body)) return 2;
  }
  return /testrail[^/\\]*\.xml$/i.test(file) ? 1 : 0;
}

function read(text: string, context: ReadImportContext): ImportedProject {
  const { file, report } = context;
  const cases: ImportedCase[] = [];
  const groups = new Map<string, SharedGroup>();
  const folders: { path: string[]; line: number }[] = [];
  const root = readXmlRecords(text.replace(/^\uFEFF/, ''), file, {
    records: new Set(['case']),
    onOpen(el, ancestors) {
      if (ancestors.length === 0 && !ROOTS.has(el.name)) {
        throw importError(file, el.line, `this is not a TestRail XML export: the root element is <${el.name}>, not <suite> or <sections>`, 'export the suite from TestRail (Test Cases → Export → XML), or name the right FORMAT');
      }
    },
    onClose(el, ancestors) {
      if (el.name !== 'section' && el.name !== 'suite') return;
      const path = folderOf([...ancestors, el], file);
      if (path.length > 0) folders.push({ path, line: el.line });
      const description = childText(el, 'description');
      if (description !== '') report.record('dropped', `${el.name} description`, 'a folder has no description in the case model', description, { file, line: el.line });
    },
    onRecord(el, ancestors) {
      if (ancestors.length === 0) throw importError(file, el.line, 'this is not a TestRail XML export: the root element is <case>, not <suite> or <sections>', 'export the whole suite from TestRail');
      cases.push(readCase(el, ancestors, context, groups));
    },
  });
  if (root === undefined || cases.length === 0) report.note(`${file} holds no TestRail case: nothing to import from it`);
  for (const { group } of groups.values()) {
    if (group.steps.length === 0) report.note(`shared step set ${group.sourceId} is used in ${file} but the export holds none of its steps: no step group is made for it`);
  }
  if ([...groups.values()].some((g) => g.untitled)) {
    report.note("TestRail's XML export holds a shared step set's id but not its title: its step group is named `Shared steps <id>`");
  }
  // sections of one name under one parent are one folder
  const seen = new Set<string>();
  return {
    folders: folders
      .sort((a, b) => a.line - b.line)
      .map((f) => f.path)
      .filter((p) => {
        const key = p.join('\u0000');
        return !seen.has(key) && seen.add(key);
      }),
    // a set whose steps the export lacks stays a `use` step the writer reports as not in the export
    stepGroups: [...groups.values()].map((g) => g.group).filter((g) => g.steps.length > 0),
    cases,
  };
}

export const testrailXmlReader: ImportReader = {
  name: 'testrail-xml',
  tool: 'testrail',
  about: "TestRail's XML export of a suite: sections, cases of every template, steps, shared steps, custom fields",
  detect,
  read,
};
