import { describe, expect, it } from 'vitest';
import { toTmsyncError } from '../src/errors.js';

const systemError = (code: string, syscall: string, path: string) =>
  Object.assign(new Error(`${code}: simulated, ${syscall} '${path}'`), { code, syscall, path });

describe('toTmsyncError', () => {
  it('reports an operating-system failure (full disk, read-only file system, permission) as an io_error with its path, not as a bug', () => {
    for (const [code, words] of [
      ['ENOSPC', 'no space left on the device'],
      ['EROFS', 'the file system is read-only'],
      ['EACCES', 'permission denied'],
    ]) {
      const e = toTmsyncError(systemError(code, 'open', '/repo/cases/A/a.yaml'));
      expect(e.code).toBe('io_error');
      expect(e.message).toBe(`cannot open /repo/cases/A/a.yaml: ${words} (${code})`);
      expect(e.hint).not.toContain('bug');
      expect(e.details).toEqual({ errno: code, path: '/repo/cases/A/a.yaml', syscall: 'open' });
    }
  });

  it('still labels an unexpected error internal', () => {
    const e = toTmsyncError(new TypeError('x is undefined'));
    expect(e.code).toBe('internal');
    expect(e.message).toBe('internal error: x is undefined');
  });
});
