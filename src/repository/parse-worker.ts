import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { parseBytes, setResultPath, takeChunk, type ParseResult, type WorkerInput, type WorkerMessage } from './parse-files.js';

/**
 * A worker thread of `parseFiles`: takes chunks of the files (a counter shared with the other
 * threads that parse) until none are left, reads and parses each chunk and posts its results (so
 * receiving them never stalls the main thread, and they are not all held here until the end).
 * Synchronous reads are the cheapest here, as nothing else runs on this thread.
 */
const { root, jobs, chunk, counter, read } = workerData as WorkerInput;
const post = (msg: WorkerMessage) => parentPort!.postMessage(msg);
try {
  for (let taken = takeChunk(counter, chunk, jobs.length); taken; taken = takeChunk(counter, chunk, jobs.length)) {
    const results: ParseResult[] = [];
    for (let i = taken.start; i < taken.end; i++) {
      const job = jobs[i];
      const result = parseBytes(job, readFileSync(join(root, job.rel)), read);
      setResultPath(job, result, '');
      results.push(result);
    }
    post({ chunk: taken.index, results });
  }
  post({ done: true });
} catch (err) {
  const e = err as NodeJS.ErrnoException;
  post({ error: { message: e.message, code: e.code, path: e.path, syscall: e.syscall } });
}
