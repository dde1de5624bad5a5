import { csvReader } from './formats/csv.js';
import type { ImportReader } from './reader.js';

/**
 * Every export format `tmsync import` reads, in the order `--help` lists them. A new format is a
 * reader (`reader.ts`) in `formats/` and one line here, its name in `format-names.ts` (in the
 * same order), and a section in docs/import.md.
 */
export const IMPORT_READERS: readonly ImportReader[] = [
  // the generic CSV last: it claims any CSV with a title column, but only ever with 1
  csvReader,
];

export function importReader(name: string): ImportReader | undefined {
  return IMPORT_READERS.find((r) => r.name === name);
}
