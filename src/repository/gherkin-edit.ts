import type { Dialect } from '@cucumber/gherkin';
import type { Feature, Scenario, Step, Tag } from '@cucumber/messages';
import { TmsyncError } from '../errors.js';
import { caseDocument, stepGroupDocument } from './documents.js';
import { GHERKIN_DEFAULTS, type GherkinOptions } from './gherkin-options.js';
import {
  backgroundOf,
  caseSteps,
  dialectOf,
  expandedRows,
  idOfTag,
  idTag,
  parseFeatureFile,
  parseGherkin,
  scenariosOf,
  stepUnits,
} from './gherkin-parse.js';
import type { ItemDocument } from './repository-format.js';

/**
 * Editing a `.feature` file in place: the id tag of a scenario (or of the feature, for its
 * background's step group), a scenario's name and its steps. Only the lines of what changes are
 * rewritten; every other byte stays as it was (comments, spacing, keywords, language, line endings).
 */

/** The address of the feature's level folder and of the background's step group in a file. */
export const FOLDER_ADDRESS = 'folder';
export const BACKGROUND_ADDRESS = 'background';
/** The address of a case pull adds to the file (`+` and the service's id): appended as a new scenario. */
export const NEW_ADDRESS = '+';

/** The document of one item of a feature file (`RepositoryFormat.readDocument`); `{}` when it has none there. */
export function featureDocument(text: string, at: string | undefined, options: GherkinOptions = GHERKIN_DEFAULTS, file = 'file.feature'): ItemDocument | undefined {
  const r = parseFeatureFile(file, text, options);
  if (!r.parsed) return undefined;
  if (at === undefined || at === FOLDER_ADDRESS) return {};
  if (at === BACKGROUND_ADDRESS) {
    const g = r.parsed.stepGroups[0];
    return g ? stepGroupDocument(g.item) : {};
  }
  const c = r.parsed.cases.find((x) => x.item.at === at);
  return c ? caseDocument(c.item) : {};
}

/** The lines of a text, each with its line ending. */
function splitLines(text: string): string[] {
  const lines = text.split(/(?<=\n)/);
  return lines;
}

const eolOf = (line: string | undefined) => (line?.endsWith('\r\n') ? '\r\n' : '\n');
const bodyOf = (line: string) => line.replace(/\r?\n$/, '');
const indentOf = (line: string) => /^[ \t]*/.exec(line)![0];

/** A replacement of lines `start` to `end` (0-based, end exclusive) by `lines` (without endings). */
interface LineEdit {
  start: number;
  end: number;
  lines: string[];
}

function applyEdits(lines: string[], edits: LineEdit[], eol: string): string {
  if (edits.length === 0) return lines.join('');
  const out = [...lines];
  // every line ends with a line ending while edited; a last line without one gets none back
  const bare = out.length > 0 && !out[out.length - 1].endsWith('\n');
  if (bare) out[out.length - 1] += eol;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out.splice(e.start, e.end - e.start, ...e.lines.map((l) => `${l}${eol}`));
  const joined = out.join('');
  return bare && joined.endsWith(eol) ? joined.slice(0, -eol.length) : joined;
}

/** The id tag set on a node (scenario or feature): replaced in place, appended to its tag line, or a new line above it. */
function idTagEdit(lines: string[], tags: readonly Tag[], nodeLine: number, isId: (name: string) => boolean, tag: string | undefined): LineEdit | undefined {
  const existing = tags.find((t) => isId(t.name));
  if (existing) {
    const i = existing.location.line - 1;
    const body = bodyOf(lines[i]);
    const col = (existing.location.column ?? 1) - 1;
    const after = body.slice(col + existing.name.length);
    const next = tag === undefined ? `${body.slice(0, col)}${after.replace(/^[ \t]+/, '')}` : `${body.slice(0, col)}${tag}${after}`;
    return next.trim() === '' ? { start: i, end: i + 1, lines: [] } : { start: i, end: i + 1, lines: [next] };
  }
  if (tag === undefined) return undefined;
  const last = tags[tags.length - 1];
  if (last) {
    const i = last.location.line - 1;
    const body = bodyOf(lines[i]);
    const end = (last.location.column ?? 1) - 1 + last.name.length;
    return { start: i, end: i + 1, lines: [`${body.slice(0, end)} ${tag}${body.slice(end)}`] };
  }
  const i = nodeLine - 1;
  return { start: i, end: i + 1, lines: [`${indentOf(lines[i])}${tag}`, bodyOf(lines[i])] };
}

