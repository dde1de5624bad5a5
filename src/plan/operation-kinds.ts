import { createCaseChanges, type PlanDisplay } from './display.js';
import type { FieldChange, Operation, OperationKind, WriteBack } from './operations.js';

/**
 * The one table of operation kinds: for each kind, the remote item it acts on, what it does in the
 * plan's summary, its description in words, and how the renderers show it. Code elsewhere asks
 * this table (`itemTypeOf`, `actionOf`, …) instead of switching on kind names; the request column
 * lives beside the executor (`src/apply/operation-requests.ts`, keyed by the same kinds), as `plan/` stays
 * pure. A new kind fails to compile until it has an entry here and there.
 */

type ItemType = 'folder' | 'case' | 'step_group' | 'test_plan' | 'test_run';
export type Action = 'create' | 'update' | 'move' | 'delete' | 'adopt';

/** What the text and markdown renderers show as an operation's heading. */
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

interface OperationKindEntry<K extends OperationKind> {
  /** the kind of remote item; `adopt` names its own (`op.itemType`) */
  itemType: ItemType | ((op: Extract<Operation, { kind: K }>) => ItemType);
  /** the summary column it counts in */
  action: Action;
  /** in words, for messages: `create case`, `move folder` */
  words: string;
  heading: (op: Extract<Operation, { kind: K }>) => OpHeading;
  /** the field changes it shows (creates list the values they set), with what the renderers have beside the plan */
  changes: (op: Extract<Operation, { kind: K }>, display: PlanDisplay | undefined) => FieldChange[];
}

const join = (path: readonly string[]) => path.join('/');
const inFolder = (path: readonly string[], title: string) => (path.length > 0 ? `${join(path)} › ${title}` : title);
const none = (): FieldChange[] => [];
const own = (op: { changes: FieldChange[] }) => op.changes;
const setValues = (op: { changes?: FieldChange[] }) => op.changes ?? [];
const TYPE_WORDS: Record<ItemType, string> = { folder: 'folder', case: 'case', step_group: 'step group', test_plan: 'test plan', test_run: 'test run' };

function adoptNote(writeBack: WriteBack | undefined): string | undefined {
  if (!writeBack) return undefined;
  return `= adopt: id ${writeBack.id !== undefined ? `${writeBack.id} ` : ''}written back to ${writeBack.file}`;
}

