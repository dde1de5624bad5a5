/**
 * CSV text as spreadsheets and importers read it (RFC 4180): records end with CRLF, a value is
 * quoted when it holds the separator, a quote, a line break or outer spaces, and quotes inside
 * are doubled. Line breaks inside a value stay `\n`.
 */

function quote(value: string): string {
  return /[",\r\n]|^\s|\s$/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export function csvRecord(values: readonly string[]): string {
  return values.map(quote).join(',');
}

export function csvText(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  return [headers, ...rows].map(csvRecord).join('\r\n') + '\r\n';
}
