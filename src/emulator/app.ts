import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { z } from 'zod';
import { endpoints, type Endpoint } from '../api/endpoints.js';
import { CASE_FIELDS } from '../fields.js';
import type { KeyRing } from './auth.js';
import type { DbContext } from './db/index.js';
import type { Faults } from './faults.js';
import { liveBody, liveError } from './dialect.js';
import { ATTACHMENT_LIMITS, FILTER_OPS, MULTIPART_LIMITS, invalid, multipartBoundary, multipartParts, zodProblems, type HandlerTable, type RegisteredHandler, type RouteContext, type RunCaseFile, type TextFilter, type Urls } from './http.js';
import type { Dialect, EmulatorOptions, ExecutionOptions } from './emulator-options.js';
import { loggablePath, type RequestLog, type RequestLogEntry } from './request-log.js';
import { iconSvg } from './routes/lookups.js';
import { ServiceError } from './service-error.js';
import { bodyText } from './body-text.js';
import { isUiPath, registerUi } from './ui/index.js';

/** Largest accepted body: 1 MiB. */
const BODY_LIMIT = 1024 * 1024;

interface AppDeps {
  db: DbContext;
  keys: KeyRing;
  faults: Faults;
  log: RequestLog;
  handlers: HandlerTable;
  now: () => number;
  runDurationMs: number;
  /** the execution interface's queue time and outcome */
  execution?: ExecutionOptions;
  /** origin used when a request has no Host header */
  fallbackOrigin: () => string;
  /** @default 'document' */
  dialect?: Dialect;
  /** largest page served; a larger page_size is served this many items */
  pageSizeCap?: number;
  /** see `EmulatorOptions.onRequest` */
  onRequest?: EmulatorOptions['onRequest'];
}

declare module 'fastify' {
  interface FastifyRequest {
    tmsStart: number;
    tmsFault?: RequestLogEntry['fault'];
    /** a write whose fault is deferred until after commit (`--fail-after-commit`) */
    tmsAfterCommit?: boolean;
    /** the file parts of a run-case update (`attachments_<case index>_<n>`), read with its `data` part */
    tmsFiles?: RunCaseFile[];
  }
}

const WRITE = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

function sendDialectError(reply: FastifyReply, e: ServiceError, dialect: Dialect = 'document'): FastifyReply {
  const shown = dialect === 'live' ? liveError(e) : e;
  return reply.code(shown.status).type('application/json; charset=utf-8').send(shown.body());
}

function urlsOf(req: FastifyRequest, deps: AppDeps): Urls {
  const origin = req.headers.host ? `http://${req.headers.host}` : deps.fallbackOrigin();
  return { origin, baseUrl: `${origin}/api/v1`, assetsUrl: `${origin}/assets` };
}

