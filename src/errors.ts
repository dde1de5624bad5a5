/**
 * One error class for everything tmsync reports on purpose.
 *
 * `code` is stable snake_case (scripts match on it), `message` says what went wrong and
 * `hint` what to do next. `details` is JSON-safe data for `--json` output. Anything that is not a
 * TmsyncError reaching the CLI is labelled internal.
 *
 * Never put a secret (API key, Authorization header) into any field: errors are printed.
 */
export class TmsyncError extends Error {
  override readonly name: string = 'TmsyncError';
  readonly code: string;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;

  constructor(
    code: string,
    message: string,
    options: { hint?: string; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
    this.details = options.details;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint ? { hint: this.hint } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

/** A problem found in the tests repository, with its location (file relative to the repo root). */
export interface Problem {
  file: string;
  line: number;
  col: number;
  message: string;
  hint?: string;
  /** stable snake_case code, e.g. `unknown_key`, `duplicate_id` */
  code: string;
  severity?: 'error' | 'warning';
}

/** `file:line:col message (hint)`, the one way problems are shown to people. */
export function formatProblem(p: Problem): string {
  const hint = p.hint ? ` (${p.hint})` : '';
  return `${p.file}:${p.line}:${p.col} ${p.message}${hint}`;
}

/** Raised when a repository has problems; carries all of them, not just the first. */
export class ValidationError extends TmsyncError {
  override readonly name = 'ValidationError';
  readonly problems: Problem[];
  constructor(problems: Problem[]) {
    super('invalid_repository', `${problems.length} problem${problems.length === 1 ? '' : 's'} in the tests repository`, {
      hint: 'fix the files listed and run `tmsync validate`',
      details: { problems },
    });
    this.problems = problems;
  }
}

/** Wraps anything unexpected so the CLI can label it internal. */
export function toTmsyncError(err: unknown): TmsyncError {
  if (err instanceof TmsyncError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new TmsyncError('internal', `internal error: ${message}`, {
    hint: 'this is a bug in tmsync; please report it with the command you ran',
    cause: err,
  });
}
