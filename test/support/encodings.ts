/**
 * Bytes of a text in the encodings exports arrive in, for the importers' tests: UTF-8 with and
 * without a BOM, UTF-16 LE/BE with a BOM, Windows-1252 (Node encodes UTF-8 and UTF-16 LE only).
 */

/** The characters of Windows-1252's 0x80–0x9F range, by code point. */
const CP1252_HIGH: Record<number, number> = {
  0x20ac: 0x80, 0x201a: 0x82, 0x0192: 0x83, 0x201e: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87, 0x02c6: 0x88,
  0x2030: 0x89, 0x0160: 0x8a, 0x2039: 0x8b, 0x0152: 0x8c, 0x017d: 0x8e, 0x2018: 0x91, 0x2019: 0x92, 0x201c: 0x93,
  0x201d: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02dc: 0x98, 0x2122: 0x99, 0x0161: 0x9a, 0x203a: 0x9b,
  0x0153: 0x9c, 0x017e: 0x9e, 0x0178: 0x9f,
};

export type TestEncoding = 'utf-8' | 'utf-8-bom' | 'utf-16le-bom' | 'utf-16be-bom' | 'windows-1252';

export const TEST_ENCODINGS: readonly TestEncoding[] = ['utf-8', 'utf-8-bom', 'utf-16le-bom', 'utf-16be-bom', 'windows-1252'];

export function encodeText(text: string, encoding: TestEncoding): Buffer {
  switch (encoding) {
    case 'utf-8':
      return Buffer.from(text, 'utf8');
    case 'utf-8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'utf-16le-bom':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf-16be-bom':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    case 'windows-1252': {
      const out: number[] = [];
      for (const ch of text) {
        const cp = ch.codePointAt(0)!;
        const byte = cp < 0x80 || (cp >= 0xa0 && cp <= 0xff) ? cp : CP1252_HIGH[cp];
        if (byte === undefined) throw new Error(`U+${cp.toString(16)} has no Windows-1252 byte`);
        out.push(byte);
      }
      return Buffer.from(out);
    }
  }
}