/** Drops the connection without an answer, and logs it (onResponse does not run for it). */
function destroy(req: FastifyRequest, reply: FastifyReply, deps: AppDeps, fault: RequestLogEntry['fault']): void {
  reply.hijack();
  req.raw.socket?.destroy();
  deps.log.add({
    time: new Date(deps.now()).toISOString(),
    method: req.method,
    path: loggablePath(req.url),
    status: 0,
    duration_ms: round(performance.now() - req.tmsStart),
    fault,
  });
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const dialect: Dialect = deps.dialect ?? 'document';
  const live = dialect === 'live';
  const sendError = (reply: FastifyReply, e: ServiceError) => sendDialectError(reply, e, dialect);
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    routerOptions: { maxParamLength: 1000 },
    forceCloseConnections: true,
    return503OnClosing: false,
    frameworkErrors: (error, _req, reply) => {
      // the message would echo the URL (and any secret in its query): keep it generic
      void sendError(reply, new ServiceError(400, `Bad request: the URL or headers could not be read (${(error as { code?: string }).code ?? 'invalid'})`));
    },
  });

  await app.register(multipart, { limits: { fileSize: BODY_LIMIT, fieldSize: BODY_LIMIT, ...MULTIPART_LIMITS } });

  registerBodyParsers(app);

  app.addHook('onRequest', requestGate(deps, live, sendError));

  // a multipart body without a boundary cannot be split into parts: the client's mistake, a 400
  app.addHook('preValidation', async (req) => {
    if (req.isMultipart() && multipartBoundary(req.headers['content-type']) === undefined) {
      throw new ServiceError(400, 'Bad request: a multipart/form-data body needs a boundary in its Content-Type (multipart/form-data; boundary=…)');
    }
  });

  app.addHook('onResponse', async (req, reply) => {
    if (isUiPath(req.url)) return;
    deps.log.add({
      time: new Date(deps.now()).toISOString(),
      method: req.method,
      path: loggablePath(req.url),
      status: reply.statusCode,
      duration_ms: round(performance.now() - req.tmsStart),
      ...(req.tmsFault ? { fault: req.tmsFault } : {}),
    });
  });

  registerErrorHandlers(app, live, sendError);

  app.get('/assets/icons/:file', async (req, reply) => {
    const file = (req.params as { file: string }).file;
    if (!/^[a-z0-9_-]+\.svg$/.test(file)) return sendError(reply, new ServiceError(404, 'Icon not found'));
    return reply.type('image/svg+xml').send(iconSvg(file));
  });

  await registerUi(app, { db: deps.db, keys: deps.keys, now: deps.now, runDurationMs: deps.runDurationMs });

  registerEndpoints(app, deps, dialect);
  return app;
}

/** SQLite's default limit of a memdb image (db/connection.ts), which `--memory` opens. */
const MEMORY_LIMIT_TEXT = '1 GiB';

/** Without --rate-limit, the live dialect's x-tms-api-* headers describe this budget (never spent). */
const NOMINAL_LIVE_LIMIT = 1000;

/**
 * The query, checked: `<field>__<OP>` filters on the endpoint's text fields are taken apart, the
 * rest validated by the endpoint's schema. An unknown parameter, field or operator is a 422 naming
 * it in the document dialect and ignored in the live one; so is `cursor`, which only the live
 * dialect reads.
 */
function parseQuery(e: Endpoint, query: unknown, dialect: Dialect): { query: unknown; filters: TextFilter[] } {
  const raw = { ...((query ?? {}) as Record<string, unknown>) };
  const known = new Set(e.query instanceof z.ZodObject ? Object.keys(e.query.shape) : []);
  if (dialect === 'live') known.add('cursor');
  const filters: TextFilter[] = [];
  const problems: { field: string; message: string }[] = [];
  const filterable = e.textFilters ?? [];
  for (const [k, v] of Object.entries(raw)) {
    const m = /^(.+)__([A-Za-z]+)$/.exec(k);
    if (!m) {
      if (known.has(k)) continue;
      if (dialect === 'document') problems.push({ field: k, message: unknownParameter(known, filterable) });
      delete raw[k];
      continue;
    }
    delete raw[k];
    const [, field, opText] = m;
    const op = opText.toUpperCase() as TextFilter['op'];
    const value = Array.isArray(v) ? v.map(String).join(',') : String(v);
    if (!filterable.includes(field)) {
      if (dialect === 'document') problems.push({ field: k, message: filterable.length ? `unknown filter field ${field}; filter on ${filterable.join(', ')}` : 'this endpoint takes no filters' });
      continue;
    }
    if (!FILTER_OPS.includes(op)) {
      if (dialect === 'document') problems.push({ field: k, message: `unknown filter operator ${opText}; use ${FILTER_OPS.join(', ')}` });
      continue;
    }
    filters.push({ field, op, value });
  }
  if (problems.length) throw invalid(problems, 'query');
  if (!e.query) return { query: raw, filters };
  const r = e.query.safeParse(raw);
  if (!r.success) throw invalid(zodProblems(r.error), 'query');
  // the live cursor is no part of the document's query schema
  const cursor = dialect === 'live' && typeof raw.cursor === 'string' ? { cursor: raw.cursor } : {};
  return { query: { ...(r.data as object), ...cursor }, filters };
}

