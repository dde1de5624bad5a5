import sax from 'sax';
import { TmsyncError } from '../errors.js';
import { ownString } from './own-string.js';

/**
 * A streaming read of an XML export (TestRail, Zephyr Scale, TestLink): the `sax` parser builds
 * small element trees, hands each finished *record* element (a case, a step group) to the reader
 * with the elements it sits in, and forgets it, so a 50,000-case export never becomes one tree.
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
 * (truncated) are `invalid_import` errors naming `file:line`.
 */
export function readXmlRecords(text: string, file: string, handlers: XmlRecordHandlers): string | undefined {
  const parser = sax.parser(true, { trim: false, normalize: false, lowercase: true, position: true });
  const stack: XmlElement[] = [];
  /** depth in `stack` of the record being built, or -1 */
  let recordDepth = -1;
  let root: string | undefined;
  let failure: TmsyncError | undefined;

  parser.onerror = (err) => {
    const open = stack[stack.length - 1];
    failure ??=
      open && /^Unclosed root tag/.test(err.message)
        ? xmlError(file, parser.line + 1, `the file ends inside <${open.name}> opened at line ${open.line}: it is truncated`, 'export the file again (a download or copy was cut short)')
        : xmlError(file, parser.line + 1, `the XML is malformed: ${err.message.split('\n')[0]}`, 'export the file again; a file cut short or edited by hand breaks the XML');
    throw failure;
  };
  parser.onopentag = (tag) => {
    const name = tag.name.toLowerCase();
    const attributes: Record<string, string> = {};
    // not namespace-aware (`xmlns: false`): every value is a string
    for (const [k, v] of Object.entries(tag.attributes as Record<string, string>)) attributes[k.toLowerCase()] = v;
    const element: XmlElement = { name, attributes, children: [], text: '', line: parser.line + 1 };
    root ??= name;
    if (recordDepth === -1 && handlers.records.has(name)) recordDepth = stack.length;
    else if (recordDepth === -1) handlers.onOpen?.(element, stack);
    stack.push(element);
  };
  parser.ontext = (t) => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  };
  parser.oncdata = (t) => {
    const top = stack[stack.length - 1];
    if (top) top.text += t;
  };
  parser.onclosetag = () => {
    const element = stack.pop()!;
    // the text's own copy: sax cuts it from the document, which every slice kept would keep alive
    // (an element of elements holds only their indentation: nothing to copy)
    element.text = element.children.length > 0 && isBlank(element.text) ? '' : ownString(element.text);
    const parent = stack[stack.length - 1];
    if (recordDepth === stack.length) {
      recordDepth = -1;
      handlers.onRecord(element, stack);
      return; // forgotten: not kept in its parent
    }
    if (recordDepth === -1) handlers.onClose?.(element, stack);
    parent?.children.push(element);
  };

  try {
    parser.write(text).close();
  } catch (err) {
    if (failure) throw failure;
    throw err;
  }
  if (stack.length > 0) {
    const open = stack[stack.length - 1];
    throw xmlError(file, parser.line + 1, `the file ends inside <${open.name}> opened at line ${open.line}: it is truncated`, 'export the file again (a download or copy was cut short)');
  }
  return root;
}
