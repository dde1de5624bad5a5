import { bomOf, decodeWindows1252 } from '../byte-encodings.js';
import { TmsyncError } from '../errors.js';

/**
 * The text of an export file's bytes. Exports arrive as UTF-8 with or without a byte-order mark,
 * UTF-16 with one (Excel's "Unicode text"), or Windows-1252 (Excel's CSV on Windows, old TestLink):
 * a BOM wins, then an XML declaration's `encoding`, then UTF-8 when the bytes are valid UTF-8, then
 * UTF-16 without BOM when every other byte is zero, else Windows-1252. The BOM never stays in the
 * text (it would end up inside the first header name).
 */

export type ImportEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252' | 'iso-8859-15';

/** Encoding labels `--encoding` and XML declarations may use, lower case → the decoder's label. */
const LABELS: Record<string, ImportEncoding> = {
  'utf-8': 'utf-8',
  utf8: 'utf-8',
  'us-ascii': 'utf-8',
  ascii: 'utf-8',
  'utf-16': 'utf-16le',
  'utf-16le': 'utf-16le',
  'utf-16be': 'utf-16be',
  'windows-1252': 'windows-1252',
  cp1252: 'windows-1252',
  'iso-8859-1': 'windows-1252',
  'iso8859-1': 'windows-1252',
  latin1: 'windows-1252',
  'latin-1': 'windows-1252',
  'iso-8859-15': 'iso-8859-15',
  latin9: 'iso-8859-15',
};

export const ENCODING_LABELS: readonly string[] = Object.keys(LABELS);

export interface DecodedText {
  text: string;
  encoding: ImportEncoding;
  /** how the encoding was chosen, for the import's report */
  how: 'bom' | 'declared' | 'given' | 'detected';
}

export function encodingOf(label: string): ImportEncoding | undefined {
  return LABELS[label.trim().toLowerCase()];
}

/** `<?xml … encoding="…"?>` at the start of ASCII-compatible bytes. */
function declaredEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  return /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
}

/** UTF-16 without a BOM: ASCII text has a zero in every other byte. */
function utf16WithoutBom(bytes: Uint8Array): ImportEncoding | undefined {
  const n = Math.min(bytes.length - (bytes.length % 2), 512);
  if (n < 4) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  const half = n / 4;
  if (oddZeros > half && evenZeros === 0) return 'utf-16le';
  if (evenZeros > half && oddZeros === 0) return 'utf-16be';
  return undefined;
}

function decodeAs(bytes: Uint8Array, encoding: ImportEncoding, file: string, fatal: boolean): string {
  if (encoding === 'windows-1252') return decodeWindows1252(bytes);
  try {
    return new TextDecoder(encoding, { fatal }).decode(bytes);
  } catch {
    throw new TmsyncError('invalid_import', `${file} is not valid ${encoding.toUpperCase()}`, {
      hint: 'give the file\'s encoding with --encoding (utf-8, utf-16, windows-1252, iso-8859-15)',
      details: { file, encoding },
    });
  }
}

/**
 * Decodes an export. `given` is `--encoding` (it wins over everything but a BOM, which is always
 * removed). Never throws for a detected encoding; a given or declared one that the bytes break is
 * an `invalid_import` error naming the file.
 */
export function decodeImport(bytes: Uint8Array, file: string, given?: ImportEncoding): DecodedText {
  const bom = bomOf(bytes);
  if (bom) return { text: decodeAs(bytes.subarray(bom.length), given ?? bom.encoding, file, true), encoding: given ?? bom.encoding, how: given ? 'given' : 'bom' };
  if (given) return { text: decodeAs(bytes, given, file, true), encoding: given, how: 'given' };
  const declared = declaredEncoding(bytes);
  if (declared !== undefined) {
    const encoding = encodingOf(declared);
    if (encoding === undefined) {
      throw new TmsyncError('invalid_import', `${file} declares the encoding "${declared}", which tmsync cannot read`, {
        hint: `convert the file to UTF-8, or give one of ${ENCODING_LABELS.join(', ')} with --encoding`,
        details: { file, encoding: declared },
      });
    }
    // a declared UTF-8 that is not valid UTF-8 is common (exports written by hand): detect instead
    if (encoding !== 'utf-8') return { text: decodeAs(bytes, encoding, file, false), encoding, how: 'declared' };
  }
  // before UTF-8: UTF-16 ASCII is valid UTF-8 too (full of NULs)
  const utf16 = declared === undefined ? utf16WithoutBom(bytes) : undefined;
  if (utf16) return { text: decodeAs(bytes, utf16, file, false), encoding: utf16, how: 'detected' };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8', how: declared ? 'declared' : 'detected' };
  } catch {
    return { text: decodeWindows1252(bytes), encoding: 'windows-1252', how: 'detected' };
  }
}
