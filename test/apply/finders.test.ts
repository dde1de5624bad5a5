import { describe, expect, it } from 'vitest';
import { findTestPlan, findTestRun, type ApplyClient, type ReconcileContext } from '../../src/apply/finders.js';

/** A client whose lists hold these items (the query is not applied: the finders compare titles themselves). */
function listing(items: { id: string; title: string; created_at: number }[]): ApplyClient {
  return {
    call: () => Promise.reject(new Error('no call expected')),
    paginate: async function* () {
      yield* items;
    },
  } as unknown as ApplyClient;
}

describe('the test plan and test run finders', () => {
  // the live dialect answers in milliseconds: both units are compared in seconds
  const items = [
    { id: 'old', title: 'Nightly', created_at: 1_000 },
    { id: 'other', title: 'Nightly 2', created_at: 5_000 },
    { id: 'new', title: 'Nightly', created_at: 2_000_000 },
  ];
  const ctx = (createdSince?: number): ReconcileContext => ({
    client: listing(items),
    projectId: 'p',
    knownIds: { has: () => false },
    ...(createdSince !== undefined ? { createdSince } : {}),
  });

  it('claim only one created since the command started when given createdSince (an older namesake is not ours)', async () => {
    expect((await findTestPlan(ctx(1_500), 'Nightly'))?.id).toBe('new');
    expect((await findTestRun(ctx(1_500), 'Nightly'))?.id).toBe('new');
    expect(await findTestPlan(ctx(3_000_000), 'Nightly')).toBeUndefined();
  });

  it('compare a created_at in milliseconds in seconds', async () => {
    const ms = { ...ctx(1_500), client: listing([{ id: 'ms', title: 'Nightly', created_at: 2_000_000_000_000 }]) };
    expect((await findTestRun(ms, 'Nightly'))?.id).toBe('ms');
  });

  it('without createdSince, take the first exact title no known id holds (apply, restore)', async () => {
    expect((await findTestPlan(ctx(), 'Nightly'))?.id).toBe('old');
    expect((await findTestPlan({ ...ctx(), knownIds: { has: (id) => id === 'old' } }, 'Nightly'))?.id).toBe('new');
  });
});
