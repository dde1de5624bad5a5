import type { Clock } from '../remote/clock.js';
import type { MemoryHook } from '../usecases/hooks.js';

/**
 * What a command may touch of the outside world. Commands get this instead of using `process`
 * directly, so tests can run them in-process and capture everything they print.
 */
export interface CliIo {
  /** machine output (JSON with --json, the plan, ids) */
  stdout: (text: string) => void;
  /** human text: progress, hints, errors */
  stderr: (text: string) => void;
  /** stdin and stderr are terminals (prompts and progress bars are allowed) */
  isTTY: boolean;
  /** stdout is a terminal (colour on stdout) @default false */
  stdoutIsTTY?: boolean;
  /** stderr is a terminal (colour on stderr) @default false */
  stderrIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
  /** reads one line from the terminal (for `apply`'s confirmation); undefined when there is none */
  prompt?: (question: string) => Promise<string>;
  /** aborted on Ctrl-C: commands stop taking new work and return 130 */
  signal?: AbortSignal;
  /** the memory governor of the CLI's own process (`memory.ts`), handed to the use cases; none in-process */
  memory?: MemoryHook;
  /** the service client's clock (waits between retries, timeouts) @default the system's: tests pass a virtual one */
  clock?: Clock;
  /**
   * Resolves once stderr has taken what was written to it. Writes to a pipe are asynchronous: a
   * reader slower than a long text (the plan of many creates) leaves it
   * held in memory until it is read. @default resolves at once
   */
  stderrDrained?: () => Promise<void>;
  /** Resolves once stdout has taken what was written to it (see {@link CliIo.stderrDrained}). @default resolves at once */
  stdoutDrained?: () => Promise<void>;
  /**
   * A write error of stdout or stderr other than the reader going away (EPIPE), once one happened:
   * the output is incomplete, so `main` exits 1 even when the command succeeded. Output that no one
   * reads any more is dropped and changes nothing (see {@link onStreamError}). @default none
   */
  outputError?: () => string | undefined;
}

/** Whether each stream gets ANSI colours (decided per stream, see {@link useColor}). */
export interface ColorChoice {
  stdout: boolean;
  stderr: boolean;
}

/** Options every command receives (the global flags of the program). */
export interface GlobalOptions {
  /** directory commands run in; paths are resolved against it */
  cwd: string;
  /** @default `<cwd>/tmsync.yaml` */
  config?: string;
  profile?: string;
  baseUrl?: string;
  project?: string;
  /** machine output on stdout, human text on stderr */
  json: boolean;
  verbose: boolean;
  /** colour per stream written: see {@link useColor} */
  color: ColorChoice;
}

/**
 * Does a stream get colour? Pure. First match wins:
 * `--no-color` → no; `FORCE_COLOR` set (`0`/`false` → no, anything else → yes); `NO_COLOR` set
 * and not empty → no; `TERM=dumb` → no; otherwise only when the stream is a terminal.
 */
export function useColor(streamIsTTY: boolean, env: NodeJS.ProcessEnv, noColorFlag = false): boolean {
  if (noColorFlag) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.trim().toLowerCase());
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return streamIsTTY;
}

/** The colour choice of both streams of an io. */
export function colorChoice(io: CliIo, noColorFlag = false): ColorChoice {
  return {
    stdout: useColor(io.stdoutIsTTY ?? false, io.env, noColorFlag),
    stderr: useColor(io.stderrIsTTY ?? false, io.env, noColorFlag),
  };
}

/** Red bold text when `on`. */
export function red(text: string, on: boolean): string {
  return on ? `\u001b[1;31m${text}\u001b[0m` : text;
}

/** Yellow text when `on`. */
export function yellow(text: string, on: boolean): string {
  return on ? `\u001b[33m${text}\u001b[0m` : text;
}

/**
 * A write error on stdout/stderr: the stream takes no more output, and the command goes on (a
 * closed output never changes what a command does: an apply whose reader went away still applies,
 * releases its lock and exits by what happened). EPIPE (the reader went away: `tmsync plan | head
 * -1`) changes nothing else; any other write error (a full disk under `> plan.txt`) leaves the
 * output incomplete, so it is said on the other stream and the command exits 1 at the end (see
 * {@link CliIo.outputError}). Pure, for tests.
 */
export function onStreamError(err: NodeJS.ErrnoException): { failure?: string } {
  if (err.code === 'EPIPE') return {};
  return { failure: `tmsync: cannot write the output: ${err.message}` };
}

/** What happened to the process's two output streams (see {@link onStreamError}). */
const streamState = {
  stdout: { closed: false, failure: undefined as string | undefined },
  stderr: { closed: false, failure: undefined as string | undefined },
};
let streamGuardsInstalled = false;

export function processIo(): CliIo {
  if (!streamGuardsInstalled) {
    streamGuardsInstalled = true;
    for (const name of ['stdout', 'stderr'] as const) {
      const stream = process[name];
      stream.on('error', (err: NodeJS.ErrnoException) => {
        const state = streamState[name];
        if (state.closed) return;
        state.closed = true;
        const { failure } = onStreamError(err);
        if (!failure) return;
        state.failure = failure;
        if (name === 'stdout' && !streamState.stderr.closed) {
          try {
            process.stderr.write(`${failure}\n`);
          } catch {
            // nowhere left to say it
          }
        }
      });
    }
  }
  const writer = (name: 'stdout' | 'stderr') => (t: string) => {
    if (!streamState[name].closed) process[name].write(t.endsWith('\n') ? t : `${t}\n`);
  };
  return {
    stdout: writer('stdout'),
    stderr: writer('stderr'),
    isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    stderrDrained: () => (streamState.stderr.closed ? Promise.resolve() : drained(process.stderr)),
    stdoutDrained: () => (streamState.stdout.closed ? Promise.resolve() : drained(process.stdout)),
    outputError: () => streamState.stdout.failure ?? streamState.stderr.failure,
    prompt: process.stdin.isTTY
      ? async (question: string) => {
          const { createInterface } = await import('node:readline/promises');
          const rl = createInterface({ input: process.stdin, output: process.stderr });
          try {
            return await rl.question(question);
          } finally {
            rl.close();
          }
        }
      : undefined,
  };
}

/** An io that records everything, for tests. */
export function memoryIo(env: NodeJS.ProcessEnv = {}): CliIo & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    isTTY: false,
    env,
  };
}

/** Resolves once the stream's buffer has been taken (at once when it holds nothing, or the stream is gone). */
export function drained(stream: NodeJS.WritableStream & { writableNeedDrain?: boolean; destroyed?: boolean }): Promise<void> {
  if (!stream.writableNeedDrain || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      stream.off('error', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
    stream.on('error', done);
  });
}
