import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { parseBytes, type ParseJob, type ParseResult, type WorkerMessage } from './parse-files.js';

/**
 * A worker thread of `parseFiles`: reads its share of the files and parses them, posting the
 * results in batches (so receiving them never stalls the main thread, and they are not all held
 * here until the end). Synchronous reads are the cheapest here, as nothing else runs on this thread.
 */
const { root, jobs, batch } = workerData as { root: string; jobs: ParseJob[]; batch: number };
const post = (msg: WorkerMessage) => parentPort!.postMessage(msg);
try {
  let results: ParseResult[] = [];
  for (const job of jobs) {
    results.push(parseBytes(job, readFileSync(join(root, job.rel))));
    if (results.length >= batch) {
      post({ results });
      results = [];
    }
  }
  if (results.length > 0) post({ results });
  post({ done: true });
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  post({ error: { message: e.message, code: e.code, path: e.path, syscall: e.syscall } });
}
