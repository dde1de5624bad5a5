import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { EndpointName, ParamName, ParsedBodyOf, ParsedQueryOf } from '../api/endpoints.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../api/envelope.js';
import type { DbContext, Page, PageRequest, ProjectRow } from './db/index.js';
import type { Dialect, ExecutionOptions } from './emulator-options.js';
import { findProject } from './db/index.js';
import { ServiceError, invalidField, notFound, type FieldProblem } from './service-error.js';

/** Addresses as the client reached the emulator (taken from the Host header). */
export interface Urls {
  /** http://host:port */
  origin: string;
  /** origin + /api/v1 */
  baseUrl: string;
  /** origin + /assets */
  assetsUrl: string;
}

/**
 * What a route handler receives: validated params, query and body, the database, the addresses.
 * A handler of the table gets its endpoint's types ({@link EndpointContext}); shared helpers take
 * the plain form.
 */
export interface RouteContext<Q = unknown, B = unknown, P extends string = string> {
  params: Record<P, string>;
  query: Q;
  body: B;
  db: DbContext;
  urls: Urls;
  request: FastifyRequest;
  /** the emulator's clock in milliseconds */
  now: () => number;
  /** how long an execution-interface run takes, in ms */
  runDurationMs: number;
  /** the execution interface's queue time and chosen outcome (`--run-queue`, `--run-outcome`) */
  execution?: ExecutionOptions;
  /** which service the emulator answers as (docs/emulator.md, "Dialects") */
  dialect: Dialect;
  /** the `<field>__<OP>` filters of a list request, already checked against the list's text fields */
  filters: TextFilter[];
  /** largest page served (a larger page_size is served this many items); absent = refuse above 100 */
  pageSizeCap?: number;
}

/** `title__CONTAINS=abc`: one text filter of a list request. */
export interface TextFilter {
  field: string;
  op: 'EQ' | 'NEQ' | 'CONTAINS' | 'IN';
  value: string;
}

export const FILTER_OPS: readonly TextFilter['op'][] = ['EQ', 'NEQ', 'CONTAINS', 'IN'];

/** Whether a list item passes a filter. `name` falls back to `title` where items have no name (the notes' `name__NEQ` on plans). */
export function passes(item: Record<string, unknown>, f: TextFilter): boolean {
  const raw = item[f.field] ?? (f.field === 'name' ? item.title : undefined);
  const have = raw === null || raw === undefined ? '' : String(raw);
  switch (f.op) {
    case 'EQ':
      return have === f.value;
    case 'NEQ':
      return have !== f.value;
    case 'CONTAINS':
      return have.toLowerCase().includes(f.value.toLowerCase());
    case 'IN':
      return f.value.split(',').map((v) => v.trim()).includes(have);
  }
}

/** A handler's answer. JSON unless `contentType` says otherwise; 204 sends no body. */
export interface RouteReply {
  status?: number;
  body?: unknown;
  contentType?: string;
  /** called once the answer has been handed to the connection, or the connection closed (a body lent from a pool goes back) */
  done?: () => void;
}

/** The context of one endpoint: its `:param`s, its query and body as its schemas parsed them. */
export type EndpointContext<N extends EndpointName> = RouteContext<ParsedQueryOf<N>, ParsedBodyOf<N>, ParamName<N>>;

export type Handler<N extends EndpointName> = (c: EndpointContext<N>) => RouteReply | Promise<RouteReply>;

/** A handler for every endpoint of the table, each typed by its endpoint. */
export type HandlerTable = { [N in EndpointName]: Handler<N> };

/**
 * How the app calls whichever handler a route has: with the context that route's schemas parsed.
 * That pairing is made at run time (one route per endpoint), so the call is checked loosely (a
 * method's parameters are compared both ways).
 */
export type RegisteredHandler = { call(c: RouteContext): RouteReply | Promise<RouteReply> }['call'];

/** Zod issues as `errors.details` entries naming the field path. */
export function zodProblems(error: z.ZodError, prefix = ''): FieldProblem[] {
  return error.issues.map((i) => ({
    field: [prefix, ...i.path.map(String)].filter(Boolean).join('.') || '(body)',
    message: i.message,
  }));
}

export function invalid(problems: FieldProblem[], what = 'request body'): ServiceError {
  const first = problems[0];
  const summary = first ? `${first.field}: ${first.message}` : 'invalid';
  // a body with thousands of bad entries would otherwise get an answer larger than itself
  return new ServiceError(422, `Invalid ${what}: ${summary}`, problems.slice(0, 100));
}

type PageSpec = PageRequest & { page: number; size: number };

/**
 * Validates `page_size` (1..100, default 20; above `pageSizeCap` served that many) and `page` (from
 * 1). The live dialect pages by `cursor` (from `page_info.next`/`prev`) instead of `page`: the
 * items after (or before) the sort key the cursor holds.
 */
