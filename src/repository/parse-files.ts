import { createHash, hash as sha256Of } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Problem } from '../errors.js';
import type { DesiredCase, DesiredStepGroup } from '../model.js';
import type { Parsed, ReadOptions } from './case-file.js';
import { formatOf, parseItemFile } from './format.js';
import type { ParsedItems } from './repository-format.js';
import { isWide, narrowTexts } from '../text-sharer.js';
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

export interface ParseFilesOptions extends ReadOptions {
  /**
   * Worker threads to parse in. With workers, the calling thread parses nothing (unless
   * `callerIdle`): it stays free for what runs beside the load (`plan` reads the service meanwhile,
   * and a busy event loop delays its requests), and only receives results, a chunk at a time.
   * Workers only run from the built package (they need `parse-worker.js`); under a TypeScript test
   * runner parsing stays in-thread.
   * @default `chooseWorkerCount`: for 2,000 files or more, one worker per idle core (at least one,
   * even on a busy machine, at most 4), or one per other core when `callerIdle`; 0 below (the
   * CLI passes `TMSYNC_PARSE_WORKERS`)
   */
  workers?: number;
  /**
   * The calling thread does nothing else while the files load (`validate`, which reads no
   * service): it parses chunks too, beside the workers, and every core parses whatever the load
   * average, as nothing of this process waits for a free event loop. Without it, only idle cores
   * do (`plan` reads the service meanwhile).
   */
  callerIdle?: boolean;
  /**
   * Old-generation heap of each worker, in MB (tests use a tiny one). When a worker runs out of it,
   * the chunks it took and did not deliver are parsed again by a worker without the cap.
   * @default WORKER_HEAP_MB
   */
  workerHeapMb?: number;
  /**
   * Called with each result as it arrives (in the order chunks come in), before `parseFiles`
   * resolves: the caller makes it what it keeps while its objects are young, so that what only the
   * result held dies in a young-generation collection instead of being promoted to wait for a full
   * one (issue 15; the heap it saves: docs/performance.md, "Loading").
   */
  receive?: (job: ParseJob, result: ParseResult) => void;
}

/** Below this, starting a worker (loading yaml and zod again) costs more than it saves. */
const WORKER_THRESHOLD = 2000;
/**
 * Files per chunk: each thread that parses takes the next chunk of the jobs (a shared counter) until
 * none are left, so a slow thread (a busy core) takes fewer; a worker sends each chunk's results as
 * one message, small enough that receiving it never stalls this thread.
 */
const RESULT_BATCH = 100;
const WORKER_URL = new URL('./parse-worker.js', import.meta.url);
/**
 * A worker's old generation, capped (issue 15): a worker holds little (its share of the paths and
 * one batch of results), but with V8's default limit its heap filled with garbage on a large
 * repository before being collected, all of it in the process's peak memory. With the cap it
 * collects sooner; the rare worker that needs more (a huge file) is run again without it.
 */
const WORKER_HEAP_MB = 64;
/** A worker's young generation, in MB. */
const WORKER_YOUNG_MB = 8;

/**
 * Decodes a file's bytes and parses it. A file that is not valid UTF-8 (nor UTF-16 with a
 * byte-order mark) is one `invalid_encoding` problem at its first bad byte and is not parsed.
 */
export function parseBytes(job: ParseJob, bytes: Uint8Array, read: ReadOptions = {}): ParseResult {
  const r = decodeText(bytes);
  if ('problem' in r) {
    const hash = createHash('sha256').update(bytes).digest('hex');
    const { line, col, message, hint } = r.problem;
    return { rel: job.rel, hash, problems: [{ file: job.rel, line, col, code: 'invalid_encoding', message, hint }] };
  }
  return parseText(job, r.decoded.text, read);
}

