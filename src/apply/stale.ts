import type { ActualState } from '../model.js';
import { folderFingerprint } from '../plan/build-plan.js';
import { actionOf, itemTypeOf, itemTypeWords, kindWords } from '../plan/operation-kinds.js';
import type { Operation, Plan } from '../plan/operations.js';
import { canonicalJson } from '../canonical-json.js';

/**
 * Is a saved plan still the plan? Pure. A saved plan is applied only when the repository and every
 * remote item it touches are as they were when it was made: the repository's content hash, the
 * recorded `updated_at` (or folder fingerprint) of each touched item, and, to catch items that
 * appeared since (a case someone created by hand would now be adopted, not created), the
 * operations a fresh plan computes from today's inputs.
 */
export interface StaleItem {
  /** `case:<id>`, an operation key, or `repository` */
  key: string;
  /** what people read: `case DEMO-12 changed on the service`, … */
  message: string;
}

/**
 * The stale-plan error's message: a heading, then one reason per line (a plan touching hundreds of
 * items lists at most `limit` of them and counts the rest).
 */
export function staleMessage(items: readonly StaleItem[], limit = 20): string {
  const shown = items.slice(0, limit).map((s) => `  - ${s.message}`);
  if (items.length > limit) shown.push(`  - … and ${items.length - limit} more (all of them under details.changed with --json)`);
  return `the saved plan is stale (${items.length} reason${items.length === 1 ? '' : 's'}):\n${shown.join('\n')}`;
}

/** The current version of each item a plan recorded, in the plan's format. */
function currentVersions(actual: ActualState, keys: Iterable<string>): Record<string, string | undefined> {
  const cases = new Map(actual.cases.map((c) => [c.id, c]));
  const groups = new Map(actual.stepGroups.map((g) => [g.id, g]));
  const folders = new Map(actual.folders.map((f) => [f.id, f]));
  const out: Record<string, string | undefined> = {};
  for (const key of keys) {
    const i = key.indexOf(':');
    const type = key.slice(0, i);
    const id = key.slice(i + 1);
    if (type === 'case') out[key] = cases.has(id) ? String(cases.get(id)!.updatedAt) : undefined;
    else if (type === 'step_group') out[key] = groups.has(id) ? String(groups.get(id)!.updatedAt) : undefined;
    else if (type === 'folder') out[key] = folders.has(id) ? folderFingerprint(folders.get(id)!) : undefined;
  }
  return out;
}

/** Everything that changed since the plan was saved; empty when it can be applied. */
export function staleItems(
  saved: Plan,
  current: { contentHash: string; actual: ActualState; fresh: Plan },
): StaleItem[] {
  const out: StaleItem[] = [];
  if (current.actual.project.id !== saved.project.id) {
    out.push({
      key: 'project',
      message: `the plan is for project ${saved.project.name} (${saved.project.id}), not ${current.actual.project.name} (${current.actual.project.id})`,
    });
    return out;
  }
  const names = itemNames(saved.operations);
  const now = currentVersions(current.actual, Object.keys(saved.remoteVersions));
  for (const [key, version] of Object.entries(saved.remoteVersions)) {
    const name = names.get(key) ?? key.replace(':', ' ');
    if (now[key] === undefined) out.push({ key, message: `${name} was deleted on the service` });
    else if (now[key] !== version) out.push({ key, message: `${name} changed on the service` });
  }
  const repoChanged = current.contentHash !== saved.contentHash;
  if (repoChanged || out.length === 0) {
    // name the items whose operation is no longer the same
    const before = new Map(saved.operations.map((op) => [op.key, canonicalJson(op)]));
    const after = new Map(current.fresh.operations.map((op) => [op.key, canonicalJson(op)]));
    const changedOps: StaleItem[] = [];
    for (const op of saved.operations) {
      if (after.get(op.key) !== before.get(op.key)) {
        changedOps.push({ key: op.key, message: `${describeOp(op)}: ${after.has(op.key) ? 'would now be planned differently' : 'is no longer planned'}` });
      }
    }
    for (const op of current.fresh.operations) {
      if (!before.has(op.key)) changedOps.push({ key: op.key, message: `${describeOp(op)}: is newly planned` });
    }
    if (repoChanged) out.push({ key: 'repository', message: 'the repository changed since the plan was saved' });
    out.push(...changedOps);
  }
  return out;
}

function itemNames(ops: readonly Operation[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const op of ops) {
    if (!('id' in op)) continue;
    const type = itemTypeOf(op);
    const human = 'humanId' in op && op.humanId ? op.humanId : undefined;
    const label =
      type === 'folder'
        ? `folder ${'path' in op ? op.path.join('/') : op.id}`
        : `${itemTypeWords(type)} ${human ?? op.id}`;
    names.set(`${type}:${op.id}`, label);
  }
  return names;
}

/** `update case DEMO-12 (cases/a.yaml)`, `create folder Checkout/Payments`. */
function describeOp(op: Operation): string {
  const verb = kindWords(op.kind);
  const human = 'humanId' in op && op.humanId ? op.humanId : undefined;
  const path = 'path' in op ? op.path.join('/') : undefined;
  const file = 'writeBack' in op && op.writeBack?.file ? op.writeBack.file : /^[a-z_]+:(.+\.ya?ml)$/.exec(op.key)?.[1];
  const name = actionOf(op) !== 'adopt' && itemTypeOf(op) === 'folder' ? path : (human ?? file ?? path ?? op.key);
  return `${verb} ${name}${file && name !== file ? ` (${file})` : ''}`;
}
