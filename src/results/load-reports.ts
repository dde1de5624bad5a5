import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { TmsyncError } from '../errors.js';
import { parseCucumberJson } from './cucumber-json.js';
import { ENVELOPE_KEYS, parseCucumberMessages } from './cucumber-messages.js';
import { bomOf, decodeWindows1252 } from '../byte-encodings.js';
import { decodeJunit, parseJunit } from './junit.js';
import { parseCtrf } from './ctrf.js';
import { parsePlaywrightJson } from './playwright-json.js';
import { parseNunit, readNunitInPieces } from './nunit.js';
import { parseTrx, readTrxInPieces } from './trx.js';
import { decodeXmlReport, LARGE_REPORT_BYTES } from './xml-report.js';
import { parseXunit, readXunitInPieces } from './xunit.js';
import type { TestRecord } from './record.js';
import { parseRobot } from './robot.js';
import { parseTestng } from './testng.js';
import { REPORT_FORMAT_OPTIONS, type ReportFormat, type ReportFormatOption } from './report-formats.js';

export { REPORT_FORMAT_OPTIONS, type ReportFormat, type ReportFormatOption } from './report-formats.js';

/**
 * The report formats `results push` reads: one reader per format, each producing the common
 * record (record.ts). A format is told from the file's first characters; `--format` overrides.
 * A new format adds its name to report-formats.ts, a row here, a line in {@link detectFormat} and its reader.
 */
interface FormatReader {
  /** the file's text: its encoding told by a byte order mark or the format's own rule */
  decode: (bytes: Uint8Array, file: string) => string;
  parse: (text: string, file: string) => TestRecord[];
  /** reads a file of more than LARGE_REPORT_BYTES from its bytes, a piece at a time, where the format can */
  readLarge?: (bytes: Uint8Array, file: string) => TestRecord[];
}

export const REPORT_FORMATS: Readonly<Record<ReportFormat, FormatReader>> = {
  junit: { decode: decodeJunit, parse: parseJunit },
  'cucumber-json': { decode: decodeJson, parse: parseCucumberJson },
  'cucumber-messages': { decode: decodeJson, parse: parseCucumberMessages },
  testng: { decode: decodeXmlReport, parse: parseTestng },
  robot: { decode: decodeXmlReport, parse: parseRobot },
  ctrf: { decode: decodeJson, parse: parseCtrf },
  playwright: { decode: decodeJson, parse: parsePlaywrightJson },
  trx: { decode: decodeXmlReport, parse: parseTrx, readLarge: readTrxInPieces },
  nunit: { decode: decodeXmlReport, parse: parseNunit, readLarge: readNunitInPieces },
  xunit: { decode: decodeXmlReport, parse: parseXunit, readLarge: readXunitInPieces },
};

const ENVELOPE = new RegExp(`^\\{\\s*"(?:${ENVELOPE_KEYS.join('|')})"\\s*:`);

/**
 * XML reports by their root element: each XML format adds a row. A document whose root is not
 * here is read as JUnit, whose reader names the root it did not expect.
 */
const XML_ROOTS: Readonly<Record<string, ReportFormat>> = {
  testsuites: 'junit',
  testsuite: 'junit',
  'testng-results': 'testng',
  robot: 'robot',
  TestRun: 'trx',
  'test-run': 'nunit',
  'test-results': 'nunit',
  assemblies: 'xunit',
  assembly: 'xunit',
};

