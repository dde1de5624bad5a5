import { main } from '../../src/cli/main.js';
import { memoryIo } from '../../src/cli/io.js';

/** What one in-process `tmsync` run left behind. */
export interface CliRun {
  /** the exit code `main` returned */
  code: number;
  /** stdout, its writes joined by newlines */
  out: string;
  /** stderr, its writes joined by newlines */
  err: string;
  /** stdout, one entry per write */
  outLines: string[];
  /** stderr, one entry per write */
  errLines: string[];
  /** the captured io the command ran with */
  io: ReturnType<typeof memoryIo>;
}

export interface CliRunOptions {
  /** the directory the command runs in */
  cwd: string;
  /** the command's whole environment (nothing of the test process's leaks in) @default {} */
  env?: NodeJS.ProcessEnv;
  /** aborted like Ctrl-C */
  signal?: AbortSignal;
  /** answers `apply`'s confirmation: a terminal that types this line */
  prompt?: (question: string) => Promise<string>;
  /** stdin and stderr are terminals @default false */
  isTTY?: boolean;
}

/**
 * Runs `tmsync <args>` in-process through `main` (as bin/tmsync.js does, with the io captured), so a
 * test sees the exit code and everything printed without spawning a process.
 */
export async function runCli(args: string[], options: CliRunOptions): Promise<CliRun> {
  const io = memoryIo(options.env ?? {});
  if (options.signal) io.signal = options.signal;
  if (options.prompt) io.prompt = options.prompt;
  if (options.isTTY !== undefined) io.isTTY = options.isTTY;
  const code = await main(['node', 'tmsync', ...args], io, options.cwd);
  return { code, out: io.out.join('\n'), err: io.err.join('\n'), outLines: io.out, errLines: io.err, io };
}

/** A request as the emulator's `onRequest` hook sees it. */
export interface HookedRequest {
  method: string;
  path: string;
}

/**
 * Ctrl-C at a request the test names, not at a moment: raises SIGINT (to `main`'s handler) once,
 * from the emulator's `onRequest` hook, at the `n`-th request `matches` accepts.
 */
export function sigintAt(matches: (r: HookedRequest) => boolean, n = 1): { onRequest: (r: HookedRequest) => void; readonly raised: boolean } {
  let seen = 0;
  let raised = false;
  return {
    onRequest: (r) => {
      if (raised || !matches(r) || ++seen < n) return;
      raised = true;
      process.emit('SIGINT');
    },
    get raised() {
      return raised;
    },
  };
}
