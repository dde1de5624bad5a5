import { structuredPatch } from 'diff';
import type { FieldChange, Operation, UnmanagedItem } from './operations.js';

/**
 * What the text and markdown renderers share: one table from operation kind to symbol and
 * heading, and field changes as `old → new` or, for long texts, a unified line diff.
 */

export type Action = 'create' | 'update' | 'move' | 'delete' | 'adopt';

export const SYMBOLS: Record<Action, string> = { create: '+', update: '~', move: '→', delete: '-', adopt: '=' };
export const ACTION_ORDER: Action[] = ['create', 'update', 'move', 'delete', 'adopt'];

export function actionOf(op: Operation): Action {
  switch (op.kind) {
    case 'create_folder':
    case 'create_step_group':
    case 'create_case':
      return 'create';
    case 'update_folder':
    case 'update_step_group':
    case 'update_case':
      return 'update';
    case 'move_folder':
    case 'move_case':
      return 'move';
    case 'delete_folder':
    case 'delete_step_group':
    case 'delete_case':
      return 'delete';
    case 'adopt':
      return 'adopt';
  }
}

const join = (path: readonly string[]) => path.join('/');
const inFolder = (path: readonly string[], title: string) => (path.length > 0 ? `${join(path)} › ${title}` : title);

export interface OpHeading {
  /** `case`, `folder`, `step group` */
  type: string;
  /** human id when the item has one */
  humanId?: string;
  /** path and title */
  name: string;
  /** a short note after the name: where it moves, the file an id is written to */
  note?: string;
}

export function headingOf(op: Operation): OpHeading {
  switch (op.kind) {
    case 'create_folder':
      return { type: 'folder', name: join(op.path) };
    case 'update_folder':
      return { type: 'folder', name: join(op.path), note: adoptNote(op.writeBack) };
    case 'move_folder':
      return { type: 'folder', name: join(op.path), note: `moved from ${join(op.fromPath) || '(top level)'}` };
    case 'delete_folder':
      return { type: 'folder', name: join(op.path) };
    case 'create_step_group':
      return { type: 'step group', name: op.body.title, note: op.writeBack.file };
    case 'update_step_group':
      return { type: 'step group', humanId: op.humanId, name: op.body.title, note: adoptNote(op.writeBack) };
    case 'delete_step_group':
      return { type: 'step group', humanId: op.humanId, name: op.title };
    case 'create_case':
      return { type: 'case', name: inFolder(op.path, op.body.title), note: op.writeBack.file };
    case 'update_case': {
      const notes = [op.fromPath ? `moved from ${join(op.fromPath)}` : undefined, adoptNote(op.writeBack)].filter(Boolean);
      return { type: 'case', humanId: op.humanId, name: inFolder(op.path, op.body.title), note: notes.join('; ') || undefined };
    }
    case 'move_case':
      return { type: 'case', humanId: op.humanId, name: inFolder(op.path, op.title), note: `moved from ${join(op.fromPath)}` };
    case 'delete_case':
      return { type: 'case', humanId: op.humanId, name: inFolder(op.path, op.title) };
    case 'adopt':
      return {
        type: op.itemType === 'step_group' ? 'step group' : op.itemType,
        humanId: op.humanId,
        name: op.itemType === 'case' ? inFolder(op.path, op.title) : op.itemType === 'folder' ? join(op.path) : op.title,
        note: `id written back to ${op.writeBack.file}`,
      };
  }
}

function adoptNote(writeBack: { file: string; id?: string } | undefined): string | undefined {
  if (!writeBack) return undefined;
  return `= adopt: id ${writeBack.id !== undefined ? `${writeBack.id} ` : ''}written back to ${writeBack.file}`;
}

export function unmanagedHeading(u: UnmanagedItem): OpHeading {
  const type = u.itemType === 'step_group' ? 'step group' : u.itemType;
  const name = u.itemType === 'case' ? inFolder(u.path, u.title) : u.itemType === 'folder' ? join(u.path) : u.title;
  return { type, humanId: u.humanId, name };
}

export function headingText(h: OpHeading): string {
  return `${h.type} ${h.humanId ? `${h.humanId} ` : ''}${h.name}`;
}

/** The changes an operation shows (creates list the values they set). */
export function changesOf(op: Operation): FieldChange[] {
  switch (op.kind) {
    case 'update_folder':
    case 'update_step_group':
    case 'update_case':
      return op.changes;
    case 'create_case':
    case 'create_step_group':
      return op.changes ?? [];
    case 'create_folder':
      return op.order !== undefined ? [{ field: 'order', from: '', to: String(op.order) }] : [];
    default:
      return [];
  }
}

/** Multi-line or longer than 60 characters: shown as a unified diff, not `old → new`. */
export function isLong(change: FieldChange): boolean {
  return change.from.includes('\n') || change.to.includes('\n') || change.from.length > 60 || change.to.length > 60;
}

export function quote(value: string): string {
  return value === '' ? '(empty)' : JSON.stringify(value);
}

/** Unified diff lines (`@@`, ` `, `-`, `+`) of a long text change. */
export function diffLines(change: FieldChange): string[] {
  const from = change.from === '' ? '' : `${change.from}\n`;
  const to = change.to === '' ? '' : `${change.to}\n`;
  const patch = structuredPatch('before', 'after', from, to, '', '', { context: 3 });
  const out: string[] = [];
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const line of h.lines) if (!line.startsWith('\\')) out.push(line);
  }
  return out;
}
