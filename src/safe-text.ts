/**
 * Text from the service or the repository (titles, names, field values, error messages), made safe
 * for where tmsync prints it. Every renderer goes through this module; none replaces characters of
 * its own.
 *
 * - Control characters (C0 but tab, DEL, C1, so ESC and BEL too) and the characters that reorder
 *   or break lines without being a newline (bidi controls, U+2028, U+2029) are shown escaped
 *   (`\x1b`, `\u202e`): a title cannot set the terminal's title, move the cursor or rewrite plan
 *   lines a reviewer reads before typing "yes".
 * - In a heading or a title ({@link safeInline}) a newline is shown as `\n`: the value stays on its
 *   line. A multi-line text (a description in a diff) keeps its lines ({@link safeLines}).
 * - No line of output begins with text that a CI runner reads as a command (`::error …`,
 *   `::add-mask::…` on GitHub Actions, `##vso[…]` on Azure Pipelines, `##teamcity[…]`): the
 *   renderers pass each line through {@link safeLineStart}, which escapes the first character of
 *   such a line (`\x3a:error`). An indented line counts too: a runner may trim the line before it looks.
 */

/** What {@link safeInline} escapes: C0 but tab, DEL, C1, bidi controls, line and paragraph separators. */
// eslint-disable-next-line no-control-regex
const UNSAFE_INLINE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/** The same, newlines apart (a multi-line text is split on them). */
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_LINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const HAS_UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * A line a CI runner would take as a command: after whitespace (and the colour codes tmsync adds
 * itself), `::` (GitHub Actions), `##vso[` or `##[` (Azure Pipelines), `##teamcity[` (TeamCity). A
 * markdown heading (`### …`) is none of them.
 */
// eslint-disable-next-line no-control-regex
const COMMAND_START = /^((?:[\s\u00a0\ufeff]|\u001b\[[0-9;]*m)*)(:(?=:)|#(?=#(?:vso|teamcity)?\[))/i;

/** The escaped form of one character: `\n`, `\r`, `\t`, else `\xHH` up to U+00FF, `\uHHHH` above. */
export function escapeChar(ch: string): string {
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  const code = ch.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** A value printed inside a line (a title, a name, a message): control characters and newlines shown escaped. */
export function safeInline(text: string): string {
  return HAS_UNSAFE.test(text) ? text.replace(UNSAFE_INLINE, escapeChar) : text;
}

/** One line of a multi-line text (no `\n` in it): control characters shown escaped, a CR too. */
export function safeLine(text: string): string {
  return HAS_UNSAFE.test(text) ? text.replace(UNSAFE_IN_LINE, escapeChar) : text;
}

/** A multi-line text as its lines, each made safe with {@link safeLine}. */
export function safeLines(text: string): string[] {
  return text.split('\n').map(safeLine);
}

/**
 * A whole line of output: when it would begin (after whitespace) with a CI runner's command marker
 * (`::`, `##vso[`, …), the marker's first character is shown escaped. Other lines are returned as they are.
 */
export function safeLineStart(line: string): string {
  const m = COMMAND_START.exec(line);
  return m ? `${m[1]}${escapeChar(m[2])}${line.slice(m[0].length)}` : line;
}

/**
 * A message that may hold text from the service or the files (an error, a problem, a failure):
 * its lines stay lines, each made safe ({@link safeLine}, {@link safeLineStart}).
 */
export function safeMessage(text: string): string {
  if (!text.includes('\n')) return safeLineStart(safeLine(text));
  return text
    .split('\n')
    .map((l) => safeLineStart(safeLine(l)))
    .join('\n');
}

/**
 * A title or name in markdown, on its line ({@link safeInline}), with the markdown and HTML it
 * could carry neutralized (`_` stays: GFM ignores it inside words, and paths are full of it). The
 * plan's comment and every job summary escape text with it.
 */
export function safeMarkdown(text: string): string {
  return safeInline(text).replace(/[\\`*[\]<>|]/g, (ch) => `\\${ch}`);
}

/** A whole text of output lines (markdown, a rendered block): each line passed through {@link safeLineStart}. */
export function safeLineStarts(text: string): string {
  if (!text.includes('::') && !text.includes('##')) return text;
  return text.split('\n').map(safeLineStart).join('\n');
}
