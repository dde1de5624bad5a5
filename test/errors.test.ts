import { describe, expect, it } from 'vitest';
import { formatProblem, TmsyncError, toTmsyncError } from '../src/errors.js';

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

describe('errors as printed', () => {
  const INJECTED = 'x\n::error file=tmsync.yaml,line=1::injected\u001b]0;pwned\u0007';
  // eslint-disable-next-line no-control-regex
  const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  it('an error quoting the service\'s words keeps them from starting a workflow command or reaching the terminal as controls', async () => {
    const { memoryIo } = await import('../src/cli/io.js');
    const { reportError } = await import('../src/cli/main.js');
    const io = memoryIo();
    reportError(new TmsyncError('invalid_request', `the service refused case "${INJECTED}"`, { hint: `::add-mask::${INJECTED}` }), io, false);
    const text = io.err.join('\n');
    expect(text).toContain('Error: the service refused case "x');
    expect(text).toContain('\\x1b]0;pwned\\x07');
    expect(text).not.toMatch(/^\s*::/m);
    expect(text).not.toMatch(CONTROL);
  });

  it('a problem stays on its one line', () => {
    const line = formatProblem({ file: 'cases/A/a.yaml', line: 1, col: 1, code: 'duplicate_title', severity: 'error', message: `titled \`${INJECTED}\``, hint: 'rename one' });
    expect(line).toBe('cases/A/a.yaml:1:1 titled `x\\n::error file=tmsync.yaml,line=1::injected\\x1b]0;pwned\\x07` (rename one)');
  });
});
