import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../../src/remote/clock.js';

/** What the scripted server does with one request. */
export type Reply =
  | { status?: number; json?: unknown; text?: string; headers?: Record<string, string>; delayMs?: number }
  | { reset: true; afterMs?: number };

export interface LoggedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** on the test's clock, when the request arrived */
  at: number;
  /** 1-based position in the log */
  n: number;
}

export interface ScriptedServer {
  url: string;
  log: LoggedRequest[];
  close(): Promise<void>;
}

/**
 * A node:http server on 127.0.0.1 port 0 that answers each request with what `handler` returns:
 * JSON, text, a delay (real milliseconds), or a dropped connection. Every request is logged with
 * its arrival time on the injected clock.
 */
export async function startScripted(
  handler: (req: LoggedRequest) => Reply | Promise<Reply>,
  clock: Clock = { now: () => Date.now(), sleep: async () => undefined },
): Promise<ScriptedServer> {
  const log: LoggedRequest[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const u = new URL(req.url ?? '/', 'http://x');
      const entry: LoggedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: u.pathname,
        query: u.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: clock.now(),
        n: log.length + 1,
      };
      log.push(entry);
      let reply: Reply;
      try {
        reply = await handler(entry);
      } catch (err) {
        reply = { status: 599, json: { message: String(err) } };
      }
      if ('reset' in reply) {
        setTimeout(() => req.socket.destroy(), reply.afterMs ?? 0);
        return;
      }
      const send = () => {
        if (res.destroyed) return;
        const headers: Record<string, string> = { ...(reply.headers ?? {}) };
        let body = '';
        if (reply.json !== undefined) {
          body = JSON.stringify(reply.json);
          headers['content-type'] = 'application/json';
        } else if (reply.text !== undefined) {
          body = reply.text;
        }
        res.writeHead(reply.status ?? 200, headers);
        res.end(body);
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A page in the document's form: `next` as a URL with `page` and the same `page_size`. */
export function pageOf<T>(key: string, items: T[], req: LoggedRequest, base: string, defaultSize = 20) {
  const size = Number(req.query.get('page_size') ?? defaultSize);
  const page = Number(req.query.get('page') ?? 1);
  const slice = items.slice((page - 1) * size, page * size);
  const more = page * size < items.length;
  return {
    message: '',
    data: { [key]: slice },
    page_info: {
      page_size: size,
      total_count: items.length,
      next: more ? `${base}${req.path}?page=${page + 1}&page_size=${size}` : '',
      prev: page > 1 ? `${base}${req.path}?page=${page - 1}&page_size=${size}` : '',
    },
  };
}
