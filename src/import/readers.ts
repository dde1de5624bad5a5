import { azureDevopsCsvReader } from './formats/azure-devops-csv.js';
import { csvReader } from './formats/csv.js';
import { qaseCsvReader } from './formats/qase-csv.js';
import { qaseJsonReader } from './formats/qase-json.js';
import { testlinkXmlReader } from './formats/testlink-xml.js';
import { testomatioMdReader } from './formats/testomatio-md.js';
import { testrailCsvReader } from './formats/testrail-csv.js';
import { testrailXmlReader } from './formats/testrail-xml.js';
import { xrayCsvReader } from './formats/xray-csv.js';
import { xrayJsonReader } from './formats/xray-json.js';
import { zephyrScaleXmlReader } from './formats/zephyr-scale-xml.js';
import { zephyrSquadCsvReader } from './formats/zephyr-squad-csv.js';
import type { ImportReader } from './reader.js';

/**
 * Every export format `tmsync import` reads, in the order `--help` lists them. A new format is a
 * reader (`reader.ts`) in `formats/` and one line here, its name in `format-names.ts` (in the
 * same order), and a section in docs/import.md.
 */
export const IMPORT_READERS: readonly ImportReader[] = [
  testrailXmlReader,
  testrailCsvReader,
  xrayCsvReader,
  xrayJsonReader,
  zephyrScaleXmlReader,
  zephyrSquadCsvReader,
  qaseCsvReader,
  qaseJsonReader,
  testlinkXmlReader,
  testomatioMdReader,
  azureDevopsCsvReader,
  csvReader,
];

export function importReader(name: string): ImportReader | undefined {
  return IMPORT_READERS.find((r) => r.name === name);
}
