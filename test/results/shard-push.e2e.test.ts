import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRun, updateRun } from '../../src/emulator/db/index.js';
import { pushResults } from '../../src/results/push-results.js';
import type { TestRecord } from '../../src/results/record.js';
import { readLedger, withShard, writeLedger } from '../../src/results/shard-ledger.js';
import type { RemoteProject } from '../../src/model.js';
import type { TmsClient } from '../../src/remote/index.js';
import { KEY, runStatuses, seedCases, setupClient, type Emulator } from '../support/ci-helpers.js';
import { seededEmulator } from '../support/emulator.js';

/**
 * `results push --shard` against another shard writing the run's record at the same instant,
 * scripted through the emulator's request hook (no timing): the other shard's write lands while
 * this push sends its rows, made from a read that predates this shard's entry.
 */

let emu: Emulator;
let setup: TmsClient;
let project: RemoteProject;
let caseIds: string[];
/** runs once, at the next run-case update request, when set */
let atNextUpdate: (() => void) | undefined;

function record(name: string, outcome: TestRecord['outcome']): TestRecord {
  return { name, classname: 'shop', report: 'junit.xml', outcome, properties: {}, suites: ['shop'] };
}

beforeAll(async () => {
  emu = await seededEmulator(KEY, {
    onRequest: ({ method, path }) => {
      if (method === 'PUT' && path.endsWith('/test_cases') && atNextUpdate) {
        const f = atNextUpdate;
        atNextUpdate = undefined;
        f();
      }
    },
  });
  setup = setupClient(emu);
  const seeded = await seedCases(setup, 2);
  project = seeded.project;
  caseIds = seeded.caseIds;
});

afterAll(async () => {
  await setup?.close();
  await emu?.close();
});

describe('results push --shard with another shard writing at the same instant', () => {
  it("writes this shard's entry again when another shard's stale write dropped it, so the record keeps the failure", async () => {
    const run = (
      await setup.call('createTestRun', {
        params: { project_id: project.id },
        body: { title: 'Raced', selection_type: 'STATIC', static_selection_filters: [{ field: 'id', operator: 'IN', values: caseIds }] },
      })
    ).data.test_run;
    // shard b's write, made from a read before shard a's entry: it holds b alone
    atNextUpdate = () => {
      const row = findRun(emu.db, project.id, run.id)!;
      updateRun(emu.db, row, { description: writeLedger('', withShard({ shards: {} }, 'b', new Map([[caseIds[1], 'passed']]))) }, undefined);
    };
    const result = await pushResults({ client: setup, project, testcases: [record('DEMO-1 pays', 'failed')], testRun: run.id, shard: 'a' });
    expect(atNextUpdate).toBeUndefined();
    expect(result.sentCaseIds).toEqual([caseIds[0]]);
    const after = (await setup.call('getTestRun', { params: { project_id: project.id, test_run_id: run.id } })).data.test_run.description;
    expect(readLedger(after).ledger).toEqual({ shards: { b: {}, a: { failed: [caseIds[0]] } } });
    expect((await runStatuses(setup, project.id, run.id))['DEMO-1']).toBe('FAILED');
  });
});
