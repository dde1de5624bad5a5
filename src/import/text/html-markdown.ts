import TurndownService from 'turndown';

/**
 * HTML of an export (Zephyr Scale, TestLink, Azure DevOps, Qase) → Markdown. A plain table (one
 * cell per column, text and paragraphs in its cells) becomes a Markdown pipe table; other tables
 * and markup Markdown has no form for (`<u>`, `<sup>`, colours) are kept as HTML, which Markdown
 * allows, so nothing is dropped. Text without a tag is returned as it is (most steps are plain
 * text), with entities decoded.
 */

let service: TurndownService | undefined;
let plain: TurndownService | undefined;

/** What the rules below use of turndown's DOM nodes (the project compiles without the DOM library). */
interface DomNode {
  nodeName: string;
  nodeType: number;
  innerHTML: string;
  childNodes: ArrayLike<DomNode>;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<DomNode>;
}

const dom = (node: unknown): DomNode => node as DomNode;

function elementChildren(node: DomNode): DomNode[] {
  return Array.from(node.childNodes).filter((c) => c.nodeType === 1);
}

/** The rows of a table, not those of a table inside one of its cells. */
function tableRows(table: DomNode): DomNode[] {
  const rows: DomNode[] = [];
  for (const part of elementChildren(table)) {
    if (part.nodeName === 'TR') rows.push(part);
    else if (['THEAD', 'TBODY', 'TFOOT'].includes(part.nodeName)) rows.push(...elementChildren(part).filter((r) => r.nodeName === 'TR'));
  }
  return rows;
}

/** Inside a cell, what a pipe table can hold: inline markup, paragraphs and line breaks. */
const BLOCK_IN_CELL = /^(TABLE|UL|OL|PRE|BLOCKQUOTE|H[1-6]|HR|DL)$/;

function isPlainTable(table: DomNode): boolean {
  const rows = tableRows(table);
  if (rows.length === 0) return false;
  return rows.every((row) =>
    elementChildren(row).every((cell) => {
      if (cell.nodeName !== 'TD' && cell.nodeName !== 'TH') return false;
      if (Number(cell.getAttribute('colspan') ?? 1) > 1 || Number(cell.getAttribute('rowspan') ?? 1) > 1) return false;
      return !Array.from(cell.querySelectorAll('*')).some((e) => BLOCK_IN_CELL.test(e.nodeName));
    }),
  );
}

/** A cell's Markdown on one line: paragraphs and line breaks as `<br>`, pipes escaped. */
function cellText(cell: DomNode): string {
  return turndown()
    .turndown(cell.innerHTML)
    .trim()
    .replace(/\|/g, '\\|')
    .replace(/\s*\n+\s*/g, '<br>');
}

/** A GFM pipe table; the first row is the header (a pipe table must have one). */
function pipeTable(table: DomNode): string {
  const cells = tableRows(table).map((row) => elementChildren(row).map(cellText));
  const width = Math.max(...cells.map((r) => r.length));
  const line = (r: string[]) => `| ${[...r, ...Array<string>(width - r.length).fill('')].join(' | ')} |`;
  const [head, ...body] = cells;
  return `\n\n${[line(head), line(Array<string>(width).fill('---')), ...body.map(line)].join('\n')}\n\n`;
}

function turndown(): TurndownService {
  if (service) return service;
  service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*', br: '' });
  service.keep(['table', 'u', 'sup', 'sub', 'ins', 'mark', 'font']);
  // a style sheet or script pasted into a rich-text field is not the case's text
  service.remove(['style', 'script']);
  // added rules are tried before kept elements: a plain table becomes Markdown, any other stays HTML
  service.addRule('plainTable', { filter: (node) => dom(node).nodeName === 'TABLE' && isPlainTable(dom(node)), replacement: (_content, node) => pipeTable(dom(node)) });
  // a colour (rich-text editors write it as a span's style) has no Markdown form: kept as HTML
  service.addRule('colouredSpan', {
    filter: (node) => dom(node).nodeName === 'SPAN' && /(^|;)\s*(background-)?colou?r\s*:/i.test(dom(node).getAttribute('style') ?? ''),
    replacement: (content, node) => `<span style="${(dom(node).getAttribute('style') ?? '').replace(/"/g, '&quot;')}">${content}</span>`,
  });
  // a `<br>` is a line break inside a paragraph: a plain newline reads best in a case's text
  service.addRule('lineBreak', { filter: 'br', replacement: () => '\n' });
  return service;
}

