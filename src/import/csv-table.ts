import { CsvError, parse } from 'csv-parse/sync';
import { TmsyncError } from '../errors.js';

/**
 * A CSV export as a table: header names and rows, each with the line it starts on. Columns are
 * always found by header name (with aliases, case and spacing ignored), never by position; the
 * separator is detected from the header line (`,`, `;` from a European Excel, tab).
 */

export interface CsvRow {
  /** 1-based line of the file the row starts on */
  line: number;
  values: readonly string[];
}

export interface CsvTable {
  headers: readonly string[];
  rows: CsvRow[];
  separator: string;
}

/** The separator of the header line: the one it holds most of, outside quotes. */
export function detectSeparator(text: string): string {
  const end = text.indexOf('\n');
  const header = end === -1 ? text : text.slice(0, end);
  let best = ',';
  let bestCount = 0;
  for (const sep of [',', ';', '\t', '|']) {
    let count = 0;
    let quoted = false;
    for (const ch of header) {
      if (ch === '"') quoted = !quoted;
      else if (ch === sep && !quoted) count++;
    }
    if (count > bestCount) {
      best = sep;
      bestCount = count;
    }
  }
  return best;
}

/** A header name as compared: lower case, inner spaces and `_`/`-` collapsed, trimmed. */
export function headerKey(name: string): string {
  return name.replace(/^\uFEFF/, '').trim().toLowerCase().replace(/[\s_-]+/g, ' ');
}

/** Reads CSV text (already decoded, BOM removed or not). An empty text is a table without rows. */
export function readCsv(text: string, file: string): CsvTable {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { headers: [], rows: [], separator: ',' };
  const separator = detectSeparator(body);
  // a Buffer, so that `info.bytes` (where a record ends) indexes it
  const bytes = Buffer.from(body, 'utf8');
  let records: { record: string[]; info: { bytes: number } }[];
  try {
    records = parse(bytes, { delimiter: separator, info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as { record: string[]; info: { bytes: number } }[];
  } catch (err) {
    if (err instanceof CsvError) {
      const line = (err as CsvError & { lines?: number }).lines;
      const truncated = err.code === 'CSV_QUOTE_NOT_CLOSED';
      throw new TmsyncError('invalid_import', `${file}:${line ?? 1}: ${truncated ? 'a quoted value is never closed: the file is truncated or a quote is unbalanced' : err.message}`, {
        hint: truncated ? 'export the file again, or close the quote on that line' : 'check the CSV on that line',
        details: { file, line },
      });
    }
    throw err;
  }
  const [head, ...rest] = records;
  const headers = head.record.map((h) => h.replace(/^\uFEFF/, '').trim());
  // a row starts where the one before it ends (`info.bytes`), past blank lines: count the newlines
  const rows: CsvRow[] = [];
  let offset = 0;
  let line = 1;
  const advance = (to: number) => {
    for (; offset < to; offset++) if (bytes[offset] === 0x0a) line++;
    while (offset < bytes.length && (bytes[offset] === 0x0a || bytes[offset] === 0x0d)) {
      if (bytes[offset] === 0x0a) line++;
      offset++;
    }
  };
  advance(head.info.bytes);
  for (const r of rest) {
    rows.push({ line, values: r.record });
    advance(r.info.bytes);
  }
  return { headers, rows, separator };
}

/**
 * The index of the first header matching one of `aliases` (by {@link headerKey}), or -1.
 */
export function columnIndex(headers: readonly string[], aliases: readonly string[]): number {
  const keys = headers.map(headerKey);
  for (const alias of aliases) {
    const i = keys.indexOf(headerKey(alias));
    if (i !== -1) return i;
  }
  return -1;
}

/** A row's value in column `index` (trimmed of a trailing CR), '' when absent or the column is -1. */
export function cell(row: CsvRow, index: number): string {
  if (index < 0) return '';
  return (row.values[index] ?? '').replace(/\r$/, '');
}
