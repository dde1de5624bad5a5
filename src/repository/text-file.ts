import { isUtf8 } from 'node:buffer';
import { TmsyncError } from '../errors.js';

/**
 * Reading the bytes of a repository file as text, exactly or not at all.
 *
 * - UTF-8 (the format), with or without a byte-order mark: the mark is kept in the text (`\uFEFF`)
 *   so a rewrite keeps it.
 * - UTF-16 with a byte-order mark (little or big endian), as some Windows editors save: read
 *   correctly, and rewritten in the same encoding.
 * - Anything else that is not valid UTF-8 (a Latin-1 or Windows-1252 file) is refused with the
 *   line and column of the first bad byte: it is never read with replacement characters, so it
 *   is never sent with them nor rewritten lossily.
 */

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be';

interface DecodedText {
  text: string;
  encoding: TextEncodingName;
}

interface EncodingProblem {
  line: number;
  col: number;
  message: string;
  hint: string;
}

const UTF8_HINT = 'save the file as UTF-8 (for a Latin-1 file: `iconv -f latin1 -t utf-8`); tmsync never reads or rewrites a file it cannot read exactly';

/** Offset of the first byte that does not belong to a valid UTF-8 sequence, or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let min: number;
    let max = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) {
      need = 1;
      min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      // no overlong forms (E0 80..9F) and no surrogates (ED A0..BF)
      min = b === 0xe0 ? 0xa0 : 0x80;
      if (b === 0xed) max = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      min = b === 0xf0 ? 0x90 : 0x80;
      if (b === 0xf4) max = 0x8f;
    } else {
      return i;
    }
    // a sequence cut by the end of the file
    if (i + need >= n) return i;
    const second = bytes[i + 1];
    if (second < min || second > max) return i;
    for (let k = 2; k <= need; k++) {
      const c = bytes[i + k];
      if (c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

/** `line:col` (1-based, columns in characters) of a byte offset in mostly-UTF-8 bytes. */
function positionOf(bytes: Uint8Array, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (bytes[i] === 0x0a) {
      line += 1;
      lineStart = i + 1;
    }
  }
  const before = Buffer.from(bytes.buffer, bytes.byteOffset + lineStart, offset - lineStart).toString('utf8');
  return { line, col: [...before].length + 1 };
}

/**
 * Decodes a repository file. Returns the text, or the problem that stops it being read: invalid
 * UTF-8 (with the position of the first bad byte) or a UTF-16 file with broken surrogates.
 */
export function decodeText(bytes: Uint8Array): { decoded: DecodedText } | { problem: EncodingProblem } {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    const encoding: TextEncodingName = bytes[0] === 0xff ? 'utf-16le' : 'utf-16be';
    try {
      if (bytes.length % 2 !== 0) throw new Error('odd length');
      // ignoreBOM keeps the mark in the text, as for UTF-8
      const text = new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
      return { decoded: { text, encoding } };
    } catch {
      return {
        problem: {
          line: 1,
          col: 1,
          message: `the file starts with a ${encoding.toUpperCase()} byte-order mark but is not valid ${encoding.toUpperCase()}`,
          hint: 'save the file as UTF-8',
        },
      };
    }
  }
  // the native check is fast; the byte-by-byte scan only runs to place a problem
  const bad = isUtf8(bytes) ? -1 : firstInvalidUtf8(bytes);
  if (bad === -1) return { decoded: { text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'), encoding: 'utf-8' } };
  const pos = positionOf(bytes, bad);
  const byte = bytes[bad].toString(16).toUpperCase().padStart(2, '0');
  return {
    problem: {
      ...pos,
      message: `the file is not valid UTF-8: byte 0x${byte} at line ${pos.line}, column ${pos.col} (a Latin-1 or Windows-1252 file?)`,
      hint: UTF8_HINT,
    },
  };
}

/** Decodes or throws `invalid_encoding` naming the file (for writers, which must never guess). */
export function decodeTextOrThrow(bytes: Uint8Array, file: string): DecodedText {
  const r = decodeText(bytes);
  if ('decoded' in r) return r.decoded;
  throw new TmsyncError('invalid_encoding', `${file}:${r.problem.line}:${r.problem.col} ${r.problem.message}; the file is left as it is`, {
    hint: r.problem.hint,
    details: { file, line: r.problem.line, col: r.problem.col },
  });
}

/** The bytes of `text` in `encoding` (the inverse of `decodeText`; a leading `\uFEFF` is the mark). */
export function encodeText(text: string, encoding: TextEncodingName): Buffer {
  if (encoding === 'utf-8') return Buffer.from(text, 'utf8');
  const withMark = text.startsWith('\uFEFF') ? text : `\uFEFF${text}`;
  const le = Buffer.from(withMark, 'utf16le');
  return encoding === 'utf-16le' ? le : le.swap16();
}
