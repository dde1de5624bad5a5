import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo, type CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { API_KEY, addGenerated, copyExamples, emulator } from '../apply/helpers.js';
import { API_KEY as TRANSFER_KEY, emptyProject, emulator as transferEmulator, seedVariedProject } from '../support/transfer-helpers.js';

/**
 * An io whose streams take each write slowly, as a pipe to a slow reader does: after a write the
 * stream "needs a drain" for a few milliseconds. It counts the writes made while a drain was still
 * pending (the text piled up in memory) and the waits that were asked for.
 */
function slowReaderIo(env: NodeJS.ProcessEnv) {
  const base = memoryIo(env);
  const stream = () => ({ busy: false, waits: 0, writes: [] as { text: string; piled: boolean }[] });
  const streams = { stdout: stream(), stderr: stream() };
  const writer = (name: 'stdout' | 'stderr', record: (t: string) => void) => (t: string) => {
    const s = streams[name];
    s.writes.push({ text: t, piled: s.busy });
    s.busy = true;
    record(t);
  };
  const drained = (name: 'stdout' | 'stderr') => () => {
    const s = streams[name];
    if (!s.busy) return Promise.resolve();
    s.waits++;
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        s.busy = false;
        resolve();
      }, 3),
    );
  };
  const io: CliIo & { out: string[]; err: string[] } = {
    ...base,
    stdout: writer('stdout', (t) => base.out.push(t)),
    stderr: writer('stderr', (t) => base.err.push(t)),
    stdoutDrained: drained('stdout'),
    stderrDrained: drained('stderr'),
  };
  return { io, streams };
}

const lineCount = (parts: string[]) => parts.join('').split('\n').length;
/** The writes of the plan's text: from its first line to its summary line. */
const planWrites = (writes: { text: string; piled: boolean }[], first: string) => {
  const from = writes.findIndex((w) => w.text.includes(first));
  const to = writes.findIndex((w) => w.text.includes('Plan: '));
  expect(from).toBeGreaterThanOrEqual(0);
  expect(to).toBeGreaterThan(from);
  return writes.slice(from, to + 1);
};

describe('a large plan written to a slow reader', () => {
  let emu: RunningEmulator;
  let root: string;
  beforeAll(async () => {
    emu = await emulator();
    root = await copyExamples(emu.baseUrl);
    // 600 new cases beside the examples' 14 items: a plan text of several thousand lines (in full:
    // --no-compact), written in more than one piece
    await addGenerated(root, ['Bulk/One', 'Bulk/Two', 'Bulk/Three'], 200);
  });
  afterAll(async () => {
    await emu?.close();
    await rm(root, { recursive: true, force: true });
  });

  it('plan writes its text to stdout one piece at a time, each once the reader has taken the one before', async () => {
    const { io, streams } = slowReaderIo({ TMSYNC_API_KEY: API_KEY });
    expect(await main(['node', 'tmsync', 'plan', '--no-color', '--no-compact'], io, root)).toBe(0);
    expect(lineCount(io.out)).toBeGreaterThan(4000);
    expect(streams.stdout.waits).toBeGreaterThan(1);
    expect(streams.stdout.writes.length).toBeGreaterThan(1);
    expect(streams.stdout.writes.filter((w) => w.piled)).toEqual([]);
    expect(io.out.join('')).toContain('Plan: 614 to create');
  });

  it('plan --json writes its human text to stderr the same way', async () => {
    const { io, streams } = slowReaderIo({ TMSYNC_API_KEY: API_KEY });
    expect(await main(['node', 'tmsync', 'plan', '--json', '--no-color', '--no-compact'], io, root)).toBe(0);
    expect(streams.stderr.waits).toBeGreaterThan(1);
    expect(planWrites(streams.stderr.writes, 'tmsync will perform').filter((w) => w.piled)).toEqual([]);
    expect(JSON.parse(io.out.join('')).operations.length).toBe(614);
  });

  it('apply writes its plan text to stdout the same way before it applies', async () => {
    const { io, streams } = slowReaderIo({ TMSYNC_API_KEY: API_KEY });
    expect(await main(['node', 'tmsync', 'apply', '--auto-approve', '--no-color', '--no-compact'], io, root)).toBe(0);
    const pieces = planWrites(streams.stdout.writes, 'tmsync will perform');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.filter((w) => w.piled)).toEqual([]);
    expect(io.out.join('')).toContain('Apply complete: 614 created');
  });
});

describe('a large migration plan written to a slow reader', () => {
  let a: RunningEmulator;
  let b: RunningEmulator;
  let dir: string;
  beforeAll(async () => {
    [a, b] = await Promise.all([transferEmulator(), transferEmulator()]);
    await seedVariedProject(a, 'SRC', { casesPerFolder: 60 });
    emptyProject(b, 'DST');
    dir = await mkdtemp(join(tmpdir(), 'tmsync-slow-migrate-'));
    await writeFile(
      join(dir, 'tmsync.yaml'),
      [
        'profiles:',
        `  src: { base_url: "${a.baseUrl}", project: SRC, api_key_env: TMSYNC_API_KEY, rate_limit: 1000 }`,
        `  dst: { base_url: "${b.baseUrl}", project: DST, api_key_env: TMSYNC_API_KEY, rate_limit: 1000 }`,
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('migrate writes its plan text to stdout one piece at a time, each once the reader has taken the one before', async () => {
    const { io, streams } = slowReaderIo({ TMSYNC_API_KEY: TRANSFER_KEY });
    // without a terminal and without --auto-approve it shows the plan and stops: nothing is copied
    expect(await main(['node', 'tmsync', 'migrate', '--from', 'src', '--to', 'dst', '--no-color', '--no-compact'], io, dir)).toBe(1);
    expect(lineCount(io.out)).toBeGreaterThan(2000);
    // the line naming the two projects comes just before the plan, so the plan's first piece
    // follows it at once; every later piece waits
    const pieces = planWrites(streams.stdout.writes, 'tmsync will perform');
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.slice(1).filter((w) => w.piled)).toEqual([]);
  });
});
