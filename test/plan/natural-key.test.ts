import { describe, expect, it } from 'vitest';
import { matchNaturalKeys, type NaturalKeySpec } from '../../src/plan/natural-key.js';

interface Item {
  name: string;
  scope?: string;
}
interface Remote {
  id: string;
  name: string;
  scope: string;
}

const REMOTES: Remote[] = [
  { id: 'r1', name: 'Login', scope: 'a' },
  { id: 'r2', name: 'login ', scope: 'b' },
  { id: 'r3', name: 'Twin', scope: 'a' },
  { id: 'r4', name: 'twin', scope: 'a' },
  { id: 'r5', name: 'Claimed', scope: 'a' },
];

function run(items: Item[], claimedBy = new Map<string, Item>()) {
  const events: string[] = [];
  const reads: string[] = [];
  const spec: NaturalKeySpec<Item, Remote, string> = {
    scopeOf: (i) => i.scope,
    remotesIn: (scope) => {
      reads.push(scope);
      return REMOTES.filter((r) => r.scope === scope);
    },
    itemKey: (i) => i.name.trim().toLowerCase(),
    remoteKey: (r) => r.name.trim().toLowerCase(),
    onAmbiguous: (i, c) => events.push(`ambiguous ${i.name}: ${c.map((r) => r.id).join(',')}`),
    onDuplicate: (i, first, r) => events.push(`duplicate ${i.name} (${first.name} took ${r.id})`),
    onMatch: (i, r) => events.push(`match ${i.name} = ${r.id}`),
  };
  matchNaturalKeys(items, claimedBy, spec);
  return { events, reads, claimedBy };
}

describe('matchNaturalKeys', () => {
  it('matches an item to the one remote item of its scope with the same key, by the key function', () => {
    const { events, claimedBy } = run([{ name: 'LOGIN', scope: 'b' }, { name: 'Login', scope: 'a' }]);
    expect(events).toEqual(['match LOGIN = r2', 'match Login = r1']);
    expect([...claimedBy.keys()]).toEqual(['r2', 'r1']);
  });

  it('reports an ambiguous key, and a remote item an earlier item took, without matching', () => {
    const { events } = run([
      { name: 'twin', scope: 'a' },
      { name: 'Login', scope: 'a' },
      { name: 'login', scope: 'a' },
    ]);
    expect(events).toEqual(['ambiguous twin: r3,r4', 'match Login = r1', 'duplicate login (Login took r1)']);
  });

  it('never matches a remote item an id claims, nor an item without a scope; reads each scope once, only when needed', () => {
    const byId: Item = { name: 'Claimed' };
    const { events, reads } = run(
      [
        { name: 'Claimed', scope: 'a' },
        { name: 'Login' },
        { name: 'Twin', scope: 'a' },
      ],
      new Map([['r5', byId]]),
    );
    expect(events).toEqual(['ambiguous Twin: r3,r4']);
    expect(reads).toEqual(['a']);
  });
});
