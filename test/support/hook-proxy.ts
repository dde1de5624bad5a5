import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One answer of the service on its way back to the client. */
export interface PassingAnswer {
  method: string;
  /** path without the query */
  path: string;
  query: URLSearchParams;
  status: number;
  body: Buffer;
}

export interface HookProxy {
  /** http://127.0.0.1:PORT/api/v1: give it to tmsync as base_url */
  baseUrl: string;
  /**
   * Called with each answer before the client gets it: whatever it does (a change made through
   * the service's API) is done before the client can send its next request, so a change "right
   * after page 1 was read" is made at exactly that point, with no timing involved.
   */
  onAnswer?: (a: PassingAnswer) => void | Promise<void>;
  close(): Promise<void>;
}

/** A reverse proxy on 127.0.0.1 port 0 in front of `target` (an emulator's origin, `http://HOST:PORT`). */
export async function startHookProxy(target: string): Promise<HookProxy> {
  const upstream = new URL(target);
  const proxy: HookProxy = { baseUrl: '', close: async () => undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      // plain answers, so that a hook reads the body as it is
      delete headers['accept-encoding'];
      const out = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c));
        answer.on('end', async () => {
          const u = new URL(req.url ?? '/', 'http://x');
          const all = Buffer.concat(body);
          try {
            await proxy.onAnswer?.({ method: req.method ?? '', path: u.pathname, query: u.searchParams, status: answer.statusCode ?? 0, body: all });
          } catch (err) {
            res.writeHead(599, { 'content-type': 'text/plain' });
            res.end(`hook failed: ${String(err)}`);
            return;
          }
          const h = { ...answer.headers };
          delete h['transfer-encoding'];
          h['content-length'] = String(all.length);
          res.writeHead(answer.statusCode ?? 502, h);
          res.end(all);
        });
      });
      out.on('error', () => res.destroy());
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  proxy.baseUrl = `http://127.0.0.1:${port}/api/v1`;
  proxy.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return proxy;
}
