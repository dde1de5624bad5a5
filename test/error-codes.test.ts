import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isErrorCode } from '../src/error-codes.js';
import { EXIT, errorCodesTable, exitStatusOf } from '../src/cli/exit-codes.js';
import type { ErrorCode } from '../src/errors.js';

const root = join(import.meta.dirname, '..');
const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: `src/${f}`, text: readFileSync(join(root, 'src', f), 'utf8') }));

/** The codes `src/` gives errors: the first argument of each `new TmsyncError(` and `super(`, and the `ApiErrorCode` union. */
function codesUsed(): Map<string, string> {
  const used = new Map<string, string>();
  for (const { file, text } of sources) {
    for (const m of text.matchAll(/(?:new TmsyncError|super)\(\s*([^,()]+),/g)) {
      for (const lit of m[1].matchAll(/'([a-z0-9_]+)'/g)) used.set(lit[1], file);
    }
  }
  const api = sources.find((s) => s.file === 'src/remote/api-error.ts')!.text;
  const union = /export type ApiErrorCode =([^;]+);/.exec(api)![1];
  for (const lit of union.matchAll(/'([a-z0-9_]+)'/g)) used.set(lit[1], 'src/remote/api-error.ts');
  return used;
}

describe('error codes', () => {
  it('every code src/ gives an error is in the table', () => {
    const used = codesUsed();
    expect(used.size).toBeGreaterThan(80);
    const unknown = [...used].filter(([code]) => !isErrorCode(code)).map(([code, file]) => `${code} (${file})`);
    expect(unknown).toEqual([]);
  });

  it('every code of the table is given somewhere in src/', () => {
    const elsewhere = sources.filter((s) => s.file !== 'src/error-codes.ts').map((s) => s.text);
    const unused = Object.keys(ERROR_CODES).filter((code) => !elsewhere.some((t) => t.includes(`'${code}'`)));
    expect(unused).toEqual([]);
  });

  it('each code has a meaning and exits with a status of the exit-code table', () => {
    const statuses: number[] = Object.values(EXIT);
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      expect(ERROR_CODES[code].length, code).toBeGreaterThan(10);
      expect(statuses, code).toContain(exitStatusOf(code));
    }
  });

  it('docs/errors.md lists every code with its exit status and meaning, as the table has them', () => {
    const doc = readFileSync(join(root, 'docs', 'errors.md'), 'utf8');
    const section = /<!-- error codes: begin -->\n([\s\S]*?)\n<!-- error codes: end -->/.exec(doc)?.[1];
    // after a change to the table: npm run build && node scripts/gen-errors-doc.mjs
    expect(section).toBe(errorCodesTable());
    const rows = section!.split('\n').slice(2).map((row) => /^\| `([a-z0-9_]+)` \| (\d+) \| (.+) \|$/.exec(row));
    expect(rows.map((r) => r?.[1])).toEqual(Object.keys(ERROR_CODES).sort());
  });
});