function parseText(job: ParseJob, text: string, read: ReadOptions = {}): ParseResult {
  const hash = sha256Of('sha256', text, 'hex');
  // the format claiming the file's name parses it (`format.ts`)
  const r = parseItemFile(job.kind, job.rel, text, job.kind === 'step_group' ? job.key : '', read);
  // the parsed item is kept for the whole run: its Latin-1 texts one byte per character
  const parsed = r.parsed && isWide(text) ? narrowTexts(r.parsed) : r.parsed;
  return { rel: job.rel, hash, problems: r.problems, ...(parsed ? { parsed } : {}) };
}

/**
 * Reads and parses in this thread. Reads are synchronous on purpose: for thousands of small
 * files a sync read is cheap, while each async read (open, fstat, read, close through the
 * thread pool) costs several times that in main-thread overhead alone, and parsing is CPU-bound
 * anyway (the three ways compared: docs/performance.md, "Loading").
 * The parallelism that pays is the worker threads of `parseFiles`.
 */
function parseFilesInThread(root: string, jobs: readonly ParseJob[], receive?: ParseFilesOptions['receive'], read: ReadOptions = {}): ParseResult[] {
  const results: ParseResult[] = [];
  for (let start = 0; start < jobs.length; start += DETACH_BATCH) {
    const some = jobs.slice(start, start + DETACH_BATCH).map((job) => parseBytes(job, readFileSync(join(root, job.rel)), read));
    for (const [k, r] of detach(some).entries()) {
      receive?.(jobs[start + k], r);
      results.push(r);
    }
  }
  return results;
}

/**
 * Results detached together: one clone for several costs less than one each, and few enough that a
 * young-generation collection seldom finds their texts and parser output still alive (what survives
 * one is promoted, and stays as garbage in the old generation until a full collection).
 */
const DETACH_BATCH = 10;

/**
 * A copy of results that shares nothing with the files' texts. The parser's strings are slices of
 * the text, and a kept slice keeps the whole text alive (V8 sliced strings): the largest holder of
 * a loaded repository. A worker's results are copies already (they cross
 * threads by structured clone); this gives the in-thread path the same footprint.
 */
function detach(results: ParseResult[]): ParseResult[] {
  return structuredClone(results);
}

/** At most this many parse workers. */
const MAX_WORKERS = 4;

interface WorkerCountInput {
  /** files to parse */
  files: number;
  /** `os.availableParallelism()` */
  cores: number;
  /** the one-minute load average */
  load: number;
  /** see `ParseFilesOptions.callerIdle` */
  callerIdle?: boolean;
  /** `ParseFilesOptions.workers` */
  requested?: number;
}

/**
 * How many worker threads parse (0: this thread parses everything), a pure function of its input.
 *
 * - Asked for (`workers`): that many.
 * - Under `WORKER_THRESHOLD` files: none; a worker's start-up (loading yaml and zod again) costs
 *   more than it saves.
 * - When the calling thread only waits (`callerIdle`, `validate`), it parses too: one worker per
 *   other core (at most `MAX_WORKERS`), whatever the load average, so every core parses and no
 *   thread more than there are cores is started (each worker costs its start-up and its own heap).
 *   On one core, none.
 * - Otherwise (`plan`, which reads the service meanwhile, must find this thread free) one worker per
 *   idle core (cores minus the load average rounded up), at most `MAX_WORKERS`, and at least one
 *   even on a saturated machine. One worker there finishes a little later than parsing in this
 *   thread would (its start-up and the copying of results; docs/performance.md, "Loading"), but the
 *   point is that this thread stays free: parsing here stopped `plan`'s
 *   requests for seconds (issue 15).
 */
export function chooseWorkerCount(input: WorkerCountInput): number {
  if (input.requested !== undefined) return Math.max(0, Math.min(input.requested, input.files));
  if (input.files < WORKER_THRESHOLD) return 0;
  if (input.callerIdle) return Math.max(0, Math.min(input.cores - 1, MAX_WORKERS));
  return Math.max(1, Math.min(input.cores - Math.ceil(input.load), MAX_WORKERS));
}

