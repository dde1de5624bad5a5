import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadReports } from '../../src/results/load-reports.js';
import type { TestRecord } from '../../src/results/record.js';
import { TmsyncError } from '../../src/errors.js';
import { encodeText, type TestEncoding } from './encodings.js';

/**
 * For the report readers' tests: an XML report's bytes in one of the encodings runners write, its
 * declaration saying so where it must (Windows-1252 has no byte order mark), optionally with CRLF.
 */
export function xmlBytes(xml: string, encoding: TestEncoding, crlf = false): Buffer {
  let text = crlf ? xml.replace(/\r?\n/g, '\r\n') : xml;
  if (encoding === 'windows-1252') text = text.replace(/(<\?xml[^>]*?encoding=")[^"]*(")/, '$1windows-1252$2');
  return encodeText(text, encoding);
}

/** Writes `bytes` as `name` in a fresh directory and reads it the way `results push` does (the format told from the content). */
export async function loadOne(name: string, bytes: Buffer | string): Promise<{ records: TestRecord[]; format: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'tmsync-report-'));
  try {
    await writeFile(join(dir, name), bytes);
    const { records, formats } = await loadReports([name], dir);
    return { records, format: formats[0] };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The TmsyncError a call throws (fails the test when it throws nothing or something else). */
export function thrownBy(fn: () => unknown): TmsyncError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TmsyncError) return err;
    throw err;
  }
  throw new Error('expected a TmsyncError');
}

/** The same for a promise. */
export async function rejectionOf(p: Promise<unknown>): Promise<TmsyncError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TmsyncError) return err;
    throw err;
  }
  throw new Error('expected a TmsyncError');
}

/** The records of a report file in `dir`, read the way `results push` does. */
export async function loadFixture(dir: string, file: string): Promise<TestRecord[]> {
  return (await loadReports([file], dir)).records;
}

/** The record (not a suite-level entry) of a test by name; fails the test naming what there is. */
export function recordNamed(records: readonly TestRecord[], name: string): TestRecord {
  const r = records.find((x) => x.name === name && !x.suiteLevel);
  if (!r) throw new Error(`no record ${name} in ${records.map((x) => x.name).join(', ')}`);
  return r;
}
