import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { colorChoice, drained, memoryIo, onStreamError, red, useColor } from '../../src/cli/io.js';

describe('useColor (decided per stream written)', () => {
  it('colours a terminal and nothing else by default', () => {
    expect(useColor(true, {})).toBe(true);
    expect(useColor(false, {})).toBe(false);
  });

  it('turns colour off with NO_COLOR (not empty), TERM=dumb and --no-color', () => {
    expect(useColor(true, { NO_COLOR: '1' })).toBe(false);
    expect(useColor(true, { NO_COLOR: '' })).toBe(true);
    expect(useColor(true, { TERM: 'dumb' })).toBe(false);
    expect(useColor(true, {}, true)).toBe(false);
  });

  it('forces colour with FORCE_COLOR even into a pipe and over NO_COLOR, but --no-color wins; FORCE_COLOR=0 turns it off', () => {
    expect(useColor(false, { FORCE_COLOR: '1' })).toBe(true);
    expect(useColor(false, { FORCE_COLOR: '' })).toBe(true);
    expect(useColor(false, { FORCE_COLOR: '1', NO_COLOR: '1' })).toBe(true);
    expect(useColor(false, { FORCE_COLOR: '1' }, true)).toBe(false);
    expect(useColor(true, { FORCE_COLOR: '0' })).toBe(false);
    expect(useColor(true, { FORCE_COLOR: 'false' })).toBe(false);
  });

  it('decides stdout and stderr separately: `tmsync plan > file` on a terminal colours only stderr', () => {
    const io = { ...memoryIo({}), stdoutIsTTY: false, stderrIsTTY: true };
    expect(colorChoice(io)).toEqual({ stdout: false, stderr: true });
    expect(colorChoice({ ...io, stdoutIsTTY: true, stderrIsTTY: false })).toEqual({ stdout: true, stderr: false });
    expect(colorChoice(io, true)).toEqual({ stdout: false, stderr: false });
  });

  it('paints only when asked', () => {
    expect(red('Error:', false)).toBe('Error:');
    expect(red('Error:', true)).toBe('\u001b[1;31mError:\u001b[0m');
  });
});

describe('onStreamError', () => {
  it('drops the output and changes nothing else when the reader went away (EPIPE); any other write error is a failure to say', () => {
    const epipe = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    expect(onStreamError(epipe)).toEqual({});
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    expect(onStreamError(full)).toEqual({ failure: 'tmsync: cannot write the output: no space left on device' });
  });
});

describe('drained (a long text is not queued whole for a slow reader)', () => {
  it('resolves at once when nothing waits, and only once a slow reader has taken what was written', async () => {
    const taken: string[] = [];
    const pending: (() => void)[] = [];
    const slow = new Writable({
      highWaterMark: 16,
      write(chunk: Buffer, _enc, callback) {
        taken.push(chunk.toString());
        pending.push(callback);
      },
    });
    await drained(slow);
    slow.write('a piece longer than the mark');
    let done = false;
    const wait = drained(slow).then(() => (done = true));
    // a turn of the event loop: anything already due (a drain the stream would emit) has run
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    pending.shift()!();
    await wait;
    expect(done).toBe(true);
    expect(taken).toEqual(['a piece longer than the mark']);
  });

  it('resolves when the stream is destroyed instead of draining', async () => {
    const stuck = new Writable({ highWaterMark: 1, write: () => undefined });
    stuck.write('xx');
    const wait = drained(stuck);
    stuck.destroy();
    await expect(wait).resolves.toBeUndefined();
  });
});
