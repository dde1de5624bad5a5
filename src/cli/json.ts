import { snakeKeys } from '../json-keys.js';

/**
 * `format_version` of every command's `--json` output (schemas/output/*.schema.json). Raised only
 * when a field is removed or changes meaning; new fields keep the version. The plan (`plan --json`,
 * `show --json`, `plan --out`) carries its own plan-file `format_version`.
 *
 * 2: every key snake_case, run ids of the execution interface numbers (docs/cli.md).
 */
export const OUTPUT_FORMAT_VERSION = 2;

/**
 * One `--json` document: one line, `format_version` first, then the command's fields with their
 * keys in snake_case (`json-keys.ts`), whatever the objects they come from call them.
 */
export function jsonOutput(payload: object): string {
  return JSON.stringify({ format_version: OUTPUT_FORMAT_VERSION, ...(snakeKeys(payload) as object) });
}

/**
 * An execution-interface id (a run's, a plan's `execution_id`) as every document gives it: a
 * number, as the service does (real-service-notes.md); one the service gave as something else
 * stays as it came.
 */
export function executionId(id: string | number): number | string {
  return typeof id === 'string' && /^\d{1,15}$/.test(id) ? Number(id) : id;
}

/** The execution interface's status object of a run, with its ids as {@link executionId} gives them. */
export function executionStatusDocument<T extends { id: string | number; executionId?: string | number | undefined }>(run: T): T {
  return { ...run, id: executionId(run.id), ...(run.executionId !== undefined ? { executionId: executionId(run.executionId) } : {}) };
}
