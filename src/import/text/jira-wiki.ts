/**
 * Jira wiki markup (Xray, Zephyr Squad: descriptions, steps, preconditions) → Markdown. Written
 * here rather than taken from npm: the converters there (jira2md, j2m) are CommonJS regex chains
 * that drop what they do not know, and an import must keep it. The rules:
 *
 * - headings `h1.`…`h6.`, `bq.`, `----`, `{quote}`, `{panel}` (its title a bold line), lists of
 *   `*`, `-` and `#` nested to any depth and mixed, tables (`||head||` and `|cell|`; a table
 *   without a header row gets an empty one, which Markdown requires), `{code[:lang]}` and
 *   `{noformat}` as fenced blocks with their text untouched;
 * - `*bold*`, `_italic_`, `-strike-`, `{{monospace}}` in their Markdown forms; `+underline+`,
 *   `^sup^`, `~sub~` and `??citation??` as the HTML tags Markdown allows (`<u>`, …);
 * - `[text|url]`, `[url]`, `[#anchor]`, `[~user]` (→ `@user`), `[^file]` (an attachment: a link to
 *   the file name), `!image.png!` (an image link; the `|thumbnail` options dropped), `\\` a line
 *   break, `\X` an escaped character;
 * - `{color:…}…{color}` is unwrapped: the text stays, the colour goes (counted, for the report);
 * - anything else (unknown macros like `{status}`, brackets that are no link) stays as written.
 */

export interface JiraWikiResult {
  markdown: string;
  /** the attachments the text links to (`[^file]`, `!image!` without a scheme), in order */
  attachments: string[];
  /** the colours unwrapped (`{color:red}` → `red`), in order */
  colours: string[];
}

interface State {
  attachments: string[];
  colours: string[];
  /** inline pieces already in Markdown, put back after the emphasis rules ran */
  held: string[];
}

const HOLD_START = '\uE000';
const HOLD_END = '\uE001';
const HELD = /\uE000(\d+)\uE001/g;

function hold(state: State, markdown: string): string {
  state.held.push(markdown);
  return `${HOLD_START}${state.held.length - 1}${HOLD_END}`;
}

function release(state: State, text: string): string {
  let out = text;
  // held pieces may hold others (a link's text): put back until none is left
  for (let i = 0; i < 5 && out.includes(HOLD_START); i++) out = out.replace(HELD, (_, n: string) => state.held[Number(n)]);
  return out;
}

/** Characters Markdown gives a meaning to: an escaped one stays escaped. */
const MARKDOWN_SPECIAL = new Set(['*', '_', '[', ']', '`', '\\', '|', '!', '#', '<', '>']);

const IMAGE_EXTENSIONS = /\.(?:png|jpe?g|gif|bmp|svg|webp|tiff?)$/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function codeSpan(text: string): string {
  if (!text.includes('`')) return `\`${text}\``;
  return `\`\` ${text} \`\``;
}

function linkMarkdown(state: State, body: string): string | undefined {
  const parts = body.split('|');
  if (parts.length === 1) {
    const target = body.trim();
    if (target.startsWith('^')) {
      const file = target.slice(1).trim();
      state.attachments.push(file);
      return `[${file}](${encodeURI(file)})`;
    }
    if (target.startsWith('~')) return `@${target.slice(1).replace(/^accountid:/, '')}`;
    if (target.startsWith('#')) return `[${target}](${target})`;
    if (SCHEME.test(target) || target.startsWith('www.')) return target.startsWith('mailto:') ? `<${target}>` : `<${target.startsWith('www.') ? `http://${target}` : target}>`;
    return undefined;
  }
  const [label, rawTarget] = parts;
  const target = rawTarget.trim();
  const text = inline(state, label.trim());
  if (target.startsWith('^')) {
    const file = target.slice(1).trim();
    state.attachments.push(file);
    return `[${text}](${encodeURI(file)})`;
  }
  if (target.startsWith('~')) return `${text} (@${target.slice(1).replace(/^accountid:/, '')})`;
  if (SCHEME.test(target) || target.startsWith('#') || target.startsWith('/') || target.startsWith('www.')) {
    return `[${text}](${target.startsWith('www.') ? `http://${target}` : target.replace(/ /g, '%20')})`;
  }
  return undefined;
}

function imageMarkdown(state: State, body: string): string {
  const [source] = body.split('|');
  const src = source.trim();
  if (!SCHEME.test(src)) state.attachments.push(src);
  const alt = src.replace(/^.*\//, '');
  return `![${alt}](${src.replace(/ /g, '%20')})`;
}

/**
 * The emphasis of one marker character: opens after a non-word, closes before one (so that
 * `snake_case` and `2020-01-01` stay); `intraword` markers (`x^2^`, `H~2~O`) need no boundary.
 */
function emphasis(text: string, marker: string, open: string, close: string, intraword = false): string {
  const m = marker.replace(/[*+?^$.|()[\]{}\\]/g, '\\$&');
  const c = marker.replace(/[\]\\^-]/g, '\\$&');
  const before = intraword ? `(^|[^${c}])` : `(^|[^\\p{L}\\p{N}${c}])`;
  const after = intraword ? `(?!${m})` : `(?![\\p{L}\\p{N}${c}])`;
  const re = new RegExp(`${before}${m}(?=[^\\s${c}])((?:[^${c}\\n]*?[^\\s${c}])?)${m}${after}`, 'gu');
  return text.replace(re, (_all, before: string, inner: string) => `${before}${open}${inner}${close}`);
}

