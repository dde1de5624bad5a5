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
  env: NodeJS.ProcessEnv;
  /** reads one line from the terminal (for `apply`'s confirmation); undefined when there is none */
  prompt?: (question: string) => Promise<string>;
  /** aborted on Ctrl-C: commands stop taking new work and return 130 */
  signal?: AbortSignal;
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
  /** colour only when on a terminal and not --no-color */
  color: boolean;
}

export function processIo(): CliIo {
  return {
    stdout: (t) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`),
    stderr: (t) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`),
    isTTY: Boolean(process.stdin.isTTY && process.stderr.isTTY),
    env: process.env,
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
