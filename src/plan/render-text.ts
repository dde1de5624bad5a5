import {
  ACTION_ORDER,
  SYMBOLS,
  actionOf,
  changesOf,
  detailedInCompact,
  diffLines,
  folderRows,
  headingText,
  isCompact,
  headingOf,
  isLong,
  quote,
  unmanagedHeading,
  type Action,
} from './describe.js';
import type { PlanDisplay } from './display.js';
import type { FieldChange, Operation, Plan } from './operations.js';
import { summaryLine } from './summary.js';
import { safeInline, safeLines, safeLineStart } from '../safe-text.js';
import { byItem, CONFLICTS_HEADING, conflictSettled, conflictWaysOut, itemText, REMOTE_CHANGES_HEADING, REMOTE_CHANGES_NOTE, withoutBaseLine } from './render-sync.js';

export interface RenderTextOptions {
  /** ANSI colours; only when writing to a terminal and not `--no-color` */
  color: boolean;
  /**
   * a table per folder with counts, details only for updates and deletes (`--compact`); false:
   * every item in detail; unset: compact above `COMPACT_ABOVE` operations (describe.ts)
   */
  compact?: boolean | undefined;
  /**
   * the plan of a migration: its unmanaged items are in the target and not in the source, which
   * nothing deletes (there is no repository, and no --prune) @default false
   */
  migration?: boolean;
  /** what `buildPlan` returned beside the plan, to show a new case's values (`PlanDisplay`); a saved plan needs none */
  display?: PlanDisplay | undefined;
}

const ANSI = { red: 31, green: 32, yellow: 33, blue: 34, cyan: 36, dim: 2, bold: 1 } as const;
type Colour = keyof typeof ANSI;
const ACTION_COLOUR: Record<Action, Colour> = { create: 'green', update: 'yellow', move: 'cyan', delete: 'red', adopt: 'blue' };
const LEGEND: Record<Action, string> = { create: 'create', update: 'update', move: 'move', delete: 'delete', adopt: 'adopt (id written back)' };

/**
 * The plan for a terminal, terraform style: a legend of the symbols that occur, one block per item
 * (symbol, type, human id, path) with field changes `old → new` or a unified diff for long texts,
 * the unmanaged items, warnings, and the summary line last.
 */
export function renderPlanText(plan: Plan, options: RenderTextOptions): string {
  return `${[...planTextLines(plan, options)].join('\n')}\n`;
}

/**
 * `renderPlanText` in pieces of about `lines` lines, each ending with a newline (joined, they are
 * exactly `renderPlanText`): the plan of many creates is tens of millions of characters, written
 * piece by piece instead of being held whole (issue 15).
 */
