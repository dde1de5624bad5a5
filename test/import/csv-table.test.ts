import { describe, expect, it } from 'vitest';
import { cell, columnIndex, detectSeparator, readCsv } from '../../src/import/csv-table.js';
import { TmsyncError } from '../../src/errors.js';

describe('readCsv', () => {
  it('reads a semicolon file with a BOM, CRLF, a quoted line break and a blank line, giving each row its first line', () => {
    const table = readCsv('\uFEFFTitle;Steps\r\n"One";"a\r\nb"\r\n\r\nTwo;é\r\n', 'f.csv');
    expect(table.headers).toEqual(['Title', 'Steps']);
    expect(table.separator).toBe(';');
    expect(table.rows.map((r) => [r.line, ...r.values])).toEqual([
      [2, 'One', 'a\r\nb'],
      [5, 'Two', 'é'],
    ]);
  });

  it('gives lines past multi-byte text and without a final newline', () => {
    const table = readCsv('a,b\n"ünï\ncödé",2\n3,4', 'f.csv');
    expect(table.rows.map((r) => r.line)).toEqual([2, 4]);
  });

  it('takes an empty file as a table without rows', () => {
    expect(readCsv('', 'f.csv')).toEqual({ headers: [], rows: [], separator: ',' });
    expect(readCsv('\uFEFF \n', 'f.csv').rows).toEqual([]);
  });

  it('names file and line of a quote never closed (a truncated file)', () => {
    let error: unknown;
    try {
      readCsv('a,b\n1,2\n3,"4\n5,6', 'exports/f.csv');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(TmsyncError);
    expect((error as TmsyncError).code).toBe('invalid_import');
    expect((error as TmsyncError).message).toMatch(/^exports\/f\.csv:\d+: a quoted value is never closed/);
  });
});

describe('columns', () => {
  it('finds a column by any alias, ignoring case, spaces, underscores and a BOM', () => {
    expect(columnIndex(['\uFEFFID', 'Test  Case_Title'], ['title', 'test case title'])).toBe(1);
    expect(columnIndex(['a'], ['b'])).toBe(-1);
    expect(cell({ line: 1, values: ['x\r'] }, 0)).toBe('x');
    expect(cell({ line: 1, values: [] }, -1)).toBe('');
  });

  it('detects the separator outside quotes', () => {
    expect(detectSeparator('"a,b";c;d\n')).toBe(';');
    expect(detectSeparator('a\tb\tc')).toBe('\t');
    expect(detectSeparator('a')).toBe(',');
  });
});
