import { TmsyncError } from '../../errors.js';
import type { ImportAt, ImportedField } from '../imported.js';
import type { ImportReport } from '../report.js';
import { htmlImages, htmlToMarkdown } from '../text/html-markdown.js';
import { textOf, type XmlElement } from '../xml-records.js';

/**
 * What the readers of XML exports with HTML texts (Zephyr Scale, TestLink) share: the Markdown of
 * an element's HTML with its embedded images listed as attachments, the text of an element the
 * reader has no rule for, and the error for a file that is not the export it was given as.
 */

/** Text handed over without decoding keeps its byte-order mark (the CLI decodes; a library user may not). */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function importError(file: string, line: number, message: string, hint: string): TmsyncError {
  return new TmsyncError('invalid_import', `${file}:${line}: ${message}`, { hint, details: { file, line } });
}

/** The Markdown of an element holding HTML (as CDATA or escaped); its images are reported as attachments. */
export function markdownOf(element: XmlElement | undefined, report: ImportReport, at: ImportAt): string {
  const html = textOf(element);
  for (const src of htmlImages(html)) report.attachment(src, at);
  return htmlToMarkdown(html);
}

/**
 * An element's whole content as one text: its own text, its attributes and each child's as
 * `name: text`, separated by `; `. Used for elements no rule names, so that their
 * values reach the "Fields" block instead of vanishing.
 */
export function flatText(element: XmlElement): string {
  const own = htmlToMarkdown(element.text.trim());
  const attributes = Object.entries(element.attributes).map(([k, v]) => `${k}: ${v}`);
  const children = element.children.map((c) => {
    const inner = c.children.length > 0 ? flatText(c) : htmlToMarkdown(c.text.trim()) || Object.values(c.attributes).join(' ');
    return inner === '' ? '' : `${c.name}: ${inner}`;
  });
  return [own, ...attributes, ...children].filter((s) => s !== '').join('; ');
}

/** A field for an element no rule names, or nothing when it holds nothing. */
export function unknownField(element: XmlElement, name = element.name): ImportedField | undefined {
  const value = flatText(element);
  return value === '' ? undefined : { name, value };
}