/** The last line (1-based) of a step: its own, or the end of its data table or doc string. */
function stepEnd(lines: readonly string[], step: Step): number {
  if (step.dataTable && step.dataTable.rows.length > 0) return step.dataTable.rows[step.dataTable.rows.length - 1].location.line;
  if (step.docString) {
    const open = step.docString.location.line;
    const delimiter = step.docString.delimiter;
    for (let i = open; i < lines.length; i++) if (bodyOf(lines[i]).trim() === delimiter) return i + 1;
  }
  return step.location.line;
}

// ---------------------------------------------------------------------------------------------
// steps as Gherkin

interface StepBlock {
  text: string;
  doc?: { mediaType: string; content: string };
  table?: string[][];
}

/** A Markdown table row's cells, unescaped (`\|`, `\\`, `\n`). */
function tableCells(line: string): string[] {
  const body = line.trim().replace(/^\|/, '');
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\' && i + 1 < body.length) {
      const n = body[++i];
      cell += n === 'n' ? '\n' : n;
    } else if (ch === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  if (cell.trim() !== '') cells.push(cell.trim());
  return cells;
}

const SEPARATOR_ROW = /^\s*\|(\s*:?-{3,}:?\s*\|)+\s*$/;

/** A step's text (as `stepText` writes it) back into Gherkin steps: a line each, a fenced block as a doc string, a table as a data table. */
function stepBlocks(text: string): StepBlock[] {
  const blocks: StepBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const current = blocks[blocks.length - 1];
    const fence = /^(`{3,}|~{3,})(.*)$/.exec(line.trim());
    if (fence && current && !current.doc && !current.table) {
      const content: string[] = [];
      for (i++; i < lines.length && lines[i].trim() !== fence[1]; i++) content.push(lines[i]);
      current.doc = { mediaType: fence[2].trim(), content: content.join('\n') };
    } else if (line.trimStart().startsWith('|') && current && !current.doc) {
      if (!SEPARATOR_ROW.test(line)) (current.table ??= []).push(tableCells(line));
    } else if (line.trim() !== '') blocks.push({ text: line.trim() });
  }
  return blocks;
}

function keywordsOf(dialect: Dialect): string[] {
  return [...dialect.given, ...dialect.when, ...dialect.then, ...dialect.and, ...dialect.but].sort((a, b) => b.length - a.length);
}

const firstWord = (list: readonly string[]) => list.find((k) => k.trim() !== '*') ?? list[0];

const escapeGherkinCell = (value: string) => value.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\n/g, '\\n');
const width = (s: string) => [...s].length;

function renderBlock(block: StepBlock, keyword: string, keywords: readonly string[], indent: string, inner: string): string[] {
  const has = keywords.some((k) => block.text.startsWith(k));
  const out = [`${indent}${has ? '' : keyword}${block.text}`];
  if (block.doc) {
    const delimiter = block.doc.content.includes('"""') ? '```' : '"""';
    out.push(`${inner}${delimiter}${block.doc.mediaType}`);
    for (const l of block.doc.content.split('\n')) out.push(l === '' ? '' : `${inner}${l}`);
    out.push(`${inner}${delimiter}`);
  } else if (block.table) {
    const rows = block.table.map((r) => r.map(escapeGherkinCell));
    const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => width(r[c] ?? '')))) ?? [];
    for (const r of rows) out.push(`${inner}| ${widths.map((w, c) => (r[c] ?? '') + ' '.repeat(w - width(r[c] ?? ''))).join(' | ')} |`);
  }
  return out;
}

/** One case step (an action and its expected result) as Gherkin lines. */
function renderUnit(step: { action: string; expected: string }, dialect: Dialect, indent: string, inner: string): string[] {
  const keywords = keywordsOf(dialect);
  const out: string[] = [];
  for (const b of stepBlocks(step.action)) out.push(...renderBlock(b, firstWord(out.length === 0 ? dialect.when : dialect.and), keywords, indent, inner));
  for (const [i, b] of stepBlocks(step.expected).entries()) out.push(...renderBlock(b, firstWord(i === 0 ? dialect.then : dialect.and), keywords, indent, inner));
  return out;
}

/**
 * The steps of a document as `{ action, expected }`, without the first step's `use:` when the
 * feature's background is a step group (that is where it comes from); undefined when another step
 * uses a step group (Gherkin has no way to say so).
 */
function documentSteps(steps: unknown, background: boolean): { action: string; expected: string }[] | undefined {
  if (!Array.isArray(steps)) return undefined;
  const out: { action: string; expected: string }[] = [];
  for (const [i, s] of (steps as Record<string, unknown>[]).entries()) {
    if (typeof s.use === 'string') {
      if (i === 0 && background) continue;
      return undefined;
    }
    out.push({ action: String(s.action ?? ''), expected: typeof s.expected === 'string' ? s.expected : '' });
  }
  return out;
}

/** The edits turning a scenario's (or background's) steps into `wanted`: each changed step in place, or all of them when their number changed. */
function stepEdits(lines: string[], owner: { steps: readonly Step[]; location: { line: number }; description: string }, wanted: { action: string; expected: string }[], options: GherkinOptions, dialect: Dialect): LineEdit[] {
  const current = caseSteps(owner.steps, options);
  const units = stepUnits(owner.steps, options);
  const ownerIndent = indentOf(lines[owner.location.line - 1]);
  const stepIndent = owner.steps[0] ? indentOf(lines[owner.steps[0].location.line - 1]) : `${ownerIndent}${ownerIndent.includes('\t') ? '\t' : '  '}`;
  const inner = `${stepIndent}${stepIndent.includes('\t') ? '\t' : '  '}`;
  const same = (a: { action: string; expected: string }, b: { action: string; expected: string }) => a.action === b.action && a.expected === b.expected;
  if (units.length === wanted.length) {
    const edits: LineEdit[] = [];
    for (const [i, unit] of units.entries()) {
      if (same(current[i], wanted[i])) continue;
      const indent = indentOf(lines[unit.first.location.line - 1]);
      edits.push({ start: unit.first.location.line - 1, end: stepEnd(lines, unit.last), lines: renderUnit(wanted[i], dialect, indent, `${indent}${indent.includes('\t') ? '\t' : '  '}`) });
    }
    return edits;
  }
  const rendered = wanted.flatMap((s) => renderUnit(s, dialect, stepIndent, inner));
  if (owner.steps.length > 0) return [{ start: owner.steps[0].location.line - 1, end: stepEnd(lines, owner.steps[owner.steps.length - 1]), lines: rendered }];
  const descriptionLines = owner.description === '' ? 0 : owner.description.split('\n').length;
  const after = owner.location.line + descriptionLines;
  return [{ start: after, end: after, lines: rendered }];
}

/** The scenario's name replaced on its line, keyword and colon kept. */
function titleEdit(lines: string[], scenario: Scenario, name: string): LineEdit {
  const i = scenario.location.line - 1;
  const body = bodyOf(lines[i]);
  const colon = body.indexOf(':', (scenario.location.column ?? 1) - 1 + scenario.keyword.length);
  const space = /[ \t]/.test(body[colon + 1] ?? '') ? body[colon + 1] : ' ';
  return { start: i, end: i + 1, lines: [`${body.slice(0, colon + 1)}${space}${name}`] };
}

/** A cell of an examples row set (or the id column added to the table). */
function idCellEdits(lines: string[], scenario: Scenario, rowNumber: number, id: string | undefined, options: GherkinOptions): LineEdit[] {
  const row = expandedRows(scenario).find((r) => r.number === rowNumber);
  if (!row || !row.examples.tableHeader) return [];
  const header = row.examples.tableHeader;
  const col = header.cells.findIndex((c) => c.value === options.outlineIdColumn);
  const value = id ?? '';
  if (col >= 0) {
    const i = row.row.location.line - 1;
    const body = bodyOf(lines[i]);
    const bars = rawBars(body);
    if (bars.length < col + 2) return [];
    const cell = body.slice(bars[col] + 1, bars[col + 1]);
    const next = `${body.slice(0, bars[col] + 1)} ${value}${' '.repeat(Math.max(1, width(cell) - width(value) - 1))}${body.slice(bars[col + 1])}`;
    return [{ start: i, end: i + 1, lines: [next] }];
  }
  const edits: LineEdit[] = [];
  const add = (line: number, cell: string) => {
    const body = bodyOf(lines[line - 1]).replace(/[ \t]+$/, '');
    edits.push({ start: line - 1, end: line, lines: [`${body} ${cell} |`] });
  };
  add(header.location.line, options.outlineIdColumn);
  for (const r of row.examples.tableBody) add(r.location.line, r === row.row ? value : '');
  return edits;
}

/** The positions of a table row's unescaped `|`. */
function rawBars(body: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\') i++;
    else if (body[i] === '|') out.push(i);
  }
  return out;
}

function cannotEdit(file: string, why: string): TmsyncError {
  return new TmsyncError('invalid_gherkin', `cannot update ${file}: ${why}`, { hint: 'fix the Gherkin (run `tmsync validate`) and retry' });
}

/** The background's id tag (on the feature) and steps. */
function backgroundEdits(lines: string[], feature: Feature, fields: ItemDocument, options: GherkinOptions, dialect: Dialect): LineEdit[] {
  const edits: LineEdit[] = [];
  if ('id' in fields) {
    const e = idTagEdit(lines, feature.tags, feature.location.line, (n) => idOfTag(n, options, true) !== undefined, typeof fields.id === 'string' ? idTag(fields.id, options) : undefined);
    if (e) edits.push(e);
  }
  const background = backgroundOf(feature);
  const wanted = 'steps' in fields ? documentSteps(fields.steps, false) : undefined;
  if (background && wanted) edits.push(...stepEdits(lines, background, wanted, options, dialect));
  return edits;
}

/**
 * The text with the item's keys set (`RepositoryFormat.editDocument`): `id` (a tag), `title` (the
 * scenario's name) and `steps`; other keys are not written (docs/gherkin.md). Throws a
 * `TmsyncError` when the text does not parse.
 */
export function editFeatureText(text: string, fields: ItemDocument, at: string | undefined, options: GherkinOptions = GHERKIN_DEFAULTS, file = 'file.feature'): string {
  if (at === undefined || at === FOLDER_ADDRESS) return text;
  const parsed = parseGherkin(text);
  if ('errors' in parsed) throw cannotEdit(file, `${parsed.errors[0].message} (line ${parsed.errors[0].line})`);
  const feature = parsed.doc.feature;
  if (!feature) throw cannotEdit(file, 'it holds no Feature');
  const lines = splitLines(text);
  const eol = eolOf(lines[0]);
  const dialect = dialectOf(parsed.doc);
  if (at === BACKGROUND_ADDRESS) return applyEdits(lines, backgroundEdits(lines, feature, fields, options, dialect), eol);
  if (at.startsWith(NEW_ADDRESS)) return applyEdits(lines, [appendScenario(lines, feature, fields, options, dialect, file)], eol);
  const [index, rowPart] = at.split('.');
  const entry = scenariosOf(feature).find((e) => e.index === Number(index));
  if (!entry) throw cannotEdit(file, `it has no scenario ${index} any more`);
  const { scenario } = entry;
  const row = rowPart === undefined ? undefined : Number(rowPart);
  const edits: LineEdit[] = [];
  if ('id' in fields) {
    const id = typeof fields.id === 'string' ? fields.id : undefined;
    if (row !== undefined) edits.push(...idCellEdits(lines, scenario, row, id, options));
    else {
      const e = idTagEdit(lines, scenario.tags, scenario.location.line, (n) => idOfTag(n, options, false) !== undefined, id === undefined ? undefined : idTag(id, options));
      if (e) edits.push(e);
    }
  }
  if (typeof fields.title === 'string' && fields.title.trim() !== '') {
    const name = row === undefined ? fields.title : outlineName(scenario, row, fields.title, options);
    if (name !== undefined && name !== scenario.name.trim()) edits.push(titleEdit(lines, scenario, name));
  }
  if ('steps' in fields && row === undefined) {
    const wanted = documentSteps(fields.steps, options.background === 'step_group' && (backgroundOf(feature)?.steps.length ?? 0) > 0);
    if (wanted) edits.push(...stepEdits(lines, scenario, wanted, options, dialect));
  }
  return applyEdits(lines, edits, eol);
}

/** A new scenario at the end of the file, with the indentation and keyword of the file's scenarios. */
function appendScenario(lines: string[], feature: Feature, fields: ItemDocument, options: GherkinOptions, dialect: Dialect, file: string): LineEdit {
  const first = scenariosOf(feature)[0]?.scenario;
  const indent = first ? indentOf(lines[first.location.line - 1]) : '  ';
  // a Scenario Outline's keyword would want examples
  const keyword = first && dialect.scenario.includes(first.keyword) ? first.keyword : firstWord(dialect.scenario);
  const title = typeof fields.title === 'string' ? fields.title : '';
  const background = options.background === 'step_group' && (backgroundOf(feature)?.steps.length ?? 0) > 0;
  const wanted = 'steps' in fields && fields.steps !== undefined ? documentSteps(fields.steps, background) : [];
  if (wanted === undefined) throw new TmsyncError('invalid_gherkin', `cannot add "${title}" to ${file}: one of its steps uses a step group, which Gherkin cannot say`, { hint: 'set gherkin.new_scenarios: yaml, or write the scenario by hand' });
  const step = `${indent}${indent.includes('	') ? '	' : '  '}`;
  const last = lines[lines.length - 1];
  const out = last === undefined || bodyOf(last).trim() === '' ? [] : [''];
  if (typeof fields.id === 'string') out.push(`${indent}${idTag(fields.id, options)}`);
  out.push(`${indent}${keyword}: ${title}`, ...wanted.flatMap((s) => renderUnit(s, dialect, step, `${step}${step.includes('	') ? '	' : '  '}`)));
  return { start: lines.length, end: lines.length, lines: out };
}

/** An expanded row's title back to the outline's name: only when it still ends with the row's suffix. */
function outlineName(scenario: Scenario, rowNumber: number, title: string, options: GherkinOptions): string | undefined {
  const row = expandedRows(scenario).find((r) => r.number === rowNumber);
  if (!row) return undefined;
  const suffix = options.outlineTitleColumn !== undefined ? row.params.get(options.outlineTitleColumn) : row.row.cells[0]?.value;
  if (suffix === undefined || suffix === '') return title;
  const end = ` (${suffix})`;
  return title.endsWith(end) ? title.slice(0, -end.length) : undefined;
}
