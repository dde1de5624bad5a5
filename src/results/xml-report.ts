import sax from 'sax';
import { bomOf } from '../byte-encodings.js';
import { TmsyncError } from '../errors.js';
import { lineCol, scanXml, type XmlHandler } from '../xml-scan.js';
import { decodeJunit } from './junit.js';
import { attachmentsInOutput } from './output-attachments.js';
import type { RecordAttachment, TestRecord } from './record.js';
import type { ReportFormat } from './report-formats.js';

/**
 * What the XML readers other than JUnit's (TRX, NUnit, xUnit.net, TestNG, Robot Framework) share: the JUnit reader's
 * decoding and well-formedness-checking scanner, with their errors told as `invalid_report` (the
 * JUnit reader keeps `invalid_junit`), and the small conversions every one of them needs.
 */

export type { XmlHandler } from '../xml-scan.js';

/** The report's text: a byte order mark, else the declared encoding, else UTF-8 (see decodeJunit). */
export function decodeXmlReport(bytes: Uint8Array, report: string): string {
  return asReportError(() => decodeJunit(bytes, report));
}

/**
 * Scans `text` calling `handler`; a malformed or truncated file is an `invalid_report` naming
 * `report:line:col` and what was left open, an empty one says so. Returns the root element's name.
 */
export function scanXmlReport(text: string, report: string, handler: XmlHandler & { root: string | undefined }): string {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  asReportError(() => scanXml(body, report, handler));
  if (handler.root === undefined) {
    const { line, col } = lineCol(body, body.length);
    throw new TmsyncError('invalid_report', `${report}:${line}:${col} is not well-formed XML: ${body.trim() === '' ? 'the file is empty' : 'the file holds no XML element'}`, {
      hint: 'check that the test runner finished writing the report (a crashed run leaves it empty or truncated)',
      details: { file: report, line, col },
    });
  }
  return handler.root;
}

/** The error for a document of another kind than `format` reads. */
export function wrongRoot(report: string, root: string, format: ReportFormat, what: string, roots: readonly string[], hint: string): TmsyncError {
  return new TmsyncError('invalid_report', `${report} is not ${what}: the root element is <${root}>, not ${roots.map((r) => `<${r}>`).join(' or ')}`, {
    hint,
    details: { file: report, format, root },
  });
}

function asReportError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TmsyncError && err.code === 'invalid_junit') {
      throw new TmsyncError('invalid_report', err.message, { ...(err.hint !== undefined ? { hint: err.hint } : {}), ...(err.details !== undefined ? { details: err.details } : {}) });
    }
    throw err;
  }
}

/** A handler that also tells the root element it saw. */
export interface RootedHandler extends XmlHandler {
  readonly root: string | undefined;
}

/**
 * Scans one XML report whose root element must be `root` (TestNG, Robot Framework):
 * `invalid_report` with `file:line:col` for malformed, truncated or empty text, and for a
 * document whose root element is another.
 */
export function scanRootedReport(xml: string, report: string, handler: RootedHandler, root: string, what: { format: string; hint: string }): void {
  const found = scanXmlReport(xml, report, handler);
  if (found !== root) {
    throw new TmsyncError('invalid_report', `${report} is not a ${what.format} report: the root element is <${found}>, not <${root}>`, {
      hint: what.hint,
      details: { file: report, root: found },
    });
  }
}

/** A duration in milliseconds from a text number, or undefined when it is not one. */
export function millis(value: string | undefined, scale = 1): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * scale) : undefined;
}

/** What one XML report format's reader is made of (TRX, NUnit, xUnit.net): its handler and its roots. */
export interface XmlReportSpec<B extends XmlHandler & { root: string | undefined }> {
  format: ReportFormat;
  /** `a TRX report`, for the error naming another root */
  what: string;
  roots: readonly string[];
  /** what to pass instead, when the root is another */
  hint: string;
  handler: (report: string) => B;
  /** the records, once the whole document was read */
  records: (handler: B) => TestRecord[];
}

/**
 * A format's two entry points: `parse` over the text, `readInPieces` for a report too large for one
 * text (see {@link readXmlReportInPieces}; `pieceBytes` is for tests). Both check the root.
 */
export function xmlReportReader<B extends XmlHandler & { root: string | undefined }>(spec: XmlReportSpec<B>): {
  parse: (xml: string, report: string) => TestRecord[];
  readInPieces: (bytes: Uint8Array, report: string, pieceBytes?: number) => TestRecord[];
} {
  const readWith = (report: string, scan: (b: B) => string): TestRecord[] => {
    const b = spec.handler(report);
    const root = scan(b);
    if (!spec.roots.includes(root)) throw wrongRoot(report, root, spec.format, spec.what, spec.roots, spec.hint);
    return spec.records(b);
  };
  return {
    parse: (xml, report) => readWith(report, (b) => scanXmlReport(xml, report, b)),
    readInPieces: (bytes, report, pieceBytes) => readWith(report, (b) => readXmlReportInPieces(bytes, report, b, pieceBytes)),
  };
}

