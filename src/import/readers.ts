import type { ImportReader } from './reader.js';
import { azureDevopsCsvReader } from './formats/azure-devops-csv.js';
import { qaseCsvReader } from './formats/qase-csv.js';
import { qaseJsonReader } from './formats/qase-json.js';
import { testomatioMdReader } from './formats/testomatio-md.js';

/**
 * Every export format `tmsync import` reads, in the order `--help` lists them. A new format is a
 * reader (`reader.ts`) in `formats/` and one line here, its name in `format-names.ts` (in the
 * same order), and a section in docs/import.md.
 */
export const IMPORT_READERS: readonly ImportReader[] = [
  qaseCsvReader,
  qaseJsonReader,
  testomatioMdReader,
  azureDevopsCsvReader,
];

export function importReader(name: string): ImportReader | undefined {
  return IMPORT_READERS.find((r) => r.name === name);
}