export function pageRequest(c: RouteContext): PageSpec {
  const query = c.query as { page_size?: number; page?: number; cursor?: string };
  let size = query.page_size ?? PAGE_SIZE_DEFAULT;
  if (c.pageSizeCap !== undefined && size > c.pageSizeCap) size = c.pageSizeCap;
  if (size < 1 || size > PAGE_SIZE_MAX) throw invalidField('page_size', `must be between 1 and ${PAGE_SIZE_MAX}`);
  if (c.dialect === 'live') {
    const cursor = query.cursor ? decodeCursor(query.cursor) : undefined;
    const at = cursor === undefined ? {} : cursor.direction === 'ASC' ? { after: cursor.key } : { before: cursor.key };
    return { page: 1, size, limit: size, offset: 0, ...at };
  }
  const page = query.page ?? 1;
  if (page < 1) throw invalidField('page', 'must be 1 or more');
  return { page, size, limit: size, offset: (page - 1) * size };
}

/**
 * The live dialect's cursor: base64 of `[{"field":"<table>.tsid","value":"<ULID>","direction":"ASC"}]`,
 * the shape the live service sends. As there, the value is the sort key of an item, not a position:
 * `next` holds the page's last item's and asks for the items after it (`ASC`), `prev` the first
 * item's and asks for those before it (`DESC`), so an item deleted or created ahead of a cursor
 * shifts nothing past it, and a cursor whose item was deleted still goes on from its place. The
 * key (the item's `seq`) is written as a ULID is: 26 characters of Crockford's base 32.
 */
function encodeCursor(c: RouteContext, key: number, direction: 'ASC' | 'DESC'): string {
  const table = c.request.routeOptions.url?.split('/').pop() ?? 'items';
  let value = '';
  for (let n = key; n > 0; n = Math.floor(n / 32)) value = CROCKFORD[n % 32] + value;
  return Buffer.from(JSON.stringify([{ field: `${table}.tsid`, value: value.padStart(26, '0'), direction }])).toString('base64');
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function decodeCursor(cursor: string): { key: number; direction: 'ASC' | 'DESC' } {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64').toString('utf8')) as { value?: unknown; direction?: unknown }[];
    const { value, direction } = v[0] ?? {};
    if (typeof value === 'string' && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(value) && (direction === 'ASC' || direction === 'DESC')) {
      let key = 0;
      for (const ch of value) key = key * 32 + CROCKFORD.indexOf(ch);
      if (Number.isSafeInteger(key)) return { key, direction };
    }
  } catch {
    // fall through
  }
  throw invalidField('cursor', 'not a cursor this service sent; follow page_info.next as given');
}

/**
 * `page_info` for a page: `next`/`prev` repeat the request's query (filters included) with the same
 * `page_size` and the neighbouring `page`; empty strings when there is no such page. In the live
 * dialect they are cursors at the page's last and first items (`page`: their keys, and whether the
 * list goes on past them), null when it does not.
 */
export function pageInfo(c: RouteContext, p: PageSpec, total: number, page?: Pick<Page<unknown>, 'keys' | 'more' | 'earlier'>) {
  if (c.dialect === 'live') {
    const keys = page?.keys ?? [];
    return {
      page_size: p.size,
      total_count: total,
      next: page?.more && keys.length > 0 ? encodeCursor(c, keys[keys.length - 1], 'ASC') : null,
      prev: page?.earlier && keys.length > 0 ? encodeCursor(c, keys[0], 'DESC') : null,
    };
  }
  const url = new URL(c.request.url, c.urls.origin);
  // the links differ only in their last parameter, `page`: the rest is built once
  const u = new URL(url.pathname, c.urls.origin);
  for (const [k, v] of url.searchParams) if (k !== 'page' && k !== 'page_size') u.searchParams.append(k, v);
  u.searchParams.set('page_size', String(p.size));
  const head = `${u.toString()}&page=`;
  const link = (n: number) => `${head}${n}`;
  const lastPage = Math.max(1, Math.ceil(total / p.size));
  return {
    page_size: p.size,
    total_count: total,
    next: p.page < lastPage ? link(p.page + 1) : '',
    prev: p.page > 1 ? link(Math.min(p.page - 1, lastPage)) : '',
  };
}

/** `{message, data: {key: items}, page_info}` */
function paged(c: RouteContext, key: string, p: PageSpec, items: unknown[], total: number, page?: Pick<Page<unknown>, 'keys' | 'more' | 'earlier'>): RouteReply {
  return { body: { message: '', data: { [key]: items }, page_info: pageInfo(c, p, total, page) } };
}

/**
 * A list answer: one page of `fetch`, as `wire` shapes it. With `__` filters, the whole list is
 * read, filtered on the wire fields and then paged (totals count the filtered items).
 */
