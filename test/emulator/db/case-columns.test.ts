import { describe, expect, it } from 'vitest';
import { CASE_FIELDS } from '../../../src/fields.js';
import { openDatabase } from '../../../src/emulator/db/connection.js';
import { CASE_COLUMNS } from '../../../src/emulator/db/cases.js';

describe('the emulator stores a case in columns typed from the field table', () => {
  it('its cases table, as the migrations leave it, has exactly the columns the code lists', () => {
    const db = openDatabase(undefined);
    try {
      const columns = (db.pragma('table_info(cases)') as { name: string }[]).map((c) => c.name);
      expect([...columns].sort()).toEqual(['seq', ...CASE_COLUMNS].sort());
    } finally {
      db.close();
    }
  });

  it('every field of the table but the individual steps is a column, under its wire name', () => {
    const columns: readonly string[] = CASE_COLUMNS;
    for (const f of CASE_FIELDS.filter((x) => x.kind !== 'steps')) expect(columns, f.wire).toContain(f.wire);
  });
});
