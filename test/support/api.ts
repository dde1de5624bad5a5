import type { RunningEmulator } from '../../src/emulator/index.js';

/** The API key the emulator helpers start with. */
export const KEY = 'test-key';

/** One answer of {@link api}: the status, the headers, the body parsed as JSON (else the text). */
export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

type RawBody = NonNullable<RequestInit['body']>;

/** A tiny client over global fetch for conformance tests: JSON in, JSON (or text) out, any status. */
export function api(emu: Pick<RunningEmulator, 'baseUrl' | 'appUrl'>, key: string | null = KEY) {
  const call = async (method: string, path: string, body?: unknown, init: { headers?: Record<string, string>; raw?: RawBody; root?: 'app' } = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...init.headers };
    let payload: RawBody | undefined = init.raw;
    if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const url = path.startsWith('http') ? path : `${init.root === 'app' ? emu.appUrl : emu.baseUrl}${path}`;
    const res = await fetch(url, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  };
  return {
    call,
    get: (p: string, init?: Parameters<typeof call>[3]) => call('GET', p, undefined, init),
    post: (p: string, b?: unknown, init?: Parameters<typeof call>[3]) => call('POST', p, b, init),
    put: (p: string, b?: unknown, init?: Parameters<typeof call>[3]) => call('PUT', p, b, init),
    del: (p: string, init?: Parameters<typeof call>[3]) => call('DELETE', p, undefined, init),
  };
}
export type Api = ReturnType<typeof api>;

/**
 * What another user does in the web UI, as one function: `(method, path, body?)` against the API
 * with the key, resolving to the JSON body (`{ data: {} }` for a 204) and throwing on any status
 * that is not 2xx, so a test's setup cannot fail unnoticed.
 */
export function serviceUser(baseUrl: string, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ data: Record<string, any> }> => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? { data: {} } : ((await res.json()) as { data: Record<string, any> });
  };
}
