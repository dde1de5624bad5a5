import { createRequire } from 'node:module';
import type * as GherkinModule from '@cucumber/gherkin';
import type { Dialect } from '@cucumber/gherkin';
import type * as MessagesModule from '@cucumber/messages';
import type { Background, Examples, Feature, GherkinDocument, Scenario, Step, TableRow, Tag } from '@cucumber/messages';
import type { Problem } from '../errors.js';
import { CASE_FIELDS, setField } from '../fields.js';
import type { DesiredCase, DesiredCaseFields, DesiredGroupStep, DesiredStep, DesiredStepGroup } from '../model.js';
import { folderNameProblem } from './folder-file.js';
import { GHERKIN_DEFAULTS, type GherkinOptions } from './gherkin-options.js';
import type { FormatParseResult, ParsedItems } from './repository-format.js';

/**
 * `.feature` files read with the official Gherkin parser (`@cucumber/gherkin`, every language of
 * `# language:`), and their scenarios turned into test cases (docs/gherkin.md has the mapping).
 * The parse is pure; the edits of a file (`gherkin-edit.ts`) locate scenarios with the same walk.
 */

/**
 * The Gherkin parser and its messages, loaded the first time a `.feature` file is read: every
 * command loads the formats, and a YAML repository (and each parse worker thread) would pay for
 * loading them for nothing. Synchronous (`require` of an ES module, Node ≥ 20.19): the format's
 * interface is.
 */
const load = createRequire(import.meta.url);
let libraries: { gherkin: typeof GherkinModule; messages: typeof MessagesModule } | undefined;
function lib(): { gherkin: typeof GherkinModule; messages: typeof MessagesModule } {
  return (libraries ??= { gherkin: load('@cucumber/gherkin') as typeof GherkinModule, messages: load('@cucumber/messages') as typeof MessagesModule });
}

/** A Gherkin document, or the parser's errors located in the file. */
export function parseGherkin(text: string): { doc: GherkinDocument } | { errors: { line: number; col: number; message: string }[] } {
  const { gherkin, messages } = lib();
  const parser = new gherkin.Parser(new gherkin.AstBuilder(messages.IdGenerator.incrementing()), new gherkin.GherkinClassicTokenMatcher());
  try {
    return { doc: parser.parse(text) };
  } catch (err) {
    const e = err as { errors?: { message: string; location?: { line: number; column?: number } }[]; message: string; location?: { line: number; column?: number } };
    const list = e.errors && e.errors.length > 0 ? e.errors : [e];
    return {
      errors: list.map((x) => ({
        line: x.location?.line ?? 1,
        col: x.location?.column ?? 1,
        // the location is given on its own: `(4:3): expected …` → `expected …`
        message: x.message.replace(/^\(\d+:\d+\):\s*/, ''),
      })),
    };
  }
}

/** One scenario of a feature file in document order, with what surrounds it. */
export interface ScenarioEntry {
  /** 1-based, counted over the whole file (rules included): the scenario's address */
  index: number;
  scenario: Scenario;
  rule?: { name: string; tags: readonly Tag[] };
}

/** The scenarios of a document, in order. */
export function scenariosOf(feature: Feature): ScenarioEntry[] {
  const out: ScenarioEntry[] = [];
  for (const child of feature.children) {
    if (child.scenario) out.push({ index: out.length + 1, scenario: child.scenario });
    else if (child.rule) {
      const rule = { name: child.rule.name.trim(), tags: child.rule.tags };
      for (const c of child.rule.children) if (c.scenario) out.push({ index: out.length + 1, scenario: c.scenario, rule });
    }
  }
  return out;
}

export function backgroundOf(feature: Feature): Background | undefined {
  return feature.children.find((c) => c.background)?.background;
}

export function dialectOf(doc: GherkinDocument): Dialect {
  const { dialects } = lib().gherkin;
  return dialects[doc.feature?.language ?? 'en'] ?? dialects.en;
}

