/**
 * What every reader of another tool's file (an export, a report) needs of its bytes: the byte
 * order mark, and Windows-1252 decoded by hand.
 */

/** The encoding a byte order mark names, and its length; undefined without one. */
export function bomOf(bytes: Uint8Array): { encoding: 'utf-8' | 'utf-16le' | 'utf-16be'; length: number } | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/** Windows-1252's characters for the bytes 0x80–0x9F (undefined bytes keep their C1 code). */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * ISO-8859-1 and Windows-1252, decoded as Windows-1252 the way browsers do (the WHATWG Encoding
 * standard treats both labels so): every byte is a character, 0x80–0x9F the printable ones of
 * Windows-1252. By hand, because Node 20's TextDecoder reads `windows-1252` as plain Latin-1, which
 * turns the quotes, dashes and € of every Excel export into control characters.
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80]);
}
