import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { parseBytes, type ParseJob, type ParseResult } from './parse-files.js';

/**
 * A worker thread of `parseFiles`: reads its share of the files and parses them. Synchronous
 * reads are the cheapest here, as nothing else runs on this thread.
 */
const { root, jobs } = workerData as { root: string; jobs: ParseJob[] };
try {
  const results: ParseResult[] = jobs.map((job) => parseBytes(job, readFileSync(join(root, job.rel))));
  parentPort!.postMessage({ results });
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  parentPort!.postMessage({ error: { message: e.message, code: e.code, path: e.path, syscall: e.syscall } });
}