/** One line (or table cell) of text: inline markup → Markdown. */
function inline(state: State, text: string): string {
  let out = text.replace(/\\\\/g, '\n');
  out = out.replace(/\\([^\sA-Za-z0-9])/g, (_, ch: string) => hold(state, MARKDOWN_SPECIAL.has(ch) ? `\\${ch}` : ch));
  // a span ends at the next `}}` and never runs past another `{{`: linear on unclosed ones
  out = out.replace(/\{\{((?:(?!\{\{|\}\})[^\n])+)\}\}/g, (_, code: string) => hold(state, codeSpan(code)));
  out = out.replace(/\{color(?::([^}]*))?\}/g, (_, colour?: string) => {
    if (colour !== undefined) state.colours.push(colour.trim());
    return '';
  });
  out = out.replace(/\[([^[\]\n]+)\]/g, (all, body: string) => {
    const md = linkMarkdown(state, body);
    return md === undefined ? all : hold(state, md);
  });
  out = out.replace(/!([^\s!|][^!\n]*?)!/g, (all, body: string) => {
    const [source] = body.split('|');
    const src = source.trim();
    if (!IMAGE_EXTENSIONS.test(src.replace(/\?.*$/, '')) && !/^https?:\/\//i.test(src)) return all;
    return hold(state, imageMarkdown(state, body));
  });
  out = out.replace(/(^|[^\p{L}\p{N}?])\?\?(?=\S)(.*?\S)\?\?(?![\p{L}\p{N}?])/gu, (_a, before: string, inner: string) => `${before}<cite>${inner}</cite>`);
  out = emphasis(out, '*', '**', '**');
  out = emphasis(out, '_', '*', '*');
  out = emphasis(out, '-', '~~', '~~');
  out = emphasis(out, '+', '<u>', '</u>');
  out = emphasis(out, '^', '<sup>', '</sup>', true);
  out = emphasis(out, '~', '<sub>', '</sub>', true);
  return out;
}

interface TableCell {
  header: boolean;
  text: string;
}

/** A table row's cells: `|` and `||` outside links, macros and escapes separate them. */
function tableCells(row: string): TableCell[] {
  const cells: TableCell[] = [];
  let depthSquare = 0;
  let depthCurly = 0;
  let current: TableCell | undefined;
  for (let i = 0; i < row.length; i++) {
    const ch = row[i];
    if (ch === '\\' && i + 1 < row.length) {
      if (current) current.text += ch + row[i + 1];
      i++;
      continue;
    }
    if (ch === '|' && depthSquare === 0 && depthCurly === 0) {
      const header = row[i + 1] === '|';
      if (header) i++;
      if (current) cells.push(current);
      current = { header, text: '' };
      continue;
    }
    if (ch === '[') depthSquare++;
    else if (ch === ']' && depthSquare > 0) depthSquare--;
    else if (ch === '{') depthCurly++;
    else if (ch === '}' && depthCurly > 0) depthCurly--;
    if (current) current.text += ch;
  }
  // the text after the last separator is a cell only when it holds something
  if (current && current.text.trim() !== '') cells.push(current);
  return cells;
}

function tableMarkdown(state: State, rows: string[]): string[] {
  const parsed = rows.map(tableCells);
  const width = Math.max(1, ...parsed.map((r) => r.length));
  const headed = parsed[0].length > 0 && parsed[0].every((c) => c.header);
  const cellText = (c: TableCell, bold: boolean): string => {
    // a bar would end the cell: escape every one not escaped yet (`{{a|b}}` and `\|` included)
    const one = release(state, inline(state, c.text.trim()))
      .replace(/(?<!\\)\|/g, '\\|')
      .replace(/\n/g, '<br>');
    return bold && one !== '' ? `**${one}**` : one;
  };
  const line = (cells: string[]) => `| ${[...cells, ...Array<string>(width - cells.length).fill('')].join(' | ')} |`;
  const out: string[] = [];
  const body = headed ? parsed.slice(1) : parsed;
  out.push(line(headed ? parsed[0].map((c) => cellText(c, false)) : []));
  out.push(`|${Array<string>(width).fill(' --- ').join('|')}|`);
  for (const r of body) out.push(line(r.map((c) => cellText(c, c.header))));
  return out;
}

interface ListLevel {
  numbered: boolean;
  count: number;
  width: number;
}

