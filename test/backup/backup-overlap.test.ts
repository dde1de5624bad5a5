import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeBackup } from '../../src/backup/backup.js';
import type { BackupSource } from '../../src/backup/backup-source.js';
import type { BackupHeader, BackupTestCase } from '../../src/backup/backup-format.js';
import { readAhead } from '../../src/streams.js';

const header: BackupHeader = {
  format_version: 1,
  kind: 'tmsync-backup',
  created_at: '2026-01-01T00:00:00.000Z',
  tool: { name: 'tmsync', version: 'test' },
  source: { base_url: 'http://x/api/v1', project: { id: 'p', name: 'P', human_id_prefix: 'P', description: '' } },
  lookups: { types: [], statuses: [], priorities: [], automation_types: [], run_statuses: [] },
  users: [],
  labels: [],
};

const testCase = (i: number): BackupTestCase => ({
  id: `c${i}`,
  human_id: `P-${i}`,
  folder_id: 'f',
  title: `Case ${i}`,
  description: '',
  preconditions: '',
  template_type: 'STEPS',
  steps: '',
  expected_results: '',
  type_id: 't',
  status_id: 's',
  priority_id: 'pr',
  automation_type_id: 'a',
  owner_id: 'u',
  reviewer_id: '',
  individual_steps: [],
  created_at: 1,
  updated_at: 2,
});

const discard = () =>
  new Writable({
    write(_chunk, _enc, cb) {
      cb();
    },
  });

const ticks = async (n: number, until: () => boolean) => {
  for (let i = 0; i < n && !until(); i++) await new Promise((r) => setImmediate(r));
};

describe('writeBackup reads its sections at once', () => {
  it('starts reading the test cases while the folders are still being read', async () => {
    const events: string[] = [];
    const source: BackupSource = {
      header: async () => header,
      async *folders() {
        yield { id: 'f', name: 'Root', parent_id: null, order: 0 };
        // the next folder page waits: a writer that reads one section after another never gets here with cases started
        await ticks(50, () => events.includes('cases started'));
        events.push('folders ended');
      },
      async *stepGroups() {},
      async *testCases() {
        events.push('cases started');
        for (let i = 0; i < 3; i++) yield testCase(i);
      },
      async *testPlans() {},
      async *testRuns() {},
    };
    const counts = await writeBackup(source, discard());
    expect(counts).toEqual({ folders: 1, step_groups: 0, test_cases: 3, test_plans: 0, test_runs: 0 });
    expect(events).toEqual(['cases started', 'folders ended']);
  });

  it('a failing section stops the sections reading ahead and fails the backup with its own error', async () => {
    const produced = { n: 0 };
    let casesClosed = false;
    const source: BackupSource = {
      header: async () => header,
      async *folders() {
        yield { id: 'f', name: 'Root', parent_id: null, order: 0 };
        await ticks(20, () => produced.n >= 4);
        throw new Error('folder page refused');
      },
      async *stepGroups() {},
      async *testCases() {
        try {
          for (let i = 0; i < 100_000; i++) {
            produced.n = i + 1;
            yield testCase(i);
          }
        } finally {
          casesClosed = true;
        }
      },
      async *testPlans() {},
      async *testRuns() {},
    };
    await expect(writeBackup(source, discard(), { sectionReadAhead: 4 })).rejects.toThrow('folder page refused');
    await ticks(20, () => casesClosed);
    // read ahead, but only a few items: memory stays flat while an earlier section is written
    expect(produced.n).toBeGreaterThanOrEqual(4);
    expect(produced.n).toBeLessThanOrEqual(6);
    expect(casesClosed).toBe(true);
  });
});

describe('readAhead', () => {
  it('hands items out in order, reading at most `limit` ahead of the consumer, and rethrows a failure in its place', async () => {
    let produced = 0;
    async function* source() {
      for (let i = 0; i < 10; i++) {
        produced = i + 1;
        yield i;
      }
      throw new Error('page 2 failed');
    }
    const r = readAhead(source, 3);
    await ticks(10, () => false);
    // three items buffered, the fourth waiting in the source for room
    expect(produced).toBeLessThanOrEqual(4);
    const out: number[] = [];
    await expect(
      (async () => {
        for await (const x of r) out.push(x);
      })(),
    ).rejects.toThrow('page 2 failed');
    expect(out).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