/** The address of an expanded examples row: `3.2` (scenario 3, its second row over all its tables). */
export function rowAddress(index: number, row: number): string {
  return `${index}.${row}`;
}

/** `SHOP-12` (or `SHOP-SG-3` for a step group) from `@SHOP-12` with the configured prefix; undefined: not an id tag. */
export function idOfTag(name: string, options: GherkinOptions, group: boolean): string | undefined {
  const prefix = `@${options.idTagPrefix}`;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  const isGroup = /^[A-Za-z0-9][A-Za-z0-9_]*-SG-[0-9]+$/.test(rest);
  if (isGroup) return group ? rest : undefined;
  return !group && /^[A-Za-z0-9][A-Za-z0-9_]*-[0-9]+$/.test(rest) ? rest : undefined;
}

/** The tag that holds an id. */
export function idTag(id: string, options: GherkinOptions): string {
  return `@${options.idTagPrefix}${id}`;
}

// ---------------------------------------------------------------------------------------------
// steps as text

/** A Markdown table cell from a Gherkin cell value: pipes and backslashes escaped, line breaks as `\n`. */
export function escapeCell(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, '\\n');
}

function fenceFor(content: string): string {
  let fence = '```';
  while (content.includes(fence)) fence += '`';
  return fence;
}

/** A step as one text: its keyword and text, then its doc string as a fenced block or its data table as a Markdown table. */
export function stepText(step: Step, params?: ReadonlyMap<string, string>): string {
  const sub = (s: string) => (params ? substitute(s, params) : s);
  let out = `${step.keyword}${sub(step.text)}`;
  if (step.docString) {
    const content = sub(step.docString.content);
    const fence = fenceFor(content);
    out += `\n${fence}${step.docString.mediaType ?? ''}\n${content}\n${fence}`;
  } else if (step.dataTable) {
    out += `\n${markdownTable(step.dataTable.rows.map((r) => r.cells.map((c) => sub(c.value))))}`;
  }
  return out;
}

/** Rows as a Markdown table (the first row is its header). */
export function markdownTable(rows: readonly (readonly string[])[]): string {
  const lines = rows.map((cells) => `| ${cells.map(escapeCell).join(' | ')} |`);
  if (rows.length > 0) lines.splice(1, 0, `|${rows[0].map(() => ' --- ').join('|')}|`);
  return lines.join('\n');
}

function substitute(s: string, params: ReadonlyMap<string, string>): string {
  return s.replace(/<([^<>]+)>/g, (whole, name: string) => params.get(name) ?? whole);
}

function isOutcome(step: Step, previous: 'outcome' | 'other'): boolean {
  const { StepKeywordType } = lib().messages;
  if (step.keywordType === StepKeywordType.OUTCOME) return true;
  return (step.keywordType === StepKeywordType.CONJUNCTION || step.keywordType === StepKeywordType.UNKNOWN) && previous === 'outcome';
}

/** Gherkin steps as a case's steps: with `expected: then`, an outcome is the expected result of the action before it. */
export function caseSteps(steps: readonly Step[], options: GherkinOptions, params?: ReadonlyMap<string, string>): { action: string; expected: string }[] {
  const out: { action: string; expected: string }[] = [];
  let previous: 'outcome' | 'other' = 'other';
  for (const step of steps) {
    const outcome = isOutcome(step, previous);
    previous = outcome ? 'outcome' : 'other';
    const text = stepText(step, params);
    const last = out[out.length - 1];
    if (options.expected === 'then' && outcome && last) last.expected = last.expected === '' ? text : `${last.expected}\n${text}`;
    else out.push({ action: text, expected: '' });
  }
  return out;
}

