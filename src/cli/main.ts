import { CommanderError } from 'commander';
import { TmsyncError, ValidationError, formatProblem, toTmsyncError } from '../errors.js';
import { buildProgram } from './program.js';
import { colorChoice, processIo, red, yellow, type CliIo } from './io.js';
import { jsonOutput } from './json.js';
import { safeMessage } from '../safe-text.js';
import { startMemoryGovernor } from './memory.js';
import { VERSION } from '../version.js';
import { EXIT, EXIT_USAGE, exitStatusOf } from './exit-codes.js';

/**
 * The CLI entry: parses argv, runs the command, prints errors, returns the exit code.
 * The only place (with the command files) that prints; nothing here calls process.exit.
 */
export async function main(argv: string[], given?: CliIo, cwd: string = process.cwd()): Promise<number> {
  const args = argv.slice(2);
  // the process's own run (not a caller's in-process one): bound the garbage its heap keeps; not for
  // `serve`, a long-running server whose answers a forced full collection would hold up, nor for
  // `validate`, whose heap grows by the loaded repository, live data: there each collection freed
  // little and cost much CPU (docs/performance.md)
  const governor = given || !governed(args) ? undefined : startMemoryGovernor(GOVERNOR_OPTIONS[commandName(args) ?? ''] ?? {});
  const base = given ?? processIo();
  // Ctrl-C is main's, for every command: one signal that the commands and the use cases observe
  // (a caller that passes its own signal keeps it, and its own SIGINT)
  const interrupt = base.signal ? undefined : new AbortController();
  const io: CliIo = {
    ...base,
    ...(interrupt ? { signal: interrupt.signal } : {}),
    ...(governor ? { memory: { check: () => governor.check(), collect: () => governor.collect(), finish: () => governor.stop() } } : {}),
  };
  const release = interrupt ? ownSigint(interrupt, interruptible(args)) : undefined;
  try {
    const code = await run(argv, io, cwd);
    // output a full disk or a broken device cut short: the command's own work stands, but what it
    // printed is incomplete, which is no success (a reader that went away is not such an error)
    return code === 0 && io.outputError?.() !== undefined ? 1 : code;
  } finally {
    release?.();
    governor?.stop();
  }
}

/**
 * Commands with an interrupt path of their own (docs: apply, migrate, restore, `run trigger
 * --wait`, `results push`, serve): the first Ctrl-C aborts their signal and they stop as they
 * document it (exit 130). Every other command, and a second Ctrl-C, exits at once with 130.
 */
const INTERRUPTIBLE: ReadonlySet<string> = new Set(['apply', 'migrate', 'restore', 'run', 'results', 'serve']);

/** Whether the first Ctrl-C of a command line aborts its signal (rather than exiting at once). */
function interruptible(args: readonly string[]): boolean {
  return INTERRUPTIBLE.has(commandName(args) ?? '');
}

/** Installs main's SIGINT handler; returns its removal. */
function ownSigint(interrupt: AbortController, graceful: boolean): () => void {
  const onSigint = () => {
    // the second Ctrl-C stops at once: the lock is released on the process's `exit` (docs/cli.md)
    if (!graceful || interrupt.signal.aborted) process.exit(EXIT.INTERRUPTED);
    interrupt.abort();
  };
  process.on('SIGINT', onSigint);
  return () => void process.off('SIGINT', onSigint);
}

/**
 * Commands whose heap the governor lets grow further between collections: an import's live heap
 * (the model of the export) is large and its garbage (rendered files) comes fast, so collecting
 * at every quarter of growth spent more CPU than the memory it saved was worth (docs/performance.md).
 */
const GOVERNOR_OPTIONS: Readonly<Record<string, { growth: number }>> = { import: { growth: 0.5 } };

/** Commands the memory governor does not watch (see `main`). */
const UNGOVERNED: ReadonlySet<string> = new Set(['serve', 'validate']);

/** Whether the CLI's own run of a command line starts the memory governor. */
export function governed(args: readonly string[]): boolean {
  return !UNGOVERNED.has(commandName(args) ?? '');
}

/** Global options that take a value (the command name is the first token that is neither). */
const GLOBAL_WITH_VALUE = new Set(['--config', '--profile', '--base-url', '--project']);

/** The command a command line names: its first word that is not a global option or its value. */
export function commandName(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (GLOBAL_WITH_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

async function run(argv: string[], io: CliIo, cwd: string): Promise<number> {
  let exitCode: number = EXIT.OK;
  const json = argv.includes('--json');
  const args = argv.slice(2);
  if (json && commandName(args) === undefined && (args.includes('--version') || args.includes('-V'))) {
    // commander prints the version as text; under --json it is a document like every other answer
    io.stdout(jsonOutput({ version: VERSION }));
    return EXIT.OK;
  }
  const color = colorChoice(io, argv.includes('--no-color')).stderr;
  const program = buildProgram(
    io,
    cwd,
    (code) => {
      exitCode = code;
    },
    color,
  );
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end up here with exit code 0; commander printed usage errors already
      if (err.exitCode === 0) return EXIT.OK;
      if (json) {
        const message = err.message.replace(/^error:\s*/i, '');
        io.stdout(errorJson(new TmsyncError('usage', message, { hint: 'run with --help for usage', details: { commander: err.code } })));
      }
      return EXIT_USAGE;
    }
    const e = toTmsyncError(err);
    reportError(e, io, json, color);
    // a command stopped by Ctrl-C failed because it was told to stop: the one exit code for that
    return io.signal?.aborted ? EXIT.INTERRUPTED : exitStatusOf(e.code);
  }
}

/** The one JSON error shape (schemas/output/error.schema.json). */
export function errorJson(e: TmsyncError): string {
  return jsonOutput({ error: e.toJSON() });
}

export function reportError(e: TmsyncError, io: CliIo, json: boolean, color = false): void {
  if (json) io.stdout(errorJson(e));
  // a problem in tmsync.yaml reaches here from any command: say where, not just how many
  if (e instanceof ValidationError) for (const p of e.problems) io.stderr(formatProblem(p));
  // messages quote titles, names and the service's own words: made safe (`safe-text.ts`)
  io.stderr(`${red('Error:', color)} ${safeMessage(e.message)}${e.hint ? `\n${yellow('Hint:', color)} ${safeMessage(e.hint)}` : ''}`);
  if (e.code === 'internal' && e.cause instanceof Error && e.cause.stack && process.env.TMSYNC_DEBUG) {
    io.stderr(e.cause.stack);
  }
}