/** JSON reports by their first key or shape, tried in order: each JSON format adds a row. */
const JSON_SHAPES: readonly { test: (head: string) => boolean; format: ReportFormat }[] = [
  { test: (head) => head.startsWith('[') || /^\{\s*"features"\s*:/.test(head), format: 'cucumber-json' },
  { test: (head) => ENVELOPE.test(head), format: 'cucumber-messages' },
  { test: (head) => /^\{\s*"(?:results|reportFormat|specVersion|reportId)"\s*:/.test(head) || /^\{\s*"\$schema"\s*:\s*"[^"]*ctrf/i.test(head), format: 'ctrf' },
  { test: (head) => /^\{\s*"config"\s*:/.test(head), format: 'playwright' },
];

/**
 * The format of a report from its first characters (after a byte order mark and white space): XML
 * by its root element ({@link XML_ROOTS}; any other XML is read as JUnit), JSON by its shape
 * ({@link JSON_SHAPES}); else the file's extension decides (an empty `.xml` file is an empty JUnit
 * report, an empty `.trx` file an empty TRX one), else undefined.
 */
export function detectFormat(bytes: Uint8Array, file: string): ReportFormat | undefined {
  const head = headText(bytes);
  if (head.startsWith('<')) {
    const root = xmlRootName(head);
    return (root !== undefined ? XML_ROOTS[root] : undefined) ?? 'junit';
  }
  for (const shape of JSON_SHAPES) if (shape.test(head)) return shape.format;
  if (/\.xml$/i.test(file)) return 'junit';
  if (/\.trx$/i.test(file)) return 'trx';
  if (/\.(?:ndjson|jsonl)$/i.test(file)) return 'cucumber-messages';
  if (/\.json$/i.test(file)) return 'cucumber-json';
  return undefined;
}

/** The name of the first element of an XML head, past the declaration, comments, processing instructions and a doctype. */
export function xmlRootName(head: string): string | undefined {
  const re = /<(?:\?[^]*?\?>|!--[^]*?-->|!DOCTYPE[^>]*>|([A-Za-z_][\w.:-]*))/gy;
  for (let m = re.exec(head); m; m = re.exec(head)) {
    if (m[1] !== undefined) return m[1].replace(/^[\w.-]+:/, '');
    re.lastIndex = skipSpace(head, re.lastIndex);
  }
  return undefined;
}

function skipSpace(text: string, from: number): number {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
}

/** The first characters of the file, without a byte order mark or leading white space. */
function headText(bytes: Uint8Array): string {
  const slice = bytes.subarray(0, 2048);
  let text: string;
  if (slice[0] === 0xff && slice[1] === 0xfe) text = new TextDecoder('utf-16le').decode(slice.subarray(2));
  else if (slice[0] === 0xfe && slice[1] === 0xff) text = new TextDecoder('utf-16be').decode(slice.subarray(2));
  else if (slice[0] === 0x3c && slice[1] === 0x00) text = new TextDecoder('utf-16le').decode(slice);
  else text = Buffer.from(slice).toString('latin1').replace(/^\xef\xbb\xbf/, '');
  return text.replace(/^\uFEFF/, '').trimStart();
}

/**
 * The text of a JSON report: a byte order mark decides (UTF-8, UTF-16 LE or BE), else UTF-8 — and
 * a file that is not valid UTF-8 is read as Windows-1252, which older runners on Windows wrote
 * (JSON has no encoding declaration to say so).
 */
function decodeJson(bytes: Uint8Array): string {
  const bom = bomOf(bytes);
  if (bom) return new TextDecoder(bom.encoding).decode(bytes.subarray(bom.length));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return decodeWindows1252(bytes);
  }
}

/** Reads and parses report files (paths relative to `cwd`) in the order given; `formats` says which format each file was read as. */
export async function loadReports(
  files: readonly string[],
  cwd: string,
  format: ReportFormatOption = 'auto',
): Promise<{ records: TestRecord[]; formats: ReportFormat[] }> {
  const records: TestRecord[] = [];
  const formats: ReportFormat[] = [];
  for (const file of files) {
    let bytes: Buffer | undefined = await readReport(file, cwd, format);
    const chosen = format === 'auto' ? detectFormat(bytes, file) : format;
    if (chosen === undefined) {
      throw new TmsyncError('invalid_report', `${file} is not a test report tmsync can read: it is neither XML (JUnit, TRX, NUnit, xUnit.net, TestNG, Robot Framework) nor JSON (Cucumber, CTRF, Playwright) nor Cucumber messages`, {
        hint: `pass --format (${REPORT_FORMAT_OPTIONS.join(', ')}) if the file is one of them; else convert it to JUnit XML`,
        details: { file },
      });
    }
    formats.push(chosen);
    const reader = REPORT_FORMATS[chosen];
    if (reader.readLarge !== undefined && bytes.length > LARGE_REPORT_BYTES) {
      for (const r of reader.readLarge(bytes, file)) records.push(r);
      continue;
    }
    const text = decodeWhole(reader, bytes, file, chosen);
    bytes = undefined; // the bytes can go while the text is read
    // one at a time: spreading a million testcases into push() overflows the call stack
    for (const r of reader.parse(text, file)) records.push(r);
  }
  return { records, formats };
}

/** The file's text; a JSON report larger than a JavaScript string can hold is said so, not a crash. */
function decodeWhole(reader: FormatReader, bytes: Uint8Array, file: string, format: ReportFormat): string {
  if (format === 'junit') return reader.decode(bytes, file);
  try {
    return reader.decode(bytes, file);
  } catch (err) {
    if (!(err instanceof RangeError) && (err as NodeJS.ErrnoException).code !== 'ERR_STRING_TOO_LONG') throw err;
    throw new TmsyncError('invalid_report', `${file} is too large to read as one text (${Math.round(bytes.length / 1e6)} MB)`, {
      hint: 'split the run into several reports, or leave embedded screenshots and videos out of the JSON report',
      details: { file, format, bytes: bytes.length },
    });
  }
}

async function readReport(file: string, cwd: string, format: ReportFormatOption): Promise<Buffer> {
  try {
    return await readFile(resolve(cwd, file));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // a missing JUnit report keeps the code it always had
    const junit = format === 'junit' || (format === 'auto' && /\.xml$/i.test(file));
    throw new TmsyncError(junit ? 'junit_not_found' : 'report_not_found', `cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`, {
      hint: 'check the path of the report (shell globs that match nothing are passed through literally)',
      details: { file },
    });
  }
}
