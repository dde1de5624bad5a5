import { describe, expect, it } from 'vitest';
import { decodeImport } from '../../src/import/decode.js';
import { TmsyncError } from '../../src/errors.js';
import { encodeText, TEST_ENCODINGS } from '../support/encodings.js';

const TEXT = 'Title,Étape\r\nCafé – “crème”,€ 5\r\n';

describe('decodeImport', () => {
  it.each(TEST_ENCODINGS)('reads %s to the same text, without a BOM in it', (encoding) => {
    const decoded = decodeImport(encodeText(TEXT, encoding), 'f.csv');
    expect(decoded.text).toBe(TEXT);
    expect(decoded.text.charCodeAt(0)).not.toBe(0xfeff);
  });

  it('says how it chose the encoding', () => {
    expect(decodeImport(encodeText(TEXT, 'utf-8-bom'), 'f').how).toBe('bom');
    expect(decodeImport(encodeText(TEXT, 'windows-1252'), 'f')).toMatchObject({ encoding: 'windows-1252', how: 'detected' });
    expect(decodeImport(Buffer.from('a,b\r\n', 'utf16le'), 'f')).toMatchObject({ text: 'a,b\r\n', encoding: 'utf-16le', how: 'detected' });
  });

  it('follows an XML declaration, and a given encoding over it', () => {
    const xml = '<?xml version="1.0" encoding="ISO-8859-1"?><a>é</a>';
    expect(decodeImport(Buffer.from(xml, 'latin1'), 'f.xml')).toMatchObject({ text: xml, how: 'declared' });
    expect(decodeImport(Buffer.from(xml, 'latin1'), 'f.xml', 'windows-1252').how).toBe('given');
  });

  it('refuses a declared encoding it cannot read, and a given one the bytes break, naming the file', () => {
    expect(() => decodeImport(Buffer.from('<?xml version="1.0" encoding="EBCDIC"?><a/>'), 'x.xml')).toThrow(/x\.xml declares the encoding "EBCDIC"/);
    let error: unknown;
    try {
      decodeImport(Buffer.from([0x61, 0xff, 0x62]), 'y.csv', 'utf-8');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TmsyncError);
    expect((error as TmsyncError).message).toBe('y.csv is not valid UTF-8');
  });
});
