import { TmsyncError } from './errors.js';

/**
 * A well-formedness-checking XML scanner with callbacks, over a decoded text: what the report
 * readers (JUnit, TRX, NUnit, xUnit, TestNG, Robot) and the XML exports an import reads (TestRail,
 * Zephyr Scale, TestLink) share. No tree is built: each handler keeps what it needs.
 */

/** What {@link scanXml} calls for each element. */
export interface XmlHandler {
  /** `at`: where the start tag's `<` is in the text (-1 for a report read in pieces, with no one text) */
  open(name: string, attrs: Record<string, string>, at: number): void;
  close(name: string): void;
  /** only called while {@link wantsText} is true */
  text(value: string): void;
  wantsText(): boolean;
  /** while {@link wantsText} is true: whether a run of text, as written, can be passed over undecoded */
  passesOver?(raw: string): boolean;
}

const NAME = /[^\s/>=<"'!?]+/y;
const SPACE = /\s*/y;

/** Where a scan is: the text, the open elements, whether the root element has ended. */
interface Scan {
  text: string;
  n: number;
  report: string;
  h: XmlHandler;
  stack: { name: string; at: number }[];
  rootDone: boolean;
  code: XmlErrors;
}

/** JUnit keeps the code it always had; the other report formats say `invalid_report`. */
export type XmlErrorCode = 'invalid_junit' | 'invalid_report';

/**
 * How a defect is told: a report's error code ({@link malformed}), or the error a caller makes
 * of where it is (`at`, the text's length when the file ends too early) and what it is.
 */
export type XmlErrors = XmlErrorCode | ((at: number, what: string) => Error);

function fail(s: Scan, at: number, what: string): never {
  throw typeof s.code === 'function' ? s.code(at, what) : malformed(s.report, s.text, at, what, s.code);
}

function skipSpace(s: Scan, from: number): number {
  SPACE.lastIndex = from;
  SPACE.exec(s.text);
  return SPACE.lastIndex;
}

/**
 * Scans `text`, calling `h`; throws `code` with the line and column of the first defect. Entities
 * of XML, numeric ones and a few of HTML are decoded; an unknown one is kept as written.
 */
export function scanXml(text: string, report: string, h: XmlHandler, code: XmlErrors = 'invalid_junit'): void {
  const s: Scan = { text, n: text.length, report, h, stack: [], rootDone: false, code };
  const { n, stack } = s;
  let i = 0;
  while (i < n) {
    const lt = text.indexOf('<', i);
    const end = lt < 0 ? n : lt;
    if (end > i) {
      if (stack.length === 0) {
        const nonSpace = text.slice(i, end).search(/\S/);
        if (nonSpace >= 0) fail(s, i + nonSpace, s.rootDone ? 'text after the root element' : 'text before the root element');
      } else if (h.wantsText()) {
        const raw = text.slice(i, end);
        if (!h.passesOver?.(raw)) h.text(decodeEntities(raw));
      }
    }
    if (lt < 0) break;
    const next = text.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      const close = text.indexOf('?>', lt + 2);
      if (close < 0) fail(s, n, 'the file ends inside a processing instruction (<?…?>)');
      i = close + 2;
    } else if (next === 0x21 /* ! */) i = scanDeclaration(s, lt);
    else if (next === 0x2f /* / */) i = scanEndTag(s, lt);
    else i = scanStartTag(s, lt);
  }
  if (stack.length > 0) {
    const open = stack[stack.length - 1];
    const { line, col } = lineCol(text, open.at);
    fail(s, n, `the file ends before <${open.name}> (opened at ${line}:${col}) is closed: it looks truncated`);
  }
}

/** `<!--`, `<![CDATA[` or `<!DOCTYPE` at `i`; returns where the scan goes on. */
function scanDeclaration(s: Scan, i: number): number {
  const { text, n } = s;
  if (text.startsWith('<!--', i)) {
    const close = text.indexOf('-->', i + 4);
    if (close < 0) fail(s, n, 'the file ends inside a comment (<!-- … -->)');
    return close + 3;
  }
  if (text.startsWith('<![CDATA[', i)) {
    if (s.stack.length === 0) fail(s, i, 'CDATA outside the root element');
    const close = text.indexOf(']]>', i + 9);
    if (close < 0) fail(s, n, 'the file ends inside a CDATA section');
    if (s.h.wantsText()) s.h.text(text.slice(i + 9, close));
    return close + 3;
  }
  if (text.startsWith('<!DOCTYPE', i)) {
    const gt = text.indexOf('>', i);
    const bracket = text.indexOf('[', i);
    let close = gt;
    if (bracket >= 0 && (gt < 0 || bracket < gt)) {
      const endSubset = text.indexOf(']', bracket);
      close = endSubset < 0 ? -1 : text.indexOf('>', endSubset);
    }
    if (close < 0) fail(s, n, 'the file ends inside the <!DOCTYPE>');
    return close + 1;
  }
  return fail(s, i, 'unexpected "<!" (not a comment, CDATA section or DOCTYPE)');
}

