import { afterEach, describe, expect, it } from 'vitest';
import { executePlan } from '../../src/apply/executor.js';
import { fileWriteBack } from '../../src/apply/write-back.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { addGenerated, client, copyExamples, emulator, planFor, serviceSnapshot } from './helpers.js';

const FOLDERS = ['Gen', 'Gen/A', 'Gen/A/Deep', 'Gen/B', 'Other'];

describe('apply under injected faults', () => {
  let emu: RunningEmulator | undefined;
  afterEach(async () => {
    await emu?.close();
    emu = undefined;
  });

  async function convergesOnce(faults: Parameters<typeof emulator>[0]) {
    emu = await emulator();
    const root = await copyExamples(emu.baseUrl);
    const generated = await addGenerated(root, FOLDERS, 6);
    const c = client(emu.baseUrl, { rateLimit: 18, concurrency: 4, maxRetries: 10 });
    emu.setFaults(faults!);
    const { plan, actual } = await planFor(root, c);
    const result = await executePlan(plan, {
      client: c,
      writeBack: fileWriteBack(root),
      existingIds: actual.folders.map((f) => f.id),
    });
    expect(result.failed).toEqual([]);
    emu.setFaults({ failRate: 0, resetRate: 0, rateLimit: undefined });
    const again = await planFor(root, c);
    expect(again.plan.operations).toEqual([]);
    const snap = await serviceSnapshot(c);
    expect(snap.duplicates).toEqual({ folders: [], cases: [], stepGroups: [] });
    // the examples hold 6 cases and 1 step group; the service holds exactly the repository
    expect(snap.actual.cases).toHaveLength(6 + generated);
    expect(snap.actual.stepGroups).toHaveLength(1);
    expect(snap.actual.folders).toHaveLength(3 + FOLDERS.length);
    await c.close();
    return emu.requestLog();
  }

  it('converges with seeded 500s, dropped connections and a rate limit, without duplicates', async () => {
    const log = await convergesOnce({ failRate: 0.1, resetRate: 0.05, rateLimit: 20, faultSeed: 42 });
    expect(log.some((e) => e.fault === 'fail')).toBe(true);
    expect(log.some((e) => e.fault === 'reset')).toBe(true);
  });

  it('creates no duplicates when faults hit after the service stored a create', async () => {
    const log = await convergesOnce({ failRate: 0.15, resetRate: 0.1, faultSeed: 7, failAfterCommit: true });
    const lostCreates = log.filter(
      (e) => e.method === 'POST' && e.fault === 'reset_after_commit' && /\/(folders|test_cases|step_groups)$/.test(e.path.split('?')[0]),
    );
    // the test only means something when creates were stored and their answers lost
    expect(lostCreates.length).toBeGreaterThan(2);
  });
});
