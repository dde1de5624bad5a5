import type { Outcome } from './record.js';

/**
 * The shards of one run (CI jobs pushing into it with `results push --test-run`), recorded in the
 * run's own description: neither dialect's run-case list returns a row's description, so the run
 * is the one place every shard can read what the others wrote. Only the outcomes worse than
 * `passed` are kept, per shard and case id (a case no shard lists is passed by every shard that
 * reported it), so the record grows with the failures, not with the run. Pure: no I/O.
 */
export interface ShardLedger {
  /** shard name → the cases that shard did not pass, by outcome (case ids, sorted) */
  shards: Record<string, Partial<Record<NotPassed, string[]>>>;
}

type NotPassed = Exclude<Outcome, 'passed'>;
const NOT_PASSED: readonly NotPassed[] = ['failed', 'error', 'skipped'];

/** How bad an outcome is: the worst of several results of one case is the one reported. */
export function severity(o: Outcome): number {
  return { failed: 3, error: 2, skipped: 1, passed: 0 }[o];
}

/** The marker line that starts the record; everything after it on the line is JSON. */
const MARKER = 'tmsync shards (written by results push, read by the next shard; keep this line): ';

/** The record in a run description, empty when there is none; `damaged` when the line is there but unreadable. */
export function readLedger(description: string | null | undefined): { ledger: ShardLedger; damaged: boolean } {
  const line = (description ?? '').split(/\r?\n/).find((l) => l.startsWith(MARKER));
  if (line === undefined) return { ledger: { shards: {} }, damaged: false };
  try {
    const data = JSON.parse(line.slice(MARKER.length)) as unknown;
    return { ledger: checked(data), damaged: false };
  } catch {
    return { ledger: { shards: {} }, damaged: true };
  }
}

function checked(data: unknown): ShardLedger {
  const shards = (data as { shards?: unknown } | null)?.shards;
  if (!shards || typeof shards !== 'object' || Array.isArray(shards)) throw new Error('no shards');
  const out: ShardLedger = { shards: {} };
  for (const [name, entry] of Object.entries(shards as Record<string, unknown>)) {
    if (!entry || typeof entry !== 'object') throw new Error('bad shard');
    const kept: Partial<Record<NotPassed, string[]>> = {};
    for (const o of NOT_PASSED) {
      const ids = (entry as Record<string, unknown>)[o];
      if (ids === undefined) continue;
      if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string')) throw new Error('bad ids');
      kept[o] = ids;
    }
    out.shards[name] = kept;
  }
  return out;
}

/** The description with its record line replaced (or appended after a blank line); the rest kept as it was. */
export function writeLedger(description: string | null | undefined, ledger: ShardLedger): string {
  const line = MARKER + JSON.stringify(ledger);
  const lines = (description ?? '').split(/\r?\n/);
  const at = lines.findIndex((l) => l.startsWith(MARKER));
  if (at >= 0) {
    lines[at] = line;
    return lines.join('\n');
  }
  const text = (description ?? '').replace(/\s+$/, '');
  return text === '' ? line : `${text}\n\n${line}`;
}

/**
 * The record with this shard's outcome of each case it reports replaced (a shard pushed again keeps
 * its last result per case); cases it does not report keep what it wrote before, and other shards'
 * entries are untouched.
 */
export function withShard(ledger: ShardLedger, shard: string, outcomes: ReadonlyMap<string, Outcome>): ShardLedger {
  const before = ledger.shards[shard] ?? {};
  const entry: Partial<Record<NotPassed, string[]>> = {};
  for (const o of NOT_PASSED) {
    const ids = new Set((before[o] ?? []).filter((id) => !outcomes.has(id)));
    for (const [id, outcome] of outcomes) if (outcome === o) ids.add(id);
    if (ids.size > 0) entry[o] = [...ids].sort();
  }
  return { shards: { ...ledger.shards, [shard]: entry } };
}

/** This shard's outcome of a case, as the record holds it (`passed` when it lists none, undefined when the shard is not there). */
function outcomeIn(ledger: ShardLedger, shard: string, caseId: string): Outcome | undefined {
  const entry = ledger.shards[shard];
  if (!entry) return undefined;
  return NOT_PASSED.find((o) => entry[o]?.includes(caseId)) ?? 'passed';
}

/** True when the record holds exactly these outcomes for this shard (what a read-back checks after a write). */
export function holdsShard(ledger: ShardLedger, shard: string, outcomes: ReadonlyMap<string, Outcome>): boolean {
  if (!ledger.shards[shard]) return false;
  for (const [id, o] of outcomes) if (outcomeIn(ledger, shard, id) !== o) return false;
  return true;
}

/**
 * The outcome a case's run row gets: the worst of this shard's own outcome and every other shard's
 * recorded one, and the shards that outcome came from (this one included when it is as bad).
 */
export function worstOverShards(ledger: ShardLedger, shard: string, caseId: string, own: Outcome): { outcome: Outcome; from: string[] } {
  let outcome = own;
  let from = [shard];
  for (const name of Object.keys(ledger.shards).sort()) {
    if (name === shard) continue;
    const o = outcomeIn(ledger, name, caseId)!;
    if (o === 'passed') continue;
    if (severity(o) > severity(outcome)) {
      outcome = o;
      from = [name];
    } else if (o === outcome) from.push(name);
  }
  return { outcome, from };
}

/** Every shard the record names, sorted. */
export function shardNames(ledger: ShardLedger): string[] {
  return Object.keys(ledger.shards).sort();
}