/** Fields only the emulator's document dialect answers with; the live dialect refuses them in a body. */
const LIVE_UNKNOWN_FIELDS = ['execution_id', 'web_url'];

/** `unknown query parameter; this endpoint takes page_size, search and <field>__<OP> filters on title, …` */
function unknownParameter(known: Set<string>, filterable: readonly string[]): string {
  const takes = [...known, ...(filterable.length ? [`<field>__<OP> filters on ${filterable.join(', ')}`] : [])];
  if (takes.length === 0) return 'unknown query parameter; this endpoint takes none';
  const list = takes.length === 1 ? takes[0] : `${takes.slice(0, -1).join(', ')} and ${takes[takes.length - 1]}`;
  return `unknown query parameter; this endpoint takes ${list}`;
}

async function parseBody(e: Endpoint, req: FastifyRequest, dialect: Dialect): Promise<unknown> {
  if (!e.body) return req.body;
  let raw: unknown = req.body;
  if (e.multipart && dialect === 'live' && e.name === 'updateRunCases' && !req.isMultipart()) {
    // the live service takes run-case results only as multipart/form-data
    throw new ServiceError(415, 'Unsupported Media Type: send multipart/form-data with the JSON in a part named "data"');
  }
  if (e.multipart && req.isMultipart()) raw = await multipartData(req, e.name === 'updateRunCases');
  if (dialect === 'live' && raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const sent = LIVE_UNKNOWN_FIELDS.filter((k) => Object.hasOwn(raw, k));
    // a client that GETs, merges and PUTs would send the emulator's extensions back: live is not known to take them
    if (sent.length) throw invalid(sent.map((k) => ({ field: k, message: 'not a field of the live service (an emulator extension of the document dialect); send only the fields being changed' })));
  }
  if (dialect === 'live' && e.name === 'createTestCase') missingIds(raw);
  const r = e.body.safeParse(raw);
  if (!r.success) throw invalid(zodProblems(r.error));
  return r.data;
}

/** The ids a live test case create cannot do without (the notes: "400 otherwise"): its folder and the required lookups and user of the table. */
const CASE_CREATE_IDS = [...CASE_FIELDS.filter((f) => f.required && (f.kind === 'lookup' || f.kind === 'user')).map((f) => f.wire), 'folder_id'];

/** The live answer to a case create without one of its ids, word for word: 400 `Invalid ID format: `. */
function missingIds(raw: unknown): void {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return;
  const body = raw as Record<string, unknown>;
  if (CASE_CREATE_IDS.some((k) => body[k] === undefined || body[k] === null || body[k] === '')) {
    throw new ServiceError(400, 'Invalid ID format: ', 'Invalid ID format: ');
  }
}

/**
 * The JSON held in the `data` part of a multipart body (the live run-case update needs this). With
 * `files` (the run-case update), its file parts `attachments_<case index>_<n>` are read too, within
 * {@link ATTACHMENT_LIMITS}, and kept on the request for the handler; other parts are read past.
 */