/** Text that holds no tag: its entities decoded (by the same HTML parser), nothing escaped. */
function decodeEntities(text: string): string {
  const fast = decodeKnownEntities(text);
  if (fast !== undefined) return fast;
  plain ??= Object.assign(new TurndownService(), { escape: (s: string) => s });
  // a <pre> keeps the text's line breaks and spaces as they are
  return plain.turndown(`<pre>${text.replace(/</g, '&lt;')}</pre>`).replace(/^ {4}/gm, '');
}

/** HTML 4's Latin-1 entities, from U+00A0 on, in code point order. */
const LATIN1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest ' +
  'Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig ' +
  'agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml';

/** The named entities rich-text editors write; any other sends the text through the HTML parser. */
const ENTITIES: ReadonlyMap<string, string> = new Map([
  ...LATIN1.split(' ').map((name, i) => [name, String.fromCharCode(0xa0 + i)] as const),
  ...Object.entries({
    amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", ndash: '\u2013', mdash: '\u2014', lsquo: '\u2018', rsquo: '\u2019', sbquo: '\u201a',
    ldquo: '\u201c', rdquo: '\u201d', bdquo: '\u201e', hellip: '\u2026', bull: '\u2022', euro: '\u20ac', trade: '\u2122', larr: '\u2190',
    rarr: '\u2192', uarr: '\u2191', darr: '\u2193', OElig: '\u0152', oelig: '\u0153', Scaron: '\u0160', scaron: '\u0161', Yuml: '\u0178',
    dagger: '\u2020', Dagger: '\u2021', permil: '\u2030', lsaquo: '\u2039', rsaquo: '\u203a', thinsp: '\u2009', ensp: '\u2002', emsp: '\u2003',
  }),
]);

const ENTITY = /&(#[0-9]+|#x[0-9a-f]+|[a-z][a-z0-9]*);/gi;
/** An `&` that may start an entity without its `;` (`&nbsp`), which HTML parsers decode too. */
const LOOSE_ENTITY = /&(?!(?:#[0-9]+|#x[0-9a-f]+|[a-z][a-z0-9]*);)[#a-z]/i;

/** Entities decoded without the HTML parser, or undefined when one is not in the table above. */
function decodeKnownEntities(text: string): string | undefined {
  if (!text.includes('&')) return text;
  if (LOOSE_ENTITY.test(text)) return undefined;
  let unknown = false;
  const out = text.replace(ENTITY, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1));
      if (code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)) return String.fromCodePoint(code);
    }
    const char = ENTITIES.get(name);
    if (char === undefined) unknown = true;
    return char ?? whole;
  });
  return unknown ? undefined : out;
}

/** A `<p>` or `</p>` tag; an attribute value holding `<` or `>` is left to the HTML parser. */
const P_TAG = String.raw`<\/?p(?:\s+[^\s<>"'=\/]+(?:\s*=\s*(?:"[^"<>]*"|'[^'<>]*'|[^\s"'<>=]+))?)*\s*>`;
/** Bold or italic text without attributes, nested tags or whitespace at its edges (turndown moves that out). */
const EMPHASIS = String.raw`<(strong|b|em|i)>((?![\s\u00a0]|&nbsp;)[^<]*[^\s\u00a0<;])<\/\1>`;
/** Paragraphs, line breaks and plain emphasis only (most rich text by far), attributes of a `<p>` aside. */
const SIMPLE_HTML = new RegExp(String.raw`^(?:[^<]|${P_TAG}|<br\s*\/?>|${EMPHASIS})*$`, 'i');
const P_SPLIT = new RegExp(P_TAG, 'i');
const EMPHASIS_SPLIT = new RegExp(EMPHASIS, 'gi');

const DELIMITER: Readonly<Record<string, string>> = { strong: '**', b: '**', em: '*', i: '*' };

