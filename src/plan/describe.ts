import { structuredPatch } from 'diff';
import { actionOf, itemTypeOf, itemTypeWords, type Action, type OpHeading } from './operation-kinds.js';
import type { FieldChange, Operation, Plan, UnmanagedItem } from './operations.js';
import { safeInline, safeLine } from '../safe-text.js';

/**
 * What the text and markdown renderers share: a symbol per action (the kinds' table,
 * `operation-kinds.ts`, gives each kind its action and heading), and field changes as `old → new`
 * or, for long texts, a unified line diff.
 */

export { actionOf, changesOf, headingOf, type Action } from './operation-kinds.js';

export const SYMBOLS: Record<Action, string> = { create: '+', update: '~', move: '→', delete: '-', adopt: '=' };
export const ACTION_ORDER: Action[] = ['create', 'update', 'move', 'delete', 'adopt'];

const join = (path: readonly string[]) => path.join('/');
const inFolder = (path: readonly string[], title: string) => (path.length > 0 ? `${join(path)} › ${title}` : title);

export function unmanagedHeading(u: UnmanagedItem): OpHeading {
  const type = itemTypeWords(u.itemType);
  const name = u.itemType === 'case' ? inFolder(u.path, u.title) : u.itemType === 'folder' ? join(u.path) : u.title;
  return { type, humanId: u.humanId, name };
}

/** A heading on one line: the human id and name as the service or the files hold them, made safe (`safe-text.ts`). */
export function headingText(h: OpHeading): string {
  return `${h.type} ${h.humanId ? `${safeInline(h.humanId)} ` : ''}${safeInline(h.name)}`;
}

/** Multi-line or longer than 60 characters: shown as a unified diff, not `old → new`. */
export function isLong(change: FieldChange): boolean {
  return change.from.includes('\n') || change.to.includes('\n') || change.from.length > 60 || change.to.length > 60;
}

/** A value in quotes on one line; JSON escapes C0 and newlines, `safeInline` what it leaves (C1, bidi controls). */
export function quote(value: string): string {
  return value === '' ? '(empty)' : safeInline(JSON.stringify(value));
}

/** Unified diff lines (`@@`, ` `, `-`, `+`) of a long text change, each made safe (`safeLine`). */
export function diffLines(change: FieldChange): string[] {
  const from = change.from === '' ? '' : `${change.from}\n`;
  const to = change.to === '' ? '' : `${change.to}\n`;
  const patch = structuredPatch('before', 'after', from, to, '', '', { context: 3 });
  const out: string[] = [];
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const line of h.lines) if (!line.startsWith('\\')) out.push(safeLine(line));
  }
  return out;
}

/**
 * Above this many operations a plan is shown compact unless `--no-compact` says otherwise: a
 * table per folder with counts, details only for updates and deletes (docs/plan.md).
 */
const COMPACT_ABOVE = 50;

/** Whether a plan is shown compact: as chosen (`--compact`, `--no-compact`), else by its size. */
export function isCompact(plan: Pick<Plan, 'operations'>, choice: boolean | undefined): boolean {
  return choice ?? plan.operations.length > COMPACT_ABOVE;
}

/** The actions a compact plan shows item by item; the others are only counted. */
export function detailedInCompact(action: Action): boolean {
  return action === 'update' || action === 'delete';
}

/** One row of a compact plan: where the items live, and how many of each action. */
interface FolderRow {
  /** a folder path, `(top level)`, or a kind of item that lives in no folder (`step groups`) */
  where: string;
  counts: Record<Action, number>;
}

/**
 * The compact plan's table: a row per folder (a folder's own operations count in its row, a
 * case's in its folder's), then step groups and the rest by kind, in the order the plan first
 * names them (the files' order).
 */
export function folderRows(ops: readonly Operation[]): FolderRow[] {
  const rows = new Map<string, FolderRow>();
  for (const op of ops) {
    const type = itemTypeOf(op);
    const where = (type === 'case' || type === 'folder') && 'path' in op ? join(op.path) || '(top level)' : `${itemTypeWords(type)}s`;
    let row = rows.get(where);
    if (!row) {
      row = { where, counts: { create: 0, update: 0, move: 0, delete: 0, adopt: 0 } };
      rows.set(where, row);
    }
    row.counts[actionOf(op)]++;
  }
  return [...rows.values()];
}