async function multipartData(req: FastifyRequest, files: boolean): Promise<unknown> {
  let text: string | undefined;
  // the files of a run-case update have their own limits; its other parts keep the usual count
  const limits = files
    ? { limits: { fileSize: ATTACHMENT_LIMITS.fileBytes, files: ATTACHMENT_LIMITS.files, fields: MULTIPART_LIMITS.parts, parts: ATTACHMENT_LIMITS.files + MULTIPART_LIMITS.parts } }
    : undefined;
  let total = 0;
  let current = '';
  try {
    for await (const part of multipartParts(req, limits)) {
      current = part.fieldname;
      if (part.fieldname !== 'data') {
        const m = files ? ATTACHMENT_PART.exec(part.fieldname) : null;
        if (part.type !== 'file') continue;
        const body = await part.toBuffer();
        if (m === null) continue;
        total += body.length;
        if (total > ATTACHMENT_LIMITS.totalBytes) throw new ServiceError(413, `Request body too large: the attachments of one update may hold at most ${ATTACHMENT_LIMITS.totalBytes} bytes (100 MiB)`);
        (req.tmsFiles ??= []).push({ part: part.fieldname, caseIndex: Number(m[1]), fileName: part.filename || part.fieldname, mediaType: part.mimetype || 'application/octet-stream', body });
        continue;
      }
      if (part.type === 'file') text = (await part.toBuffer()).toString('utf8');
      else {
        if (part.valueTruncated) throw new ServiceError(413, `Request body too large: the limit is ${BODY_LIMIT} bytes (1 MiB)`);
        text = String(part.value);
      }
    }
  } catch (err) {
    if (files && (err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') {
      throw new ServiceError(413, `Request body too large: the file part "${current}" is larger than ${ATTACHMENT_LIMITS.fileBytes} bytes (10 MiB), the limit of one attachment`);
    }
    throw err;
  }
  if (text === undefined) throw new ServiceError(422, 'Invalid request body: (body): multipart body needs a part named "data" holding JSON', [{ field: 'data', message: 'missing' }]);
  try {
    return JSON.parse(text);
  } catch {
    throw new ServiceError(400, 'Malformed JSON in the multipart part "data"');
  }
}

/** `attachments_<case index>_<n>`: a file of the run case at that index of `test_run_cases`. */
const ATTACHMENT_PART = /^attachments_(\d+)_(\d+)$/;

type SendError = (reply: FastifyReply, e: ServiceError) => FastifyReply;

/**
 * JSON bodies: an empty body is "no body" (so a POST without one is a 422, not a 400); anything
 * unparsable is a 400. Other content types are tried as JSON too, as lenient services do. The
 * bytes are decoded in the declared charset, strictly (body-text.ts).
 */
function registerBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  const parseJson = (req: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    let text: string;
    try {
      text = typeof body === 'string' ? body : bodyText(body, req.headers['content-type']);
    } catch (err) {
      return done(err as Error);
    }
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ServiceError(400, 'Malformed JSON in the request body'));
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'buffer' }, parseJson);
}

/** Before each API request: the key, the test's hook, the rate limit, latency and injected faults. */
function requestGate(deps: AppDeps, live: boolean, sendError: SendError) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    req.tmsStart = performance.now();
    // the web UI checks its own cookie, and is no part of the API: no faults, no request log
    if (isUiPath(req.url)) return;
    // the live service names every answer (worth quoting in error reports)
    if (live) reply.header('x-request-id', randomUUID());
    if (req.url.startsWith('/assets/')) return;
    const key = deps.keys.check(req.headers.authorization);
    if (!key) {
      reply.header('www-authenticate', 'Bearer');
      return sendError(reply, new ServiceError(401, 'Unauthorized: send a valid API key as "Authorization: Bearer <key>"'));
    }
    // a test's scripted hook: what another user does while a client runs, before this request is served
    if (deps.onRequest) await deps.onRequest({ method: req.method, path: req.url.split('?')[0] });
    const rate = deps.faults.rate(key);
    if (!rate && live) {
      // always sent live; without --rate-limit there is no budget to count: a nominal one, reset unknown
      reply.headers({ 'x-tms-api-limit': String(NOMINAL_LIVE_LIMIT), 'x-tms-api-remaining': String(NOMINAL_LIVE_LIMIT), 'x-tms-api-reset': '-1' });
    }
    if (rate) {
      // live counts the budget but does not say when it frees up: a negative reset, "unknown"
      reply.headers(live ? { ...rate.headers, 'x-tms-api-reset': '-1' } : rate.headers);
      if (!rate.allowed) {
        req.tmsFault = 'rate_limit';
        if (deps.faults.options.rateLimitStyle === 'live') {
          return reply.code(500).type('application/json; charset=utf-8').send({ message: 'rate limit exceeded' });
        }
        reply.header('retry-after', String(rate.retryAfter));
        return sendError(reply, new ServiceError(429, `Too many requests: the limit is ${deps.faults.options.rateLimit} per second`));
      }
    }
    const latency = deps.faults.options.latencyMs;
    if (latency > 0) await sleep(latency);
    const roll = deps.faults.roll();
    if (roll.kind === 'none') return;
    if (deps.faults.options.failAfterCommit && WRITE.has(req.method)) {
      req.tmsAfterCommit = true;
      return;
    }
    if (roll.kind === 'reset') return destroy(req, reply, deps, 'reset');
    req.tmsFault = 'fail';
    return sendError(reply, new ServiceError(roll.status, roll.status === 503 ? 'Service unavailable (injected fault)' : 'Internal server error (injected fault)'));
  };
}

