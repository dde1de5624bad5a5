import type { RemoteCase, RemoteFolder, RemoteStepGroup } from '../model.js';
import { withRemoteCaseFields } from '../plan/case-body.js';
import type { MoveCaseOp, MoveFolderOp, Operation, Prefer, UpdateCaseOp, UpdateFolderOp, UpdateStepGroupOp } from '../plan/operations.js';
import { normalizeTitle } from '../base/normalize-text.js';
import { keepRemoteGroupFields } from '../plan/step-groups.js';
import { display } from '../plan/sync.js';
import { caseFieldValues, desiredCaseFieldValues, desiredStepGroupFieldValues, fieldLabel, isListField, refValue, sameValue, stepGroupFieldValues, type FieldValues } from '../base/field-values.js';

/**
 * The write guard's re-classification (docs/sync.md, "When the service changes during an apply").
 * Pure. An update is built from what the plan read of the service; just before it is sent, the
 * write guard (`write-guard.ts`) reads the item again, and an item that changed since is compared
 * three ways, field by field, with what the plan read as the base:
 *
 * - a field the service changed and the operation does not change: merged (the service's value is
 *   sent, so the update does not revert it);
 * - a field both changed, to different values: a conflict. Not sent (the whole operation waits),
 *   unless `prefer` settles it: `local` sends the repository's value, `remote` the service's;
 * - a field both changed to the same value, or one only the operation changes: sent as planned.
 *
 * The fields compared are those the request sends: a case's managed fields and its folder, a step
 * group's (a full replacement: every step), a folder's name (a rename) and parent (a move). A
 * folder's `order` is not compared: it is a position among siblings, which moves whenever a
 * sibling is added, moved or removed, by this apply too.
 */

/** The operations the write guard checks before they are sent. */
export type GuardedOp = UpdateCaseOp | MoveCaseOp | UpdateStepGroupOp | UpdateFolderOp | MoveFolderOp;

export function isGuarded(op: Operation): op is GuardedOp {
  switch (op.kind) {
    case 'update_case':
    case 'move_case':
    case 'update_step_group':
    case 'update_folder':
    case 'move_folder':
      return true;
    default:
      return false;
  }
}

/** The item a guarded operation writes, as the service holds it: what the plan read, or what the check read. */
export type GuardedItem = RemoteCase | RemoteStepGroup | RemoteFolder;

/** A field changed on both sides since the plan read the item. */
interface RecheckConflict {
  /** the field as the plan names it (the YAML key, `folder`, `step 2`, `deleted`) */
  field: string;
  /** what the operation would send */
  local: string;
  /** the service's value now */
  remote: string;
}

interface Recheck {
  /** the operation to send (as planned, or with the service's values merged in); absent: not sent (an open conflict) */
  send?: GuardedOp;
  /** fields the service changed since the plan read them, sent as the service holds them (as the plan names them) */
  merged: string[];
  /** fields changed on both sides since the plan read them (open, or settled by `prefer`) */
  conflicts: RecheckConflict[];
  /** how the conflicts were settled; absent: they are open and nothing is sent */
  settled?: Prefer;
  /**
   * Values (compare form) the sync base records for these fields instead of the plan's: a conflict
   * settled for the service keeps the value the plan read, so the next plan still finds it.
   */
  record?: FieldValues;
}

/**
 * Re-classifies one guarded operation. `before`: the item as the plan read it; `now`: as the check
 * read it (undefined: deleted on the service since). `resolve` gives the id of a reference (a folder
 * this apply created), undefined when it cannot (then the operation changes that field).
 */
export function recheck(op: GuardedOp, before: GuardedItem, now: GuardedItem | undefined, prefer: Prefer | undefined, resolve: (ref: { id: string } | { op: string }) => string | undefined = refId): Recheck {
  if (now === undefined) {
    // nothing to merge into: the update would fail or bring the item back; the next plan sees the deletion
    return { merged: [], conflicts: [{ field: 'deleted', local: 'changed in the repository', remote: 'deleted on the service' }] };
  }
  // no shortcut on an equal `updated_at`: in whole seconds (the interface document's unit) an edit
  // made within the second the plan read the item leaves it as it was
  switch (op.kind) {
    case 'update_case':
    case 'move_case':
      return recheckCase(op, before as RemoteCase, now as RemoteCase, prefer, resolve);
    case 'update_step_group':
      return recheckStepGroup(op, before as RemoteStepGroup, now as RemoteStepGroup, prefer);
    case 'update_folder':
    case 'move_folder':
      return recheckFolder(op, before as RemoteFolder, now as RemoteFolder, prefer, resolve);
  }
}

function refId(ref: { id: string } | { op: string }): string | undefined {
  return 'id' in ref ? ref.id : undefined;
}

/** How each field the request sends stands against the plan's read and the check's. */
interface FieldOutcome {
  merged: string[];
  conflicts: (RecheckConflict & { name: string })[];
}

