import { once } from 'node:events';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeBackup } from '../../src/backup/backup.js';
import { parseBackupText } from '../../src/backup/backup-read.js';
import type { BackupSource } from '../../src/backup/backup-source.js';
import type { BackupHeader, BackupTestCase } from '../../src/backup/backup-format.js';
import { orderedMap } from '../../src/streams.js';

const header: BackupHeader = {
  format_version: 1,
  kind: 'tmsync-backup',
  created_at: '2026-01-01T00:00:00.000Z',
  tool: { name: 'tmsync', version: 'test' },
  source: { base_url: 'http://x/api/v1', project: { id: 'p', name: 'P', human_id_prefix: 'P', description: '' } },
  lookups: {
    types: [{ id: 't', name: 'Functional' }],
    statuses: [{ id: 's', name: 'Draft' }],
    priorities: [{ id: 'pr', name: 'Medium' }],
    automation_types: [{ id: 'a', name: 'Automated' }],
    run_statuses: [{ id: 'rs', name: 'Passed' }],
  },
  users: [{ id: 'u', email: 'u@example.com' }],
  labels: [],
};

const testCase = (i: number): BackupTestCase => ({
  id: `c${i}`,
  human_id: `P-${i}`,
  folder_id: 'f',
  title: `Case ${i} "quoted" \n newline`,
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
  individual_steps: [{ description: 'Do', expected: 'Done', order: 1, step_group_id: null }],
  created_at: 1,
  updated_at: 2,
});

/** A fake source counting how many cases it has handed out. */
function fakeSource(cases: number, produced: { n: number }): BackupSource {
  return {
    header: async () => header,
    async *folders() {
      yield { id: 'f', name: 'Root', parent_id: null, order: 0 };
    },
    async *stepGroups() {},
    async *testCases() {
      for (let i = 0; i < cases; i++) {
        produced.n = i + 1;
        yield testCase(i);
      }
    },
    async *testPlans() {},
    async *testRuns() {},
  };
}

/** A sink that accepts one chunk per tick and reports how far the source ran ahead. */
function slowSink(onWrite: () => void): { sink: Writable; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _enc, cb) {
      chunks.push(chunk.toString('utf8'));
      onWrite();
      setImmediate(cb);
    },
  });
  return { sink, text: () => chunks.join('') };
}

describe('writeBackup', () => {
  it('writes a file the strict reader accepts, one item a line, with the counts at the end', async () => {
    const produced = { n: 0 };
    const { sink, text } = slowSink(() => undefined);
    const counts = await writeBackup(fakeSource(3, produced), sink);
    sink.end();
    await once(sink, 'finish');
    expect(counts).toEqual({ folders: 1, step_groups: 0, test_cases: 3, test_plans: 0, test_runs: 0 });
    const backup = parseBackupText(text());
    expect(backup.test_cases.map((c) => c.title)).toEqual([0, 1, 2].map((i) => `Case ${i} "quoted" \n newline`));
    expect(text().split('\n').filter((l) => l.startsWith('{"id":"c')).length).toBe(3);
  });

  it('streams: the source is never read more than a few items ahead of what the sink accepted', async () => {
    const produced = { n: 0 };
    let written = 0;
    let maxAhead = 0;
    const { sink } = slowSink(() => {
      written += 1;
      maxAhead = Math.max(maxAhead, produced.n - written);
    });
    await writeBackup(fakeSource(5000, produced), sink);
    expect(produced.n).toBe(5000);
    // the sink's buffer holds about 1 KB, a few items: the source must wait for it
    expect(maxAhead).toBeLessThan(20);
  });
});

describe('parseBackupText', () => {
  const good = () => {
    const lines = JSON.stringify({ ...header, folders: [{ id: 'f', name: 'Root', parent_id: null, order: 0 }], step_groups: [], test_cases: [testCase(1)], test_plans: [], test_runs: [], end: { counts: { folders: 1, step_groups: 0, test_cases: 1, test_plans: 0, test_runs: 0 } } });
    return lines;
  };

  it('refuses another format_version by saying which one it reads', () => {
    expect(() => parseBackupText(good().replace('"format_version":1', '"format_version":7'))).toThrow(/format_version 7; this tmsync reads backups of format_version 1/);
  });

  it('refuses a file cut short as truncated', () => {
    const text = good();
    expect(() => parseBackupText(text.slice(0, text.length - 40))).toThrow(/truncated/);
  });

  it('refuses counts that do not match and references to items that are not in the file', () => {
    expect(() => parseBackupText(good().replace('"test_cases":1', '"test_cases":2'))).toThrow(/test_cases holds 1 items but the end record says 2/);
    expect(() => parseBackupText(good().replace('"folder_id":"f"', '"folder_id":"nope"'))).toThrow(/unknown folder nope/);
  });

  it('refuses unknown fields: the format is strict', () => {
    expect(() => parseBackupText(good().replace('"human_id":"P-1"', '"human_id":"P-1","extra":1'))).toThrow(/does not match backup format 1/);
  });
});

describe('orderedMap', () => {
  it('keeps the source order while running several calls at once', async () => {
    async function* source() {
      for (let i = 0; i < 20; i++) yield i;
    }
    let inFlight = 0;
    let peak = 0;
    const out: number[] = [];
    for await (const x of orderedMap(source(), 4, async (i) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, (20 - i) % 5));
      inFlight -= 1;
      return i * 2;
    })) {
      out.push(x);
    }
    expect(out).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(4);
  });
});
