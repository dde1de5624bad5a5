import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, EXIT_USAGE, exitCodesHelp } from '../../src/cli/exit-codes.js';

const cliDir = join(import.meta.dirname, '..', '..', 'src', 'cli');
const cliSources = readdirSync(cliDir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts') && f !== 'exit-codes.ts')
  .map((f) => ({ file: f, text: readFileSync(join(cliDir, f), 'utf8') }));

describe('exit codes', () => {
  it('keep the numbers scripts depend on', () => {
    expect(EXIT).toEqual({ OK: 0, FAILED: 1, CHANGES: 2, RUN_NOT_PASSED: 3, INTERRUPTED: 130 });
    expect(EXIT_USAGE).toBe(1);
    expect(exitCodesHelp()).toBe(
      'Exit codes: 0 success (plan --detailed-exitcode: the repository and the service agree), 1 error, 2 they differ (plan --detailed-exitcode), 3 run did not pass, 130 interrupted (Ctrl-C).',
    );
  });

  it('are named in one module: no command returns, exits or sets a bare number', () => {
    const bare = /\breturn (?:\d+|[^;\n]*\? ?\d+ ?: ?\d+);|process\.exit\(\d+\)|setExit\(\d+\)|EXIT_[A-Z_]+ = \d+/;
    const offenders = cliSources.flatMap(({ file, text }) =>
      text
        .split('\n')
        .map((line, i) => ({ line: line.trim(), at: `${file}:${i + 1}` }))
        .filter(({ line }) => !line.startsWith('//') && !line.startsWith('*') && bare.test(line))
        .map(({ line, at }) => `${at} ${line}`),
    );
    expect(offenders).toEqual([]);
  });
});