/** The steps of a case, grouped as `caseSteps` groups them, each with its first and last line in the file. */
export function stepUnits(steps: readonly Step[], options: GherkinOptions): { first: Step; last: Step }[] {
  const out: { first: Step; last: Step }[] = [];
  let previous: 'outcome' | 'other' = 'other';
  for (const step of steps) {
    const outcome = isOutcome(step, previous);
    previous = outcome ? 'outcome' : 'other';
    const unit = out[out.length - 1];
    if (options.expected === 'then' && outcome && unit) unit.last = step;
    else out.push({ first: step, last: step });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// the file's items

function dedent(text: string): string {
  const lines = text.split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut)).join('\n').trim();
}

function examplesMarkdown(examples: readonly Examples[]): string {
  return examples
    .filter((e) => e.tableHeader)
    .map((e) => {
      const head = `${e.keyword}:${e.name.trim() ? ` ${e.name.trim()}` : ''}`;
      const rows = [e.tableHeader!, ...e.tableBody].map((r) => r.cells.map((c) => c.value));
      return `${head}\n\n${markdownTable(rows)}`;
    })
    .join('\n\n');
}

const joinParts = (parts: readonly (string | undefined)[]) => parts.filter((p): p is string => p !== undefined && p.trim() !== '').join('\n\n');

/** The key of a feature file's background step group: the file's path without its extension. */
export function backgroundKey(file: string): string {
  return file.replace(/\.feature$/i, '');
}

/** The row of an outline expanded: its values by column, its title suffix and its id. */
interface ExpandedRow {
  row: TableRow;
  examples: Examples;
  params: Map<string, string>;
  number: number;
}

export function expandedRows(scenario: Scenario): ExpandedRow[] {
  const out: ExpandedRow[] = [];
  for (const examples of scenario.examples) {
    const header = examples.tableHeader?.cells.map((c) => c.value) ?? [];
    for (const row of examples.tableBody) {
      out.push({ row, examples, params: new Map(header.map((h, i) => [h, row.cells[i]?.value ?? ''])), number: out.length + 1 });
    }
  }
  return out;
}

interface FileContext {
  file: string;
  options: GherkinOptions;
  feature: Feature;
  problems: Problem[];
  /** the folder levels of the feature */
  folders: string[];
  /** the background's step group key when it is one */
  groupKey?: string;
  /** the background's steps as preconditions */
  preconditions?: string;
}

/** The feature file's folder level, per `gherkin.folder`. */
function featureFolders(ctx: Omit<FileContext, 'folders'>): string[] {
  const { feature, options, file } = ctx;
  const stem = file.slice(file.lastIndexOf('/') + 1).replace(/\.feature$/i, '');
  switch (options.folder) {
    case 'none':
      return [];
    case 'stem':
      return [stem];
    case 'feature':
      return [feature.name.trim() || stem];
  }
}

function folderProblem(ctx: FileContext, name: string, line: number, col: number): boolean {
  const why = folderNameProblem(name);
  if (!why) return false;
  ctx.problems.push({ file: ctx.file, line, col, code: 'invalid_folder_name', message: `${why}: \`${name}\``, hint: 'rename it, or set `gherkin.folder` (or `gherkin.rule`) in tmsync.yaml' });
  return true;
}

/** Tags → labels, fields and the id. */
function readTags(ctx: FileContext, tags: readonly Tag[], fields: DesiredCaseFields, labels: string[], ids: Tag[]): void {
  for (const tag of tags) {
    if (idOfTag(tag.name, ctx.options, false) !== undefined) {
      ids.push(tag);
      continue;
    }
    // a step group's id on the feature is the background's
    if (idOfTag(tag.name, ctx.options, true) !== undefined) continue;
    const name = tag.name.slice(1);
    const mapped = Object.entries(ctx.options.tagFields).find(([prefix]) => name.startsWith(prefix.endsWith(':') ? prefix : `${prefix}:`));
    if (mapped) {
      const sep = mapped[0].endsWith(':') ? mapped[0] : `${mapped[0]}:`;
      const field = CASE_FIELDS.find((f) => f.key === mapped[1]);
      if (field) setField(fields, field, 'model', name.slice(sep.length));
      continue;
    }
    if (!labels.includes(name)) labels.push(name);
  }
}

