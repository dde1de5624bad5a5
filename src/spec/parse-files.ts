import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Problem } from '../errors.js';
import { parseCaseFile, parseStepGroupFile } from './case-file.js';
import { parseFolderFile } from './folder-file.js';
import { decodeText } from './text-file.js';

/** One file to read and parse (paths relative to the repository root). */
export type ParseJob =
  | { kind: 'case'; rel: string }
  | { kind: 'step_group'; rel: string; key: string }
  | { kind: 'folder'; rel: string };

export interface ParseResult {
  rel: string;
  /** sha256 of the file's content (hex), for the repository's contentHash */
  hash: string;
  problems: Problem[];
  /** the parser's result (`Parsed<DesiredCase>`, `Parsed<DesiredStepGroup>`, `ParsedFolderFile`) */
  parsed?: unknown;
}

export interface ParseFilesOptions {
  /**
   * Worker threads to parse with, besides the calling thread. Parsing YAML is CPU-bound, so a
   * large repository loads about twice as fast on two cores. Workers only run from the built
   * package (they need `parse-worker.js`); under a TypeScript test runner parsing stays in-thread.
   * @default the idle cores (up to 3, never all) for 2,000 files or more, 0 below; env TMSYNC_PARSE_WORKERS overrides
   */
  workers?: number;
}

/** Below this, starting a worker (loading yaml and zod again) costs more than it saves. */
const WORKER_THRESHOLD = 2000;
const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

/**
 * Decodes a file's bytes and parses it. A file that is not valid UTF-8 (nor UTF-16 with a
 * byte-order mark) is one `invalid_encoding` problem at its first bad byte and is not parsed.
 */
export function parseBytes(job: ParseJob, bytes: Uint8Array): ParseResult {
  const r = decodeText(bytes);
  if ('problem' in r) {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const { line, col, message, hint } = r.problem;
    return { rel: job.rel, hash, problems: [{ file: job.rel, line, col, code: 'invalid_encoding', message, hint }] };
  }
  return parseText(job, r.decoded.text);
}

export function parseText(job: ParseJob, text: string): ParseResult {
  const hash = createHash('sha256').update(text).digest('hex');
  const r =
    job.kind === 'case'
      ? parseCaseFile(job.rel, text)
      : job.kind === 'step_group'
        ? parseStepGroupFile(job.rel, job.key, text)
        : parseFolderFile(job.rel, text);
  return { rel: job.rel, hash, problems: r.problems, ...(r.parsed ? { parsed: r.parsed } : {}) };
}

/**
 * Reads and parses in this thread. Reads are synchronous on purpose: for thousands of small
 * files a sync read costs ~20 µs, while each async read (open, fstat, read, close through the
 * thread pool) costs several times that in main-thread overhead alone, and parsing is CPU-bound
 * anyway (measured on 10,000 files: 0.2 s sync, 0.3 s callback readFile, 0.65 s fs/promises).
 * The parallelism that pays is the worker threads of `parseFiles`.
 */
export function parseFilesInThread(root: string, jobs: readonly ParseJob[]): ParseResult[] {
  return jobs.map((job) => parseBytes(job, readFileSync(join(root, job.rel))));
}

/**
 * Cores with nothing to do, at most 3. Workers only pay when a core is idle: on a saturated
 * machine they add their start-up and the copying of results and finish later than one thread
 * (measured on 2 cores at load 7: 3.5 s with a worker, 2.6 s without).
 */
function idleCores(): number {
  const cores = availableParallelism();
  const busy = Math.ceil(loadavg()[0]);
  return Math.max(0, Math.min(cores - 1, cores - busy, 3));
}

function workerCount(jobs: number, options: ParseFilesOptions): number {
  const env = process.env.TMSYNC_PARSE_WORKERS;
  const wanted =
    options.workers ??
    (env !== undefined && env !== '' && Number.isInteger(Number(env))
      ? Number(env)
      : jobs >= WORKER_THRESHOLD
        ? idleCores()
        : 0);
  if (wanted <= 0 || jobs < 2) return 0;
  if (!existsSync(fileURLToPath(WORKER_URL))) return 0;
  return Math.min(wanted, jobs - 1);
}

function runWorker(root: string, jobs: ParseJob[]): Promise<ParseResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      workerData: { root, jobs },
      // a larger young generation: parsing allocates many short-lived nodes
      resourceLimits: { maxYoungGenerationSizeMb: 48 },
    });
    let done = false;
    worker.once('message', (msg: { results?: ParseResult[]; error?: { message: string; code?: string; path?: string; syscall?: string } }) => {
      done = true;
      if (msg.results) resolve(msg.results);
      else {
        const { code, path, syscall } = msg.error ?? {};
        reject(Object.assign(new Error(msg.error?.message ?? 'parse worker failed'), { code, ...(path ? { path } : {}), ...(syscall ? { syscall } : {}) }));
      }
    });
    worker.once('error', (err) => {
      done = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`parse worker exited with code ${code}`));
    });
  });
}

/**
 * Reads and parses files, in this thread and in worker threads for large repositories.
 * Results come back in the order of `jobs`. Throws only on I/O errors.
 */
export async function parseFiles(root: string, jobs: readonly ParseJob[], options: ParseFilesOptions = {}): Promise<ParseResult[]> {
  const workers = workerCount(jobs.length, options);
  if (workers === 0) return parseFilesInThread(root, jobs);
  // contiguous chunks: the workers take the first ones (they need time to start), this thread the last
  const size = Math.ceil(jobs.length / (workers + 1));
  const chunks: ParseJob[][] = [];
  for (let i = 0; i < jobs.length; i += size) chunks.push(jobs.slice(i, i + size));
  const mine = chunks.pop()!;
  const pending = chunks.map((c) => runWorker(root, c));
  // parse our share while the workers run; their failures surface through Promise.all below
  pending.forEach((p) => p.catch(() => undefined));
  let own: ParseResult[];
  try {
    own = parseFilesInThread(root, mine);
  } catch (err) {
    await Promise.allSettled(pending);
    throw err;
  }
  return [...(await Promise.all(pending)).flat(), ...own];
}
