/**
 * Normalization so that equal means equal: the repository and the service may spell the same text
 * differently (CRLF from a Windows checkout, a YAML block scalar's trailing newline, trailing blanks
 * an editor left). Both sides go through the same functions before they are compared or sent.
 */

/** `\r\n` and `\r` → `\n`, trailing whitespace of every line and trailing newlines removed. */
export function normalizeText(text: string | null | undefined): string {
  if (text === undefined || text === null) return '';
  // most texts are already clean: a scan of the few characters that can need work instead of
  // split/map/join, or of a regular expression over every character (every text of every case, each plan)
  if (!needsWork(text)) return text;
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
}

const SPACE = /\s/;

/**
 * Whether `normalizeText` changes a text: it holds a `\r`, a line ending in whitespace, or ends in
 * whitespace (the test `/\r|[^\S\n]\n|\s$/` made, looking only at the characters before each newline
 * and the last).
 */
export function needsWork(text: string): boolean {
  const n = text.length;
  if (n === 0) return false;
  if (isSpace(text.charCodeAt(n - 1))) return true;
  if (text.indexOf('\r') >= 0) return true;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', nl + 1)) {
    const before = nl > 0 ? text.charCodeAt(nl - 1) : 10;
    if (before !== 10 && isSpace(before)) return true;
  }
  return false;
}

function isSpace(code: number): boolean {
  // the common characters first; the rest of `\s` (Unicode spaces) through the expression
  if (code === 32 || code === 9 || code === 10 || code === 13) return true;
  if (code < 128 && code !== 11 && code !== 12) return false;
  return SPACE.test(String.fromCharCode(code));
}

/** Titles and names compare case-sensitively after trimming. */
export function normalizeTitle(text: string | null | undefined): string {
  return (text ?? '').trim();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Clients written against the live service tell an id from a name by the UUID pattern. */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A `Map` key for a folder path (names never contain NUL). */
export function pathKey(path: readonly string[]): string {
  return path.join('\u0000');
}

/** `Checkout/Payments` for people. */
export function showPath(path: readonly string[]): string {
  return path.join('/');
}

/** Sorted copy, for comparing label sets. */
export function sortedUnique(values: readonly string[]): string[] {
  // most lists are sorted already (what the service reports, what a sort made): checked, not sorted again
  let ascending = true;
  for (let i = 1; i < values.length && ascending; i++) ascending = values[i - 1] < values[i];
  return ascending ? values.slice() : [...new Set(values)].sort();
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
