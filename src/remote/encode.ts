import { FormData } from 'undici';
import { fillPath, type Endpoint } from '../api/index.js';
import { VERSION } from '../version.js';
import type { Query } from './paginate.js';
import type { ClientSettings } from './settings.js';

/** Request encoding: where a call goes, with which headers and body. */

const SECRET_PARAM = /key|token|secret|password|auth/i;

function queryString(query: Query | undefined, redact: boolean): string {
  if (!query) return '';
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined) continue;
    sp.append(k, redact && SECRET_PARAM.test(k) ? '***' : String(v));
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

interface Target {
  url: string;
  /** the path with its query, secret-looking parameters redacted: what events and errors show */
  logPath: string;
}

export function targetOf(ep: Endpoint, params: Record<string, string | number>, query: Query | undefined, s: ClientSettings): Target {
  const path = fillPath(ep.path, params);
  const root = ep.iface === 'execution' ? s.appUrl : s.baseUrl;
  return { url: `${root}${path}${queryString(query, false)}`, logPath: `${path}${queryString(query, true)}` };
}

export function headersFor(ep: Endpoint, s: ClientSettings, accept: 'json' | 'xml', contentType: string | undefined): Record<string, string> {
  return {
    authorization: `Bearer ${ep.iface === 'execution' ? s.appApiKey : s.apiKey}`,
    accept: accept === 'xml' ? 'application/xml' : 'application/json',
    'user-agent': `tmsync/${VERSION}`,
    ...(contentType ? { 'content-type': contentType } : {}),
  };
}

/** The body of `importJunit`: the report, sent as the multipart file part `junit_xml`. */
export interface JunitUpload {
  junit_xml: string | Uint8Array<ArrayBuffer>;
  filename?: string;
}

function isJunitUpload(body: unknown): body is JunitUpload {
  if (typeof body !== 'object' || body === null || !('junit_xml' in body)) return false;
  return typeof body.junit_xml === 'string' || body.junit_xml instanceof Uint8Array;
}

/**
 * A file part of a run-case update (`attachments_<case index>_<n>`). `read` gives its bytes when
 * the request body is built, once per attempt: a retried update rebuilds the same parts, and only
 * the files of the batch in flight are held in memory. Undefined: the file could not be read then;
 * the part is left out.
 */
export interface RunCaseFilePart {
  part: string;
  fileName: string;
  mediaType: string;
  read(): Uint8Array | undefined;
}

/** What a run-case update may carry beside its rows: its cases' files, which make it multipart. */
export interface RunCaseFiles {
  files?: readonly RunCaseFilePart[];
}

/** The file parts a run-case update carries (none for a plain body). */
export function runCaseFileParts(body: unknown): readonly RunCaseFilePart[] {
  if (typeof body !== 'object' || body === null || !('files' in body) || !Array.isArray(body.files)) return [];
  return body.files as RunCaseFilePart[];
}

interface EncodedBody {
  body?: string | FormData;
  contentType?: string;
}

/** JSON; the JUnit upload and (when asked) run-case updates as multipart/form-data; a FormData as is. */
export function encodeBody(ep: Endpoint, body: unknown, runCasesMultipart: boolean): EncodedBody {
  if (body === undefined) return {};
  if (body instanceof FormData) return { body };
  if (ep.name === 'importJunit' && isJunitUpload(body)) {
    const form = new FormData();
    form.append('junit_xml', new Blob([body.junit_xml], { type: 'application/xml' }), body.filename ?? 'junit.xml');
    return { body: form };
  }
  if (ep.name === 'updateRunCases') {
    const files = runCaseFileParts(body);
    const rows = files.length > 0 || 'files' in (body as object) ? { ...(body as object), files: undefined } : body;
    // files travel as file parts beside `data`, whatever encoding plain updates use
    if (!runCasesMultipart && files.length === 0) return { body: JSON.stringify(rows), contentType: 'application/json' };
    const form = new FormData();
    form.append('data', JSON.stringify(rows));
    for (const f of files) {
      const bytes = f.read();
      if (bytes !== undefined) form.append(f.part, new Blob([bytes], { type: f.mediaType }), f.fileName);
    }
    return { body: form };
  }
  return { body: JSON.stringify(body), contentType: 'application/json' };
}