const LIST_ITEM = /^\s*([*#]+|-)\s+(.*)$/;
const BLOCK_OPEN = /^\s*\{(code|noformat|quote|panel)((?::[^}]*)?)\}(.*)$/;

/** A fenced block, held whole so that no later rule touches its text. */
function fence(state: State, content: string, lang: string): string {
  const ticks = content.includes('```') ? '~~~~' : '```';
  return hold(state, [`${ticks}${lang}`, ...content.split('\n'), ticks].join('\n'));
}

/** The language of `{code:java}` / `{code:title=A.java|language=java}`, '' when none. */
function codeLanguage(params: string): string {
  const list = params.replace(/^:/, '').split('|').map((p) => p.trim()).filter((p) => p !== '');
  const named = list.find((p) => /^(?:language|lang)=/i.test(p));
  if (named) return named.replace(/^[^=]*=/, '').trim();
  return list.find((p) => !p.includes('=')) ?? '';
}

/** The lines of a block macro up to its closing tag; what follows the tag on its line is handed back. */
function blockBody(lines: string[], start: number, first: string, name: string): { body: string[]; next: number; after: string } {
  const close = `{${name}}`;
  const inlineEnd = first.indexOf(close);
  if (inlineEnd !== -1) return { body: [first.slice(0, inlineEnd)], next: start + 1, after: first.slice(inlineEnd + close.length) };
  const body = first.trim() === '' ? [] : [first];
  for (let i = start + 1; i < lines.length; i++) {
    const end = lines[i].indexOf(close);
    if (end !== -1) {
      if (lines[i].slice(0, end).trim() !== '') body.push(lines[i].slice(0, end));
      return { body, next: i + 1, after: lines[i].slice(end + close.length) };
    }
    body.push(lines[i]);
  }
  // never closed (a truncated text): the rest is the block, nothing is lost
  return { body, next: lines.length, after: '' };
}

function blocks(state: State, lines: string[]): string[] {
  const out: string[] = [];
  let list: ListLevel[] = [];
  const endList = (next: string) => {
    // a plain line right after an item would join it in Markdown: keep them apart
    if (list.length > 0 && next.trim() !== '') out.push('');
    list = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const open = BLOCK_OPEN.exec(line);
    if (open) {
      endList(line);
      const [, name, params, rest] = open;
      const { body, next, after } = blockBody(lines, i, rest, name);
      if (name === 'code' || name === 'noformat') out.push(fence(state, body.join('\n'), name === 'code' ? codeLanguage(params) : ''));
      else {
        const title = /(?:^:|\|)title=([^|]*)/.exec(params)?.[1]?.trim();
        const inner = blocks(state, body);
        out.push(...[...(title ? [`**${release(state, inline(state, title))}**`, ''] : []), ...inner].map((l) => (l === '' ? '>' : `> ${l}`)));
      }
      if (after.trim() !== '') lines.splice(next, 0, after);
      i = next - 1;
      continue;
    }
    if (/^\s*\|/.test(line)) {
      endList(line);
      const rows: string[] = [];
      while (i < lines.length && /^\s*\|/.test(lines[i])) {
        let row = lines[i].trim();
        // a cell may run over lines: the row goes on until it ends in `|`
        while (!row.endsWith('|') && i + 1 < lines.length && lines[i + 1].trim() !== '' && !/^\s*\|/.test(lines[i + 1])) row += `\\\\${lines[++i].trim()}`;
        rows.push(row);
        i++;
      }
      i--;
      out.push(...tableMarkdown(state, rows));
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item && !/^\s*-{4,}\s*$/.test(line)) {
      const [, markers, text] = item;
      const depth = markers === '-' ? 1 : markers.length;
      list = list.slice(0, depth);
      for (let d = list.length; d < depth - 1; d++) list.push({ numbered: markers[d] === '#', count: 1, width: markers[d] === '#' ? 3 : 2 });
      const numbered = markers[depth - 1] === '#';
      const prev = list[depth - 1] as ListLevel | undefined;
      const count = prev && prev.numbered === numbered ? prev.count + 1 : 1;
      const marker = numbered ? `${count}.` : '-';
      list[depth - 1] = { numbered, count, width: marker.length + 1 };
      const indent = list.slice(0, depth - 1).reduce((n, l) => n + l.width, 0);
      out.push(`${' '.repeat(indent)}${marker} ${inline(state, text)}`);
      continue;
    }
    endList(line);
    const heading = /^\s*h([1-6])\.\s*(.*)$/.exec(line);
    if (heading) out.push(`${'#'.repeat(Number(heading[1]))} ${inline(state, heading[2])}`);
    else if (/^\s*bq\.\s/.test(line)) out.push(`> ${inline(state, line.replace(/^\s*bq\.\s+/, ''))}`);
    else if (/^\s*-{4,}\s*$/.test(line)) out.push('---');
    else out.push(inline(state, line));
  }
  return out;
}

/** Jira wiki markup → Markdown, with the attachments it links to and the colours it unwrapped. */
export function jiraWikiToMarkdown(text: string): JiraWikiResult {
  const state: State = { attachments: [], colours: [], held: [] };
  if (text.trim() === '') return { markdown: '', attachments: [], colours: [] };
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const joined = blocks(state, lines)
    .join('\n')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const markdown = release(state, joined);
  return { markdown, attachments: state.attachments, colours: state.colours };
}

/** Jira wiki markup → Markdown, when only the text matters. */
export function jiraToMarkdown(text: string): string {
  return jiraWikiToMarkdown(text).markdown;
}
