import type { ErrorCode } from './error-codes.js';
import { safeInline, safeLineStart } from './safe-text.js';

export type { ErrorCode } from './error-codes.js';

/**
 * One error class for everything tmsync reports on purpose.
 *
 * `code` is stable snake_case (scripts match on it; every code is in `error-codes.ts`, listed in
 * docs/errors.md), `message` says what went wrong and
 * `hint` what to do next. `details` is JSON-safe data for `--json` output. Anything that is not a
 * TmsyncError reaching the CLI is labelled internal.
 *
 * Never put a secret (API key, Authorization header) into any field: errors are printed.
 */
export class TmsyncError extends Error {
  override readonly name: string = 'TmsyncError';
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;

  constructor(
    code: ErrorCode,
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
/** A problem on one line, as printed: its texts (which may quote a title) made safe (`safe-text.ts`). */
export function formatProblem(p: Problem): string {
  const hint = p.hint ? ` (${safeInline(p.hint)})` : '';
  return safeLineStart(`${safeInline(p.file)}:${p.line}:${p.col} ${safeInline(p.message)}${hint}`);
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
  // a full disk or a refused permission is what it is, not a bug in tmsync
  if (isSystemError(err) && err.code! in MEANING) return ioError(err, err.syscall ?? 'access') as TmsyncError;
  const message = err instanceof Error ? err.message : String(err);
  return new TmsyncError('internal', `internal error: ${message}`, {
    hint: 'this is a bug in tmsync; please report it with the command you ran',
    cause: err,
  });
}

/** What an operating-system error code means, for people. */
const MEANING: Record<string, { what: string; hint: string }> = {
  ENOSPC: { what: 'no space left on the device', hint: 'free some disk space and run the command again' },
  EDQUOT: { what: 'the disk quota is exceeded', hint: 'free some space within your quota and run the command again' },
  EACCES: { what: 'permission denied', hint: 'check the permissions of the file and its directory' },
  EPERM: { what: 'operation not permitted', hint: 'check the permissions and attributes of the file and its directory' },
  EROFS: { what: 'the file system is read-only', hint: 'write to a writable location, or remount the file system read-write' },
  EIO: { what: 'an input/output error of the device', hint: 'check the disk or the network file system' },
  EISDIR: { what: 'it is a directory', hint: 'give the path of a file' },
  ENOTDIR: { what: 'a part of the path is not a directory', hint: 'check the path' },
  ENOENT: { what: 'no such file or directory', hint: 'check the path' },
  EMFILE: { what: 'too many open files', hint: 'raise the open-file limit (ulimit -n) and run the command again' },
  EBUSY: { what: 'the file is busy', hint: 'close the programs using it and run the command again' },
  EXDEV: { what: 'it is on another file system', hint: 'keep the files on one file system' },
};

/** True for an operating-system error (`code` like `ENOSPC`). */
function isSystemError(err: unknown): err is NodeJS.ErrnoException {
  return err instanceof Error && typeof (err as NodeJS.ErrnoException).code === 'string' && /^E[A-Z0-9]+$/.test((err as NodeJS.ErrnoException).code!);
}

/**
 * Turns an operating-system error into an `io_error` that says what happened and to which path
 * (`doing`: "write", "read", "create the directory", …). Anything else comes back unchanged.
 */
export function ioError(err: unknown, doing: string, path?: string): unknown {
  if (err instanceof TmsyncError || !isSystemError(err)) return err;
  const code = err.code!;
  const where = path ?? err.path ?? '';
  const meaning = MEANING[code] ?? { what: err.message, hint: 'check the file system and run the command again' };
  return new TmsyncError('io_error', `cannot ${doing}${where ? ` ${where}` : ''}: ${meaning.what} (${code})`, {
    hint: meaning.hint,
    details: { errno: code, ...(where ? { path: where } : {}), ...(err.syscall ? { syscall: err.syscall } : {}) },
    cause: err,
  });
}