export function listPage<T>(c: RouteContext, key: string, fetch: (page: PageRequest) => Page<T>, wire: (row: T) => Record<string, unknown>): RouteReply {
  const p = pageRequest(c);
  if (c.filters.length === 0) {
    const page = fetch(p);
    return paged(c, key, p, page.items.map(wire), page.total, page);
  }
  const whole = fetch({ limit: -1, offset: 0 });
  const kept = whole.items.map((row, i) => ({ item: wire(row), key: whole.keys?.[i] ?? i })).filter(({ item }) => c.filters.every((f) => passes(item, f)));
  // by key as the page is asked (a live cursor), else by position
  let start = p.offset;
  let end = p.offset + p.limit;
  if (p.after !== undefined) {
    start = kept.findIndex((x) => x.key > p.after!);
    if (start < 0) start = kept.length;
    end = start + p.limit;
  } else if (p.before !== undefined) {
    end = kept.findIndex((x) => x.key >= p.before!);
    if (end < 0) end = kept.length;
    start = Math.max(0, end - p.limit);
  }
  const slice = kept.slice(start, end);
  return paged(c, key, p, slice.map((x) => x.item), kept.length, { keys: slice.map((x) => x.key), more: end < kept.length, earlier: start > 0 });
}

export function ok(key: string, item: unknown, status = 200, message = ''): RouteReply {
  return { status, body: { message, data: { [key]: item } } };
}

export function projectOf(c: RouteContext): ProjectRow {
  // the prefix in place of the id is the document dialect's convenience; the live service's ids are uuids
  if (c.dialect === 'live') requireUuid(c.params.project_id);
  const p = findProject(c.db, c.params.project_id);
  if (!p) throw notFound('Project', c.params.project_id);
  return p;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The live dialect's answer to an id that is no uuid where the live service wants one: 400
 * `Invalid ID format: <value>` (the notes saw `Invalid ID format: ` for a missing lookup id).
 */
function requireUuid(value: string | null | undefined): void {
  if (typeof value === 'string' && UUID.test(value)) return;
  const text = `Invalid ID format: ${value ?? ''}`;
  throw new ServiceError(400, text, text);
}

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** The boundary parameter of a multipart Content-Type, or undefined when it has none (or an empty one). */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const m = /;\s*boundary\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '');
  const value = m?.[1] ?? m?.[2];
  return value === undefined || value === '' ? undefined : value;
}

/** How many parts (and of them files) a multipart body may have. */
export const MULTIPART_LIMITS = { parts: 100, files: 10 } as const;

/**
 * The files a run-case update may carry (file parts `attachments_<case index>_<n>`): each at most
 * `fileBytes`, together at most `totalBytes`, at most `files` of them. A file over a limit is
 * answered 413 in the service's error shape.
 */
/** A file part of a run-case update, read. */
export interface RunCaseFile {
  part: string;
  /** the index in the update's `test_run_cases` of the case it belongs to */
  caseIndex: number;
  fileName: string;
  mediaType: string;
  body: Buffer;
}

export const ATTACHMENT_LIMITS = { fileBytes: 10 * 1024 * 1024, totalBytes: 100 * 1024 * 1024, files: 1000 } as const;

/** The multipart parser's limit errors, which it gives the status 413 with a terse reason of its own. */
const COUNT_LIMITS: Record<string, string> = {
  FST_PARTS_LIMIT: `Too many parts in the multipart/form-data body: at most ${MULTIPART_LIMITS.parts} parts are accepted`,
  FST_FILES_LIMIT: `Too many files in the multipart/form-data body: at most ${MULTIPART_LIMITS.files} file parts are accepted`,
  FST_FIELDS_LIMIT: `Too many parts in the multipart/form-data body: at most ${MULTIPART_LIMITS.parts} parts that are not files are accepted`,
};

/**
 * The parts of a multipart body. The parser's own errors (a malformed part header, a body cut
 * short) are the client's fault: they become a 400, never a 500.
 */
export async function* multipartParts(
  req: FastifyRequest,
  options?: Parameters<FastifyRequest['parts']>[0],
): AsyncGenerator<Awaited<ReturnType<FastifyRequest['parts']>> extends AsyncIterable<infer P> ? P : never> {
  try {
    for await (const part of req.parts(options)) yield part;
  } catch (err) {
    const tooMany = COUNT_LIMITS[(err as { code?: string }).code ?? ''];
    // the count of parts is the problem, not the size: the generic 413 would say "too large"
    if (tooMany) throw new ServiceError(413, tooMany);
    const status = (err as { statusCode?: number }).statusCode;
    // ours, and the plugin's own 4xx (413 for a part over the limit): the error handler answers them
    if (err instanceof ServiceError || (status !== undefined && status >= 400 && status < 500)) throw err;
    throw new ServiceError(400, `Bad request: the multipart/form-data body could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
}
