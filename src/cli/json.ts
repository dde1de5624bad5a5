/**
 * `format_version` of every command's `--json` output (schemas/output/*.schema.json). Raised only
 * when a field is removed or changes meaning; new fields keep the version. The plan (`plan --json`,
 * `show --json`, `plan --out`) carries its own plan-file `format_version`.
 */
export const OUTPUT_FORMAT_VERSION = 1;

/** One `--json` document: `format_version` first, then the command's fields. */
export function jsonOutput(payload: object): string {
  return JSON.stringify({ format_version: OUTPUT_FORMAT_VERSION, ...payload });
}
