import type { SyncRecords } from '../plan/sync.js';
import type { SyncBase } from '../base/base.js';
import { writeSyncBase } from '../base/base-file.js';
import { withHumanId, type FieldValues } from '../base/field-values.js';
import type { ApplyResult } from './execute-types.js';

/**
 * The sync base's side of the write engine (docs/sync.md): after a run, each item whose operations
 * all succeeded is recorded as synced (created, updated, moved, adopted, and the items the plan only
 * compared), each deleted item is forgotten, and the base is written atomically. An item whose
 * operation failed or was not started keeps the record it had.
 */
export interface SyncBaseOptions {
  /** the repository root: `tmsync.base` is written there */
  root: string;
  /** the base the plan was built with (read from the file); updated in place */
  base: SyncBase;
  /** what the plan says a successful apply synced (`buildPlan(...).synced`) */
  records: SyncRecords;
}

/** Records what a run synced in the base (no result: nothing was applied, every compared item is recorded). */
export function recordSynced(options: Pick<SyncBaseOptions, 'base' | 'records'>, result?: RecordedResult): void {
  const { base, records } = options;
  const notDone = new Set<string>([
    ...(result?.failed ?? []).filter((f) => f.stage === 'request').map((f) => f.key),
    ...(result?.skipped ?? []).map((s) => s.key),
    ...(result?.conflicts ?? []).filter((c) => !c.settled).map((c) => c.key),
  ]);
  const ids = result?.ids ?? {};
  const produced = (key: string) => ids[key]?.id;
  for (const f of records.forgets) if (f.op === undefined || (result && !notDone.has(f.op))) base.forget(f.kind, f.id);
  for (const r of records.records) {
    if (r.ops.length > 0 && (!result || r.ops.some((k) => notDone.has(k)))) {
      recordBaseline(base, r, result);
      continue;
    }
    const id = 'id' in r.ref ? r.ref.id : produced(r.ref.op);
    if (id === undefined) continue;
    let values = resolveOps(r.values, produced);
    if (!values) continue;
    // a conflict found while the apply ran and settled for the service: the value the plan read stays the base's
    for (const k of r.ops) if (result?.recordValues?.[k]) values = { ...values, ...result.recordValues[k] };
    const humanId = r.humanId ?? ('op' in r.ref ? ids[r.ref.op]?.humanId : undefined);
    const answered = r.ops.map((k) => result?.updatedAt?.[k]).find((v) => v !== undefined);
    // an update changes `updated_at`: without the answer's, the one read before is not recorded
    const updatedAt = answered ?? (r.ops.some((k) => !k.startsWith('adopt_')) ? undefined : r.updatedAt);
    base.record(r.kind, id, updatedAt, withHumanId(values, humanId), r.keep);
  }
}

/** What of a run's result the base is recorded from. */
type RecordedResult = Pick<ApplyResult, 'failed' | 'skipped' | 'ids' | 'updatedAt' | 'conflicts' | 'recordValues' | 'baselines'>;

/**
 * An update the write guard kept from being sent (a conflict found while the apply ran), of an item
 * the base did not hold: recorded as the plan read it, so that the next plan compares the item
 * three ways and finds the conflict again, instead of two ways, where the repository would win.
 */
function recordBaseline(base: SyncBase, r: SyncRecords['records'][number], result: RecordedResult | undefined): void {
  if (!('id' in r.ref) || base.has(r.kind, r.ref.id)) return;
  const baseline = r.ops.map((k) => result?.baselines?.[k]).find((b) => b !== undefined);
  if (baseline) base.record(r.kind, r.ref.id, baseline.updatedAt, withHumanId(baseline.values, r.humanId));
}

/** Records what a run synced and writes `tmsync.base`. */
export async function writeSynced(options: SyncBaseOptions, result?: RecordedResult): Promise<void> {
  recordSynced(options, result);
  await writeSyncBase(options.root, options.base);
}

/** `op:<key>` ids (a case step's group, a folder's parent) replaced by the ids the run produced; undefined when one is missing. */
function resolveOps(values: FieldValues, produced: (key: string) => string | undefined): FieldValues | undefined {
  const resolve = (v: unknown): string | null | undefined => (typeof v === 'string' && v.startsWith('op:') ? produced(v.slice(3)) : (v as string | null));
  const out: FieldValues = { ...values };
  if ('parent' in out) {
    const p = resolve(out.parent);
    if (p === undefined) return undefined;
    out.parent = p;
  }
  if (Array.isArray(out.steps)) {
    const steps = [];
    for (const s of out.steps as { description: string; expected: string; stepGroup: string | null }[]) {
      const g = resolve(s.stepGroup);
      if (g === undefined) return undefined;
      steps.push({ ...s, stepGroup: g });
    }
    out.steps = steps;
  }
  return out;
}
