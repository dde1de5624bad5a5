import { TmsyncError } from '../errors.js';
import { decodeJunit, malformed, scanXml, type XmlHandler } from './junit.js';
import { attachmentsInOutput } from './output-attachments.js';
import type { RecordAttachment } from './record.js';

/**
 * What the XML report formats other than JUnit share (TestNG, Robot Framework): the JUnit
 * reader's decoder and scanner, with their errors coded `invalid_report` instead of `invalid_junit`.
 */

/** The text of an XML report: a byte order mark, else the declared encoding, else UTF-8 (see decodeJunit). */
export function decodeXmlReport(bytes: Uint8Array, report: string): string {
  try {
    return decodeJunit(bytes, report);
  } catch (err) {
    if (err instanceof TmsyncError && err.code === 'invalid_junit') {
      throw new TmsyncError('invalid_report', err.message, { hint: err.hint, details: err.details });
    }
    throw err;
  }
}

/** A handler that also tells the root element it saw. */
export interface RootedHandler extends XmlHandler {
  readonly root: string | undefined;
}

/**
 * Scans one XML report with `handler`: `invalid_report` with `file:line:col` for malformed,
 * truncated or empty text, and for a document whose root element is not `root`.
 */
export function scanXmlReport(xml: string, report: string, handler: RootedHandler, root: string, what: { format: string; hint: string }): void {
  const text = xml.charCodeAt(0) === 0xfeff ? xml.slice(1) : xml;
  scanXml(text, report, handler, 'invalid_report');
  if (handler.root === undefined) {
    throw malformed(report, text, text.length, text.trim() === '' ? 'the file is empty' : 'the file holds no XML element', 'invalid_report');
  }
  if (handler.root !== root) {
    throw new TmsyncError('invalid_report', `${report} is not a ${what.format} report: the root element is <${handler.root}>, not <${root}>`, {
      hint: what.hint,
      details: { file: report, root: handler.root },
    });
  }
}

/** A duration in milliseconds from a text number, or undefined when it is not one. */
export function millis(value: string | undefined, scale = 1): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * scale) : undefined;
}

/** The first non-empty line of a text, capped as the JUnit reader caps messages. */
export function firstLine(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  for (const l of text.split(/\r?\n/, 200)) {
    const t = l.trim();
    if (t !== '') return t.length > 500 ? `${t.slice(0, 497)}...` : t;
  }
  return undefined;
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
