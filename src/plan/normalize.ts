/**
 * Normalization so that equal means equal: the repository and the service may spell the same text
 * differently (CRLF from a Windows checkout, a YAML block scalar's trailing newline, trailing blanks
 * an editor left). Both sides go through the same functions before they are compared or sent.
 */

/** `\r\n` and `\r` → `\n`, trailing whitespace of every line and trailing newlines removed. */
const NEEDS_WORK = /\r|[^\S\n]\n|\s$/;

export function normalizeText(text: string | null | undefined): string {
  if (text === undefined || text === null) return '';
  // most texts are already clean: one scan instead of split/map/join (10,000 cases per plan)
  if (!NEEDS_WORK.test(text)) return text;
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .replace(/\n+$/, '');
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
  return [...new Set(values)].sort();
}

export function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}
