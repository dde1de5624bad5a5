/**
 * Strings of their own. A parser's strings are slices of the text it read: one kept slice keeps
 * the whole decoded export alive (a 60 MB export is 120 MB of two-byte text as soon as one
 * character needs it). What outlives the read (the model, the report's examples) is copied.
 */

/** Whether every character fits one byte. */
function narrow(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return false;
  return true;
}

/**
 * A copy of `s` that shares no memory with the string it was cut from, one byte a character when
 * it can be. No regular expression: the last match of one would keep `s` (and its text) alive.
 */
export function ownString(s: string): string {
  if (s.length === 0) return '';
  if (narrow(s)) return Buffer.from(s, 'latin1').toString('latin1');
  // a one-character prefix, then slicing it off, makes V8 copy the characters
  return (' ' + s).slice(1);
}
