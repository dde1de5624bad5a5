import { decodeImport } from '../../src/import/decode.js';
import type { ImportReader } from '../../src/import/reader.js';
import { encodeText, type TestEncoding } from '../support/encodings.js';
import { readWith as readExport, type ReadResult } from '../support/import-read.js';

/** The readers of the Jira-based tools' tests (xray-csv, xray-json, zephyr-squad-csv): fixtures, reading, errors. */

export { importFixture as fixture, detectedFormats as detected } from '../support/import-read.js';

export function readWith(reader: ImportReader, text: string, file = 'export.csv', columns?: Record<string, string>): ReadResult {
  return readExport(reader, text, file, columns ? { columns } : {});
}

/** The text as the CLI hands it over: encoded, then decoded as `tmsync import` does. */
export function roundTrip(text: string, encoding: TestEncoding, file: string): string {
  return decodeImport(encodeText(text, encoding), file).text;
}

/** The error a call throws (the test fails when it throws none). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}

