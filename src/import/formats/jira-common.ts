import { TmsyncError } from '../../errors.js';
import { cell, detectSeparator, headerKey, readCsv } from '../csv-table.js';
import { jiraWikiToMarkdown } from '../text/jira-wiki.js';
import type { CsvRow, CsvTable } from '../csv-table.js';
import type { ImportAt, ImportedField } from '../imported.js';
import type { ReadImportContext } from '../reader.js';
import type { ImportReport } from '../report.js';

/**
 * What the readers of Jira-based tools (Xray, Zephyr Squad) share: their texts are Jira wiki
 * markup, their CSV exports name columns freely (Xray's Test Case Importer maps any header; Jira's
 * issue export repeats a header once per value: `Labels,Labels,Labels`), and their lists sit in one
 * cell separated by `;` or `,`.
 */

/** Jira wiki markup → Markdown; the attachments it links to and the colours it unwraps go into the report. */
export function jiraText(value: string, report: ImportReport, at: ImportAt): string {
  const { markdown, attachments, colours } = jiraWikiToMarkdown(value);
  for (const link of attachments) report.attachment(link, at);
  for (const colour of colours) report.record('dropped', 'text colour', 'the {color} markup is unwrapped, its text kept', colour, at);
  return markdown;
}

/** The logical columns of a format, each with the header names it goes by (first match wins). */
export type ColumnSpec<K extends string> = Readonly<Record<K, readonly string[]>>;

/**
 * The generic CSV's names of a column map (`title`, `steps`, …) for the keys of these formats, so
 * that one `columns:` map serves them too.
 */
const FIELD_NAMES: Readonly<Record<string, string>> = {
  summary: 'title',
  action: 'steps',
  step: 'steps',
  result: 'expected',
  repository: 'folder',
  test_id: 'id',
  key: 'id',
};

/**
 * Every column of each logical name: all headers equal (by {@link headerKey}) to the first alias
 * that is present, so a header repeated once per value gives all its columns. Aliases given by the
 * user (`--map FILE`: `columns: { summary: Title }`) come before the format's own.
 */
export function resolveColumns<K extends string>(headers: readonly string[], spec: ColumnSpec<K>, given?: ReadImportContext['columns']): Record<K, number[]> {
  const keys = headers.map(headerKey);
  const out = {} as Record<K, number[]>;
  for (const name of Object.keys(spec) as K[]) {
    const extra = given?.[name] ?? (FIELD_NAMES[name] === undefined ? undefined : given?.[FIELD_NAMES[name]]);
    const aliases = [...(extra === undefined ? [] : typeof extra === 'string' ? [extra] : extra), ...spec[name]];
    out[name] = [];
    for (const alias of aliases) {
      const key = headerKey(alias);
      keys.forEach((k, i) => {
        if (k === key) out[name].push(i);
      });
      if (out[name].length > 0) break;
    }
  }
  // a header claimed by an earlier name is not another's too (`Result` as the step result, not a status)
  const taken = new Set<number>();
  for (const name of Object.keys(spec) as K[]) {
    out[name] = out[name].filter((i) => !taken.has(i));
    for (const i of out[name]) taken.add(i);
  }
  return out;
}

/** The non-empty values of a row in these columns, trimmed. */
export function cellsOf(row: CsvRow, columns: readonly number[]): string[] {
  return columns.map((i) => cell(row, i).trim()).filter((v) => v !== '');
}

/** The first non-empty value of a row in these columns, '' when none. */
export function firstOf(row: CsvRow, columns: readonly number[]): string {
  return cellsOf(row, columns)[0] ?? '';
}

/** A list in one cell: `a;b`, `a, b`; labels also split on spaces (a Jira label has none). */
export function splitList(value: string, spaces = false): string[] {
  return value
    .split(spaces ? /[;,\s]+/ : value.includes(';') ? /;/ : /,/)
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** Values in order, each once. */
export function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/** A folder path in one cell (`/Core/Auth`, `Core/Auth`, `Core\Auth`) → its names, outermost first. */
export function folderPath(value: string): string[] {
  return value
    .split(/[/\\]/)
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

/** The headers no logical column claimed: custom fields and whatever else the export holds. */
export function otherColumns(headers: readonly string[], claimed: Readonly<Record<string, readonly number[]>>): number[] {
  const used = new Set(Object.values(claimed).flat());
  return headers.map((_, i) => i).filter((i) => !used.has(i) && headers[i].trim() !== '');
}

/**
 * The custom fields of one item from its rows: each other column's values, each once, joined with
 * `, ` (a header repeated once per value, as Jira's export writes a multi-value field, gives one field).
 */
export function customFields(headers: readonly string[], columns: readonly number[], rows: readonly CsvRow[]): ImportedField[] {
  const byName = new Map<string, string[]>();
  for (const i of columns) {
    const name = headers[i].trim();
    for (const value of rows.map((r) => cell(r, i).trim()).filter((v) => v !== '')) {
      const list = byName.get(name) ?? [];
      if (!list.includes(value)) list.push(value);
      byName.set(name, list);
    }
  }
  return [...byName].map(([name, values]) => ({ name, value: values.join(', ') }));
}

/** The header names of a CSV head (the first record, quotes honoured), for `detect`. */
export function headNames(head: string): string[] {
  const text = head.replace(/^\uFEFF/, '');
  const separator = detectSeparator(text);
  const names: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        current += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === separator) {
      names.push(current);
      current = '';
    } else if (ch === '\n' || ch === '\r') break;
    else current += ch;
  }
  names.push(current);
  return names.map(headerKey).filter((n) => n !== '');
}

/** The rows of a table grouped by an id; a row without one continues the group before it. */
export function groupRows(table: CsvTable, idOf: (row: CsvRow) => string): { id: string; rows: CsvRow[] }[] {
  const groups = new Map<string, { id: string; rows: CsvRow[] }>();
  let last: { id: string; rows: CsvRow[] } | undefined;
  for (const row of table.rows) {
    if (row.values.every((v) => v.trim() === '')) continue;
    const id = idOf(row);
    if (id === '') {
      if (last) last.rows.push(row);
      continue;
    }
    let group = groups.get(id);
    if (!group) groups.set(id, (group = { id, rows: [] }));
    group.rows.push(row);
    last = group;
  }
  return [...groups.values()];
}

/** The error for a CSV that lacks a column the format needs. */
export function missingColumn(file: string, format: string, key: string, aliases: readonly string[], headers: readonly string[]): TmsyncError {
  return new TmsyncError('invalid_import', `${file}:1: the ${format} export has no ${key} column (looked for ${aliases.map((a) => `"${a}"`).join(', ')}; the header holds ${headers.map((h) => `"${h}"`).join(', ')})`, {
    hint: `name the header in the column map (\`columns: { ${key}: <header> }\` in --map FILE or import.columns of tmsync.yaml), or choose another FORMAT`,
    details: { file, line: 1, missing: key },
  });
}

/**
 * An export's CSV with its columns found (`resolveColumns`), or undefined for a file without rows
 * (noted in the report: an empty export is not an error).
 */
export function readJiraCsv<K extends string>(text: string, context: ReadImportContext, spec: ColumnSpec<K>): { table: CsvTable; columns: Record<K, number[]> } | undefined {
  const table = readCsv(text, context.file);
  if (table.rows.length === 0) {
    context.report.note(`${context.file} holds no tests.`);
    return undefined;
  }
  return { table, columns: resolveColumns(table.headers, spec, context.columns) };
}
