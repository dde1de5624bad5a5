import PQueue from 'p-queue';
import type { Lane } from './gate.js';

/**
 * Reads and writes wait in separate queues, so a burst of writes never holds up the reads a plan
 * needs (the rate gate then shares one budget between them fairly).
 */
export class Lanes {
  private readonly queues: Record<Lane, PQueue>;

  constructor(concurrency: number) {
    this.queues = { read: new PQueue({ concurrency }), write: new PQueue({ concurrency }) };
  }

  static of(method: string): Lane {
    return method === 'GET' ? 'read' : 'write';
  }

  /**
   * Runs `task` when its lane has room. The queue races the task against `signal` even while it
   * runs: only the full abort may cut a request in flight.
   */
  run<T>(lane: Lane, task: () => Promise<T>, o: { signal?: AbortSignal; priority: number }): Promise<T> {
    return this.queues[lane].add(task, o);
  }

  async onIdle(): Promise<void> {
    await Promise.all([this.queues.read.onIdle(), this.queues.write.onIdle()]);
  }
}