/** A closing tag at `i`; returns where the scan goes on. */
function scanEndTag(s: Scan, i: number): number {
  const { text, n } = s;
  NAME.lastIndex = i + 2;
  const m = NAME.exec(text);
  if (!m) fail(s, i + 2, i + 2 >= n ? 'the file ends inside a closing tag' : 'a closing tag without a name');
  const name = m[0];
  const gt = skipSpace(s, NAME.lastIndex);
  if (gt >= n) fail(s, n, `the file ends inside </${name}>`);
  if (text.charCodeAt(gt) !== 0x3e) fail(s, gt, `unexpected "${text[gt]}" in </${name}>`);
  const open = s.stack.pop();
  if (!open) fail(s, i, `</${name}> closes nothing`);
  if (open.name !== name) {
    const { line, col } = lineCol(text, open.at);
    fail(s, i, `</${name}> where </${open.name}> was expected (opened at ${line}:${col})`);
  }
  s.h.close(name);
  if (s.stack.length === 0) s.rootDone = true;
  return gt + 1;
}

/** A start tag at `i` (self-closing or not); returns where the scan goes on. */
function scanStartTag(s: Scan, i: number): number {
  const { text, n } = s;
  NAME.lastIndex = i + 1;
  const m = NAME.exec(text);
  if (!m) fail(s, i + 1 >= n ? n : i + 1, i + 1 >= n ? 'the file ends inside a tag' : `"<" not followed by a tag name (write &lt; in text)`);
  const name = m[0];
  if (s.stack.length === 0 && s.rootDone) fail(s, i, `a second root element <${name}>`);
  const { attrs, end, selfClosing } = scanAttributes(s, name, NAME.lastIndex);
  s.h.open(name, attrs, i);
  if (selfClosing) {
    s.h.close(name);
    if (s.stack.length === 0) s.rootDone = true;
  } else s.stack.push({ name, at: i });
  return end;
}

/** The attributes of the tag `name` from `j` to its `>` or `/>`; `end` is just after it. */
function scanAttributes(s: Scan, name: string, j: number): { attrs: Record<string, string>; end: number; selfClosing: boolean } {
  const { text, n } = s;
  const attrs: Record<string, string> = {};
  for (;;) {
    const k = skipSpace(s, j);
    if (k >= n) fail(s, n, `the file ends inside <${name}>`);
    const c = text.charCodeAt(k);
    if (c === 0x3e /* > */) return { attrs, end: k + 1, selfClosing: false };
    if (c === 0x2f /* / */) {
      if (text.charCodeAt(k + 1) !== 0x3e) fail(s, k + 1 >= n ? n : k, k + 1 >= n ? `the file ends inside <${name}>` : `unexpected "/" in <${name}>`);
      return { attrs, end: k + 2, selfClosing: true };
    }
    if (k === j) fail(s, k, `attributes of <${name}> need a space between them`);
    NAME.lastIndex = k;
    const a = NAME.exec(text);
    if (!a) fail(s, k, `unexpected "${text[k]}" in <${name}>`);
    const eq = skipSpace(s, NAME.lastIndex);
    if (eq >= n) fail(s, n, `the file ends inside <${name}>`);
    if (text.charCodeAt(eq) !== 0x3d /* = */) fail(s, eq, `the attribute ${a[0]} of <${name}> has no value (="…")`);
    const q = skipSpace(s, eq + 1);
    if (q >= n) fail(s, n, `the file ends inside <${name}>`);
    const quote = text[q];
    if (quote !== '"' && quote !== "'") fail(s, q, `the value of ${a[0]} in <${name}> is not quoted`);
    const close = text.indexOf(quote, q + 1);
    if (close < 0) fail(s, n, `the file ends inside the value of ${a[0]} in <${name}> (opened at the quote)`);
    const raw = text.slice(q + 1, close);
    const lessThan = raw.indexOf('<');
    if (lessThan >= 0) fail(s, q + 1 + lessThan, `"<" inside the value of ${a[0]} in <${name}> (a quote is missing, or write &lt;)`);
    attrs[a[0]] = decodeEntities(raw);
    j = close + 1;
  }
}

const ENTITY = /&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g;
const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0', copy: '\u00a9', reg: '\u00ae', hellip: '\u2026', mdash: '\u2014', ndash: '\u2013' };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(ENTITY, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      // characters XML does not allow (NUL, a half of a surrogate pair) are kept as written
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return NAMED[body] ?? whole;
  });
}

/** The 1-based line and column of `at` in `text`. */
export function lineCol(text: string, at: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < at; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return { line, col: at - lineStart + 1 };
}

/** A report's well-formedness error, naming its line and column. */
export function malformed(report: string, text: string, at: number, what: string, code: XmlErrorCode = 'invalid_junit'): TmsyncError {
  const { line, col } = lineCol(text, at);
  return new TmsyncError(code, `${report}:${line}:${col} is not well-formed XML: ${what}`, {
    hint: 'check that the test runner finished writing the report (a crashed run leaves it truncated)',
    details: { file: report, line, col },
  });
}
