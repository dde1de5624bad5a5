import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startMemoryGovernor } from '../../src/cli/memory.js';

const MB = 1024 * 1024;
/** About `mb` MB of small arrays, alive while the result is held. */
const allocate = (mb: number): number[][] => Array.from({ length: mb * 1024 }, (_, i) => new Array<number>(100).fill(i));

// the governor's timer runs on faked intervals: a test moves it on by hand instead of waiting
afterEach(() => {
  vi.useRealTimers();
});

describe('memory governor', () => {
  it('collects on its timer once the heap has grown past its slack', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const governor = startMemoryGovernor({ intervalMs: 10, slackMb: 8, env: {} });
    try {
      const held = allocate(48);
      expect(governor.collections).toBe(0);
      vi.advanceTimersByTime(10);
      expect(governor.collections).toBeGreaterThanOrEqual(1);
      expect(held).toHaveLength(48 * 1024);
    } finally {
      governor.stop();
    }
  });

  it('collects when checked after a long synchronous step, freeing what that step dropped', () => {
    const governor = startMemoryGovernor({ intervalMs: 1e6, slackMb: 8, env: {} });
    try {
      let held: number[][] | undefined = allocate(48);
      const grown = getHeapStatistics().used_heap_size;
      expect(held).toHaveLength(48 * 1024);
      held = undefined;
      governor.check();
      expect(governor.collections).toBe(1);
      expect(getHeapStatistics().used_heap_size).toBeLessThan(grown - 24 * MB);
    } finally {
      governor.stop();
    }
  });

  it('lets a large heap grow by its growth fraction before it collects', () => {
    const governor = startMemoryGovernor({ intervalMs: 1e6, slackMb: 1, growth: 50, env: {} });
    try {
      // the base is the heap after the first collection; 24 MB more is well under fifty times it
      governor.collect();
      const held = allocate(24);
      governor.check();
      expect(governor.collections).toBe(1);
      expect(held).toHaveLength(24 * 1024);
    } finally {
      governor.stop();
    }
    const eager = startMemoryGovernor({ intervalMs: 1e6, slackMb: 1, growth: 0.01, env: {} });
    try {
      eager.collect();
      const held = allocate(24);
      eager.check();
      expect(eager.collections).toBe(2);
      expect(held).toHaveLength(24 * 1024);
    } finally {
      eager.stop();
    }
  });

  it('collects when told a large structure was let go, though the heap has not grown past its slack', () => {
    const governor = startMemoryGovernor({ intervalMs: 1e6, slackMb: 1024, env: {} });
    try {
      let held: number[][] | undefined = allocate(32);
      governor.check();
      expect(governor.collections).toBe(0);
      const before = getHeapStatistics().used_heap_size;
      expect(held).toHaveLength(32 * 1024);
      held = undefined;
      governor.collect();
      expect(governor.collections).toBe(1);
      expect(getHeapStatistics().used_heap_size).toBeLessThan(before - 16 * MB);
    } finally {
      governor.stop();
    }
    governor.collect();
    expect(governor.collections).toBe(1);
  });

  it('does nothing with TMSYNC_GC=0, and a stopped governor’s check does nothing', () => {
    const off = startMemoryGovernor({ intervalMs: 1e6, slackMb: 1, env: { TMSYNC_GC: '0' } });
    const held = allocate(16);
    off.check();
    expect(off.collections).toBe(0);
    off.stop();
    const stopped = startMemoryGovernor({ intervalMs: 1e6, slackMb: 1, env: {} });
    stopped.stop();
    stopped.check();
    expect(stopped.collections).toBe(0);
    expect(held).toHaveLength(16 * 1024);
  });
});

describe('finishing a command’s memory work', () => {
  it('stops the running governor: neither its timer, a check nor a collect collects any more', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const governor = startMemoryGovernor({ intervalMs: 10, slackMb: 1, env: {} });
    try {
      governor.collect();
      expect(governor.collections).toBe(1);
      governor.stop();
      const held = allocate(32);
      vi.advanceTimersByTime(60);
      governor.check();
      governor.collect();
      expect(governor.collections).toBe(1);
      expect(held).toHaveLength(32 * 1024);
    } finally {
      governor.stop();
    }
  });

  it('stops again without harm (main stops it after the command, which may have stopped it)', () => {
    const governor = startMemoryGovernor({ intervalMs: 1e6, slackMb: 1, env: {} });
    governor.stop();
    expect(() => governor.stop()).not.toThrow();
    governor.collect();
    expect(governor.collections).toBe(0);
  });
});

describe('the command a command line names (serve runs without the governor)', () => {
  it('skips global options and their values', async () => {
    const { commandName } = await import('../../src/cli/main.js');
    expect(commandName(['serve', '--memory'])).toBe('serve');
    expect(commandName(['--config', 'serve.yaml', '--no-color', 'plan'])).toBe('plan');
    expect(commandName(['--project', 'serve', 'serve'])).toBe('serve');
    expect(commandName(['--json', 'apply', 'serve'])).toBe('apply');
    expect(commandName(['--verbose'])).toBeUndefined();
  });
});

describe('which commands run with the memory governor', () => {
  it('leaves out serve and validate (whose heap is the loaded repository) and watches the others', async () => {
    const { governed } = await import('../../src/cli/main.js');
    expect(governed(['validate'])).toBe(false);
    expect(governed(['--config', 'x/tmsync.yaml', 'validate', 'x'])).toBe(false);
    expect(governed(['serve', '--seed', 'demo'])).toBe(false);
    expect(governed(['plan'])).toBe(true);
    expect(governed(['apply', 'validate'])).toBe(true);
    expect(governed(['pull'])).toBe(true);
  });
});