export function* planTextChunks(plan: Plan, options: RenderTextOptions, lines = 2000): Generator<string> {
  let chunk: string[] = [];
  for (const line of planTextLines(plan, options)) {
    chunk.push(line);
    if (chunk.length >= lines) {
      yield `${chunk.join('\n')}\n`;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield `${chunk.join('\n')}\n`;
}

/** Every line of the plan, none beginning with what a CI runner takes for a command (`safe-text.ts`). */
function* planTextLines(plan: Plan, options: RenderTextOptions): Generator<string> {
  for (const line of unguardedLines(plan, options)) yield safeLineStart(line);
}

function* unguardedLines(plan: Plan, options: RenderTextOptions): Generator<string> {
  const paint = (colour: Colour, text: string) => (options.color ? `\u001b[${ANSI[colour]}m${text}\u001b[0m` : text);
  if (plan.operations.length > 0) {
    const used = ACTION_ORDER.filter((a) => plan.operations.some((op) => actionOf(op) === a));
    yield `tmsync will perform the following actions on project ${safeInline(plan.project.humanIdPrefix)} (${safeInline(plan.project.name)}):`;
    yield '';
    yield `Legend: ${used.map((a) => `${paint(ACTION_COLOUR[a], SYMBOLS[a])} ${LEGEND[a]}`).join('   ')}`;
    yield '';
    if (isCompact(plan, options.compact)) {
      yield* compactTable(plan, used, paint);
      const detailed = plan.operations.filter((op) => detailedInCompact(actionOf(op)));
      if (detailed.length > 0) {
        yield '';
        yield 'Updates and deletes in detail:';
        yield '';
        for (const op of detailed) yield* opBlock(op, paint, options.display);
      }
    } else for (const op of plan.operations) yield* opBlock(op, paint, options.display);
    yield '';
  }
  // pruned items already show as red `-` blocks above; list what stays unmanaged
  const kept = plan.unmanaged.filter((u) => !u.pruned);
  if (kept.length > 0) {
    yield options.migration
      ? 'In the target but not in the source (left as they are):'
      : plan.prune
        ? 'Not managed by this repository, kept although --prune is set (still in use):'
        : 'Not managed by this repository (--prune deletes them):';
    for (const u of kept) yield `  ${headingText(unmanagedHeading(u))}`;
    yield '';
  }
  const sync = plan.sync;
  if (sync && sync.remoteChanges.length > 0) {
    yield `${REMOTE_CHANGES_HEADING} (${REMOTE_CHANGES_NOTE}):`;
    for (const { item, entries } of byItem(sync.remoteChanges)) {
      yield `  ${paint('blue', '<')} ${paint('bold', itemText(item))}`;
      for (const line of changeBlock(entries, false, paint)) yield `      ${line}`;
    }
    yield '';
  }
  if (sync && sync.conflicts.length > 0) {
    yield paint('red', `${CONFLICTS_HEADING}${sync.prefer ? ` (${conflictSettled(sync.prefer)})` : ''}:`);
    for (const { item, entries } of byItem(sync.conflicts)) {
      yield `  ${paint('red', '!')} ${paint('bold', itemText(item))}`;
      for (const c of entries) {
        yield `      ${safeInline(c.field)}:`;
        yield* sideLines('repository: ', c.local);
        yield* sideLines('service:    ', c.remote);
      }
    }
    if (!sync.prefer) yield `  To apply, ${conflictWaysOut()}.`;
    yield '';
  }
  const noBase = withoutBaseLine(plan);
  if (noBase) {
    yield `Note: ${noBase}`;
    yield '';
  }
  if (plan.warnings.length > 0) {
    yield 'Warnings:';
    for (const w of plan.warnings) yield `  ${paint('yellow', '!')} ${w.file ? `${safeInline(w.file)}${w.line ? `:${w.line}` : ''}: ` : ''}${safeInline(w.message)}`;
    yield '';
  }
  yield paint('bold', summaryLine(plan));
}

/** One operation: its heading line, then its field changes (a delete: one red line). */
function* opBlock(op: Operation, paint: (c: Colour, t: string) => string, display: PlanDisplay | undefined): Generator<string> {
  const action = actionOf(op);
  const h = headingOf(op);
  if (action === 'delete') {
    // deletes only come from --prune: the whole line in red, so it cannot be overlooked
    yield paint('red', `${SYMBOLS[action]} ${headingText(h)}  (not in the repository; deleted by --prune)`);
    return;
  }
  const note = h.note ? paint('dim', `  (${safeInline(h.note)})`) : '';
  yield `${paint(ACTION_COLOUR[action], SYMBOLS[action])} ${paint('bold', headingText(h))}${note}`;
  for (const line of changeBlock(changesOf(op, display), action === 'create', paint)) yield `    ${line}`;
}

/** The compact plan's table: a row per folder, a column per action the plan holds (`folderRows`). */
function* compactTable(plan: Plan, used: Action[], paint: (c: Colour, t: string) => string): Generator<string> {
  const rows = folderRows(plan.operations);
  const names = rows.map((r) => safeInline(r.where));
  const first = Math.max('Folder'.length, ...names.map((n) => n.length));
  const heads = used.map((a) => `${SYMBOLS[a]} ${a}`);
  yield `${'Folder'.padEnd(first)}  ${heads.join('  ')}`;
  for (const [i, row] of rows.entries()) {
    const cells = used.map((a, j) => {
      const n = row.counts[a];
      const text = String(n).padStart(heads[j].length);
      return n > 0 ? paint(ACTION_COLOUR[a], text) : text;
    });
    yield `${names[i].padEnd(first)}  ${cells.join('  ')}`;
  }
}

function changeBlock(changes: FieldChange[], isCreate: boolean, paint: (c: Colour, t: string) => string): string[] {
  const lines: string[] = [];
  for (const c of changes) {
    if (isCreate) {
      if (c.to.includes('\n')) {
        lines.push(`${safeInline(c.field)}:`);
        for (const l of safeLines(c.to)) lines.push(`  ${paint('green', `+ ${l}`)}`);
      } else lines.push(`${safeInline(c.field)}: ${quote(c.to)}`);
      continue;
    }
    if (!isLong(c)) {
      lines.push(`${safeInline(c.field)}: ${paint('red', quote(c.from))} → ${paint('green', quote(c.to))}`);
      continue;
    }
    lines.push(`${safeInline(c.field)}:`);
    for (const l of diffLines(c)) {
      const colour: Colour | undefined = l.startsWith('@@') ? 'cyan' : l.startsWith('+') ? 'green' : l.startsWith('-') ? 'red' : undefined;
      lines.push(`  ${colour ? paint(colour, l) : l}`);
    }
  }
  return lines;
}

/** One side of a conflict: a quoted value on its line, or a multi-line value (steps) as an indented block. */
function sideLines(label: string, value: string): string[] {
  if (!value.includes('\n')) return [`        ${label}${quote(value)}`];
  return [`        ${label.trimEnd()}`, ...safeLines(value).map((l) => `          | ${l}`)];
}