/** An element's name without its namespace prefix (`t:TestRun` → `TestRun`). */
export function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon < 0 ? name : name.slice(colon + 1);
}

/** The first non-empty line of a message, capped as the JUnit reader caps it. */
export function firstLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  for (const l of text.split(/\r?\n/, 200)) {
    const t = l.trim();
    if (t !== '') return t.length > 500 ? `${t.slice(0, 497)}...` : t;
  }
  return undefined;
}

/** A duration in (fractional) seconds, as NUnit and xUnit.net write it, in milliseconds. */
export function secondsToMs(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim().replace(/,/g, ''));
  return value.trim() !== '' && Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : undefined;
}

/** The last part of a path written with `/` or `\` (an assembly's file name). */
export function baseName(path: string): string {
  const m = /[^/\\]*$/.exec(path);
  return m && m[0] !== '' ? m[0] : path;
}

/** `name` without a leading `classname.` (xUnit.net, NUnit 2 and some TRX writers put the class in the test's name). */
export function withoutClass(name: string, classname: string): string {
  return classname !== '' && name.length > classname.length + 1 && name.startsWith(`${classname}.`) ? name.slice(classname.length + 1) : name;
}

/** Shared by the records without properties (most of them): a million empty objects add up. */
export const NO_PROPERTIES: Record<string, string> = Object.freeze({});

/** Adds a property; a second value of the same name is appended, comma-separated (a `test_case` property may name several cases). */
export function addProperty(properties: Record<string, string>, key: string, value: string): Record<string, string> {
  const out = properties === NO_PROPERTIES ? {} : properties;
  out[key] = out[key] !== undefined && out[key] !== value ? `${out[key]}, ${value}` : value;
  return out;
}

const MEDIA = /\.(?:png|jpe?g|gif|webp|bmp|svg|mp4|webm|avi|mov|zip|har|log|txt|html?)$/i;
const IMAGE_DATA = /^data:([\w.+/-]+);base64,([A-Za-z0-9+/=\s]+)$/;

/**
 * Files an HTML or plain log line names (TestNG's `Reporter.log`, Robot's screenshot messages):
 * what attachmentsInOutput finds (`[[ATTACHMENT|path]]`, `file://`), the `src` and `href` of
 * `<img>` and `<a>` tags (an `<img src="data:image/png;base64,…">` becomes a body), and bare paths
 * ending in a screenshot, video, trace or log extension. Web links are not files and are left out.
 */