/** Errors and unknown routes, in the dialect's shape. */
function registerErrorHandlers(app: FastifyInstance, live: boolean, sendError: SendError): void {
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, _req, reply) => {
    if (err instanceof ServiceError) return sendError(reply, err);
    const status = err.statusCode;
    if (status === 413 || err.code === 'FST_REQ_FILE_TOO_LARGE') {
      return sendError(reply, new ServiceError(413, `Request body too large: the limit is ${BODY_LIMIT} bytes (1 MiB)`));
    }
    if (status === 415) return sendError(reply, new ServiceError(415, 'Unsupported content type: send application/json'));
    if (err.code === 'SQLITE_FULL') {
      // nothing was written (the transaction rolled back); --memory holds up to SQLite's memdb limit
      return sendError(reply, new ServiceError(507, `Insufficient storage: the emulator's database is full (${MEMORY_LIMIT_TEXT} with --memory; otherwise its disk is): nothing was written; serve with --db FILE on a disk with room`));
    }
    if (status !== undefined && status >= 400 && status < 500) {
      return sendError(reply, new ServiceError(status, `Bad request: ${err.message}`));
    }
    return sendError(reply, new ServiceError(500, 'Internal server error'));
  });

  app.setNotFoundHandler((req, reply) => {
    if (live) return reply.code(404).type('application/json; charset=utf-8').send({ code: 404, message: 'Not Found' });
    const path = req.url.split('?')[0];
    return sendError(reply, new ServiceError(404, `Route not found: ${req.method} ${path}`));
  });

}

/** One route per entry of the endpoint table, served by the emulator's handler of that name. */
function registerEndpoints(app: FastifyInstance, deps: AppDeps, dialect: Dialect): void {
  const live = dialect === 'live';
  for (const e of endpoints) {
    const handler: RegisteredHandler = deps.handlers[e.name];
    if (!handler) throw new Error(`no emulator handler for endpoint ${e.name}`);
    app.route({
      method: e.method,
      url: e.iface === 'management' ? `/api/v1${e.path}` : e.path,
      handler: async (req, reply) => {
        const { query, filters } = parseQuery(e, req.query, dialect);
        const c: RouteContext = {
          params: req.params as Record<string, string>,
          query,
          filters,
          dialect,
          pageSizeCap: deps.pageSizeCap,
          body: await parseBody(e, req, dialect),
          db: deps.db,
          urls: urlsOf(req, deps),
          request: req,
          now: deps.now,
          runDurationMs: deps.runDurationMs,
          execution: deps.execution,
        };
        const out = await handler(c);
        if (out.done) reply.raw.once('close', out.done);
        if (req.tmsAfterCommit) {
          // the ambiguous failure: the change is stored, the client never hears about it
          destroy(req, reply, deps, 'reset_after_commit');
          return reply;
        }
        reply.code(out.status ?? e.status);
        if (out.contentType) reply.type(out.contentType);
        const json = out.body !== null && typeof out.body === 'object' && !Buffer.isBuffer(out.body);
        return reply.send(live && json ? liveBody(e.name, out.body, deps.db) : out.body);
      },
    });
  }
}
