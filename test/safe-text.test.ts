import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeChar, safeInline, safeLine, safeLines, safeLineStart, safeLineStarts, safeMessage } from '../src/safe-text.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const COMMAND_LINE = /^[\s\u00a0\ufeff]*(::|##(vso|teamcity)?\[)/im;

describe('the sanitiser of printed text', () => {
  it('shows control characters escaped: C0 but tab, DEL, C1, bidi controls and line separators', () => {
    expect(safeInline('a\u001b]0;title\u0007b')).toBe('a\\x1b]0;title\\x07b');
    expect(safeInline('erase\u001b[2K\rline')).toBe('erase\\x1b[2K\\rline');
    expect(safeInline('one\ntwo')).toBe('one\\ntwo');
    expect(safeInline('tab\tstays')).toBe('tab\tstays');
    expect(safeInline('del\u007f c1\u009b nel\u0085')).toBe('del\\x7f c1\\x9b nel\\x85');
    expect(safeInline('abc\u202edcba\u2028x')).toBe('abc\\u202edcba\\u2028x');
    expect(safeInline('Crème brûlée ✓ 日本')).toBe('Crème brûlée ✓ 日本');
    expect(escapeChar('\u0000')).toBe('\\x00');
  });

  it('keeps the lines of a multi-line text, each safe', () => {
    expect(safeLines('a\r\n\u001b[31mb')).toEqual(['a\\r', '\\x1b[31mb']);
    expect(safeLine('x\u0007')).toBe('x\\x07');
  });

  it('escapes the first character of a line a CI runner would take for a command, and no other line', () => {
    expect(safeLineStart('::error file=a::b')).toBe('\\x3a:error file=a::b');
    expect(safeLineStart('    ::add-mask::Plan')).toBe('    \\x3a:add-mask::Plan');
    expect(safeLineStart('\t ##vso[task.setvariable variable=x]1')).toBe('\t \\x23#vso[task.setvariable variable=x]1');
    expect(safeLineStart('##[error]x')).toBe('\\x23#[error]x');
    expect(safeLineStart('##teamcity[message text=x]')).toBe('\\x23#teamcity[message text=x]');
    expect(safeLineStart('\u001b[32m::error::x')).toBe('\u001b[32m\\x3a:error::x');
    for (const line of ['### tmsync apply', '- a ::error::x', 'x ::', ': single', '# heading', '+ ::error::x']) expect(safeLineStart(line)).toBe(line);
    expect(safeLineStarts('ok\n ::error::x\n### head')).toBe('ok\n \\x3a:error::x\n### head');
  });

  it('a message keeps its lines, none a command and none with a control character', () => {
    expect(safeMessage('failed: x\n::error::injected\u001b[2K')).toBe('failed: x\n\\x3a:error::injected\\x1b[2K');
  });

  it('whatever the text, a safe inline value has no control character and no newline, and safe lines start no command (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const inline = safeInline(s);
        expect(inline).not.toMatch(CONTROL);
        const message = safeMessage(s);
        expect(message.replace(/\n/g, '')).not.toMatch(CONTROL);
        expect(message).not.toMatch(COMMAND_LINE);
        expect(safeLineStarts(`x\n${safeLines(s).join('\n')}`)).not.toMatch(COMMAND_LINE);
      }),
    );
  });
});