function workerCount(jobs: number, options: ParseFilesOptions): number {
  if (jobs === 0) return 0;
  const wanted = chooseWorkerCount({
    files: jobs,
    cores: availableParallelism(),
    load: loadavg()[0] ?? 0,
    ...(options.callerIdle !== undefined ? { callerIdle: options.callerIdle } : {}),
    ...(options.workers !== undefined ? { requested: options.workers } : {}),
  });
  if (wanted === 0) return 0;
  if (!existsSync(fileURLToPath(WORKER_URL))) return 0;
  return wanted;
}

/**
 * Sets every copy of the file's path a result holds: `rel`, and for a parsed case or step group its
 * `file` and each step's `source.file`. A worker blanks them (`''`) before posting and the receiver
 * puts its own copy of the path back: four to six fewer strings per file to copy across threads
 * and to allocate here, and the key order of every object stays as the parser made it.
 */
export function setResultPath(job: ParseJob, r: ParseResult, path: string): void {
  r.rel = path;
  if (job.kind === 'folder' || r.parsed === undefined) return;
  if (isParsedItems(r.parsed)) {
    for (const c of r.parsed.cases) c.item.file = path;
    for (const g of r.parsed.stepGroups) g.item.file = path;
    return;
  }
  const item = (r.parsed as Parsed<DesiredCase | DesiredStepGroup>).item;
  item.file = path;
  const steps = job.kind === 'case' ? (item as DesiredCase).fields.steps : (item as DesiredStepGroup).steps;
  if (Array.isArray(steps)) for (const step of steps) if (step.source) step.source.file = path;
}

/** Whether a case job's result is the several items of a file (`RepositoryFormat.parseItems`) rather than one case. */
export function isParsedItems(parsed: unknown): parsed is ParsedItems {
  return typeof parsed === 'object' && parsed !== null && 'cases' in parsed && 'stepGroups' in parsed;
}

/** What a worker is given: all the jobs, and the counter of chunks taken, shared by every thread that parses. */
export interface WorkerInput {
  root: string;
  jobs: readonly ParseJob[];
  /** jobs per chunk */
  chunk: number;
  /** `[next chunk]`, over a SharedArrayBuffer: each thread takes a chunk with `Atomics.add` */
  counter: Int32Array;
  read: ReadOptions;
}

/**
 * What a worker posts: the results of one chunk (in job order, their paths blanked:
 * `setResultPath`), then `done`, or an I/O error.
 */
export type WorkerMessage =
  | { chunk: number; results: ParseResult[] }
  | { done: true }
  | { error: { message: string; code?: string; path?: string; syscall?: string } };

/** Parsing shared by threads: the results of each chunk, by chunk number, as they come in. */
interface Shared extends WorkerInput {
  chunks: (ParseResult[] | undefined)[];
  receive: ParseFilesOptions['receive'];
}

function share(root: string, jobs: readonly ParseJob[], options: ParseFilesOptions): Shared {
  const chunks = Math.ceil(jobs.length / RESULT_BATCH);
  const read = readOptionsOf(options);
  return { root, jobs, chunk: RESULT_BATCH, counter: new Int32Array(new SharedArrayBuffer(4)), read, chunks: new Array<ParseResult[] | undefined>(chunks).fill(undefined), receive: options.receive };
}

/** What every parse is told of how to read files (plain data: it goes to the worker threads). */
function readOptionsOf(options: ParseFilesOptions): ReadOptions {
  return { ...(options.exactYaml ? { exactYaml: true } : {}), ...(options.gherkin ? { gherkin: options.gherkin } : {}) };
}

/** Takes the next chunk, or undefined when none is left. */
export function takeChunk(counter: Int32Array, chunk: number, jobs: number): { index: number; start: number; end: number } | undefined {
  const index = Atomics.add(counter, 0, 1);
  const start = index * chunk;
  return start < jobs ? { index, start, end: Math.min(start + chunk, jobs) } : undefined;
}