function scenarioCase(ctx: FileContext, entry: ScenarioEntry, row?: ExpandedRow): (ParsedItems['cases'][number]) | undefined {
  const { scenario, rule } = entry;
  const { options } = ctx;
  const fields: DesiredCaseFields = {};
  const labels: string[] = [];
  const ids: Tag[] = [];
  readTags(ctx, ctx.feature.tags, fields, labels, []);
  if (rule && options.rule !== 'none') readTags(ctx, rule.tags, fields, labels, []);
  readTags(ctx, scenario.tags, fields, labels, row ? [] : ids);
  if (row) readTags(ctx, row.examples.tags, fields, labels, []);
  if (rule && options.rule === 'label' && rule.name !== '' && !labels.includes(rule.name)) labels.push(rule.name);
  if (ids.length > 1) {
    ctx.problems.push({ file: ctx.file, line: ids[1].location.line, col: ids[1].location.column ?? 1, code: 'duplicate_id_tag', message: `scenario "${scenario.name.trim()}" has two id tags: ${ids.map((t) => t.name).join(', ')}`, hint: 'keep one of them' });
    return undefined;
  }
  let id = ids[0] ? idOfTag(ids[0].name, options, false) : undefined;
  let idPos = ids[0] ? { line: ids[0].location.line, col: ids[0].location.column ?? 1 } : undefined;
  let title = scenario.name.trim();
  if (row) {
    const column = options.outlineTitleColumn;
    const suffix = column !== undefined ? row.params.get(column) : row.row.cells[0]?.value;
    if (column !== undefined && !row.params.has(column)) {
      ctx.problems.push({ file: ctx.file, line: row.examples.location.line, col: row.examples.location.column ?? 1, code: 'unknown_examples_column', message: `the examples of "${title}" have no column \`${column}\` (gherkin.outline_title_column)`, hint: 'add the column, or change gherkin.outline_title_column in tmsync.yaml' });
      return undefined;
    }
    const cell = row.params.get(options.outlineIdColumn);
    if (cell !== undefined && cell.trim() !== '') {
      id = cell.trim();
      const at = row.examples.tableHeader!.cells.findIndex((c) => c.value === options.outlineIdColumn);
      idPos = { line: row.row.location.line, col: row.row.cells[at]?.location.column ?? 1 };
    }
    if (suffix !== undefined && suffix !== '') title = `${title} (${suffix})`;
    if (cell !== undefined) row.params.delete(options.outlineIdColumn);
  }
  if (title === '') {
    ctx.problems.push({ file: ctx.file, line: scenario.location.line, col: scenario.location.column ?? 1, code: 'missing_title', message: `a ${scenario.keyword.trim()} without a name: the name is the case's title`, hint: 'give it a name after the colon' });
    return undefined;
  }
  const outline = scenario.examples.length > 0;
  const description = joinParts([dedent(ctx.feature.description), dedent(scenario.description), outline && !row ? examplesMarkdown(scenario.examples) : undefined]);
  if (description !== '') fields.description = description;
  if (ctx.preconditions !== undefined) fields.preconditions = ctx.preconditions;
  const steps: DesiredStep[] = [];
  const stepLine = scenario.steps[0]?.location.line ?? scenario.location.line;
  if (ctx.groupKey !== undefined) steps.push({ kind: 'use', use: ctx.groupKey, source: { file: ctx.file, line: stepLine, col: 1 } });
  for (const s of caseSteps(scenario.steps, options, row?.params)) steps.push({ kind: 'step', action: s.action, expected: s.expected });
  fields.steps = steps;
  fields.labels = labels;
  const folders = [...ctx.folders];
  if (rule && options.rule === 'folder' && rule.name !== '') folders.push(rule.name);
  const tagLine = scenario.tags[0]?.location.line;
  const item: DesiredCase = {
    file: ctx.file,
    at: row ? rowAddress(entry.index, row.number) : String(entry.index),
    folderPath: [],
    ...(id !== undefined ? { id } : {}),
    title,
    fields,
    lines: { title: scenario.location.line, steps: stepLine, labels: tagLine ?? scenario.location.line, description: scenario.location.line, ...(idPos ? { id: idPos.line } : {}) },
    ...(options.unknownTags === 'keep' ? { softLabels: true } : {}),
  };
  return { item, ...(idPos ? { idPos } : {}), titlePos: { line: scenario.location.line, col: scenario.location.column ?? 1 }, folders };
}

