import { TmsyncError } from '../errors.js';
import { lineCol, scanXml, type XmlHandler } from '../xml-scan.js';
import { ownString } from './own-string.js';

/**
 * A streaming read of an XML export (TestRail, Zephyr Scale, TestLink): the shared scanner's
 * callbacks build small element trees, hand each finished *record* element (a case, a step group)
 * to the reader with the elements it sits in, and forget it, so a 50,000-case export never
 * becomes one tree.
 * Elements outside records (suites, sections) are kept as open ancestors with the child elements
 * read so far (a section's `<name>` comes before its cases).
 */

export interface XmlElement {
  name: string;
  attributes: Readonly<Record<string, string>>;
  children: XmlElement[];
  /** the element's own text and CDATA, in order (children's text is theirs) */
  text: string;
  /** 1-based line of the start tag */
  line: number;
}

export interface XmlRecordHandlers {
  /** element names (lower case) that are records */
  records: ReadonlySet<string>;
  /** a record ended: `ancestors` are the open elements around it, outermost first */
  onRecord(element: XmlElement, ancestors: readonly XmlElement[]): void;
  /** a non-record element started (a section): its attributes and line, before its children */
  onOpen?(element: XmlElement, ancestors: readonly XmlElement[]): void;
  /** a non-record element ended (its children that are not records are in `children`) */
  onClose?(element: XmlElement, ancestors: readonly XmlElement[]): void;
}

/** The first child named `name` (lower case), or undefined. */
export function child(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((c) => c.name === name);
}

/** Every child named `name`. */
export function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((c) => c.name === name);
}

/** The text of the first child named `name`, trimmed of the indentation around it; '' when absent. */
export function childText(element: XmlElement, name: string): string {
  return textOf(child(element, name));
}

/** An element's text with leading and trailing blank lines and spaces removed; '' for undefined. */
export function textOf(element: XmlElement | undefined): string {
  return element ? element.text.trim() : '';
}

/** Whether a text is white space only (no regular expression: its last match would keep the text alive). */
function isBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x20) return false;
  return true;
}

function xmlError(file: string, line: number, message: string, hint: string): TmsyncError {
  return new TmsyncError('invalid_import', `${file}:${line}: ${message}`, { hint, details: { file, line } });
}

/**
 * Reads `text` (decoded, BOM removed) and calls the handlers; returns the root element's name
 * (undefined for a file with no element). Malformed XML and a file that ends inside an element
 * (truncated) are `invalid_import` errors naming `file:line`. Entities of XML, numeric ones and a
 * few of HTML (`&nbsp;` of pasted text) are decoded; an unknown one is kept as written, not refused.
 */
export function readXmlRecords(text: string, file: string, handlers: XmlRecordHandlers): string | undefined {
  const stack: XmlElement[] = [];
  /** depth in `stack` of the record being built, or -1 */
  let recordDepth = -1;
  let root: string | undefined;
  // element and attribute names, lower case, each kept once
  const names = new Map<string, string>();
  const own = (raw: string): string => {
    let name = names.get(raw);
    if (name === undefined) names.set(ownString(raw), (name = ownString(raw.toLowerCase())));
    return name;
  };
  const lines = new LineCounter(text);
  const handler: XmlHandler = {
    open(tag, found, at) {
      // names and values of their own too: a slice kept in the model would keep the whole text
      const name = own(tag);
      const attributes: Record<string, string> = {};
      for (const k of Object.keys(found)) attributes[own(k)] = ownString(found[k]);
      const element: XmlElement = { name, attributes, children: [], text: '', line: lines.lineOf(at) };
      root ??= name;
      if (recordDepth === -1 && handlers.records.has(name)) recordDepth = stack.length;
      else if (recordDepth === -1) handlers.onOpen?.(element, stack);
      stack.push(element);
    },
    text(t) {
      stack[stack.length - 1].text += t;
    },
    wantsText: () => stack.length > 0,
    close() {
      const element = stack.pop()!;
      // the text's own copy: the scanner cuts it from the document, which every slice kept would
      // keep alive (an element of elements holds only their indentation: nothing to copy)
      element.text = element.children.length > 0 && isBlank(element.text) ? '' : ownString(element.text);
      const parent = stack[stack.length - 1];
      if (recordDepth === stack.length) {
        recordDepth = -1;
        handlers.onRecord(element, stack);
        return; // forgotten: not kept in its parent
      }
      if (recordDepth === -1) handlers.onClose?.(element, stack);
      parent?.children.push(element);
    },
  };
  const failure = (at: number, what: string): TmsyncError => {
    const open = stack[stack.length - 1];
    const where = lineCol(text, at).line;
    return open && at >= text.length
      ? xmlError(file, where, `the file ends inside <${open.name}> opened at line ${open.line}: it is truncated`, 'export the file again (a download or copy was cut short)')
      : xmlError(file, where, `the XML is malformed: ${what}`, 'export the file again; a file cut short or edited by hand breaks the XML');
  };
  try {
    scanXml(text, file, handler, failure);
  } finally {
    lines.text = '';
  }
  return root;
}

/**
 * The line of a position, counted on from the last one asked (positions only grow). The text is
 * a field let go once the scan ends: a closure over it would let optimised code hold it as a
 * constant, and with it the whole export, for as long as that code lives.
 */
class LineCounter {
  private line = 1;
  private counted = 0;
  constructor(public text: string) {}

  lineOf(at: number): number {
    const { text } = this;
    for (let k = text.indexOf('\n', this.counted); k >= 0 && k < at; k = text.indexOf('\n', k + 1)) this.line++;
    this.counted = Math.max(this.counted, at);
    return this.line;
  }
}
