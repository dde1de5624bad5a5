import type { ImportAt } from '../imported.js';
import type { ImportReport } from '../report.js';

/**
 * TestRail's text fields → Markdown. They are Markdown already, with two additions TestRail
 * renders itself: its table syntax (a header line `|||:Name|:Value` and rows `|| a | b`), which
 * becomes a Markdown table, and attachment links (`![](index.php?/attachments/get/123)`), which
 * stay as they are and are listed in the report (exports carry the link, never the file). Markup
 * neither knows is kept as written. Line ends become `\n`.
 */

/** A TestRail attachment link (an image or a plain link), relative or absolute. */
const ATTACHMENT = /!?\[[^\]\n]*\]\(\s*([^()\s]*index\.php\?\/attachments\/get\/[^()\s]+)\s*\)/g;

type Align = 'left' | 'center' | 'right' | 'none';

/** A header cell's alignment by its colons (`:Name` left, `:Name:` centre, `Name:` right) and its text. */
function headerCell(raw: string): { text: string; align: Align } {
  const cell = raw.trim();
  const start = cell.startsWith(':');
  const end = cell.length > 1 && cell.endsWith(':');
  const text = cell.slice(start ? 1 : 0, end ? -1 : undefined).trim();
  const align: Align = start && end ? 'center' : start ? 'left' : end ? 'right' : 'none';
  return { text, align };
}

function rule(align: Align): string {
  switch (align) {
    case 'left':
      return ':---';
    case 'center':
      return ':---:';
    case 'right':
      return '---:';
    case 'none':
      return '---';
  }
}

/** A cell as Markdown table text: a `|` inside would end the cell. */
function cellText(text: string): string {
  return text.trim().replace(/\|/g, '\\|');
}

/** One TestRail table (its header line and the row lines after it) → Markdown table lines. */
function table(header: string, rows: string[]): string[] {
  const heads = header.slice(3).split('|').map(headerCell);
  const cells = rows.map((r) => r.slice(2).split('|').map(cellText));
  const width = Math.max(heads.length, ...cells.map((c) => c.length));
  const pad = (row: string[]) => [...row, ...Array<string>(width - row.length).fill('')];
  const line = (row: string[]) => `| ${pad(row).join(' | ')} |`;
  const headTexts = heads.map((h) => cellText(h.text));
  const rules = [...heads.map((h) => rule(h.align)), ...Array<string>(width - heads.length).fill('---')];
  return [line(headTexts), `| ${rules.join(' | ')} |`, ...cells.map(line)];
}

/** Converts TestRail tables, line by line; everything else is kept. */
function convertTables(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.startsWith('|||')) {
      out.push(line);
      continue;
    }
    const rows: string[] = [];
    while (i + 1 < lines.length && lines[i + 1].startsWith('||') && !lines[i + 1].startsWith('|||')) rows.push(lines[++i]);
    // a Markdown table needs a blank line before it when it follows a paragraph
    if (out.length > 0 && out[out.length - 1].trim() !== '') out.push('');
    out.push(...table(line, rows));
    if (i + 1 < lines.length && lines[i + 1].trim() !== '') out.push('');
  }
  return out.join('\n');
}

/**
 * Markdown for a TestRail text field; '' for blank input. Attachment links are recorded in
 * `report` when one is given, at the line of the link (`at` is where the text starts).
 */
export function testrailMarkdown(text: string, report?: ImportReport, at?: ImportAt): string {
  const lines = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
  const unified = lines.trim();
  if (unified === '') return '';
  if (report && lines.includes('/attachments/get/')) {
    for (const m of lines.matchAll(ATTACHMENT)) {
      // the link's own line: `at` is where the text starts
      const line = at?.line === undefined ? undefined : at.line + (lines.slice(0, m.index).match(/\n/g)?.length ?? 0);
      report.attachment(m[1], at && { ...at, ...(line !== undefined ? { line } : {}) });
    }
  }
  return unified.includes('|||') ? convertTables(unified) : unified;
}