/** The background as a step group (one per file). */
function backgroundGroup(ctx: FileContext, background: Background, key: string): ParsedItems['stepGroups'][number] {
  const { feature, options } = ctx;
  const idTags = feature.tags.filter((t) => idOfTag(t.name, options, true) !== undefined);
  const id = idTags[0] ? idOfTag(idTags[0].name, options, true) : undefined;
  const steps: DesiredGroupStep[] = caseSteps(background.steps, options).map((s, i) => ({ ...s, source: { file: ctx.file, line: background.steps[i]?.location.line ?? background.location.line, col: 1 } }));
  const title = background.name.trim() || `${background.keyword.trim()}: ${feature.name.trim() || key}`;
  const item: DesiredStepGroup = {
    key,
    file: ctx.file,
    at: 'background',
    ...(id !== undefined ? { id } : {}),
    title,
    steps,
    lines: { title: background.location.line, steps: background.steps[0]?.location.line ?? background.location.line },
  };
  return { item, ...(idTags[0] ? { idPos: { line: idTags[0].location.line, col: idTags[0].location.column ?? 1 } } : {}), titlePos: { line: background.location.line, col: background.location.column ?? 1 } };
}

/** A `.feature` file → its scenarios as cases and its background as a step group, or problems. */
export function parseFeatureFile(file: string, text: string, options: GherkinOptions = GHERKIN_DEFAULTS): FormatParseResult<ParsedItems> {
  const parsed = parseGherkin(text);
  if ('errors' in parsed) {
    return { problems: parsed.errors.map((e) => ({ file, line: e.line, col: e.col, code: 'invalid_gherkin', message: e.message, hint: 'fix the Gherkin (the message is the Gherkin parser\'s)' })) };
  }
  const feature = parsed.doc.feature;
  // a file of comments only holds no cases
  if (!feature) return { parsed: { cases: [], stepGroups: [] }, problems: [] };
  const problems: Problem[] = [];
  const base = { file, options, feature, problems };
  const ctx: FileContext = { ...base, folders: featureFolders(base) };
  for (const name of ctx.folders) if (folderProblem(ctx, name, feature.location.line, feature.location.column ?? 1)) return { problems };
  const stepGroups: ParsedItems['stepGroups'] = [];
  const background = backgroundOf(feature);
  if (background && background.steps.length > 0) {
    if (options.background === 'step_group') {
      ctx.groupKey = backgroundKey(file);
      stepGroups.push(backgroundGroup(ctx, background, ctx.groupKey));
    } else {
      ctx.preconditions = background.steps.map((s) => stepText(s)).join('\n');
    }
  }
  const cases: ParsedItems['cases'] = [];
  for (const entry of scenariosOf(feature)) {
    if (entry.rule && options.rule === 'folder' && entry.rule.name !== '' && folderProblem(ctx, entry.rule.name, entry.scenario.location.line, 1)) continue;
    if (options.outlines === 'expand' && entry.scenario.examples.length > 0) {
      for (const row of expandedRows(entry.scenario)) {
        const c = scenarioCase(ctx, entry, row);
        if (c) cases.push(c);
      }
    } else {
      const c = scenarioCase(ctx, entry);
      if (c) cases.push(c);
    }
  }
  if (problems.some((p) => p.severity !== 'warning')) return { problems };
  return { parsed: { cases, stepGroups }, problems };
}