/**
 * `sent`, `before` and `now` in compare form; the fields compared are those `sent` holds, and list
 * elements (`step.N`) any side holds. A field a side does not report (labels) is not compared.
 */
export function threeWay(sent: FieldValues, before: FieldValues, now: FieldValues): FieldOutcome {
  const names = new Set(Object.keys(sent));
  for (const n of [...Object.keys(before), ...Object.keys(now)]) if (isListField(n)) names.add(n);
  const out: FieldOutcome = { merged: [], conflicts: [] };
  for (const name of names) {
    const at = (v: FieldValues) => (name in v ? v[name] : isListField(name) ? null : undefined);
    const s = at(sent);
    const b = at(before);
    const n = at(now);
    if (s === undefined || b === undefined || n === undefined || sameValue(b, n) || sameValue(s, n)) continue;
    if (sameValue(s, b)) out.merged.push(name);
    else out.conflicts.push({ name, field: fieldLabel(name), local: display(s), remote: display(n) });
  }
  return out;
}

/**
 * What an outcome means for the operation: merged fields and conflicts settled for the service take
 * the service's value (`take`), an open conflict stops it.
 */
function settle(outcome: FieldOutcome, prefer: Prefer | undefined, before: FieldValues, build: (take: ReadonlySet<string>) => GuardedOp): Recheck {
  const conflicts = outcome.conflicts.map(({ field, local, remote }) => ({ field, local, remote }));
  const merged = outcome.merged.map(fieldLabel);
  if (conflicts.length > 0 && !prefer) return { merged, conflicts };
  const take = new Set(outcome.merged);
  let record: FieldValues | undefined;
  if (prefer === 'remote') {
    for (const c of outcome.conflicts) {
      take.add(c.name);
      (record ??= {})[c.name] = c.name in before ? before[c.name] : null;
    }
  }
  return {
    send: take.size > 0 ? build(take) : undefined,
    merged,
    conflicts,
    ...(conflicts.length > 0 && prefer ? { settled: prefer } : {}),
    ...(record ? { record } : {}),
  };
}

function recheckCase(op: UpdateCaseOp | MoveCaseOp, before: RemoteCase, now: RemoteCase, prefer: Prefer | undefined, resolve: (ref: { id: string } | { op: string }) => string | undefined): Recheck {
  const folderRef = op.kind === 'update_case' ? op.body.folder : op.folder;
  const wantedFolder = resolve(folderRef) ?? refValue(folderRef);
  const sent: FieldValues = op.kind === 'update_case' ? { ...desiredCaseFieldValues(op.body), folder: wantedFolder } : { folder: wantedFolder };
  const b: FieldValues = { ...caseFieldValues(before), folder: before.folderId };
  const n: FieldValues = { ...caseFieldValues(now), folder: now.folderId };
  const outcome = threeWay(sent, b, n);
  const result = settle(outcome, prefer, b, (take) => {
    const folder = take.has('folder') ? { id: now.folderId } : folderRef;
    if (op.kind === 'move_case') return { ...op, folder };
    return { ...op, body: { ...withRemoteCaseFields(op.body, now, take), folder } };
  });
  return withSend(result, op);
}

function recheckStepGroup(op: UpdateStepGroupOp, before: RemoteStepGroup, now: RemoteStepGroup, prefer: Prefer | undefined): Recheck {
  const b = stepGroupFieldValues(before);
  const outcome = threeWay(desiredStepGroupFieldValues(op.body), b, stepGroupFieldValues(now));
  return withSend(settle(outcome, prefer, b, (take) => ({ ...op, body: keepRemoteGroupFields(op.body, now, take) })), op);
}

function recheckFolder(op: UpdateFolderOp | MoveFolderOp, before: RemoteFolder, now: RemoteFolder, prefer: Prefer | undefined, resolve: (ref: { id: string } | { op: string }) => string | undefined): Recheck {
  // a partial body: only the name (a rename) or the parent (a move) is sent, nothing to merge
  const sent: FieldValues =
    op.kind === 'update_folder' ? (op.name !== undefined ? { name: op.name } : {}) : { parent: op.parent === null ? null : (resolve(op.parent) ?? refValue(op.parent)) };
  const b = { name: normalizeTitle(before.name), parent: before.parentId };
  const outcome = threeWay(sent, b, { name: normalizeTitle(now.name), parent: now.parentId });
  outcome.merged = [];
  // taking the service's value of the one field sent: nothing left to send
  const result = settle(outcome, prefer, b, () => op);
  if (result.settled === 'remote') return { ...result, send: undefined };
  return withSend(result, op);
}

/** An outcome that can be sent and took no service value is sent as planned. */
function withSend(result: Recheck, op: GuardedOp): Recheck {
  if (result.conflicts.length > 0 && !result.settled) return result;
  return result.send ? result : { ...result, send: op };
}
