/**
 * The FORMAT names of `tmsync import`, for `--help` without loading the readers (and their XML,
 * CSV and HTML parsers) at start-up. test/import/readers.test.ts keeps it equal to `IMPORT_READERS`.
 */
export const IMPORT_FORMATS = [
  'testrail-xml',
  'testrail-csv',
  'xray-csv',
  'xray-json',
  'zephyr-scale-xml',
  'zephyr-squad-csv',
  'qase-csv',
  'qase-json',
  'testlink-xml',
  'testomatio-md',
  'azure-devops-csv',
  'csv',
] as const;