export function filesInLog(text: string, known: readonly RecordAttachment[] = []): RecordAttachment[] {
  const out: RecordAttachment[] = [];
  const seen = new Set<string>();
  const add = (a: RecordAttachment) => {
    const key = a.path ?? a.body;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(a);
  };
  for (const a of known) add(a);
  for (const a of attachmentsInOutput(text)) add(a);
  for (const m of text.matchAll(/\b(?:src|href)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
    const value = (m[1] ?? m[2]).trim();
    const data = IMAGE_DATA.exec(value);
    if (data) add({ body: data[2].replace(/\s+/g, ''), encoding: 'base64', mediaType: data[1] });
    else if (value !== '' && !/^(?:[a-z][\w+.-]*:)?\/\//i.test(value) && !/^(?:https?|mailto|javascript|data):/i.test(value) && MEDIA.test(value.replace(/[?#].*$/, ''))) {
      add({ path: value });
    }
  }
  const withoutTags = text.replace(/<[^>]*>/g, ' ');
  for (const m of withoutTags.matchAll(/(?:^|[\s'"(=])((?:[A-Za-z]:[\\/]|[.~]?[\\/]|[\w.-]+[\\/])[^\s'"()<>|]*?\.(?:png|jpe?g|gif|webp|bmp|mp4|webm|zip|har))(?=$|[\s'")<>,;])/gim)) {
    if (!/^[a-z][\w+.-]*:\/\//i.test(m[1])) add({ path: m[1] });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Reports too large for one text

/** V8's longest string: a report of more bytes may not fit one text, so it is read in pieces. */
export const LARGE_REPORT_BYTES = 2 ** 29 - 24;

const PIECE_BYTES = 64 * 1024 * 1024;

/**
 * Reads a report too large for one JavaScript string (a TRX of a million results is about 1 GB):
 * its bytes are decoded a piece at a time (each piece by {@link decodeXmlReport}, the declaration or
 * byte order mark of the file put in front, so the encoding is told as for a whole file) and
 * streamed through the `sax` parser to the same handler. Pieces end before a `<`, which never
 * falls inside a character. Errors are the same `invalid_report`s, lines and columns counted over
 * the whole file. Returns the root element's name.
 */
export function readXmlReportInPieces(bytes: Uint8Array, report: string, handler: XmlHandler & { root: string | undefined }, pieceBytes = PIECE_BYTES): string {
  const layout = pieceLayout(bytes);
  const parser = sax.parser(true, { position: true });
  const open: { name: string; line: number; col: number }[] = [];
  let lines = 0;
  let column = 0;
  const where = () => ({ line: lines + parser.line + 1, col: parser.line === 0 ? column + parser.column + 1 : parser.column + 1 });
  const malformedAt = (what: string) => {
    const { line, col } = where();
    return new TmsyncError('invalid_report', `${report}:${line}:${col} is not well-formed XML: ${what}`, {
      hint: 'check that the test runner finished writing the report (a crashed run leaves it empty or truncated)',
      details: { file: report, line, col },
    });
  };
  parser.onerror = (err) => {
    throw malformedAt(err.message.split('\n')[0]);
  };
  // without the xmlns option sax gives plain tags, whose attributes are strings
  parser.onopentag = (tag) => {
    open.push({ name: tag.name, ...where() });
    const attrs = (tag as sax.Tag).attributes;
    // sax builds a value a character at a time, a chain of small strings that a kept test name or
    // id would hold on to; reading a character makes V8 flatten it into one
    for (const k in attrs) attrs[k].charCodeAt(0);
    handler.open(tag.name, attrs, -1);
  };
  parser.onclosetag = (name) => {
    open.pop();
    handler.close(name);
  };
  parser.ontext = parser.oncdata = (t) => {
    if (open.length > 0 && handler.wantsText()) handler.text(t);
  };
  for (let start = 0; start < bytes.length; ) {
    const end = layout.cut(start + pieceBytes);
    const piece = decodePiece(bytes, start, end, layout, report, { lines, column });
    parser.write(piece);
    // sax counts from where it was set: each piece from 0, the earlier pieces' lines kept here
    if (parser.line > 0) {
      lines += parser.line;
      column = parser.column;
    } else column += parser.column;
    parser.line = 0;
    parser.column = 0;
    start = end;
  }
  if (open.length > 0) {
    const top = open[open.length - 1];
    throw malformedAt(`the file ends before <${top.name}> (opened at ${top.line}:${top.col}) is closed: it looks truncated`);
  }
  parser.close();
  if (handler.root === undefined) throw malformedAt('the file holds no XML element');
  return handler.root;
}

interface PieceLayout {
  /** bytes put in front of every piece after the first: the byte order mark or the XML declaration */
  prefix: Uint8Array;
  /** the first cut at or after `at` that falls before a `<` (the end of the file when there is none) */
  cut: (at: number) => number;
}

function pieceLayout(bytes: Uint8Array): PieceLayout {
  const bom = bomOf(bytes);
  const utf16le = bom?.encoding === 'utf-16le' || (!bom && bytes[0] === 0x3c && bytes[1] === 0x00);
  const utf16be = bom?.encoding === 'utf-16be' || (!bom && bytes[0] === 0x00 && bytes[1] === 0x3c);
  const from = bom?.length ?? 0;
  if (utf16le || utf16be) {
    const [a, b] = utf16le ? [0x3c, 0x00] : [0x00, 0x3c];
    return {
      prefix: bytes.subarray(0, from),
      cut: (at) => {
        for (let i = at + ((at - from) % 2); i + 1 < bytes.length; i += 2) if (bytes[i] === a && bytes[i + 1] === b) return i;
        return bytes.length;
      },
    };
  }
  const head = Buffer.from(bytes.subarray(from, from + 200)).toString('latin1');
  const declaration = /^\s*<\?xml[^>]*\?>/.exec(head)?.[0] ?? '';
  return {
    prefix: Buffer.concat([bytes.subarray(0, from), Buffer.from(declaration.trimStart(), 'latin1')]),
    cut: (at) => {
      if (at >= bytes.length) return bytes.length;
      const lt = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0x3c, at);
      return lt < 0 ? bytes.length : lt;
    },
  };
}

/** One piece's text, decoded as the whole file would be; a decoding error names its line over the whole file. */
function decodePiece(bytes: Uint8Array, start: number, end: number, layout: PieceLayout, report: string, before: { lines: number; column: number }): string {
  if (start === 0) return decodeXmlReport(bytes.subarray(0, end), report);
  const prefixed = Buffer.concat([layout.prefix, bytes.subarray(start, end)]);
  const prefixText = decodeXmlReport(layout.prefix, report);
  try {
    return decodeXmlReport(prefixed, report).slice(prefixText.length);
  } catch (err) {
    const details = err instanceof TmsyncError ? err.details : undefined;
    if (!(err instanceof TmsyncError) || typeof details?.line !== 'number' || typeof details.col !== 'number') throw err;
    const line = before.lines + details.line;
    const col = details.line === 1 ? before.column + details.col - prefixText.length : details.col;
    throw new TmsyncError('invalid_report', err.message.replace(/^.*?:\d+:\d+ /, `${report}:${line}:${col} `), { ...(err.hint !== undefined ? { hint: err.hint } : {}), details: { ...details, line, col } });
  }
}
