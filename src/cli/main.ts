import { CommanderError } from 'commander';
import { TmsyncError, ValidationError, formatProblem, toTmsyncError } from '../errors.js';
import { buildProgram } from './program.js';
import { processIo, type CliIo } from './io.js';

/**
 * The CLI entry: parses argv, runs the command, prints errors, returns the exit code.
 * The only place (with the command files) that prints; nothing here calls process.exit.
 */
export async function main(argv: string[], io: CliIo = processIo(), cwd: string = process.cwd()): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(io, cwd, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end up here with exit code 0
      return err.exitCode === 0 ? 0 : 1;
    }
    const e = toTmsyncError(err);
    const json = argv.includes('--json');
    reportError(e, io, json);
    return 1;
  }
}

export function reportError(e: TmsyncError, io: CliIo, json: boolean): void {
  if (json) io.stdout(JSON.stringify({ error: e.toJSON() }));
  // a problem in tmsync.yaml reaches here from any command: say where, not just how many
  if (e instanceof ValidationError) for (const p of e.problems) io.stderr(formatProblem(p));
  io.stderr(`Error: ${e.message}${e.hint ? `\nHint: ${e.hint}` : ''}`);
  if (e.code === 'internal' && e.cause instanceof Error && e.cause.stack && process.env.TMSYNC_DEBUG) {
    io.stderr(e.cause.stack);
  }
}
