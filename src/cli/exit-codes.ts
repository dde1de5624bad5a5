import { ERROR_CODES, type ErrorCode } from '../error-codes.js';

/**
 * Every exit status of the CLI, named once: commands return these, `main.ts` maps errors to them,
 * `--help` lists them and docs/errors.md gives each error code's. Scripts depend on the numbers:
 * they never change.
 */
export const EXIT = {
  /** success; `plan --detailed-exitcode`: the repository and the service agree */
  OK: 0,
  /** an error (any `TmsyncError`), a failed or skipped operation, a usage error */
  FAILED: 1,
  /** `plan --detailed-exitcode`: the repository and the service differ */
  CHANGES: 2,
  /** `run trigger --wait`: the run finished without passing */
  RUN_NOT_PASSED: 3,
  /** Ctrl-C: the work in flight was finished (or abandoned on a second one) */
  INTERRUPTED: 130,
} as const;

/** Usage errors (an unknown option, a missing argument) exit as every other error does. */
export const EXIT_USAGE: ExitCode = EXIT.FAILED;

type ExitName = keyof typeof EXIT;
type ExitCode = (typeof EXIT)[ExitName];

/** What each status means, for `--help` (in the order of the numbers). */
const MEANINGS: Record<ExitName, string> = {
  OK: 'success (plan --detailed-exitcode: the repository and the service agree)',
  FAILED: 'error',
  CHANGES: 'they differ (plan --detailed-exitcode)',
  RUN_NOT_PASSED: 'run did not pass',
  INTERRUPTED: 'interrupted (Ctrl-C)',
};

/** `Exit codes: 0 success …, 130 interrupted (Ctrl-C).`, the line of `tmsync --help`. */
export function exitCodesHelp(): string {
  const names = (Object.keys(EXIT) as ExitName[]).sort((a, b) => EXIT[a] - EXIT[b]);
  return `Exit codes: ${names.map((n) => `${EXIT[n]} ${MEANINGS[n]}`).join(', ')}.`;
}

/**
 * The status of an error that ends a command, by its code, where it is not `FAILED`
 * (docs/errors.md lists each code's). `aborted`: a command stopped by Ctrl-C, as every
 * interrupted command exits.
 */
const ERROR_EXIT: Partial<Record<ErrorCode, ExitCode>> = { aborted: EXIT.INTERRUPTED };

/** The exit status of a command that ends in an error with this code. */
export function exitStatusOf(code: ErrorCode): ExitCode {
  return ERROR_EXIT[code] ?? EXIT.FAILED;
}

/** The table of docs/errors.md: every error code, its exit status and meaning, by code. */
export function errorCodesTable(): string {
  const codes = (Object.keys(ERROR_CODES) as ErrorCode[]).sort();
  return ['| Code | Exit | Meaning |', '| --- | --- | --- |', ...codes.map((c) => `| \`${c}\` | ${exitStatusOf(c)} | ${ERROR_CODES[c]} |`)].join('\n');
}
