import { createWriteStream, type WriteStream } from 'node:fs';

/** One line of the request log. Never holds the Authorization header or any key. */
export interface RequestLogEntry {
  /** ISO 8601 time the request arrived (the emulator's clock) */
  time: string;
  method: string;
  /** path and query, with any key-, token- or secret-like query parameter removed */
  path: string;
  /** 0 when the connection was dropped on purpose (a reset fault) */
  status: number;
  duration_ms: number;
  /** the fault that hit this request, if any */
  fault?: 'reset' | 'fail' | 'rate_limit' | 'reset_after_commit';
}

const SECRET_PARAM = /key|token|secret|auth|password/i;

/** Removes query parameters that look like secrets. */
export function loggablePath(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const k of [...params.keys()]) if (SECRET_PARAM.test(k)) params.delete(k);
  const rest = params.toString();
  return rest ? `${url.slice(0, q)}?${rest}` : url.slice(0, q);
}

/** Keeps the most recent entries in memory (bounded) and appends every entry to `--log FILE`. */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private readonly stream?: WriteStream;

  constructor(
    file: string | undefined,
    private readonly max = 100_000,
  ) {
    if (file) this.stream = createWriteStream(file, { flags: 'a' });
  }

  add(e: RequestLogEntry): void {
    this.entries.push(e);
    if (this.entries.length > this.max) this.entries = this.entries.slice(-Math.floor(this.max / 2));
    this.stream?.write(`${JSON.stringify(e)}\n`);
  }

  snapshot(): RequestLogEntry[] {
    return this.entries.map((e) => ({ ...e }));
  }

  clear(): void {
    this.entries = [];
  }

  async close(): Promise<void> {
    const s = this.stream;
    if (s) await new Promise<void>((resolve) => s.end(resolve));
  }
}