const OPERATION_KINDS: { readonly [K in OperationKind]: OperationKindEntry<K> } = {
  create_folder: {
    itemType: 'folder',
    action: 'create',
    words: 'create folder',
    heading: (op) => ({ type: 'folder', name: join(op.path) }),
    changes: (op) => (op.order !== undefined ? [{ field: 'order', from: '', to: String(op.order) }] : []),
  },
  update_folder: {
    itemType: 'folder',
    action: 'update',
    words: 'update folder',
    heading: (op) => ({ type: 'folder', name: join(op.path), note: adoptNote(op.writeBack) }),
    changes: own,
  },
  move_folder: {
    itemType: 'folder',
    action: 'move',
    words: 'move folder',
    heading: (op) => ({ type: 'folder', name: join(op.path), note: `moved from ${join(op.fromPath) || '(top level)'}` }),
    changes: none,
  },
  delete_folder: {
    itemType: 'folder',
    action: 'delete',
    words: 'delete folder',
    heading: (op) => ({ type: 'folder', name: join(op.path) }),
    changes: none,
  },
  create_step_group: {
    itemType: 'step_group',
    action: 'create',
    words: 'create step group',
    heading: (op) => ({ type: 'step group', name: op.body.title, note: op.writeBack.file }),
    changes: setValues,
  },
  update_step_group: {
    itemType: 'step_group',
    action: 'update',
    words: 'update step group',
    heading: (op) => ({ type: 'step group', humanId: op.humanId, name: op.body.title, note: adoptNote(op.writeBack) }),
    changes: own,
  },
  delete_step_group: {
    itemType: 'step_group',
    action: 'delete',
    words: 'delete step group',
    heading: (op) => ({ type: 'step group', humanId: op.humanId, name: op.title }),
    changes: none,
  },
  create_case: {
    itemType: 'case',
    action: 'create',
    words: 'create case',
    heading: (op) => ({ type: 'case', name: inFolder(op.path, op.body.title), note: op.writeBack.file }),
    changes: createCaseChanges,
  },
  update_case: {
    itemType: 'case',
    action: 'update',
    words: 'update case',
    heading: (op) => {
      const notes = [op.fromPath ? `moved from ${join(op.fromPath)}` : undefined, adoptNote(op.writeBack)].filter(Boolean);
      return { type: 'case', humanId: op.humanId, name: inFolder(op.path, op.body.title), note: notes.join('; ') || undefined };
    },
    changes: own,
  },
  move_case: {
    itemType: 'case',
    action: 'move',
    words: 'move case',
    heading: (op) => ({ type: 'case', humanId: op.humanId, name: inFolder(op.path, op.title), note: `moved from ${join(op.fromPath)}` }),
    changes: none,
  },
  delete_case: {
    itemType: 'case',
    action: 'delete',
    words: 'delete case',
    heading: (op) => ({ type: 'case', humanId: op.humanId, name: inFolder(op.path, op.title) }),
    changes: none,
  },
  create_test_plan: {
    itemType: 'test_plan',
    action: 'create',
    words: 'create test plan',
    heading: (op) => ({ type: 'test plan', name: op.title }),
    changes: none,
  },
  complete_test_plan: {
    itemType: 'test_plan',
    action: 'update',
    words: 'complete test plan',
    heading: (op) => ({ type: 'test plan', name: op.title, note: 'completed' }),
    changes: () => [{ field: 'status', from: 'ACTIVE', to: 'COMPLETED' }],
  },
  create_test_run: {
    itemType: 'test_run',
    action: 'create',
    words: 'create test run',
    heading: (op) => ({ type: 'test run', name: op.title, note: `${op.cases.length} case${op.cases.length === 1 ? '' : 's'}, ${op.results.length} result${op.results.length === 1 ? '' : 's'}${op.close ? ', closed' : ''}` }),
    changes: none,
  },
  adopt: {
    itemType: (op) => op.itemType,
    action: 'adopt',
    words: 'adopt',
    heading: (op) => ({
      type: TYPE_WORDS[op.itemType],
      humanId: op.humanId,
      name: op.itemType === 'case' ? inFolder(op.path, op.title) : op.itemType === 'folder' ? join(op.path) : op.title,
      note: `id written back to ${op.writeBack.file}`,
    }),
    changes: none,
  },
};

/** Any entry, seen through the whole union: each entry accepts its own kind, which `op.kind` picks. */
type AnyEntry = OperationKindEntry<OperationKind>;
const entryOf = (op: Operation): AnyEntry => OPERATION_KINDS[op.kind] as AnyEntry;

export function itemTypeOf(op: Operation): ItemType {
  const t = entryOf(op).itemType;
  return typeof t === 'function' ? t(op) : t;
}
export function actionOf(op: Operation): Action {
  return OPERATION_KINDS[op.kind].action;
}
/** Whether a string (from a journal, say) names an operation kind. */
export function isOperationKind(kind: string): kind is OperationKind {
  return Object.hasOwn(OPERATION_KINDS, kind);
}
/** Whether an operation of this kind creates a remote item (its POST is never repeated blindly). */
export function kindCreates(kind: OperationKind): boolean {
  return OPERATION_KINDS[kind].action === 'create';
}
/** `create case`, `move folder`, … */
export function kindWords(kind: OperationKind): string {
  return OPERATION_KINDS[kind].words;
}
export function headingOf(op: Operation): OpHeading {
  return entryOf(op).heading(op);
}
export function changesOf(op: Operation, display: PlanDisplay | undefined): FieldChange[] {
  return entryOf(op).changes(op, display);
}
export function itemTypeWords(type: ItemType): string {
  return TYPE_WORDS[type];
}