function runWorker(shared: Shared, heapMb: number | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const input: WorkerInput = { root: shared.root, jobs: shared.jobs, chunk: shared.chunk, counter: shared.counter, read: shared.read };
    const worker = new Worker(WORKER_URL, {
      workerData: input,
      // a small young generation: what survives a collection there is little (the chunk being
      // parsed), so a smaller one costs no more CPU (docs/performance.md, "Loading") and less memory
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB, ...(heapMb !== undefined ? { maxOldGenerationSizeMb: heapMb } : {}) },
    });
    let done = false;
    worker.on('message', (msg: WorkerMessage) => {
      if ('results' in msg) {
        const start = msg.chunk * shared.chunk;
        for (const [k, r] of msg.results.entries()) {
          const job = shared.jobs[start + k];
          setResultPath(job, r, job.rel);
          shared.receive?.(job, r);
        }
        shared.chunks[msg.chunk] = msg.results;
        return;
      }
      done = true;
      if ('done' in msg) resolve();
      else {
        // the other threads take no more chunks
        Atomics.store(shared.counter, 0, shared.chunks.length);
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

/** This thread's part: chunk after chunk, letting the workers' messages in between two. */
async function parseChunksInThread(shared: Shared): Promise<void> {
  for (;;) {
    const taken = takeChunk(shared.counter, shared.chunk, shared.jobs.length);
    if (!taken) return;
    try {
      shared.chunks[taken.index] = parseFilesInThread(shared.root, shared.jobs.slice(taken.start, taken.end), shared.receive, shared.read);
    } catch (err) {
      // the workers take no more chunks
      Atomics.store(shared.counter, 0, shared.chunks.length);
      throw err;
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Reads and parses files: in worker threads for large repositories (this thread then only
 * receives the results, or, when `callerIdle`, parses its share as well), else in this thread.
 * Results come back in the order of `jobs`. Throws only on I/O errors.
 */
export async function parseFiles(root: string, jobs: readonly ParseJob[], options: ParseFilesOptions = {}): Promise<ParseResult[]> {
  // a worker thread knows the built-in formats only: files of a format registered at run time are parsed here
  const workers = jobs.every((job) => formatOf(job.rel)?.builtIn === true) ? workerCount(jobs.length, options) : 0;
  if (workers === 0) return parseFilesInThread(root, jobs, options.receive, readOptionsOf(options));
  const shared = share(root, jobs, options);
  const heapMb = options.workerHeapMb ?? WORKER_HEAP_MB;
  const pending = Array.from({ length: workers }, () => runWorker(shared, heapMb));
  if (options.callerIdle) pending.push(parseChunksInThread(shared));
  const settled = await Promise.allSettled(pending);
  const failed = settled.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as NodeJS.ErrnoException);
  const other = failed.find((e) => e.code !== 'ERR_WORKER_OUT_OF_MEMORY');
  if (other) throw other;
  const missing = shared.chunks.flatMap((c, i) => (c === undefined ? [i] : []));
  if (missing.length > 0) {
    // a worker ran out of its capped heap: the chunks it took are parsed again without the cap
    const rest = share(
      root,
      missing.flatMap((i) => jobs.slice(i * shared.chunk, (i + 1) * shared.chunk)),
      options,
    );
    await runWorker(rest, undefined);
    // every chunk but the last of `jobs` is full, so chunk k of `rest` is missing chunk k
    for (const [k, i] of missing.entries()) shared.chunks[i] = rest.chunks[k];
  }
  const results = shared.chunks.flatMap((c) => c!);
  // `shared` outlives this call (a worker's listeners hold it until node lets the worker go):
  // without its results, which are the caller's from here (issue 15)
  shared.chunks.fill(undefined);
  return results;
}
