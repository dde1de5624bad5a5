import { readFileSync } from 'node:fs';
import { TmsyncError } from '../../src/errors.js';
import { decodeImport } from '../../src/import/decode.js';
import type { ImportedProject } from '../../src/import/imported.js';
import type { ImportReader, ReadImportContext } from '../../src/import/reader.js';
import { IMPORT_READERS } from '../../src/import/readers.js';
import { ImportReport } from '../../src/import/report.js';
import { encodeText, type TestEncoding } from './encodings.js';

/**
 * Reading an export the way `tmsync import` does (bytes decoded, then one reader), for the
 * readers' unit tests (test/import/<format>.test.ts).
 */

export interface ReadResult {
  project: ImportedProject;
  report: ImportReport;
}

export function readWith(reader: ImportReader, text: string, file: string, extra: Partial<ReadImportContext> = {}): ReadResult {
  const report = new ImportReport();
  return { project: reader.read(text, { file, report, ...extra }), report };
}

/** `text` encoded as an export could arrive, decoded by `decodeImport`, then read. */
export function readEncoded(reader: ImportReader, text: string, encoding: TestEncoding, file: string, extra: Partial<ReadImportContext> = {}): ReadResult {
  return readWith(reader, decodeImport(encodeText(text, encoding), file).text, file, extra);
}

/** A fixture's text (test/fixtures/import/…). */
export function importFixture(path: string): string {
  return readFileSync(new URL(`../fixtures/import/${path}`, import.meta.url), 'utf8');
}

/** The error `fn` throws, which must be a TmsyncError. */
export function importError(fn: () => unknown): TmsyncError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TmsyncError) return err;
    throw err;
  }
  throw new Error('expected a TmsyncError, nothing was thrown');
}

/** The readers' names with the highest detect() score for this head, as the CLI would choose. */
export function detectedFormats(text: string, file: string): string[] {
  const head = text.slice(0, 64 * 1024);
  const scores = IMPORT_READERS.map((r) => ({ name: r.name, score: r.detect(head, file) }));
  const best = Math.max(...scores.map((s) => s.score));
  return best === 0 ? [] : scores.filter((s) => s.score === best).map((s) => s.name);
}
