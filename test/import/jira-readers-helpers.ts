import { readFileSync } from 'node:fs';
import { decodeImport } from '../../src/import/decode.js';
import { IMPORT_READERS } from '../../src/import/readers.js';
import { ImportReport } from '../../src/import/report.js';
import type { ImportedProject } from '../../src/import/imported.js';
import type { ImportReader } from '../../src/import/reader.js';
import type { TestEncoding } from '../support/encodings.js';
import { encodeText } from '../support/encodings.js';

/** The readers of the Jira-based tools' tests (xray-csv, xray-json, zephyr-squad-csv): fixtures, reading, errors. */

export function fixture(path: string): string {
  return readFileSync(new URL(`../fixtures/import/${path}`, import.meta.url), 'utf8');
}

export function readWith(reader: ImportReader, text: string, file = 'export.csv', columns?: Record<string, string>): { project: ImportedProject; report: ImportReport } {
  const report = new ImportReport();
  return { project: reader.read(text, { file, report, ...(columns ? { columns } : {}) }), report };
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

/** The readers whose detect scores highest for a text (one, unless a tie). */
export function detected(head: string, file: string): string[] {
  const scores = IMPORT_READERS.map((r) => ({ name: r.name, score: r.detect(head.slice(0, 65536), file) }));
  const best = Math.max(...scores.map((s) => s.score));
  return scores.filter((s) => s.score === best && best > 0).map((s) => s.name);
}
