import TurndownService from 'turndown';

/**
 * HTML of an export (Zephyr Scale, TestLink, Azure DevOps, Qase) → Markdown. Tables and markup
 * Markdown has no form for (`<u>`, `<sup>`, colours) are kept as HTML, which Markdown allows, so
 * nothing is dropped. Text without a tag is returned as it is (most steps are plain text), with
 * entities decoded.
 */

let service: TurndownService | undefined;
let plain: TurndownService | undefined;

function turndown(): TurndownService {
  if (service) return service;
  service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*', br: '' });
  service.keep(['table', 'u', 'sup', 'sub', 'ins', 'mark', 'font']);
  // a `<br>` is a line break inside a paragraph: a plain newline reads best in a case's text
  service.addRule('lineBreak', { filter: 'br', replacement: () => '\n' });
  return service;
}

/** Text that holds no tag: its entities decoded (by the same HTML parser), nothing escaped. */
function decodeEntities(text: string): string {
  plain ??= Object.assign(new TurndownService(), { escape: (s: string) => s });
  // a <pre> keeps the text's line breaks and spaces as they are
  return plain.turndown(`<pre>${text.replace(/</g, '&lt;')}</pre>`).replace(/^ {4}/gm, '');
}

const TAG = /<\/?[a-z][a-z0-9]*[^<>]*>/i;

/** Markdown for an HTML fragment; '' for blank input. */
export function htmlToMarkdown(html: string): string {
  if (html.trim() === '') return '';
  if (!TAG.test(html)) return (/&[#a-z0-9]+;/i.test(html) ? decodeEntities(html) : html).replace(/\u00a0/g, ' ').trim();
  return turndown()
    .turndown(html)
    .replace(/\u00a0/g, ' ')
    .trim();
}
