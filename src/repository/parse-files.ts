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
   * Worker threads to parse in. With workers, the calling thread parses nothing: it stays free for
   * what runs beside the load (`plan` reads the service meanwhile, and a busy event loop delays
   * its requests), and only receives results, in batches. Workers only run from the built package
   * (they need `parse-worker.js`); under a TypeScript test runner parsing stays in-thread.
   * @default for 2,000 files or more, one worker per idle core (at least one, even on a busy
   * machine, at most 4); 0 below; env TMSYNC_PARSE_WORKERS overrides
   */
  workers?: number;
  /**
   * Old-generation heap of each worker, in MB (tests use a tiny one). A worker that runs out of it
   * parses its share again without the cap.
   * @default WORKER_HEAP_MB
   */
  workerHeapMb?: number;
}

/** Below this, starting a worker (loading yaml and zod again) costs more than it saves. */
const WORKER_THRESHOLD = 2000;
/** Files per message a worker sends: small enough that receiving one never stalls this thread. */
export const RESULT_BATCH = 250;
const WORKER_URL = new URL('./parse-worker.js', import.meta.url);
/**
 * A worker's old generation, capped (issue 15): a worker holds little (its share of the paths and
 * one batch of results), but with V8's default limit its heap grew to over 100 MB of garbage on
 * 50,000 files before being collected, all of it in the process's peak memory. With the cap it
 * collects sooner; the rare worker that needs more (a huge file) is run again without it.
 */
export const WORKER_HEAP_MB = 64;

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
  return jobs.map((job) => detach(parseBytes(job, readFileSync(join(root, job.rel)))));
}

/**
 * A copy of a result that shares nothing with the file's text. The parser's strings are slices of
 * the text, and a kept slice keeps the whole text alive (V8 sliced strings): about 1 KB per case,
 * the largest holder of a loaded repository. A worker's results are copies already (they cross
 * threads by structured clone); this gives the in-thread path the same footprint.
 */
function detach(result: ParseResult): ParseResult {
  return structuredClone(result);
}

/**
 * Workers for a large repository: one per idle core, at most 4, and at least one even on a
 * saturated machine. One worker there finishes a little later than parsing in this thread would
 * (its start-up and the copying of results: measured on 2 cores at load 7, 3.5 s against 2.6 s),
 * but the point is that this thread stays free: parsing here stopped `plan`'s requests for
 * seconds (issue 15).
 */
function idleCores(): number {
  const cores = availableParallelism();
  const busy = Math.ceil(loadavg()[0]);
  return Math.max(1, Math.min(cores - busy, 4));
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
  if (wanted <= 0 || jobs === 0) return 0;
  if (!existsSync(fileURLToPath(WORKER_URL))) return 0;
  return Math.min(wanted, jobs);
}

/** What a worker posts: a batch of results (in job order), then `done`, or an I/O error. */
export type WorkerMessage =
  | { results: ParseResult[] }
  | { done: true }
  | { error: { message: string; code?: string; path?: string; syscall?: string } };

/** A worker's share; one that runs out of its capped heap is parsed again by a worker without the cap. */
async function runWorker(root: string, jobs: ParseJob[], heapMb: number): Promise<ParseResult[]> {
  try {
    return await runWorkerOnce(root, jobs, heapMb);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_WORKER_OUT_OF_MEMORY') throw err;
    return runWorkerOnce(root, jobs, undefined);
  }
}

function runWorkerOnce(root: string, jobs: ParseJob[], heapMb: number | undefined): Promise<ParseResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      workerData: { root, jobs, batch: RESULT_BATCH },
      // a larger young generation: parsing allocates many short-lived nodes
      resourceLimits: { maxYoungGenerationSizeMb: 16, ...(heapMb !== undefined ? { maxOldGenerationSizeMb: heapMb } : {}) },
    });
    let done = false;
    const results: ParseResult[] = [];
    worker.on('message', (msg: WorkerMessage) => {
      if ('results' in msg) {
        for (const r of msg.results) results.push(r);
        return;
      }
      done = true;
      if ('done' in msg) resolve(results);
      else {
        const { code, path, syscall } = msg.error;
        reject(Object.assign(new Error(msg.error.message), { code, ...(path ? { path } : {}), ...(syscall ? { syscall } : {}) }));
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
 * Reads and parses files: in worker threads for large repositories (this thread then only
 * receives the results), else in this thread. Results come back in the order of `jobs`. Throws
 * only on I/O errors.
 */
export async function parseFiles(root: string, jobs: readonly ParseJob[], options: ParseFilesOptions = {}): Promise<ParseResult[]> {
  const workers = workerCount(jobs.length, options);
  if (workers === 0) return parseFilesInThread(root, jobs);
  // contiguous chunks, one per worker
  const size = Math.ceil(jobs.length / workers);
  const chunks: ParseJob[][] = [];
  for (let i = 0; i < jobs.length; i += size) chunks.push(jobs.slice(i, i + size));
  const pending = chunks.map((c) => runWorker(root, c, options.workerHeapMb ?? WORKER_HEAP_MB));
  const settled = await Promise.allSettled(pending);
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.flatMap((r) => (r as PromiseFulfilledResult<ParseResult[]>).value);
}
