import { createHash } from 'node:crypto';
import { existsSync, readFile } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Problem } from '../errors.js';
import { parseCaseFile, parseStepGroupFile } from './case-file.js';
import { parseFolderFile } from './folder-file.js';
import { mapLimit } from './walk.js';

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
   * @default min(cores - 1, 3) for 2,000 files or more, 0 below; env TMSYNC_PARSE_WORKERS overrides
   */
  workers?: number;
}

/** Files read at once: enough to hide disk latency, few enough to stay far from EMFILE. */
const READ_CONCURRENCY = 64;
/** Below this, starting a worker (loading yaml and zod again) costs more than it saves. */
const WORKER_THRESHOLD = 2000;
const WORKER_URL = new URL('./parse-worker.js', import.meta.url);

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
 * The callback `readFile`: for thousands of small files it costs half of what the FileHandle
 * based `fs/promises` version does (no handle object, fewer round trips to the thread pool).
 */
export function readText(file: string): Promise<string> {
  return new Promise((resolve, reject) => readFile(file, 'utf8', (err, text) => (err ? reject(err) : resolve(text))));
}

export function parseFilesInThread(root: string, jobs: readonly ParseJob[]): Promise<ParseResult[]> {
  return mapLimit(jobs, READ_CONCURRENCY, async (job) => parseText(job, await readText(join(root, job.rel))));
}

function workerCount(jobs: number, options: ParseFilesOptions): number {
  const env = process.env.TMSYNC_PARSE_WORKERS;
  const wanted =
    options.workers ??
    (env !== undefined && env !== '' && Number.isInteger(Number(env))
      ? Number(env)
      : jobs >= WORKER_THRESHOLD
        ? Math.min(availableParallelism() - 1, 3)
        : 0);
  if (wanted <= 0 || jobs < 2) return 0;
  if (!existsSync(fileURLToPath(WORKER_URL))) return 0;
  return Math.min(wanted, jobs - 1);
}

function runWorker(root: string, jobs: ParseJob[]): Promise<ParseResult[]> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, { workerData: { root, jobs } });
    let done = false;
    worker.once('message', (msg: { results?: ParseResult[]; error?: { message: string; code?: string } }) => {
      done = true;
      if (msg.results) resolve(msg.results);
      else reject(Object.assign(new Error(msg.error?.message ?? 'parse worker failed'), { code: msg.error?.code }));
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
  // contiguous chunks, one per thread; this thread takes the first while the workers start
  const size = Math.ceil(jobs.length / (workers + 1));
  const chunks: ParseJob[][] = [];
  for (let i = 0; i < jobs.length; i += size) chunks.push(jobs.slice(i, i + size));
  const [mine, ...theirs] = chunks;
  const results = await Promise.all([parseFilesInThread(root, mine), ...theirs.map((c) => runWorker(root, c))]);
  return results.flat();
}