/** What turndown's escape rules can touch: some characters anywhere, others at the start. */
const ESCAPABLE = /[\\*`[\]_]|^[-+=#~>]|^\d+\. /;

/** turndown's escape, skipped for the plain text most lines are. */
function escape(text: string): string {
  return ESCAPABLE.test(text) ? turndown().escape(text) : text;
}

/**
 * One line's Markdown: its text nodes collapsed the way turndown's collapse-whitespace does (a
 * space after a space dropped, the line's edges trimmed), each escaped, emphasis delimited; or
 * undefined for an entity outside the table.
 */
function lineToMarkdown(piece: string): string | undefined {
  const nodes: { text: string; delimiter?: string }[] = [];
  let last = 0;
  for (const m of piece.includes('<') ? piece.matchAll(EMPHASIS_SPLIT) : []) {
    nodes.push({ text: piece.slice(last, m.index) }, { text: m[2], delimiter: DELIMITER[m[1].toLowerCase()] });
    last = m.index + m[0].length;
  }
  nodes.push({ text: piece.slice(last) });
  const kept: { text: string; delimiter?: string }[] = [];
  for (const node of nodes) {
    // entities after the tags are split off: `&lt;p&gt;` is text
    const decoded = decodeKnownEntities(node.text);
    if (decoded === undefined) return undefined;
    let text = decoded.replace(/[ \t\r\n]+/g, ' ');
    const previous = kept[kept.length - 1];
    if ((previous === undefined || previous.text.endsWith(' ')) && text.startsWith(' ')) text = text.slice(1);
    if (text !== '') kept.push({ ...node, text });
  }
  // the line's last text loses its trailing space before it is escaped (`1. ` stays `1.`)
  const end = kept[kept.length - 1];
  if (end) end.text = end.text.replace(/ $/, '');
  return kept.map((n) => (n.delimiter ? `${n.delimiter}${escape(n.text)}${n.delimiter}` : escape(n.text))).join('');
}

/**
 * The Markdown of paragraphs, line breaks and plain emphasis without building a DOM, the way
 * turndown writes it: blocks apart by a blank line, whitespace collapsed and trimmed around a
 * break, text escaped. A text this cannot say for sure (an entity not in the table) is undefined
 * and goes through turndown.
 */
function simpleHtmlToMarkdown(html: string): string | undefined {
  if (!SIMPLE_HTML.test(html)) return undefined;
  const blocks: string[] = [];
  for (const block of html.split(P_SPLIT)) {
    const lines: string[] = [];
    for (const piece of block.split(/<br\s*\/?>/i)) {
      const line = lineToMarkdown(piece);
      if (line === undefined) return undefined;
      lines.push(line);
    }
    // turndown merges the line ends next to each other (breaks with nothing between, a break at a
    // block's edge) into one: an empty line is no line
    const text = lines.filter((l) => l !== '');
    if (text.some((l) => l.replace(/\u00a0/g, ' ').trim() !== '')) blocks.push(text.join('\n'));
  }
  return blocks.join('\n\n');
}

const TAG = /<\/?[a-z][a-z0-9]*[^<>]*>/i;

const CDATA = /<!\[CDATA\[([\s\S]*?)\]\]>/g;

/** Markdown for an HTML fragment; '' for blank input. */
export function htmlToMarkdown(text: string): string {
  // CDATA markers left in a text (an export that escaped its CDATA, a field wrapped twice) mean
  // "this is the text": an HTML parser would take them for a comment and drop what they hold
  const html = text.includes('<![CDATA[') ? text.replace(CDATA, '$1') : text;
  if (html.trim() === '') return '';
  if (!TAG.test(html)) return (/&[#a-z0-9]+;/i.test(html) ? decodeEntities(html) : html).replace(/\u00a0/g, ' ').trim();
  return (
    (simpleHtmlToMarkdown(html) ?? turndown().turndown(html))
      .replace(/\u00a0/g, ' ')
      // the blank lines between list items' paragraphs come out indented
      .replace(/^[ \t]+$/gm, '')
      .trim()
  );
}

const IMAGE = /<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/gi;

/**
 * The sources of the images an HTML text embeds: an export's inline screenshots are attachments
 * (the Markdown keeps them as `![](src)`; the import report lists them).
 */
export function htmlImages(html: string): string[] {
  if (!/<img\b/i.test(html)) return [];
  return [...html.matchAll(IMAGE)].map((m) => m[1] ?? m[2] ?? m[3] ?? '')
    .filter((src) => src !== '')
    .map((src) => (src.includes('&') ? decodeEntities(src) : src));
}
