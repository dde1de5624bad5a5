import { describe, expect, it } from 'vitest';
import type { Outcome } from '../../src/results/record.js';
import { holdsShard, readLedger, shardNames, withShard, worstOverShards, writeLedger, type ShardLedger } from '../../src/results/shard-ledger.js';

/** The record after each shard's push, in order: [shard, { case: outcome }]. */
function pushes(...steps: [string, Record<string, Outcome>][]): ShardLedger {
  let ledger: ShardLedger = { shards: {} };
  for (const [shard, outcomes] of steps) ledger = withShard(ledger, shard, new Map(Object.entries(outcomes)));
  return ledger;
}

describe('the shard merge rule', () => {
  it('keeps the worst outcome over shards: failed in shard 2, passed in shards 1 and 3 is failed, whichever pushed last', () => {
    const ledger = pushes(['1', { A: 'passed' }], ['2', { A: 'failed' }], ['3', { A: 'passed' }]);
    expect(worstOverShards(ledger, '3', 'A', 'passed')).toEqual({ outcome: 'failed', from: ['2'] });
    expect(worstOverShards(ledger, '1', 'A', 'passed')).toEqual({ outcome: 'failed', from: ['2'] });
    expect(worstOverShards(ledger, '2', 'A', 'failed')).toEqual({ outcome: 'failed', from: ['2'] });
  });

  it('keeps the last result of a shard pushed twice for a case: a re-run that passes replaces its failure', () => {
    const ledger = pushes(['2', { A: 'failed', B: 'failed' }], ['3', { A: 'passed' }], ['2', { A: 'passed' }]);
    expect(worstOverShards(ledger, '2', 'A', 'passed')).toEqual({ outcome: 'passed', from: ['2'] });
    // the second push of shard 2 did not report B: its earlier failure of B stands
    expect(worstOverShards(ledger, '3', 'B', 'passed')).toEqual({ outcome: 'failed', from: ['2'] });
  });

  it('orders outcomes failed > error > skipped > passed, and names every shard as bad as the worst', () => {
    const ledger = pushes(['a', { A: 'skipped' }], ['b', { A: 'error' }], ['c', { A: 'error' }]);
    expect(worstOverShards(ledger, 'd', 'A', 'passed')).toEqual({ outcome: 'error', from: ['b', 'c'] });
    expect(worstOverShards(ledger, 'd', 'A', 'error')).toEqual({ outcome: 'error', from: ['d', 'b', 'c'] });
    expect(worstOverShards(ledger, 'a', 'A', 'failed')).toEqual({ outcome: 'failed', from: ['a'] });
  });

  it('records only what a shard did not pass, and every shard that pushed', () => {
    const ledger = pushes(['1', { A: 'passed', B: 'skipped' }], ['2', { A: 'passed' }]);
    expect(ledger).toEqual({ shards: { '1': { skipped: ['B'] }, '2': {} } });
    expect(shardNames(ledger)).toEqual(['1', '2']);
    expect(holdsShard(ledger, '1', new Map([['A', 'passed'], ['B', 'skipped']]))).toBe(true);
    expect(holdsShard(ledger, '1', new Map([['B', 'failed']]))).toBe(false);
    expect(holdsShard(ledger, '3', new Map())).toBe(false);
  });
});

describe("the record in the run's description", () => {
  it('is one line after the description, replaced in place, the rest kept; read back the same', () => {
    const first = pushes(['1', { A: 'failed' }]);
    const text = writeLedger('Pipeline: https://ci.example/1\nCommit: abc', first);
    expect(text.split('\n').slice(0, 3)).toEqual(['Pipeline: https://ci.example/1', 'Commit: abc', '']);
    expect(readLedger(text)).toEqual({ ledger: first, damaged: false });
    const second = withShard(first, '2', new Map([['A', 'error']]));
    const again = writeLedger(`${text}\nA note a person added.`, second);
    expect(again.split('\n')).toHaveLength(5);
    expect(again.endsWith('\nA note a person added.')).toBe(true);
    expect(readLedger(again).ledger).toEqual(second);
    expect(writeLedger('', first).startsWith('tmsync shards')).toBe(true);
  });

  it('reads a description without a record as empty, and a damaged record as empty and damaged', () => {
    expect(readLedger('just words')).toEqual({ ledger: { shards: {} }, damaged: false });
    expect(readLedger(null)).toEqual({ ledger: { shards: {} }, damaged: false });
    const line = writeLedger('', pushes(['1', { A: 'failed' }]));
    expect(readLedger(line.slice(0, -5))).toEqual({ ledger: { shards: {} }, damaged: true });
    expect(readLedger(line.replace('["A"]', '[3]')).damaged).toBe(true);
  });
});
